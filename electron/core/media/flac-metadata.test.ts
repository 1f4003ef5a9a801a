// A FLAC file's tags and pictures become padding of the same size; the block chain and the
// frames stay as they were.
import { describe, expect, it } from 'vitest';
import { bufferAccess } from './container-metadata';
import { blankFlacMetadata } from './flac-metadata';
import { vorbisComment } from './test-av-files';

/** A metadata block (RFC 9639 §8.1): last flag and 7-bit type, 24-bit length, body. */
const block = (type: number, body: Buffer, last = false) => Buffer.concat([Buffer.from([(last ? 0x80 : 0) | type, body.length >> 16, (body.length >> 8) & 0xff, body.length & 0xff]), body]);

/** STREAMINFO (RFC 9639 §8.2): 4096-sample blocks, 44.1 kHz, stereo, 16 bits, an MD5 of 1s. */
const STREAMINFO = Buffer.concat([Buffer.from([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0]), Buffer.from([0x0a, 0xc4, 0x42, 0xf0, 0, 0, 0, 0]), Buffer.alloc(16, 1)]);
/** The start of a frame (RFC 9639 §9.1: sync code 0xFFF8) and stand-in audio. */
const FRAMES = Buffer.concat([Buffer.from([0xff, 0xf8, 0x69, 0x18, 0x00, 0x00]), Buffer.alloc(200, 0x5a)]);
const TAGS = ['TITLE=Kitchen demo', 'ARTIST=Ada', 'LOCATION=48.8584 N 2.2945 E'];
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a photo of the flat', 'latin1')]);
/** PICTURE (RFC 9639 §8.8): type 3 (front cover), MIME, description, 4 numbers, data. */
const PICTURE = Buffer.concat([Buffer.from([0, 0, 0, 3, 0, 0, 0, 10]), Buffer.from('image/jpeg'), Buffer.from([0, 0, 0, 0]), Buffer.alloc(16), Buffer.from([0, 0, 0, JPEG.length]), JPEG]);

function flac(): Buffer {
  return Buffer.concat([
    Buffer.from('fLaC', 'latin1'),
    block(0, STREAMINFO),
    block(4, vorbisComment('reference libFLAC 1.4.3 20230623', TAGS)),
    block(6, PICTURE),
    block(2, Buffer.concat([Buffer.from('riff', 'latin1'), Buffer.from('LIST....INFOIART Ada', 'latin1')])),
    block(1, Buffer.alloc(32), true),
    FRAMES,
  ]);
}

/** The block chain as a decoder walks it: type, length, last flag; and where the frames start. */
function chain(file: Buffer): { blocks: [number, number, boolean][]; frames: number } {
  const blocks: [number, number, boolean][] = [];
  let at = 4;
  for (;;) {
    const last = (file[at]! & 0x80) !== 0;
    const length = file.readUIntBE(at + 1, 3);
    blocks.push([file[at]! & 0x7f, length, last]);
    at += 4 + length;
    if (last) return { blocks, frames: at };
  }
}

describe('FLAC metadata', () => {
  it('VORBIS_COMMENT, PICTURE and APPLICATION blocks become zeroed PADDING of the same length; the chain and the frames stay', async () => {
    const original = flac();
    const file = Buffer.from(original);
    expect(await blankFlacMetadata(bufferAccess(file))).toBe(3);
    expect(file.length).toBe(original.length);
    for (const text of ['Kitchen demo', 'LOCATION', 'libFLAC', 'a photo', 'IART']) expect(file.includes(Buffer.from(text))).toBe(false);
    const before = chain(original);
    const after = chain(file);
    expect(after.blocks).toEqual(before.blocks.map(([type, length, last]) => [type === 0 ? 0 : 1, length, last]));
    expect(after.frames).toBe(before.frames);
    expect(file.subarray(after.frames).equals(FRAMES)).toBe(true);
    expect(file.subarray(0, 4 + 4 + STREAMINFO.length).equals(original.subarray(0, 4 + 4 + STREAMINFO.length))).toBe(true);
    // Each padding block is all zeros.
    let at = 4 + 4 + STREAMINFO.length;
    for (const [, length] of after.blocks.slice(1)) {
      expect(file.subarray(at + 4, at + 4 + length).every((b) => b === 0)).toBe(true);
      at += 4 + length;
    }
  });

  it('a block running past the end of the file stops the walk: the blocks before it are blanked, the rest is left as it is', async () => {
    const comment = block(4, vorbisComment('v', TAGS));
    const broken = Buffer.concat([Buffer.from('fLaC', 'latin1'), block(0, STREAMINFO), comment, Buffer.from([0x06, 0x7f, 0xff, 0xff]), Buffer.from('ARTIST=Ada')]);
    const file = Buffer.from(broken);
    expect(await blankFlacMetadata(bufferAccess(file))).toBe(1);
    expect(file.includes(Buffer.from('Kitchen demo'))).toBe(false);
    expect(file.subarray(4 + 4 + STREAMINFO.length + comment.length).equals(broken.subarray(4 + 4 + STREAMINFO.length + comment.length))).toBe(true);
  });

  it('a block of the forbidden type 127 is not a block: nothing from there on is touched', async () => {
    const file = Buffer.concat([Buffer.from('fLaC', 'latin1'), block(0, STREAMINFO), block(127, Buffer.from('TITLE=x')), block(4, vorbisComment('v', TAGS), true)]);
    const copy = Buffer.from(file);
    expect(await blankFlacMetadata(bufferAccess(file))).toBe(0);
    expect(file.equals(copy)).toBe(true);
  });
  it('a chain of more blocks than any encoder writes (10,000) stops the walk at the one past them; the rest is left as it is', async () => {
    const many = Array.from({ length: 9_999 }, () => block(2, Buffer.alloc(0)));
    const comment = block(4, vorbisComment('v', TAGS), true);
    const original = Buffer.concat([Buffer.from('fLaC', 'latin1'), block(0, STREAMINFO), ...many, comment, FRAMES]);
    const file = Buffer.from(original);
    expect(await blankFlacMetadata(bufferAccess(file))).toBe(9_999);
    expect(file.subarray(-comment.length - FRAMES.length).equals(original.subarray(-comment.length - FRAMES.length))).toBe(true);
  });
});
