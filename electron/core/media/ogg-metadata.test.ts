// An Ogg file's comment headers (Vorbis, Opus, Theora, Ogg FLAC) are emptied in place: every page
// keeps its place and segment table, and its CRC is right again.
import { describe, expect, it } from 'vitest';
import { bufferAccess } from './container-metadata';
import { blankOggMetadata, oggPageCrc } from './ogg-metadata';
import { oggCrc as crc, oggPages as paginate, vorbisComment } from './test-av-files';

/** A demuxer of our own: every page's offset and whether its CRC holds, each stream's packets. */
function demux(file: Buffer): { pages: number[]; crcsHold: boolean; packets: Map<number, Buffer[]> } {
  const pages: number[] = [];
  let crcsHold = true;
  const packets = new Map<number, Buffer[]>();
  const partial = new Map<number, Buffer[]>();
  for (let at = 0; at < file.length; ) {
    expect(file.toString('latin1', at, at + 4)).toBe('OggS');
    const count = file[at + 26]!;
    const lacing = [...file.subarray(at + 27, at + 27 + count)];
    const end = at + 27 + count + lacing.reduce((n, s) => n + s, 0);
    const page = Buffer.from(file.subarray(at, end));
    const stored = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    if (crc(page) !== stored) crcsHold = false;
    const serial = page.readUInt32LE(14);
    let body = at + 27 + count;
    for (const segment of lacing) {
      partial.set(serial, [...(partial.get(serial) ?? []), file.subarray(body, body + segment)]);
      body += segment;
      if (segment < 255) {
        packets.set(serial, [...(packets.get(serial) ?? []), Buffer.concat(partial.get(serial)!)]);
        partial.delete(serial);
      }
    }
    pages.push(at);
    at = end;
  }
  return { pages, crcsHold, packets };
}

const TAGS = ['TITLE=Voice memo', 'ARTIST=Ada', 'LOCATION=48.8584 N 2.2945 E'];
/** METADATA_BLOCK_PICTURE, base64 (a cover photo): big enough to span several pages. */
const COVER = `METADATA_BLOCK_PICTURE=${Buffer.alloc(900, 'a photo of the flat ').toString('base64')}`;
const u32 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);
const audio = (n: number, size: number) => Array.from({ length: n }, (_, i) => Buffer.alloc(size, i + 1));

/** Vorbis I spec §4.2: identification (stereo, 44.1 kHz), comment (with its framing bit), setup. */
const vorbisHeaders = (comments: string[]) => [
  Buffer.concat([Buffer.from('\x01vorbis', 'latin1'), u32(0), Buffer.from([2]), u32(44100), u32(0), u32(128000), u32(0), Buffer.from([0xb8, 1])]),
  Buffer.concat([Buffer.from('\x03vorbis', 'latin1'), vorbisComment('Xiph.Org libVorbis I 20200704 (Reducing Environment)', comments), Buffer.from([1])]),
  Buffer.concat([Buffer.from('\x05vorbis', 'latin1'), Buffer.alloc(300, 0x42)]),
];
/** RFC 7845 §5: OpusHead (version 1, stereo, pre-skip 312, 48 kHz, gain 0, mapping 0) and OpusTags. */
const opusHeaders = (comments: string[]) => [
  Buffer.concat([Buffer.from('OpusHead', 'latin1'), Buffer.from([1, 2, 0x38, 0x01]), u32(48000), Buffer.from([0, 0, 0])]),
  Buffer.concat([Buffer.from('OpusTags', 'latin1'), vorbisComment('libopus 1.4', comments)]),
];

function expectEmptied(before: Buffer, after: Buffer, commentPackets: Map<number, number[]>) {
  expect(after.length).toBe(before.length);
  const a = demux(before);
  const b = demux(after);
  expect(b.crcsHold).toBe(true);
  expect(b.pages).toEqual(a.pages);
  for (const [serial, packets] of a.packets) {
    const stripped = b.packets.get(serial)!;
    expect(stripped.map((p) => p.length)).toEqual(packets.map((p) => p.length));
    packets.forEach((packet, i) => {
      if (!commentPackets.get(serial)?.includes(i)) expect(stripped[i]!.equals(packet)).toBe(true);
    });
  }
  for (const text of ['Voice memo', 'LOCATION', 'METADATA_BLOCK_PICTURE', 'libVorbis', 'libopus']) expect(after.includes(Buffer.from(text))).toBe(false);
  return b.packets;
}

describe('Ogg metadata', () => {
  it('computes the Ogg CRC (CRC-32, polynomial 04C11DB7, no reflection, initial 0, no final xor)', () => {
    expect(oggPageCrc(Buffer.from('123456789'))).toBe(0x89a1897f);
  });

  it('a Vorbis comment header spanning pages becomes an empty one padded to its length; the pages stay and their CRCs hold', async () => {
    const original = Buffer.concat(paginate(0x1234, [...vorbisHeaders([...TAGS, COVER]), ...audio(4, 700)], 3));
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1);
    const packets = expectEmptied(original, file, new Map([[0x1234, [1]]]));
    const comment = packets.get(0x1234)![1]!;
    // "\x03vorbis", vendor length 0, comment count 0, the framing bit; then zeros.
    expect([...comment.subarray(0, 16)]).toEqual([3, ...Buffer.from('vorbis'), 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(comment.subarray(16).every((b) => b === 0)).toBe(true);
  });

  it('Opus tags become an empty OpusTags followed by zero padding (RFC 7845 §5.2)', async () => {
    const original = Buffer.concat(paginate(7, [...opusHeaders(TAGS), ...audio(3, 120)]));
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1);
    const tags = expectEmptied(original, file, new Map([[7, [1]]])).get(7)![1]!;
    expect(tags.toString('latin1', 0, 8)).toBe('OpusTags');
    expect(tags.subarray(8).every((b) => b === 0)).toBe(true);
  });

  it('a video (Theora and Vorbis, multiplexed) loses both streams’ comments', async () => {
    const theora = [
      Buffer.concat([Buffer.from('\x80theora', 'latin1'), Buffer.alloc(35, 1)]),
      Buffer.concat([Buffer.from('\x81theora', 'latin1'), vorbisComment('Xiph.Org libtheora 1.1', TAGS)]),
      Buffer.concat([Buffer.from('\x82theora', 'latin1'), Buffer.alloc(100, 2)]),
      ...audio(2, 500),
    ];
    const video = paginate(1, theora, 2);
    const sound = paginate(2, [...vorbisHeaders(TAGS), ...audio(2, 300)], 2);
    // Both beginning-of-stream pages first (RFC 3533 §4), then the pages in turn.
    const rest = Array.from({ length: Math.max(video.length, sound.length) - 1 }, (_, i) => [video[i + 1], sound[i + 1]]).flat();
    const original = Buffer.concat([video[0]!, sound[0]!, ...rest.filter((p) => p !== undefined)]);
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(2);
    expectEmptied(original, file, new Map([[1, [1]], [2, [1]]]));
    expect(file.includes(Buffer.from('libtheora'))).toBe(false);
  });

  it('Ogg FLAC: the VORBIS_COMMENT and PICTURE packets become PADDING blocks of the same length', async () => {
    const block = (type: number, body: Buffer, last = false) => Buffer.concat([Buffer.from([(last ? 0x80 : 0) | type, 0, body.length >> 8, body.length & 0xff]), body]);
    // The Ogg FLAC mapping (xiph.org/flac/ogg_mapping.html): "\x7fFLAC", version 1.0, the number of
    // header packets, "fLaC" and STREAMINFO; then one metadata block a packet; then frames.
    const streamInfo = block(0, Buffer.alloc(34, 9));
    const packets = [
      Buffer.concat([Buffer.from('\x7fFLAC\x01\x00\x00\x02fLaC', 'latin1'), streamInfo]),
      block(4, vorbisComment('reference libFLAC 1.4.3', TAGS)),
      block(6, Buffer.concat([Buffer.alloc(32), Buffer.from(COVER)]), true),
      ...audio(2, 400),
    ];
    const original = Buffer.concat(paginate(99, packets, 2));
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(2);
    const stripped = expectEmptied(original, file, new Map([[99, [1, 2]]])).get(99)!;
    expect([stripped[1]![0], stripped[2]![0]]).toEqual([1, 0x81]);
    expect(stripped[1]!.subarray(1, 4).equals(packets[1]!.subarray(1, 4))).toBe(true);
    expect(stripped[2]!.subarray(4).every((b) => b === 0)).toBe(true);
  });

  it('in a chained file, each link’s tags are emptied', async () => {
    const link = (serial: number) => paginate(serial, [...opusHeaders(TAGS), ...audio(2, 100)]);
    const original = Buffer.concat([...link(1), ...link(2)]);
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(2);
    expectEmptied(original, file, new Map([[1, [1]], [2, [1]]]));
  });

  it('a page cut short stops the walk: what came before is emptied, the rest left as it is', async () => {
    const first = paginate(1, [...opusHeaders(TAGS), ...audio(2, 100)]);
    const second = Buffer.concat(paginate(2, [...opusHeaders(TAGS), ...audio(2, 100)])).subarray(0, 60);
    const file = Buffer.concat([...first, second]);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1);
    expect(file.subarray(file.length - 60).equals(second)).toBe(true);
  });

  it('a comment header shorter than an empty one is left as it is', async () => {
    const original = Buffer.concat(paginate(5, [opusHeaders([])[0]!, Buffer.from('OpusTags\0\0'), ...audio(1, 10)]));
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(0);
    expect(file.equals(original)).toBe(true);
  });

  it('a Speex stream’s second packet (a Vorbis comment without prefix or framing bit) is emptied too', async () => {
    // The Speex manual's Ogg mapping: an 80-byte header starting "Speex   ", then the comment.
    const original = Buffer.concat(paginate(3, [Buffer.concat([Buffer.from('Speex   1.2.1'), Buffer.alloc(67)]), vorbisComment('Encoded with Speex 1.2.1', TAGS), ...audio(2, 40)]));
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1);
    const comment = expectEmptied(original, file, new Map([[3, [1]]])).get(3)![1]!;
    expect(comment.every((b) => b === 0)).toBe(true); // vendor length 0, no comments, zeros
  });
  it('a file beginning more streams at once than MAX_STREAMS, none of them finished, stops the walk there; the pages after it are left as they are', async () => {
    // Each stream's identification page alone: its comment header never comes.
    const begun = Array.from({ length: 1000 }, (_, serial) => paginate(serial + 10, opusHeaders(TAGS))[0]!);
    const tagged = Buffer.concat(paginate(1, [...opusHeaders(TAGS), ...audio(2, 100)]));
    const file = Buffer.concat([...begun, tagged]);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(0);
    expect(file.subarray(file.length - tagged.length).equals(tagged)).toBe(true);
  });

  it('a chained file of a thousand links (each finished before the next begins) has every link’s tags emptied', async () => {
    const links = Array.from({ length: 1000 }, (_, serial) => paginate(serial, [...opusHeaders(TAGS), ...audio(1, 50)]));
    const original = Buffer.concat(links.flat());
    const file = Buffer.from(original);
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1000);
    expect(file.includes(Buffer.from('Voice memo'))).toBe(false);
  });

  it('emptying a packet of many pages in memory lets the event loop in between pages', async () => {
    const big = `METADATA_BLOCK_PICTURE=${'A'.repeat(4 * 1024 * 1024)}`;
    const file = Buffer.concat(paginate(1, [...opusHeaders([big]), ...audio(2, 100)]));
    let turns = 0;
    let ticking = setImmediate(function tick() {
      turns++;
      ticking = setImmediate(tick);
    });
    const before = turns;
    expect(await blankOggMetadata(bufferAccess(file))).toBe(1);
    clearImmediate(ticking);
    expect(turns - before).toBeGreaterThan(1);
  });
});
