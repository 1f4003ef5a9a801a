// An MP3 upload without its tags. MPEG audio has no container: tags sit around the frames, and a
// decoder finds the frames by their sync word, so each tag is emptied where it is and keeps its
// size (nothing moves, the stream's seek table in a Xing/LAME header stays right):
// - ID3v2 at the start (id3.org, ID3 tag version 2.2/2.3/2.4): the header stays, declaring the
//   same size, with no flags; the frames become padding, which the spec allows after the last
//   frame (zeros, so the first "frame id" read is the padding's). A v2.4 footer joins the padding.
// - ID3v1 in the last 128 bytes ("TAG" + title, artist, album, year, comment, genre), and the
//   "TAG+" extension before it: the fields are zeroed (genre 255: none).
// - APEv1/APEv2 before it or at the end (wiki.hydrogenaud.io, "APEv2 specification"): the items
//   are zeroed and the footer (and header) say 0 items. Only a footer whose items can be read
//   is believed (blankApe).
// - Lyrics3 v2.00 before ID3v1 or at the end (id3.org, "Lyrics3 v2.00 specification"): "LYRICSBEGIN",
//   fields (a 3-character id, a 5-digit decimal size, the value), the 6-digit size of both, "LYRICS200";
//   and Lyrics3 v1 ("LYRICSBEGIN", at most 5100 bytes of lyrics, "LYRICSEND"). Both are zeroed whole: a
//   decoder skips what is not a frame's sync word, and a zeroed region is no tag at all.
// - an ID3v2.4 tag appended at the end (id3.org, "ID3 tag version 2.4.0 - Main Structure" §3.4/§5),
//   found by its footer ("3DI"): zeroed whole, header and footer too, as a tag with a footer may have
//   no padding to turn its frames into.
//   APE, Lyrics3 and appended ID3v2 tags come in any order before ID3v1: each is looked for where the
//   last one found starts. They are looked for at the very end first, and ID3v1 only when none is
//   there: ID3v1 is known by "TAG" alone, which a tag's text may hold 128 bytes from the end, and
//   taking it first would overwrite that tag's end (its footer or size) and hide the whole tag, text
//   and all. The others need their exact markers and structure, which an ID3v1 tag never has.
// - a FLAC file behind an ID3v2 tag (which makes it an MP3 by its first bytes): its FLAC blocks
//   too (flac-metadata.ts), and no tag is looked for at its end.
import { sliceAccess, zeroFill, type RandomAccess } from './container-metadata';
import { blankFlacMetadata } from './flac-metadata';

const syncsafe = (bytes: Buffer, at: number): number | null => {
  const b = [...bytes.subarray(at, at + 4)];
  if (b.length < 4 || b.some((x) => x & 0x80)) return null;
  return (b[0]! << 21) | (b[1]! << 14) | (b[2]! << 7) | b[3]!;
};
const toSyncsafe = (n: number) => Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);

/** Empties the ID3v2 tags at the start (several may follow one another); returns how many, and
 * where what follows them starts. */
async function blankId3v2(file: RandomAccess): Promise<{ blanked: number; end: number }> {
  let blanked = 0;
  let at = 0;
  for (; at + 10 <= file.size; ) {
    const header = await file.read(at, 10);
    const size = syncsafe(header, 6);
    if (header.toString('latin1', 0, 3) !== 'ID3' || header[3]! < 2 || header[3]! > 4 || size === null) break;
    const footer = header[3] === 4 && (header[5]! & 0x10) !== 0 ? 10 : 0;
    const end = at + 10 + size + footer;
    if (end > file.size) break;
    // No flags (no unsynchronisation, extended header or footer), the same size in all.
    await file.write(at + 5, Buffer.concat([Buffer.from([0]), toSyncsafe(size + footer)]));
    await zeroFill(file, at + 10, end);
    blanked++;
    at = end;
  }
  return { blanked, end: at };
}

/** Empties the ID3v1 tag (and its TAG+ extension) at the end; returns where the audio (or the
 * tags before it) ends, and whether there was one. */
async function blankId3v1(file: RandomAccess): Promise<{ end: number; blanked: number }> {
  if (file.size < 128 || (await file.read(file.size - 128, 3)).toString('latin1') !== 'TAG') return { end: file.size, blanked: 0 };
  await file.write(file.size - 128, Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.alloc(124), Buffer.from([0xff])]));
  const extended = file.size - 128 - 227;
  if (extended >= 0 && (await file.read(extended, 4)).toString('latin1') === 'TAG+') {
    await zeroFill(file, extended + 4, extended + 227);
    return { end: extended, blanked: 1 };
  }
  return { end: file.size - 128, blanked: 1 };
}

/** Bit rates in kbit/s by bit-rate index (ISO/IEC 11172-3 §2.4.2.3; ISO/IEC 13818-3 for MPEG-2
 * and 2.5): MPEG-1 layers I, II, III, then MPEG-2/2.5 layer I, and layers II and III. */
const BIT_RATES = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES = [44100, 48000, 32000];

/** The length of the MPEG audio frame whose 4-byte header starts `bytes`; 0 if it is not one. */
function frameLength(bytes: Buffer): number {
  if (bytes.length < 4 || bytes[0] !== 0xff || (bytes[1]! & 0xe0) !== 0xe0) return 0;
  const version = (bytes[1]! >> 3) & 3; // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layer = 4 - ((bytes[1]! >> 1) & 3); // 4: reserved
  const rateIndex = bytes[2]! >> 4;
  const sampleIndex = (bytes[2]! >> 2) & 3;
  if (version === 1 || layer === 4 || rateIndex === 0 || rateIndex === 15 || sampleIndex === 3) return 0;
  const bitRate = 1000 * BIT_RATES[version === 3 ? layer - 1 : layer === 1 ? 3 : 4]![rateIndex]!;
  const sampleRate = SAMPLE_RATES[sampleIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4);
  const padding = (bytes[2]! >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitRate) / sampleRate) + padding) * 4;
  return Math.floor(((layer === 3 && version !== 3 ? 72 : 144) * bitRate) / sampleRate) + padding;
}

/** No APE tag is believed larger: a cover or two. Past it, a footer is more likely damaged than
 * the tag that large, and it is left as it is (as a tag running past the file is). */
const MAX_APE_BYTES = 16 * 1024 * 1024;

/** Whether `items` are exactly `count` APE items (APEv2 specification: a 32-bit value size, 32-bit
 * flags, a key of 2 to 255 ASCII characters 0x20–0x7E ended by a NUL, the value). */
function areApeItems(items: Buffer, count: number): boolean {
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 8 > items.length) return false;
    const valueSize = items.readUInt32LE(at);
    const keyEnd = items.indexOf(0, at + 8);
    if (keyEnd < at + 10 || keyEnd > at + 8 + 255) return false;
    for (let k = at + 8; k < keyEnd; k++) if (items[k]! < 0x20 || items[k]! > 0x7e) return false;
    at = keyEnd + 1 + valueSize;
  }
  return at === items.length;
}

/**
 * Empties the APE tag whose footer ends at `end`; returns where the tag starts (its header, when
 * it has one), or null if there is none. A footer is only believed when its tag lies after
 * `audioStart` (the ID3v2 tags and the first frame: a tag reaching into them is a damaged footer),
 * is at most MAX_APE_BYTES, and its items are exactly as many as it says and fill it; otherwise
 * nothing is touched: zeroing what a damaged footer claims would zero the sound.
 */
async function blankApe(file: RandomAccess, end: number, audioStart: number): Promise<number | null> {
  if (end < 32) return null;
  const footer = await file.read(end - 32, 32);
  if (footer.toString('latin1', 0, 8) !== 'APETAGEX') return null;
  const tagSize = footer.readUInt32LE(12); // the items and the footer
  const hasHeader = (footer.readUInt32LE(20) & 0x80000000) !== 0;
  const itemsStart = end - tagSize;
  if (tagSize < 32 || tagSize > MAX_APE_BYTES || itemsStart - (hasHeader ? 32 : 0) < audioStart) return null;
  if (!areApeItems(await file.read(itemsStart, tagSize - 32), footer.readUInt32LE(16))) return null;
  await zeroFill(file, itemsStart, end - 32);
  await file.write(end - 32 + 16, Buffer.alloc(4)); // item count
  // A header the flags promise but that is not there is not part of the tag: what is before the
  // items may be another tag's end.
  if (!hasHeader || (await file.read(itemsStart - 32, 8)).toString('latin1') !== 'APETAGEX') return itemsStart;
  await file.write(itemsStart - 32 + 16, Buffer.alloc(4));
  return itemsStart - 32;
}

/**
 * Empties the Lyrics3 v2.00 tag ending at `end` (see above); returns where it starts, or null if
 * there is none. As with APE, the tag is only believed when its size is 6 digits, it starts after
 * `audioStart` with "LYRICSBEGIN", and its fields (an id of 3 uppercase letters or digits, a
 * 5-digit size, the value) fill it exactly: audio that happens to end in "LYRICS200" stays sound.
 */
async function blankLyrics3v2(file: RandomAccess, end: number, audioStart: number): Promise<number | null> {
  if (end < 15) return null;
  const trailer = (await file.read(end - 15, 15)).toString('latin1');
  if (trailer.slice(6) !== 'LYRICS200' || !/^\d{6}$/.test(trailer.slice(0, 6))) return null;
  const size = Number(trailer.slice(0, 6)); // from "LYRICSBEGIN" to the last field's end
  const start = end - 15 - size;
  if (size < 11 || start < audioStart) return null;
  const tag = (await file.read(start, size)).toString('latin1'); // one character a byte
  if (!tag.startsWith('LYRICSBEGIN')) return null;
  let at = 11;
  while (at < size) {
    if (!/^[A-Z0-9]{3}\d{5}$/.test(tag.slice(at, at + 8))) return null;
    at += 8 + Number(tag.slice(at + 3, at + 8));
  }
  if (at !== size) return null;
  await zeroFill(file, start, end);
  return start;
}

/** The most lyrics a Lyrics3 v1 tag holds (id3.org, "Lyrics3"), hence how far back its
 * "LYRICSBEGIN" is looked for. */
const MAX_LYRICS3V1_BYTES = 5100;

/**
 * Empties the Lyrics3 v1 tag ending at `end`: "LYRICSEND" there, and the last "LYRICSBEGIN" before
 * it within the longest tag and after `audioStart`; returns where it starts, or null if there is
 * none. Version 1 has no size to check, so only that span is searched.
 * Lyrics that hold "LYRICSBEGIN" themselves keep what comes before it: the last one errs toward keeping audio.
 */
async function blankLyrics3v1(file: RandomAccess, end: number, audioStart: number): Promise<number | null> {
  if (end < 20 || (await file.read(end - 9, 9)).toString('latin1') !== 'LYRICSEND') return null;
  const from = Math.max(audioStart, end - 9 - MAX_LYRICS3V1_BYTES - 11);
  if (end - 9 - from < 11) return null;
  const at = (await file.read(from, end - 9 - from)).lastIndexOf(Buffer.from('LYRICSBEGIN', 'latin1'));
  if (at < 0) return null;
  await zeroFill(file, from + at, end);
  return from + at;
}

/**
 * Empties the ID3v2.4 tag whose footer ends at `end` (a tag appended to the file, found from its
 * end); returns where it starts, or null if there is none. The footer is believed when its tag
 * starts after `audioStart` with a header it copies ("ID3" instead of "3DI", the same version,
 * flags and size), so a tag whose size does not fit is left as it is.
 */
async function blankAppendedId3v2(file: RandomAccess, end: number, audioStart: number): Promise<number | null> {
  if (end < 20) return null;
  const footer = await file.read(end - 10, 10);
  const size = syncsafe(footer, 6);
  if (footer.toString('latin1', 0, 3) !== '3DI' || footer[3] !== 4 || (footer[5]! & 0x10) === 0 || size === null) return null;
  const start = end - 10 - size - 10;
  if (start < audioStart) return null;
  const header = await file.read(start, 10);
  if (header.toString('latin1', 0, 3) !== 'ID3' || !header.subarray(3).equals(footer.subarray(3))) return null;
  await zeroFill(file, start, end);
  return start;
}

/** The tags looked for at the end and before ID3v1, each given where the last one found starts. */
const END_TAGS = [blankApe, blankLyrics3v2, blankLyrics3v1, blankAppendedId3v2];
/** More tags than a file is seen to end with (an APE, a Lyrics3 and an ID3v2 tag at most, in some
 * order); the walk stops there rather than trust an end that keeps yielding tags. */
const MAX_END_TAGS = 8;

/** Empties the END_TAGS that end at `end`, one before another, back to the first that is none of
 * them; returns how many. */
async function blankEndTags(file: RandomAccess, end: number, audioStart: number): Promise<number> {
  let found = 0;
  for (; found < MAX_END_TAGS; found++) {
    let tagStart: number | null = null;
    for (const blank of END_TAGS) if ((tagStart = await blank(file, end, audioStart)) !== null) break;
    if (tagStart === null) break;
    end = tagStart;
  }
  return found;
}

/**
 * Empties the tags of an MP3 file in place (see above). Returns how many were emptied. A tag
 * whose declared size runs past the end of the file is left as it is, and so is anything after
 * it, as blankMp4Metadata does with a box it cannot follow.
 */
export async function blankMp3Metadata(file: RandomAccess): Promise<number> {
  const start = await blankId3v2(file);
  // Some taggers put an ID3v2 tag before a FLAC file; by its first bytes it is then an MP3
  // (sniff.ts), and its own tags are FLAC blocks.
  if (start.blanked > 0 && (await file.read(start.end, 4)).toString('latin1') === 'fLaC') {
    return start.blanked + (await blankFlacMetadata(sliceAccess(file, start.end, file.size)));
  }
  const audioStart = start.end + frameLength(await file.read(start.end, 4));
  // The tags checked by their footers first, from the very end: "TAG" 128 bytes from the end may
  // be their text, and ID3v1 is only taken (and the walk resumed before it) when none ends there.
  const atEnd = await blankEndTags(file, file.size, audioStart);
  if (atEnd > 0) return start.blanked + atEnd;
  const v1 = await blankId3v1(file);
  if (v1.blanked === 0) return start.blanked;
  return start.blanked + v1.blanked + (await blankEndTags(file, v1.end, audioStart));
}
