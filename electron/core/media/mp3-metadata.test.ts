// An MP3 file's ID3v2, ID3v1, APE and Lyrics3 tags are emptied where they are; the frames stay.
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferAccess, fileAccess, throughWindow } from './container-metadata';
import { blankMp3Metadata } from './mp3-metadata';

const syncsafe = (n: number) => Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
/** An ID3v2.3 text frame (id3.org id3v2.3.0 §4.2): id, 32-bit size, flags, encoding 0, text. */
const frame = (id: string, text: string) => {
  const body = Buffer.concat([Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const header = Buffer.alloc(10);
  header.write(id, 0, 'latin1');
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
};
/** An ID3v2 tag (id3v2.4.0-structure §3.1): "ID3", version, flags, syncsafe size; then the frames
 * and some padding; with flag 0x10 a v2.4 footer ("3DI", the same fields). */
function id3v2(version: 3 | 4, frames: Buffer[], footer = false, padding = 20): Buffer {
  const body = Buffer.concat([...frames, Buffer.alloc(padding)]);
  const header = Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([version, 0, footer ? 0x10 : 0]), syncsafe(body.length)]);
  return Buffer.concat([header, body, footer ? Buffer.concat([Buffer.from('3DI', 'latin1'), header.subarray(3)]) : Buffer.alloc(0)]);
}
/** MPEG-1 Layer III frames: a 4-byte header (sync, 128 kbit/s, 44.1 kHz) and stand-in data; 417 bytes each. */
const FRAME = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413, 0x33)]);
const FRAMES = Buffer.concat([FRAME, FRAME, FRAME]);
/** ID3v1.1 (id3.org ID3v1): "TAG", title 30, artist 30, album 30, year 4, comment 28, 0, track, genre. */
const id3v1 = () =>
  Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.from('Voice memo'.padEnd(30, '\0')), Buffer.from('Ada'.padEnd(30, '\0')), Buffer.alloc(30), Buffer.from('2026'), Buffer.from('Recorded at home'.padEnd(28, '\0')), Buffer.from([0, 1, 12])]);
/** An APEv2 tag (APEv2 specification): header, items (32-bit value size, flags, key NUL, value), footer. */
function apeTag(items: [string, string][]): Buffer {
  const body = Buffer.concat(
    items.map(([key, value]) => {
      const head = Buffer.alloc(8);
      head.writeUInt32LE(Buffer.byteLength(value), 0);
      return Buffer.concat([head, Buffer.from(`${key}\0${value}`)]);
    }),
  );
  const field = (isHeader: boolean) => {
    const f = Buffer.alloc(32);
    f.write('APETAGEX', 0, 'latin1');
    f.writeUInt32LE(2000, 8);
    f.writeUInt32LE(body.length + 32, 12);
    f.writeUInt32LE(items.length, 16);
    f.writeUInt32LE((0x80000000 | (isHeader ? 0x20000000 : 0)) >>> 0, 20);
    return f;
  };
  return Buffer.concat([field(true), body, field(false)]);
}

/** An ID3v2.4 tag appended at the end (id3v2.4.0-structure §3.4, §5): with a footer, and no padding. */
const appendedId3v2 = (frames: Buffer[]) => id3v2(4, frames, true, 0);
/** A Lyrics3 v2.00 tag (id3.org Lyrics3 v2.00): "LYRICSBEGIN", fields (id, 5-digit size, value), 6-digit size, "LYRICS200". */
function lyrics3v2(fields: [string, string][]): Buffer {
  const body = 'LYRICSBEGIN' + fields.map(([id, value]) => id + String(value.length).padStart(5, '0') + value).join('');
  return Buffer.from(body + String(body.length).padStart(6, '0') + 'LYRICS200', 'latin1');
}
/** A Lyrics3 v1 tag: "LYRICSBEGIN", the lyrics, "LYRICSEND". */
const lyrics3v1 = (text: string) => Buffer.from(`LYRICSBEGIN${text}LYRICSEND`, 'latin1');
const LYRICS = lyrics3v2([['IND', '10'], ['AUT', 'Ada'], ['LYR', '[00:01]Recorded at home']]);

/** [FRAMES][tag][ID3v1], where `tag` is not to be believed: the ID3v1 tag alone is emptied, and every
 * byte before it stays as it was. */
async function expectOnlyId3v1Emptied(tag: Buffer): Promise<void> {
  const original = Buffer.concat([FRAMES, tag, id3v1()]);
  const file = Buffer.from(original);
  expect(await blankMp3Metadata(bufferAccess(file))).toBe(1);
  expect(file.subarray(0, -128).equals(original.subarray(0, -128))).toBe(true);
}

describe('MP3 metadata', () => {
  it('an ID3v2.3 tag keeps its header and size, its frames become padding; the frames after it do not move', async () => {
    const tag = id3v2(3, [frame('TIT2', 'Voice memo'), frame('TPE1', 'Ada'), frame('TXXX', '\0LOCATION\x0048.8584,2.2945')]);
    const original = Buffer.concat([tag, FRAMES]);
    const file = Buffer.from(original);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(1);
    for (const text of ['Voice memo', 'TPE1', 'LOCATION']) expect(file.includes(Buffer.from(text))).toBe(false);
    expect(file.subarray(0, 10).equals(tag.subarray(0, 10))).toBe(true);
    expect(file.subarray(10, tag.length).every((b) => b === 0)).toBe(true);
    expect(file.subarray(tag.length).equals(FRAMES)).toBe(true);
  });

  it('an ID3v2.4 tag with a footer becomes one footerless tag of the same total size', async () => {
    const tag = id3v2(4, [frame('TIT2', 'Voice memo')], true);
    const file = Buffer.concat([tag, FRAMES]);
    await blankMp3Metadata(bufferAccess(file));
    expect(file[5]).toBe(0);
    expect(10 + file.readUInt32BE(6)).toBe(tag.length); // the syncsafe size, small enough to read plainly
    expect(file.includes(Buffer.from('3DI'))).toBe(false);
    expect(file.subarray(tag.length).equals(FRAMES)).toBe(true);
  });

  it('an ID3v1 tag at the end and an APEv2 tag before it are emptied; the frames stay', async () => {
    const ape = apeTag([['Title', 'Voice memo'], ['Artist', 'Ada']]);
    const original = Buffer.concat([FRAMES, ape, id3v1()]);
    const file = Buffer.from(original);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(2);
    for (const text of ['Voice memo', 'Ada', 'Recorded at home', '2026']) expect(file.includes(Buffer.from(text))).toBe(false);
    expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
    // Readers still find an (empty) ID3v1 tag, and an APE tag of the same size with no items.
    expect(file.toString('latin1', file.length - 128, file.length - 125)).toBe('TAG');
    expect(file[file.length - 1]).toBe(0xff);
    const footer = file.subarray(file.length - 128 - 32, file.length - 128);
    expect(footer.toString('latin1', 0, 8)).toBe('APETAGEX');
    expect([footer.readUInt32LE(12), footer.readUInt32LE(16)]).toEqual([ape.length - 32, 0]);
    expect(file.readUInt32LE(FRAMES.length + 16)).toBe(0); // the header's item count
  });

  it('an APE tag alone at the end (no ID3v1) is found too', async () => {
    const file = Buffer.concat([FRAMES, apeTag([['Comment', 'Recorded at home']])]);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(1);
    expect(file.includes(Buffer.from('Recorded at home'))).toBe(false);
  });

  it('an ID3v2 tag declaring more bytes than the file has is left as it is, as is the rest', async () => {
    const tag = id3v2(3, [frame('TIT2', 'Voice memo')]);
    const file = Buffer.from(tag.subarray(0, 20));
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(0);
    expect(file.equals(tag.subarray(0, 20))).toBe(true);
  });

  it('a FLAC file behind an ID3v2 tag (an MP3 by its first bytes) loses its VORBIS_COMMENT block too', async () => {
    const comment = Buffer.from('\x00\x00\x00\x00\x01\x00\x00\x00\x11\x00\x00\x00TITLE=Voice memo!', 'latin1'); // RFC 9639 §8.6
    const flac = Buffer.concat([Buffer.from('fLaC'), Buffer.from([0, 0, 0, 34]), Buffer.alloc(34, 1), Buffer.from([0x84, 0, 0, comment.length]), comment, Buffer.from([0xff, 0xf8]), Buffer.alloc(100)]);
    const file = Buffer.concat([id3v2(3, [frame('TPE1', 'Ada')]), flac]);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(2);
    expect(file.includes(Buffer.from('Voice memo'))).toBe(false);
    expect(file[file.length - flac.length + 4 + 4 + 34]).toBe(0x81); // the last block, now PADDING
  });
  it('an APE footer whose size reaches most of the file (a damaged tag) is left as it is, and so is the audio', async () => {
    const audio = Buffer.concat(Array.from({ length: 200 }, () => FRAME));
    const footer = apeTag([['Title', 'Voice memo']]).subarray(-32);
    footer.writeUInt32LE(audio.length - 1000, 12);
    const original = Buffer.concat([audio, footer]);
    const file = Buffer.from(original);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(0);
    expect(file.equals(original)).toBe(true);
  });

  it('an APE tag reaching into the ID3v2 tag or the first frame is left as it is; the same tag after the first frame is emptied', async () => {
    // Items that look whole, placed so that the tag would start inside the first frame.
    const ape = apeTag([['Title', 'Voice memo']]);
    const items = ape.subarray(32, -32);
    const id3 = id3v2(3, [frame('TIT2', 'x')]);
    const firstFrame = Buffer.from(FRAME);
    items.copy(firstFrame, FRAME.length - items.length);
    const inside = Buffer.concat([id3, firstFrame, ape.subarray(-32)]);
    inside.writeUInt32LE(0, inside.length - 12); // no header: the items are the whole tag
    const copy = Buffer.from(inside);
    expect(await blankMp3Metadata(bufferAccess(inside))).toBe(1); // the ID3v2 tag only
    expect(inside.subarray(id3.length).equals(copy.subarray(id3.length))).toBe(true);
    // A tag starting in the ID3v2 tag (no frame after it).
    const intoId3 = Buffer.concat([id3.subarray(0, id3.length - items.length), items, ape.subarray(-32)]);
    intoId3.writeUInt32LE(0, intoId3.length - 12);
    const before = Buffer.from(intoId3);
    await blankMp3Metadata(bufferAccess(intoId3));
    expect(intoId3.subarray(-32).equals(before.subarray(-32))).toBe(true); // the footer still counts its item
    // After the first frame, the same items are a tag.
    const after = Buffer.concat([id3, FRAME, items, ape.subarray(-32)]);
    after.writeUInt32LE(0, after.length - 12);
    expect(await blankMp3Metadata(bufferAccess(after))).toBe(2);
    expect(after.includes(Buffer.from('Voice memo'))).toBe(false);
    expect(after.subarray(id3.length, id3.length + FRAME.length).equals(FRAME)).toBe(true);
  });

  it('a Lyrics3 v2.00 tag before ID3v1 is zeroed whole; the frames and the ID3v1 tag stay where they are', async () => {
    const file = Buffer.concat([FRAMES, LYRICS, id3v1()]);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(2);
    for (const text of ['Ada', 'Recorded at home', 'LYRICS']) expect(file.includes(Buffer.from(text))).toBe(false);
    expect(file.subarray(FRAMES.length, FRAMES.length + LYRICS.length).every((b) => b === 0)).toBe(true);
    expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
    expect(file.toString('latin1', file.length - 128, file.length - 125)).toBe('TAG');
  });

  it('APE and Lyrics3 v2.00 tags before ID3v1 are all emptied, in either order', async () => {
    const ape = apeTag([['Title', 'Voice memo']]);
    for (const tags of [[ape, LYRICS], [LYRICS, ape]]) {
      const file = Buffer.concat([FRAMES, ...tags, id3v1()]);
      expect(await blankMp3Metadata(bufferAccess(file))).toBe(3);
      for (const text of ['Voice memo', 'Ada', 'Recorded at home']) expect(file.includes(Buffer.from(text))).toBe(false);
      expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
    }
  });

  it('a Lyrics3 v1 tag before ID3v1 is zeroed whole', async () => {
    const tag = lyrics3v1('[00:01]Recorded at home by Ada');
    const file = Buffer.concat([FRAMES, tag, id3v1()]);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(2);
    expect(file.subarray(FRAMES.length, FRAMES.length + tag.length).every((b) => b === 0)).toBe(true);
    expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
  });

  it('an ID3v2.4 tag appended with a footer is zeroed whole, before ID3v1 or at the very end', async () => {
    const tag = appendedId3v2([frame('TIT2', 'Voice memo'), frame('TPE1', 'Ada')]);
    for (const after of [id3v1(), Buffer.alloc(0)]) {
      const file = Buffer.concat([FRAMES, tag, after]);
      expect(await blankMp3Metadata(bufferAccess(file))).toBe(after.length > 0 ? 2 : 1);
      for (const text of ['3DI', 'ID3', 'Voice memo', 'Ada']) expect(file.includes(Buffer.from(text))).toBe(false);
      expect(file.subarray(FRAMES.length, FRAMES.length + tag.length).every((b) => b === 0)).toBe(true);
      expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
    }
  });

  it('a Lyrics3 v2.00 size reaching into the first frame or the ID3v2 tag is left as it is, and so is the audio', async () => {
    // Fields that look whole, placed so that the tag would start inside the first frame.
    const body = LYRICS.subarray(0, -15);
    const firstFrame = Buffer.from(FRAME);
    body.copy(firstFrame, FRAME.length - body.length);
    const inFrame = Buffer.concat([firstFrame, LYRICS.subarray(-15), id3v1()]);
    const copy = Buffer.from(inFrame);
    expect(await blankMp3Metadata(bufferAccess(inFrame))).toBe(1); // the ID3v1 tag only
    expect(inFrame.subarray(0, -128).equals(copy.subarray(0, -128))).toBe(true);
    // Behind an ID3v2 tag, the same bytes starting in the first frame.
    const id3 = id3v2(3, [frame('TIT2', 'x')]);
    const behindId3 = Buffer.concat([id3, firstFrame, LYRICS.subarray(-15)]);
    const before = Buffer.from(behindId3);
    expect(await blankMp3Metadata(bufferAccess(behindId3))).toBe(1); // the ID3v2 tag only
    expect(behindId3.subarray(id3.length).equals(before.subarray(id3.length))).toBe(true);
    // A size reaching into the ID3v2 tag: the first frame stays whole.
    const intoId3 = Buffer.concat([id3, FRAME, LYRICS.subarray(-15)]);
    intoId3.write(String(FRAME.length + 20).padStart(6, '0'), intoId3.length - 15, 'latin1');
    const original = Buffer.from(intoId3);
    expect(await blankMp3Metadata(bufferAccess(intoId3))).toBe(1);
    expect(intoId3.subarray(id3.length).equals(original.subarray(id3.length))).toBe(true);
  });

  it('a Lyrics3 v2.00 tag whose field sizes do not add up is left as it is', async () => {
    const lyr = LYRICS.indexOf('LYR00023');
    // IND says 4 bytes where 2 are (the next field is misread); LYR runs 1 byte into the size field.
    for (const [at, size] of [[11 + 3, '00004'], [lyr + 3, '00024']] as const) {
      const tag = Buffer.from(LYRICS);
      tag.write(size, at, 'latin1');
      await expectOnlyId3v1Emptied(tag);
    }
  });

  it('an appended ID3v2 footer whose tag would start before the end of the first frame is left as it is', async () => {
    // A whole tag but for its footer, placed so that it would start inside the first frame.
    const tag = appendedId3v2([frame('TIT2', 'Voice memo')]);
    const firstFrame = Buffer.from(FRAME);
    tag.subarray(0, -10).copy(firstFrame, FRAME.length - (tag.length - 10));
    const file = Buffer.concat([firstFrame, tag.subarray(-10), id3v1()]);
    const copy = Buffer.from(file);
    expect(await blankMp3Metadata(bufferAccess(file))).toBe(1); // the ID3v1 tag only
    expect(file.subarray(0, -128).equals(copy.subarray(0, -128))).toBe(true);
  });

  it('audio ending in "LYRICS200" after a size that is not 6 digits is left as it is', async () => {
    const audio = Buffer.from(FRAMES);
    audio.write('33\xff\xfb\x90\x64LYRICS200', audio.length - 15, 'latin1');
    const copy = Buffer.from(audio);
    expect(await blankMp3Metadata(bufferAccess(audio))).toBe(0);
    expect(audio.equals(copy)).toBe(true);
    // Whole fields, and a size that reads as their length but for a space: not a Lyrics3 size either.
    const spaced = Buffer.concat([FRAMES, LYRICS]);
    spaced.write(' ', spaced.length - 15, 'latin1');
    const before = Buffer.from(spaced);
    expect(await blankMp3Metadata(bufferAccess(spaced))).toBe(0);
    expect(spaced.equals(before)).toBe(true);
  });

  it('a tag at the very end holding "TAG" 128 bytes from the end (appended ID3v2.4, Lyrics3 v2.00) is emptied, not taken for ID3v1', async () => {
    const cases: [Buffer, string[]][] = [
      // The text after "TAG" runs to 128 bytes from the end with the footer: 3 + 115 + 10.
      [appendedId3v2([frame('TIT2', 'Voice memo'), frame('TXXX', `\0NOTE\0TAG${'x'.repeat(115)}`)]), ['Voice memo', '3DI', 'TAG']],
      // The lyrics after "TAG" run to 128 bytes from the end with the size and "LYRICS200": 3 + 110 + 15.
      [lyrics3v2([['IND', '10'], ['AUT', 'Ada'], ['LYR', `[00:01]TAG${'x'.repeat(110)}`]]), ['Ada', 'LYRICS', 'TAG']],
    ];
    for (const [tag, texts] of cases) {
      const file = Buffer.concat([FRAMES, tag]);
      expect(file.toString('latin1', file.length - 128, file.length - 125)).toBe('TAG');
      expect(await blankMp3Metadata(bufferAccess(file))).toBe(1);
      for (const text of texts) expect(file.includes(Buffer.from(text))).toBe(false);
      expect(file.subarray(FRAMES.length).every((b) => b === 0)).toBe(true);
      expect(file.subarray(0, FRAMES.length).equals(FRAMES)).toBe(true);
    }
  });

  it('a Lyrics3 v2.00 tag that does not start with "LYRICSBEGIN" is left as it is', async () => {
    const tag = Buffer.from(LYRICS);
    tag.write('X', 10, 'latin1'); // "LYRICSBEGIX": the size and the fields still add up
    await expectOnlyId3v1Emptied(tag);
  });

  it('a Lyrics3 v2.00 field whose id is not 3 uppercase letters or digits is left as it is', async () => {
    for (const id of ['Aut', 'AU-']) {
      const tag = lyrics3v2([['IND', '10'], [id, 'Ada'], ['LYR', '[00:01]Recorded at home']]);
      await expectOnlyId3v1Emptied(tag);
    }
  });

  it('an appended ID3v2 footer whose tag would start on an "ID3" header of another size is left as it is', async () => {
    const tag = appendedId3v2([frame('TIT2', 'Voice memo')]);
    tag[9]! -= 1; // the header's syncsafe size, one less than the footer's
    await expectOnlyId3v1Emptied(tag);
  });

  it('a Lyrics3 v1 "LYRICSEND" whose only "LYRICSBEGIN" is in the first frame is left as it is, audio and all', async () => {
    const firstFrame = Buffer.from(FRAME);
    firstFrame.write('LYRICSBEGIN', 100, 'latin1');
    const id3 = id3v2(3, [frame('TIT2', 'x')]);
    for (const head of [Buffer.alloc(0), id3]) {
      const original = Buffer.concat([head, firstFrame, FRAME, Buffer.from('LYRICSEND', 'latin1'), id3v1()]);
      const file = Buffer.from(original);
      expect(await blankMp3Metadata(bufferAccess(file))).toBe(head.length > 0 ? 2 : 1);
      expect(file.subarray(head.length, -128).equals(original.subarray(head.length, -128))).toBe(true);
    }
  });

  it('a file on disk, through fileAccess and throughWindow as in store.ts, loses its ID3v2, APE, Lyrics3 and ID3v1 text', async () => {
    const id3 = id3v2(3, [frame('TIT2', 'Voice memo'), frame('TPE1', 'Ada')]);
    const ape = apeTag([['Comment', 'Recorded at home']]);
    const dir = await mkdtemp(join(tmpdir(), 'tern-mp3-'));
    try {
      const path = join(dir, 'upload.mp3');
      await writeFile(path, Buffer.concat([id3, FRAMES, ape, LYRICS, id3v1()]));
      const handle = await open(path, 'r+');
      try {
        expect(await throughWindow(await fileAccess(handle), blankMp3Metadata)).toBe(4);
      } finally {
        await handle.close();
      }
      const file = await readFile(path);
      const texts = ['Voice memo', 'Ada', 'Recorded at home', '2026', 'LYRICS'];
      for (const text of texts) expect(file.includes(Buffer.from(text))).toBe(false);
      expect(file.subarray(id3.length, id3.length + FRAMES.length).equals(FRAMES)).toBe(true);
      expect(file.length).toBe(id3.length + FRAMES.length + ape.length + LYRICS.length + 128);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
