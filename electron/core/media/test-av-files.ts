// Pieces of audio and video files for the container metadata tests, built on the spot (nothing
// binary in the repository): Vorbis comments, Ogg pages, EBML elements. Not imported by
// production code.
import type { RandomAccess } from './container-metadata';

/** `bytes` as a file that hands out copies, as a disk does (bufferAccess hands out views), and
 * counts the reads and writes it is asked for. */
export function countedFile(bytes: Buffer): RandomAccess & { reads: number; writes: number } {
  const file = {
    size: bytes.length,
    reads: 0,
    writes: 0,
    read: async (offset: number, length: number) => {
      file.reads++;
      return Buffer.from(bytes.subarray(offset, Math.min(bytes.length, offset + length)));
    },
    write: async (offset: number, data: Buffer) => {
      file.writes++;
      data.copy(bytes, offset);
    },
  };
  return file;
}

/** A Vorbis comment (Vorbis I spec §5.2.1, RFC 9639 §8.6): vendor and comments, each a 32-bit
 * little-endian length and UTF-8, the comments counted first. No framing bit. */
export function vorbisComment(vendor: string, comments: readonly string[]): Buffer {
  const string = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const count = Buffer.alloc(4);
  count.writeUInt32LE(comments.length);
  return Buffer.concat([string(vendor), count, ...comments.map(string)]);
}

/** Ogg's CRC (RFC 3533 §6) bit by bit, apart from the table the code under test uses. */
export function oggCrc(page: Buffer): number {
  let r = 0;
  for (const byte of page) {
    r ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) r = (r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1) >>> 0;
  }
  return r >>> 0;
}

/** The pages of one logical stream (RFC 3533 §6): the first packet alone on the beginning-of-stream
 * page, then packets laced into pages of at most `maxSegments` segments of up to 255 bytes. */
export function oggPages(serial: number, packets: Buffer[], maxSegments = 255): Buffer[] {
  const segments: { data: Buffer; packet: number }[] = [];
  packets.forEach((packet, i) => {
    for (let at = 0; ; at += 255) {
      const data = packet.subarray(at, at + 255);
      segments.push({ data, packet: i });
      if (data.length < 255) break;
    }
  });
  const pages: Buffer[] = [];
  let continued = false;
  for (let i = 0, sequence = 0; i < segments.length; sequence++) {
    const firstOfSecond = segments.findIndex((s) => s.packet === 1);
    const limit = sequence === 0 && firstOfSecond > 0 ? firstOfSecond : segments.length;
    const chosen = segments.slice(i, Math.min(limit, i + maxSegments));
    i += chosen.length;
    const header = Buffer.alloc(27);
    header.write('OggS', 0, 'latin1');
    header[5] = (continued ? 1 : 0) | (sequence === 0 ? 2 : 0) | (i === segments.length ? 4 : 0);
    header.writeUInt32LE(serial, 14);
    header.writeUInt32LE(sequence, 18);
    header[26] = chosen.length;
    const page = Buffer.concat([header, Buffer.from(chosen.map((s) => s.data.length)), ...chosen.map((s) => s.data)]);
    page.writeUInt32LE(oggCrc(page), 22);
    pages.push(page);
    continued = chosen.at(-1)!.data.length === 255;
  }
  return pages;
}

/** An EBML element (RFC 8794 §6): id (with its marker), size as a minimal vint, data. `size:
 * 'unknown'` writes the 8-byte unknown size a live recorder writes for Segment and Cluster. */
export function ebmlElement(id: number, data: Buffer | Buffer[] | string, size?: 'unknown'): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.isBuffer(data) ? data : Buffer.concat(data);
  const idBytes = Buffer.from(id.toString(16).padStart(2 * Math.ceil(id.toString(16).length / 2), '0'), 'hex');
  let sizeBytes: Buffer;
  if (size === 'unknown') sizeBytes = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  else {
    const length = Math.max(1, Math.ceil(Math.log2(body.length + 2) / 7));
    sizeBytes = Buffer.alloc(length);
    for (let i = length - 1, v = body.length; i >= 0; i--, v = Math.floor(v / 256)) sizeBytes[i] = v % 256;
    sizeBytes[0]! |= 0x80 >> (length - 1);
  }
  return Buffer.concat([idBytes, sizeBytes, body]);
}
