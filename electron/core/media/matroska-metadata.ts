// A WebM/Matroska upload without its metadata. Matroska is EBML (RFC 8794; the elements are
// RFC 9559's): every element is an id, a size and its data, and a reader skips a Void element
// (0xEC) as it skips anything it does not need. So, in place:
// - Tags (title, artist, encoder, LOCATION, RECORDING_LOCATION, …) and Attachments (cover art,
//   any file) become Void elements of the same total size, zero-filled;
// - in Info, Title and DateUTC become Void; MuxingApp and WritingApp, which must be present,
//   keep their element and lose their text (zeros: RFC 8794's terminating Null octets, which it
//   allows for overwriting a value in place);
// - in Tracks, each track's Name becomes Void (as an MP4 track's udta name does); a Vorbis,
//   Theora or FLAC track's CodecPrivate holds the codec's own headers, and in a file remuxed
//   from Ogg or FLAC the source's tags and pictures: they are emptied as in an Ogg or FLAC file;
// - SeekHead entries pointing at Tags or Attachments become Void, so no reader looks for them;
// - a CRC-32 element of a master element whose children changed becomes Void (it is optional,
//   and would no longer match).
// Nothing moves: Cues and SeekHead positions stay right. Known-size Clusters are skipped whole;
// the unknown-size ones a live recorder (MediaRecorder) writes are walked block by block to find
// where they end. An element that runs past its parent or cannot be read stops the walk there,
// leaving the rest as it is, as blankMp4Metadata does; so does reading more than MAX_ELEMENTS
// elements.
import { sliceAccess, zeroFill, type RandomAccess } from './container-metadata';
import { blankFlacMetadata } from './flac-metadata';
import { xiphCommentHeader } from './ogg-metadata';

const EBML = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const SEEK_HEAD = 0x114d9b74;
const SEEK = 0x4dbb;
const SEEK_ID = 0x53ab;
const INFO = 0x1549a966;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const CLUSTER = 0x1f43b675;
const TAGS = 0x1254c367;
const ATTACHMENTS = 0x1941a469;
const CRC_32 = 0xbf;
const VOID = 0xec;
/** Segment's children: where an unknown-size Cluster ends. */
const SEGMENT_CHILDREN = new Set([SEEK_HEAD, INFO, TRACKS, CLUSTER, 0x1c53bb6b, 0x1043a770, TAGS, ATTACHMENTS, EBML, SEGMENT]);
const VOIDED_IN_INFO = new Set([0x7ba9, 0x4461]); // Title, DateUTC
const EMPTIED_IN_INFO = new Set([0x4d80, 0x5741]); // MuxingApp, WritingApp
const TRACK_NAME = 0x536e;
const CODEC_ID = 0x86;
const CODEC_PRIVATE = 0x63a2;
/** How much of a Xiph lacing is read at a time. */
const LACING_PIECE = 4096;
/** More elements than a file's walk reads: the headers, and the blocks of the unknown-size
 * Clusters a live recorder writes, one per frame (MediaRecorder's Opus, a frame per 20 ms: some
 * 500,000 in 40 MiB at 32 kbit/s; known-size Clusters are one element each). A file of far more,
 * say 20 million empty 2-byte blocks in 38 MiB, cost 9.7 s of walking for nothing (0.6 s with
 * the cap, measured): past this many it is taken for a structure the walk cannot follow, as
 * MP4's MAX_BOXES. */
const MAX_ELEMENTS = 1_000_000;

/** How many more elements the walk of one file may read (MAX_ELEMENTS at its start). */
interface Budget {
  elements: number;
}

interface Element {
  id: number;
  start: number;
  dataStart: number;
  /** null: an unknown size (it runs until an element that cannot be its child). */
  end: number | null;
}

/** A variable-length integer (RFC 8794 §4): its length in bytes, and its value with or without
 * the length marker (ids keep it). */
function vint(bytes: Buffer, at: number, maxLength: number): { length: number; marked: number; value: number; allOnes: boolean } | null {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > maxLength || at + length > bytes.length) return null;
  let value = first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i]!;
    allOnes &&= bytes[at + i] === 0xff;
  }
  return { length, marked: value + (0x80 >> (length - 1)) * 256 ** (length - 1), value, allOnes };
}

/** The element at `at`, if it can be read, ends within `parentEnd`, and the budget allows one
 * more (each read spends one: once it is spent, no element can be read and every walk stops). */
async function readElement(file: RandomAccess, at: number, parentEnd: number, budget: Budget): Promise<Element | null> {
  if (budget.elements <= 0) return null;
  budget.elements--;
  const bytes = await file.read(at, 12);
  const id = vint(bytes, 0, 4);
  const size = id && vint(bytes, id.length, 8);
  if (!id || !size) return null;
  const dataStart = at + id.length + size.length;
  if (size.allOnes) return { id: id.marked, start: at, dataStart, end: null };
  const end = dataStart + size.value;
  return end > parentEnd ? null : { id: id.marked, start: at, dataStart, end };
}

/** The element becomes a Void element of the same total size (at least 2 bytes: any element). */
async function toVoid(file: RandomAccess, element: { start: number; end: number }): Promise<void> {
  const total = element.end - element.start;
  const sizeLength = Math.min(8, total - 1);
  const header = Buffer.alloc(1 + sizeLength);
  header[0] = VOID;
  let size = total - 1 - sizeLength;
  for (let i = sizeLength; i >= 1; i--, size = Math.floor(size / 256)) header[i] = size % 256;
  header[1]! |= 0x80 >> (sizeLength - 1);
  await file.write(element.start, header);
  await zeroFill(file, element.start + header.length, element.end);
}

/** Visits the children of a known-size master element; voids its CRC-32 if one changed. Returns
 * whether any did, or null if they could not be followed (those before were visited). */
async function editChildren(file: RandomAccess, budget: Budget, master: Element & { end: number }, visit: (child: Element & { end: number }) => Promise<boolean>): Promise<boolean | null> {
  let changed = false;
  let crc: (Element & { end: number }) | null = null;
  let followed = true;
  for (let at = master.dataStart; at < master.end; ) {
    const child = await readElement(file, at, master.end, budget);
    if (!child || child.end === null) {
      followed = false;
      break;
    }
    const known = { ...child, end: child.end };
    if (child.id === CRC_32) crc = known;
    else if (await visit(known)) changed = true;
    at = child.end;
  }
  if (changed && crc) await toVoid(file, crc);
  return followed ? changed : null;
}

/**
 * Empties the comment header in a Vorbis or Theora track's CodecPrivate, which holds the three
 * header packets Xiph-laced (Matroska's codec mappings; the lacing as RFC 9559's): the number
 * of packets less one (2), the sizes of the first two (each a run of 255s and a byte under 255),
 * then identification, comment and setup. A file remuxed from Ogg carries the source's tags
 * there. The packet keeps its length, as in an Ogg file (ogg-metadata.ts).
 */
async function blankXiphComment(file: RandomAccess, codecPrivate: Element & { end: number }, codec: 'vorbis' | 'theora'): Promise<boolean> {
  // The lacing is read a piece at a time, not a byte per read: a damaged one can be megabytes of
  // 255s (39 MiB of them took 9 s one byte per read). A size already past the CodecPrivate ends
  // it, which also bounds the walk to the first CodecPrivate/255 bytes.
  let at = codecPrivate.dataStart;
  let piece: Buffer = Buffer.alloc(0);
  let pieceStart = at;
  const byte = async (): Promise<number | undefined> => {
    if (at >= codecPrivate.end) return undefined;
    if (at >= pieceStart + piece.length) {
      piece = await file.read(at, Math.min(LACING_PIECE, codecPrivate.end - at));
      pieceStart = at;
    }
    return piece[at++ - pieceStart];
  };
  if ((await byte()) !== 2) return false;
  const sizes: number[] = [];
  for (let packet = 0; packet < 2; packet++) {
    let size = 0;
    for (let b = await byte(); ; b = await byte()) {
      if (b === undefined) return false;
      size += b;
      if ((sizes[0] ?? 0) + size > codecPrivate.end - at) return false;
      if (b < 255) break;
    }
    sizes.push(size);
  }
  const start = at + sizes[0]!;
  const end = start + sizes[1]!;
  const { prefix, empty } = xiphCommentHeader(codec);
  if (end > codecPrivate.end || sizes[1]! < empty.length || (await file.read(start, prefix.length)).toString('latin1') !== prefix) return false;
  await file.write(start, empty);
  await zeroFill(file, start + empty.length, end);
  return true;
}

/** Empties a track's metadata: its Name, and the tags a Vorbis, Theora or FLAC track keeps in
 * its CodecPrivate (FLAC's: "fLaC" and its metadata blocks, flac-metadata.ts). */
async function blankTrackEntry(file: RandomAccess, budget: Budget, entry: Element & { end: number }, blank: (element: Element & { end: number }) => Promise<boolean>, emptied: () => void): Promise<boolean> {
  let codec = '';
  const first = await editChildren(file, budget, entry, async (child) => {
    if (child.id === CODEC_ID) codec = (await file.read(child.dataStart, Math.min(64, child.end - child.dataStart))).toString('latin1').replace(/\0+$/, '');
    return false;
  });
  if (first === null) return false;
  return (
    (await editChildren(file, budget, entry, async (child) => {
      if (child.id === TRACK_NAME) return blank(child);
      if (child.id !== CODEC_PRIVATE) return false;
      let changed = false;
      if (codec === 'A_VORBIS' || codec === 'V_THEORA') changed = await blankXiphComment(file, child, codec === 'A_VORBIS' ? 'vorbis' : 'theora');
      else if (codec === 'A_FLAC') changed = (await blankFlacMetadata(sliceAccess(file, child.dataStart, child.end))) > 0;
      if (changed) emptied();
      return changed;
    })) ?? false
  );
}

/** Where an unknown-size Cluster starting its data at `at` ends: at the next element that is
 * one of Segment's. null if its blocks cannot be followed. */
async function clusterEnd(file: RandomAccess, budget: Budget, at: number, segmentEnd: number): Promise<number | null> {
  while (at < segmentEnd) {
    const child = await readElement(file, at, segmentEnd, budget);
    if (!child) return null;
    if (SEGMENT_CHILDREN.has(child.id)) return at;
    if (child.end === null) return null;
    at = child.end;
  }
  return segmentEnd;
}

/** Blanks the metadata of a WebM/Matroska file in place (see above). Returns how many elements
 * were voided or emptied. A walk past MAX_ELEMENTS element reads stops at the one past them,
 * what came before blanked and the rest left as it is. */
export async function blankMatroskaMetadata(file: RandomAccess): Promise<number> {
  let blanked = 0;
  const budget: Budget = { elements: MAX_ELEMENTS };
  const blank = async (element: { start: number; end: number }) => {
    await toVoid(file, element);
    blanked++;
    return true;
  };
  const seekTarget = async (seek: Element & { end: number }): Promise<number | null> => {
    let target: number | null = null;
    await editChildren(file, budget, seek, async (child) => {
      if (child.id === SEEK_ID) target = vint(await file.read(child.dataStart, Math.min(4, child.end - child.dataStart)), 0, 4)?.marked ?? null;
      return false;
    });
    return target;
  };
  async function walkSegment(start: number, end: number): Promise<void> {
    for (let at = start; at < end; ) {
      const element = await readElement(file, at, end, budget);
      if (!element) return;
      if (element.end === null) {
        const next = element.id === CLUSTER ? await clusterEnd(file, budget, element.dataStart, end) : null;
        if (next === null) return;
        at = next;
        continue;
      }
      const known = { ...element, end: element.end };
      let followed: boolean | null = true;
      if (element.id === TAGS || element.id === ATTACHMENTS) await blank(known);
      else if (element.id === INFO) {
        followed = await editChildren(file, budget, known, async (child) => {
          if (VOIDED_IN_INFO.has(child.id)) return blank(child);
          if (!EMPTIED_IN_INFO.has(child.id)) return false;
          await zeroFill(file, child.dataStart, child.end);
          blanked++;
          return true;
        });
      } else if (element.id === TRACKS) {
        followed = await editChildren(file, budget, known, async (entry) => {
          if (entry.id !== TRACK_ENTRY) return false;
          return blankTrackEntry(file, budget, entry, blank, () => blanked++);
        });
      } else if (element.id === SEEK_HEAD) {
        followed = await editChildren(file, budget, known, async (seek) => {
          const target = seek.id === SEEK ? await seekTarget(seek) : null;
          return (target === TAGS || target === ATTACHMENTS) && blank(seek);
        });
      }
      if (followed === null) return;
      at = element.end;
    }
  }
  // The file: an EBML header, then a Segment (or more, one after another).
  for (let at = 0; at < file.size; ) {
    const element = await readElement(file, at, file.size, budget);
    if (!element || (element.end === null && element.id !== SEGMENT)) return blanked;
    if (at === 0 && element.id !== EBML) return blanked;
    const end = element.end ?? file.size;
    if (element.id === SEGMENT) await walkSegment(element.dataStart, end);
    at = end;
  }
  return blanked;
}
