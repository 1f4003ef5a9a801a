// Where a phone writes the place a photo or video was taken, in the files the image pipeline
// does not re-encode (image.ts, store.ts):
// - MP4/MOV (ISO BMFF, QuickTime): moov/udta (©xyz, "+48.8584+002.2945/") and moov/meta (Apple's
//   com.apple.quicktime.location.ISO6709), also per track, a meta box at the top of the file
//   (ISO/IEC 14496-12 §8.11.1 allows one there: XMP in an `xml ` box), and XMP in a uuid box.
//   An M4A's iTunes tags (moov/udta/meta/ilst: title, artist, cover) go with udta. Each is blanked
//   in place: the box becomes a `free` box of the same size, filled with zeros, so no offset in
//   the file moves (the chunk offsets of stco/co64 stay right) and players skip it as they skip
//   any free box. No re-muxing, no ffmpeg.
// - GIF: application extensions other than the looping one (XMP DataXMP, …) and comments are left
//   out; the frames and their timing are copied byte for byte.
// The other audio and video containers have their own files, each blanking in place in the same
// way: flac-, mp3-, ogg-, wav- and matroska-metadata.ts.
import type { FileHandle } from 'node:fs/promises';

/** Reads and writes a file or a buffer at offsets. */
export interface RandomAccess {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
  write(offset: number, data: Buffer): Promise<void>;
}

export function bufferAccess(bytes: Buffer): RandomAccess {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)),
    write: async (offset, data) => void data.copy(bytes, offset),
  };
}

export async function fileAccess(handle: FileHandle): Promise<RandomAccess> {
  const { size } = await handle.stat();
  return {
    size,
    read: async (offset, length) => {
      const out = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      const { bytesRead } = await handle.read(out, 0, out.length, offset);
      return out.subarray(0, bytesRead);
    },
    write: async (offset, data) => void (await handle.write(data, 0, data.length, offset)),
  };
}

/** The bytes [from, to) of `file`, as a file of their own (a FLAC header inside a Matroska track). */
export function sliceAccess(file: RandomAccess, from: number, to: number): RandomAccess {
  return {
    size: to - from,
    read: (offset, length) => file.read(from + offset, Math.max(0, Math.min(length, to - from - offset))),
    write: (offset, data) => file.write(from + offset, data.subarray(0, Math.max(0, to - from - offset))),
  };
}

const WINDOW = 256 * 1024;
/** Reads and writes answered from memory before the event loop gets a turn (a few ms of walking). */
const YIELD_EVERY = 2048;

/** A RandomAccess that may hold writes back until flush(). */
export interface WindowedAccess extends RandomAccess {
  /** Writes what the window holds back; the file is whole again after it. */
  flush(): Promise<void>;
}

/**
 * `file` read and written through a window: a walk over many small headers (Ogg pages, Matroska
 * blocks of an unknown-size cluster) asks the disk once per 256 KiB instead of once per header (a
 * 40 MiB file of 200-byte Ogg pages took 25 s one read a page, most of it waiting on the thread
 * pool). Writes that fall inside the window are made there and reach the file as one write when
 * the window moves or at flush(): a damaged WAV of 500,000 empty 8-byte chunks, each turned into
 * JUNK, was 500,000 file writes (19 s, the thread pool the listener shares kept busy); now it is
 * one write per 256 KiB. Larger writes go through, and into the window. Reads and writes
 * answered from the window are promises that never wait, so every YIELD_EVERY of them the event
 * loop gets a turn: no walk holds the main thread for long, over a file or a buffer.
 */
export function readAhead(file: RandomAccess): WindowedAccess {
  let start = 0;
  let window: Buffer = Buffer.alloc(0);
  let answered = 0;
  /** The part of the window written and not yet in the file: [dirtyFrom, dirtyTo). */
  let dirtyFrom = 0;
  let dirtyTo = 0;
  const flush = async () => {
    if (dirtyFrom >= dirtyTo) return;
    const dirty = window.subarray(dirtyFrom, dirtyTo);
    const at = start + dirtyFrom;
    dirtyFrom = dirtyTo = 0;
    await file.write(at, dirty);
  };
  const turn = async () => {
    if (++answered % YIELD_EVERY === 0) await new Promise(setImmediate);
  };
  return {
    size: file.size,
    flush,
    async read(offset, length) {
      if (offset < start || offset + length > start + window.length || length > WINDOW) {
        await flush();
        if (length > WINDOW) return file.read(offset, length);
        window = await file.read(offset, WINDOW);
        start = offset;
      } else await turn();
      return window.subarray(offset - start, offset - start + length);
    },
    async write(offset, data) {
      if (offset >= start && offset + data.length <= start + window.length && data.length > 0) {
        data.copy(window, offset - start);
        dirtyFrom = dirtyFrom < dirtyTo ? Math.min(dirtyFrom, offset - start) : offset - start;
        dirtyTo = Math.max(dirtyTo, offset - start + data.length);
        await turn();
        return;
      }
      await file.write(offset, data);
      const from = Math.max(offset, start);
      const to = Math.min(offset + data.length, start + window.length);
      if (from < to) data.copy(window, from - start, from - offset, to - offset);
    },
  };
}

/** Runs `walk` over `file` through readAhead, and flushes what the window held back. */
export async function throughWindow<T>(file: RandomAccess, walk: (file: RandomAccess) => Promise<T>): Promise<T> {
  const windowed = readAhead(file);
  const result = await walk(windowed);
  await windowed.flush();
  return result;
}

/** XMP's uuid box (Adobe XMP spec, part 3). */
const XMP_UUID = Buffer.from('be7acfcb97a942e89c71999491e3afac', 'hex');
const ZEROS = Buffer.alloc(64 * 1024);

/** Writes zeros over [from, to), 64 KiB at a time. */
export async function zeroFill(file: RandomAccess, from: number, to: number): Promise<void> {
  for (let at = from; at < to; at += ZEROS.length) await file.write(at, ZEROS.subarray(0, Math.min(ZEROS.length, to - at)));
}

/** More boxes than a file, its moov and its tracks hold together. A fragmented MP4 (a recorder's,
 * a stream's) has a moof and an mdat per fragment at the top level, which can be a fragment per
 * 100 ms: some 100,000 boxes in 40 MiB of audio. A file of far more, say 5 million empty 8-byte
 * boxes, costs seconds of walking for nothing: past this many it is taken for a structure the
 * walk cannot follow. */
const MAX_BOXES = 1_000_000;

/**
 * Blanks the metadata boxes of an MP4/MOV file in place (see above). Returns how many were
 * blanked. A structure it cannot follow (a box running past its parent, or more than MAX_BOXES
 * boxes) stops the walk there, leaving the rest as it is.
 */
export async function blankMp4Metadata(file: RandomAccess): Promise<number> {
  let blanked = 0;
  let walked = 0;
  async function walk(start: number, end: number, inside: 'file' | 'moov' | 'trak'): Promise<void> {
    for (let at = start; at + 8 <= end; ) {
      if (++walked > MAX_BOXES) return;
      const head = await file.read(at, 24);
      let size = head.readUInt32BE(0);
      const type = head.toString('latin1', 4, 8);
      let headerLength = 8;
      if (size === 1) {
        if (head.length < 16) return;
        size = Number(head.readBigUInt64BE(8));
        headerLength = 16;
      } else if (size === 0) size = end - at;
      if (size < headerLength || at + size > end) return;
      const isXmp = type === 'uuid' && head.length >= headerLength + 16 && head.subarray(headerLength, headerLength + 16).equals(XMP_UUID);
      if (inside === 'file' && type === 'moov') await walk(at + headerLength, at + size, 'moov');
      else if (inside === 'moov' && type === 'trak') await walk(at + headerLength, at + size, 'trak');
      else if (type === 'udta' || type === 'meta' || isXmp) {
        await file.write(at + 4, Buffer.from('free', 'latin1'));
        await zeroFill(file, at + headerLength, at + size);
        blanked++;
      }
      at += size;
    }
  }
  await walk(0, file.size, 'file');
  return blanked;
}

/** A GIF without its metadata extensions (see above); null when its structure cannot be followed. */
export function gifWithoutMetadata(gif: Buffer): Buffer | null {
  if (gif.length < 13 || gif.toString('latin1', 0, 4) !== 'GIF8') return null;
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  /** The offset after a run of data sub-blocks (each a length byte, then that many bytes; 0 ends it). */
  const afterSubBlocks = (from: number): number | null => {
    for (let at = from; at < gif.length; ) {
      const length = gif[at] ?? 0;
      at += 1 + length;
      if (length === 0) return at;
    }
    return null;
  };
  let at = 13 + colourTable(gif[10] ?? 0);
  const kept: Buffer[] = [gif.subarray(0, at)];
  while (at < gif.length) {
    const introducer = gif[at];
    if (introducer === 0x3b) {
      kept.push(gif.subarray(at, at + 1)); // the trailer; anything after it is left out too
      return Buffer.concat(kept);
    }
    if (introducer === 0x2c) {
      if (at + 10 > gif.length) return null;
      const end = afterSubBlocks(at + 10 + colourTable(gif[at + 9] ?? 0) + 1);
      if (end === null) return null;
      kept.push(gif.subarray(at, end));
      at = end;
    } else if (introducer === 0x21) {
      const label = gif[at + 1];
      const end = afterSubBlocks(at + 2);
      if (end === null) return null;
      const identifier = gif.toString('latin1', at + 3, at + 3 + 11);
      // Graphic control (frame timing, transparency), plain text, and the looping extension stay.
      if (label === 0xf9 || label === 0x01 || (label === 0xff && /^(NETSCAPE2\.0|ANIMEXTS1\.0)$/.test(identifier))) kept.push(gif.subarray(at, end));
      at = end;
    } else return null;
  }
  return null;
}
