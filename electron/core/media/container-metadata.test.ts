// Location metadata in the uploads the image pipeline does not re-encode: a GIF's XMP packet,
// a phone video's ©xyz atom and a recording's tags are not stored or served; the pictures, the
// video and the sound are. (Each container's own tests are in <container>-metadata.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle, type Sqlite } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import { blankMp4Metadata, bufferAccess, readAhead, throughWindow, type RandomAccess } from './container-metadata';
import { blankFlacMetadata } from './flac-metadata';
import { blankWavMetadata } from './wav-metadata';
import type { AvType } from './limits';
import { BLANK_METADATA, saveUpload, saveUploadFile, uploadPath, type UploadDeps } from './store';
import { countedFile, ebmlElement, oggPages, vorbisComment } from './test-av-files';

let dir: string;
let sqlite: Sqlite;
let deps: UploadDeps;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tern-container-metadata-'));
  sqlite = openSqlite(join(dir, 'tern.db'));
  upgrade(sqlite);
  deps = { db: wrapDrizzle(sqlite), uploadsDir: join(dir, 'uploads'), clock: () => new Date() };
});
afterEach(() => {
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const GPS = '<exif:GPSLatitude>48,51.5N</exif:GPSLatitude><exif:GPSLongitude>2,17.7E</exif:GPSLongitude>';
const XMP = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/">${GPS}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

/** `gif` with an XMP application extension (as Adobe writes it, magic trailer and all) and a
 * comment inserted after its global colour table. */
function withXmp(gif: Buffer): Buffer {
  const flags = gif[10] ?? 0;
  const afterTable = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const magic = Buffer.concat([Buffer.from([1]), Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)), Buffer.from([0])]);
  const app = Buffer.concat([Buffer.from([0x21, 0xff, 0x0b]), Buffer.from('XMP DataXMP', 'ascii'), Buffer.from(XMP, 'utf8'), magic]);
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, 9]), Buffer.from('Home, 4th', 'ascii'), Buffer.from([0])]);
  return Buffer.concat([gif.subarray(0, afterTable), app, comment, gif.subarray(afterTable)]);
}

const box = (type: string | Buffer, body: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length);
  (typeof type === 'string' ? Buffer.from(type, 'latin1') : type).copy(head, 4);
  return Buffer.concat([head, body]);
};
const LOCATION = Buffer.from('+48.8584+002.2945/', 'latin1');
/** A phone's MP4 in outline: ftyp, moov with a track and the location in udta and meta, mdat. */
function phoneMp4(): Buffer {
  const xyz = box(Buffer.from([0xa9, 0x78, 0x79, 0x7a]), Buffer.concat([Buffer.from([0, LOCATION.length, 0x15, 0xc7]), LOCATION]));
  const trak = box('trak', Buffer.concat([box('tkhd', Buffer.alloc(84, 1)), box('udta', box('name', Buffer.from('Track at home')))]));
  const meta = box('meta', Buffer.concat([Buffer.alloc(4), box('keys', Buffer.from('com.apple.quicktime.location.ISO6709')), box('ilst', LOCATION)]));
  const moov = box('moov', Buffer.concat([box('mvhd', Buffer.alloc(100, 2)), trak, box('udta', xyz), meta]));
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')), moov, box('mdat', Buffer.alloc(1024, 7))]);
}

describe('GIF uploads', () => {
  it('an XMP packet with GPS coordinates and a comment are not stored; the frames are, byte for byte', async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).gif().toBuffer();
    const row = await saveUpload(deps, { bytes: withXmp(gif), contentType: 'image/gif' });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect(stored.includes(Buffer.from('Home, 4th'))).toBe(false);
    expect(stored.equals(gif)).toBe(true);
  });

  it('an animated GIF keeps its frames, timing and looping', async () => {
    const frame = (background: string) => sharp({ create: { width: 4, height: 4, channels: 3, background } }).png().toBuffer();
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map(frame));
    const gif = await sharp(frames, { join: { animated: true } })
      .gif({ loop: 0, delay: [100, 200, 300] })
      .toBuffer();
    const row = await saveUpload(deps, { bytes: withXmp(gif), contentType: 'image/gif' });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.equals(gif)).toBe(true);
    const meta = await sharp(stored, { animated: true }).metadata();
    expect([meta.pages, meta.loop, meta.delay]).toEqual([3, 0, [100, 200, 300]]);
  });
});

describe('MP4 and MOV uploads', () => {
  it.each(['video/mp4', 'video/quicktime'])('a %s location atom (©xyz, Apple’s ISO6709 key) is blanked in place; every other byte and offset stays', async (contentType) => {
    const mp4 = phoneMp4();
    const row = await saveUpload(deps, { bytes: mp4, contentType });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.includes(LOCATION)).toBe(false);
    expect(stored.includes(Buffer.from('Track at home'))).toBe(false);
    expect(stored.length).toBe(mp4.length);
    // Only the blanked boxes' bytes changed: mdat (the frames) is where it was, byte for byte.
    const mdat = mp4.indexOf(Buffer.from('mdat'));
    expect(stored.subarray(mdat - 4).equals(mp4.subarray(mdat - 4))).toBe(true);
    expect(stored.toString('latin1')).toMatch(/moov.*mvhd.*trak.*tkhd.*free.*free.*free/s);
  });

  it('a file of more boxes than any MP4 holds (1,000,000) stops the walk at the one past them, in moov too; the rest is left as it is', async () => {
    /** `n` empty free boxes. */
    const empty = (n: number) => {
      const boxes = Buffer.alloc(8 * n);
      for (let at = 0; at < boxes.length; at += 8) boxes.write('\0\0\0\x08free', at, 'latin1');
      return boxes;
    };
    const udta = box('udta', box('\xa9xyz', Buffer.from('+48.8584+002.2945/')));
    const moov = box('moov', Buffer.concat([empty(500_000), udta]));
    const original = Buffer.concat([box('ftyp', Buffer.from('isom')), empty(499_999), moov, udta]);
    const file = Buffer.from(original);
    expect(await blankMp4Metadata(bufferAccess(file))).toBe(0);
    expect(file.equals(original)).toBe(true);
  });

  it('an MP4 that came in pieces (saved from its temporary file) is blanked too', async () => {
    const mp4 = phoneMp4();
    const { upload: row } = await saveUploadFile(deps, { file: [mp4.subarray(0, 100), mp4.subarray(100)], contentType: 'video/mp4' });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.includes(LOCATION)).toBe(false);
    expect(stored.length).toBe(mp4.length);
  });
});

describe('M4A uploads', () => {
  it('iTunes-style tags (moov/udta/meta/ilst: title, artist, cover) are blanked', async () => {
    const item = (type: string, value: string) => box(Buffer.from(type, 'latin1'), box('data', Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]), Buffer.from(value)])));
    const ilst = box('ilst', Buffer.concat([item('\xa9nam', 'Voice memo'), item('\xa9ART', 'Ada'), item('covr', 'a photo of the flat')]));
    const meta = box('meta', Buffer.concat([Buffer.alloc(4), box('hdlr', Buffer.concat([Buffer.alloc(8), Buffer.from('mdirappl'), Buffer.alloc(9)])), ilst]));
    const moov = box('moov', Buffer.concat([box('mvhd', Buffer.alloc(100, 2)), box('trak', box('tkhd', Buffer.alloc(84, 1))), box('udta', meta)]));
    const m4a = Buffer.concat([box('ftyp', Buffer.from('M4A \0\0\0\0M4A mp42isom', 'latin1')), moov, box('mdat', Buffer.alloc(512, 7))]);
    const row = await saveUpload(deps, { bytes: m4a, contentType: 'audio/x-m4a' });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    for (const text of ['Voice memo', 'Ada', 'a photo']) expect(stored.includes(Buffer.from(text))).toBe(false);
    expect(stored.length).toBe(m4a.length);
  });

  it('a meta box at the top level of the file (beside moov, ISO/IEC 14496-12 §8.11.1) is blanked too', async () => {
    const xml = box('xml ', Buffer.concat([Buffer.alloc(4), Buffer.from(XMP)]));
    const meta = box('meta', Buffer.concat([Buffer.alloc(4), box('hdlr', Buffer.concat([Buffer.alloc(8), Buffer.from('mp7t'), Buffer.alloc(13)])), xml]));
    const mp4 = Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')), meta, box('moov', box('mvhd', Buffer.alloc(100, 2))), box('mdat', Buffer.alloc(256, 7))]);
    const row = await saveUpload(deps, { bytes: mp4, contentType: 'audio/mp4' });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect(stored.length).toBe(mp4.length);
  });
});

/** The smallest files of each container with a LOCATION tag, in the shapes their own tests
 * describe (each container's spec is cited there). */
const PLACE = '48.8584 N 2.2945 E';
const comment = vorbisComment('encoder', [`LOCATION=${PLACE}`]);
const flacBlock = (type: number, body: Buffer, last = false) => Buffer.concat([Buffer.from([(last ? 0x80 : 0) | type, 0, body.length >> 8, body.length & 0xff]), body]);
const riffChunk = (id: string, data: Buffer) => Buffer.concat([Buffer.from(id, 'latin1'), Buffer.from([data.length & 0xff, data.length >> 8, 0, 0]), data]);
const opusFile = () =>
  Buffer.concat(
    oggPages(1, [
      Buffer.concat([Buffer.from('OpusHead'), Buffer.from([1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0])]),
      Buffer.concat([Buffer.from('OpusTags'), comment]),
      Buffer.alloc(100, 0xfc),
    ]),
  );
const webmFile = () =>
  Buffer.concat([
    ebmlElement(0x1a45dfa3, [ebmlElement(0x4282, 'webm')]),
    ebmlElement(0x18538067, [ebmlElement(0x1549a966, [ebmlElement(0x4d80, 'Chrome')]), ebmlElement(0x1254c367, [ebmlElement(0x7373, [ebmlElement(0x67c8, [ebmlElement(0x45a3, 'LOCATION'), ebmlElement(0x4487, PLACE)])])])]),
  ]);
const RECORDINGS: [Exclude<AvType, 'video/mp4' | 'video/quicktime' | 'audio/mp4'>, () => Buffer][] = [
  ['audio/flac', () => Buffer.concat([Buffer.from('fLaC'), flacBlock(0, Buffer.alloc(34, 1)), flacBlock(4, comment, true), Buffer.from([0xff, 0xf8, 0x69, 0x18]), Buffer.alloc(64)])],
  ['audio/wav', () => riffChunk('RIFF', Buffer.concat([Buffer.from('WAVE'), riffChunk('fmt ', Buffer.alloc(16, 1)), riffChunk('data', Buffer.alloc(64)), riffChunk('LIST', Buffer.concat([Buffer.from('INFOICMT'), Buffer.from([18, 0, 0, 0]), Buffer.from(PLACE)]))]))],
  ['audio/mpeg', () => Buffer.concat([Buffer.from('ID3\x03\0\0\0\0\0\x1d'), Buffer.from('TXXX\0\0\0\x13\0\0\0'), Buffer.from(PLACE), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)])],
  ['audio/ogg', opusFile],
  ['video/ogg', opusFile],
  ['audio/webm', webmFile],
  ['video/webm', webmFile],
];

describe('audio and other video uploads', () => {
  it.each(RECORDINGS)('an upload of %s loses its LOCATION tag and keeps its size', async (contentType, make) => {
    const original = make();
    expect(original.includes(Buffer.from(PLACE))).toBe(true);
    const { upload: row } = await saveUploadFile(deps, { file: [original.subarray(0, 10), original.subarray(10)], contentType });
    const stored = readFileSync(uploadPath(deps.uploadsDir, row.contentHash));
    expect(stored.includes(Buffer.from(PLACE))).toBe(false);
    expect(stored.length).toBe(original.length);
  });
});

describe('readAhead', () => {
  /** A buffer that counts the reads it is asked for. */
  const counted = (bytes: Buffer): RandomAccess & { reads: number } => {
    const inner = bufferAccess(bytes);
    const file = {
      ...inner,
      reads: 0,
      read: async (offset: number, length: number) => {
        file.reads++;
        return inner.read(offset, length);
      },
    };
    return file;
  };

  it('answers small reads from one window, sees its own writes, and lets the event loop in during a long walk', async () => {
    const bytes = Buffer.alloc(100_000, 1);
    const inner = counted(bytes);
    const file = readAhead(inner);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    for (let at = 0; at + 8 <= file.size; at += 8) await file.read(at, 8);
    clearInterval(ticking);
    expect(inner.reads).toBe(1);
    expect(turns).toBeGreaterThan(0);
    await file.write(16, Buffer.from('free'));
    expect((await file.read(16, 4)).toString()).toBe('free');
    expect(bytes.toString('latin1', 16, 20)).toBe('free');
  });
  it('holds writes inside its window back until the window moves or flush(), then makes them as one write', async () => {
    const bytes = Buffer.alloc(600_000, 1);
    const inner = countedFile(bytes);
    const file = readAhead(inner);
    await file.read(0, 8);
    for (let at = 0; at < 1000; at += 8) await file.write(at, Buffer.from('JUNK'));
    expect(inner.writes).toBe(0);
    expect((await file.read(8, 4)).toString()).toBe('JUNK');
    await file.read(300_000, 8); // the window moves
    expect(inner.writes).toBe(1);
    expect(bytes.toString('latin1', 992, 1000)).toBe('JUNK\x01\x01\x01\x01');
    await file.write(300_016, Buffer.from('free'));
    await file.write(0, Buffer.alloc(400_000)); // larger than the window: straight to the file, and into it
    expect(inner.writes).toBe(2);
    expect((await file.read(300_016, 4)).equals(Buffer.alloc(4))).toBe(true);
    await file.flush();
    expect(bytes.subarray(0, 400_000).every((b) => b === 0)).toBe(true);
    expect(bytes[400_000]).toBe(1);
  });

  it('a damaged WAV of 10,000 empty chunks and a FLAC of 10,000 empty APPLICATION blocks are blanked in a few file writes, not one a chunk', async () => {
    const wav = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'), ...Array.from({ length: 10_000 }, () => Buffer.from('abcd\0\0\0\0', 'latin1'))]);
    const wavFile = countedFile(wav);
    expect(await throughWindow(wavFile, blankWavMetadata)).toBe(10_000);
    expect(wavFile.writes).toBe(1);
    expect(wav.includes(Buffer.from('abcd'))).toBe(false);
    const flac = Buffer.concat([Buffer.from('fLaC'), ...Array.from({ length: 9_999 }, () => Buffer.from([2, 0, 0, 0])), Buffer.from([0x82, 0, 0, 0])]);
    const flacFile = countedFile(flac);
    expect(await throughWindow(flacFile, blankFlacMetadata)).toBe(10_000);
    expect(flacFile.writes).toBe(1);
    expect(flac.subarray(4, -4).every((b, i) => b === (i % 4 === 0 ? 1 : 0))).toBe(true);
    expect(flac.subarray(-4).equals(Buffer.from([0x81, 0, 0, 0]))).toBe(true);
  });
});

describe('damaged files', () => {
  /** mulberry32: the same "random" damage at every run. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  it.each([...RECORDINGS, ['video/mp4', phoneMp4] as const])('a %s file cut short or with bytes changed anywhere is walked to an end without an exception', async (type, make) => {
    const next = random(type.length);
    const original = make();
    for (let run = 0; run < 300; run++) {
      const damaged = Buffer.from(original.subarray(0, run % 3 === 0 ? Math.floor(next() * original.length) : original.length));
      for (let i = 0; i < 1 + run % 4; i++) damaged[Math.floor(next() * damaged.length)] = next() < 0.5 ? 0xff : Math.floor(next() * 256);
      const length = damaged.length;
      await BLANK_METADATA[type](bufferAccess(damaged));
      expect(damaged.length).toBe(length);
    }
  });
});
