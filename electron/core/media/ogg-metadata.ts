// An Ogg upload without its comment headers. Ogg (RFC 3533) carries each stream's tags in a
// header packet: Vorbis' comment header ("\x03vorbis", Vorbis I spec §5), Opus' OpusTags
// (RFC 7845 §5.2), Theora's ("\x81theora"), Speex's second packet, and Ogg FLAC's
// VORBIS_COMMENT and PICTURE metadata blocks (one packet each). Title, artist, the recorder,
// LOCATION, cover art (METADATA_BLOCK_PICTURE) all live there.
//
// The packet keeps its length, so every page keeps its segment table and nothing moves: its
// bytes become an empty comment header (no vendor, no comments; Vorbis' framing bit set)
// followed by zeros — RFC 7845 allows padding after the comment list, and libvorbis stops
// reading at the framing bit (oggdec, opusdec and speexdec decode such files; Theora's reader
// was not tried with a decoder) — or, for FLAC, a PADDING block of the same length. Each page
// the packet lies on gets its CRC computed again. All pages are walked (a chained file starts
// a new link, with its own headers, anywhere), reading only their headers; a page or packet it
// cannot follow stops the walk there, leaving the rest as it is, as blankMp4Metadata does.
import { type RandomAccess } from './container-metadata';

/** Ogg's CRC-32: polynomial 0x04c11db7, not reflected, starting from 0 (RFC 3533 §6). */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, i) => {
  let r = i << 24;
  for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r >>> 0;
});
/** The CRC of a page, its CRC field (bytes 22–25) counted as zeros. */
export function oggPageCrc(page: Buffer): number {
  let crc = 0;
  for (let i = 0; i < page.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ (i >= 22 && i < 26 ? 0 : page[i]!)) & 0xff]!) >>> 0;
  return crc;
}

/** Where a run of a packet's bytes is in the file, and the page holding it. */
interface Piece {
  page: number;
  pageEnd: number;
  at: number;
  length: number;
}
type Codec = 'vorbis' | 'opus' | 'theora' | 'speex' | 'flac';
interface Stream {
  codec: Codec | null;
  /** The index of the packet being gathered. */
  packet: number;
  pieces: Piece[];
  done: boolean;
}

/** The first bytes of each codec's identification packet, and of its comment packet. */
const CODECS: readonly [Codec, string, string][] = [
  ['vorbis', '\x01vorbis', '\x03vorbis'],
  ['opus', 'OpusHead', 'OpusTags'],
  ['theora', '\x80theora', '\x81theora'],
  ['speex', 'Speex   ', ''],
  ['flac', '\x7fFLAC', ''],
];
const FLAC_PADDING = 1;
/** Pages rewritten before the event loop gets a turn (rewritePacket). */
const YIELD_EVERY_PAGES = 16;
/** Streams begun and not yet done at once. A file multiplexes a few (video, audio, a skeleton);
 * past this many it is not one the walk can follow, and the walk stops there, leaving the rest
 * as it is, as with a page it cannot read: the map of streams stays small whatever the file. */
const MAX_STREAMS = 64;
const FLAC_BLANKED = new Set([2, 4, 6]); // APPLICATION, VORBIS_COMMENT, PICTURE (flac-metadata.ts)

async function readPacket(file: RandomAccess, pieces: readonly Piece[], length: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let have = 0;
  for (const piece of pieces) {
    if (have >= length) break;
    const part = await file.read(piece.at, Math.min(piece.length, length - have));
    parts.push(part);
    have += part.length;
  }
  return Buffer.concat(parts);
}

/** Writes `head` then zeros over the whole packet, each page once, with its CRC computed again.
 * (A packet's pieces are in page order, one a page: the segments of a page lie end to end.) */
async function rewritePacket(file: RandomAccess, pieces: readonly Piece[], head: Buffer): Promise<void> {
  let offset = 0;
  for (const [i, piece] of pieces.entries()) {
    // Over a buffer every read and write is answered at once: a 39 MiB packet (629 pages, a CRC
    // each) held the event loop 187 ms. A turn every few pages (about 1 MiB) keeps it short.
    if (i % YIELD_EVERY_PAGES === YIELD_EVERY_PAGES - 1) await new Promise(setImmediate);
    const page = Buffer.from(await file.read(piece.page, piece.pageEnd - piece.page));
    const at = piece.at - piece.page;
    page.fill(0, at, at + piece.length);
    if (offset < head.length) head.copy(page, at, offset, Math.min(head.length, offset + piece.length));
    page.writeUInt32LE(oggPageCrc(page), 22);
    await file.write(piece.page, page);
    offset += piece.length;
  }
}

/** An empty comment header in the shape of `prefix`'s codec: no vendor, no comments. */
const emptyComments = (codec: Codec, prefix: string) =>
  Buffer.concat([Buffer.from(prefix, 'latin1'), Buffer.alloc(8), codec === 'vorbis' ? Buffer.from([1]) : Buffer.alloc(0)]);

/** The first bytes of a Vorbis or Theora comment header, and an empty one (no vendor, no
 * comments), which the same decoders read when it is followed by zeros. Matroska carries these
 * headers in a track's CodecPrivate (matroska-metadata.ts). */
export function xiphCommentHeader(codec: 'vorbis' | 'theora'): { prefix: string; empty: Buffer } {
  const prefix = CODECS.find(([c]) => c === codec)![2];
  return { prefix, empty: emptyComments(codec, prefix) };
}

/** Handles a stream's complete packet; returns whether it was blanked. */
async function onPacket(file: RandomAccess, stream: Stream): Promise<boolean> {
  const length = stream.pieces.reduce((n, p) => n + p.length, 0);
  if (stream.packet === 0) {
    const first = (await readPacket(file, stream.pieces, 8)).toString('latin1');
    stream.codec = CODECS.find(([, id]) => first.startsWith(id))?.[0] ?? null;
    stream.done = stream.codec === null; // a stream Tern knows no tags of (Skeleton, Dirac, …)
    return false;
  }
  if (stream.codec === 'flac') {
    const header = await readPacket(file, stream.pieces, 4);
    const last = header.length < 4 || (header[0]! & 0x80) !== 0;
    stream.done = last;
    if (header.length < 4) return false;
    if (!FLAC_BLANKED.has(header[0]! & 0x7f)) return false;
    await rewritePacket(file, stream.pieces, Buffer.concat([Buffer.from([(last ? 0x80 : 0) | FLAC_PADDING]), header.subarray(1, 4)]));
    return true;
  }
  // Vorbis, Opus, Theora and Speex: the second packet is the comment header.
  stream.done = true;
  const prefix = CODECS.find(([codec]) => codec === stream.codec)![2];
  const empty = emptyComments(stream.codec!, prefix);
  const head = await readPacket(file, stream.pieces, prefix.length);
  if (head.toString('latin1') !== prefix || length < empty.length) return false;
  await rewritePacket(file, stream.pieces, empty);
  return true;
}

/** Blanks the comment headers of an Ogg file in place (see above). Returns how many. */
export async function blankOggMetadata(file: RandomAccess): Promise<number> {
  let blanked = 0;
  const streams = new Map<number, Stream>();
  for (let page = 0; page + 27 <= file.size; ) {
    const head = await file.read(page, 27 + 255);
    if (head.toString('latin1', 0, 4) !== 'OggS' || head[4] !== 0) return blanked;
    const lacing = head.subarray(27, 27 + head[26]!);
    if (lacing.length < head[26]!) return blanked;
    const flags = head[5]!;
    const pageEnd = page + 27 + lacing.length + lacing.reduce((n, s) => n + s, 0);
    if (pageEnd > file.size) return blanked;
    const serial = head.readUInt32LE(14);
    if (flags & 2) {
      // The beginning of a stream.
      if (!streams.has(serial) && streams.size >= MAX_STREAMS) return blanked;
      streams.set(serial, { codec: null, packet: 0, pieces: [], done: false });
    }
    const stream = streams.get(serial);
    // A page not continuing a packet while one is half gathered: the stream cannot be followed.
    if (stream && !(flags & 1) && stream.pieces.length > 0) stream.done = true;
    let at = page + 27 + lacing.length;
    for (const segment of lacing) {
      if (!stream || stream.done) break;
      const last = stream.pieces.at(-1);
      if (last?.page === page) last.length += segment; // the segments of a page lie end to end
      else if (segment > 0) stream.pieces.push({ page, pageEnd, at, length: segment });
      at += segment;
      // A segment shorter than 255 ends its packet (RFC 3533 §5).
      if (segment < 255) {
        if (await onPacket(file, stream)) blanked++;
        stream.pieces = [];
        stream.packet++;
      }
    }
    // A stream done with, or ended (end of stream), is forgotten: its later pages are skipped,
    // as they were when it was kept done.
    if (stream && (stream.done || flags & 4)) streams.delete(serial);
    page = pageEnd;
  }
  return blanked;
}
