// A WebM/Matroska file's Tags, Attachments, titles and app names are voided or emptied in place;
// the clusters, and every position the SeekHead and Cues give, stay.
import { describe, expect, it } from 'vitest';
import { bufferAccess } from './container-metadata';
import { blankMatroskaMetadata } from './matroska-metadata';
import { countedFile, ebmlElement as el, vorbisComment } from './test-av-files';

const uint = (id: number, n: number) => el(id, Buffer.from([n >> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]));

// Element ids (RFC 9559).
const ID = {
  EBML: 0x1a45dfa3, DocType: 0x4282, Segment: 0x18538067, SeekHead: 0x114d9b74, Seek: 0x4dbb, SeekID: 0x53ab, SeekPosition: 0x53ac,
  Info: 0x1549a966, TimestampScale: 0x2ad7b1, MuxingApp: 0x4d80, WritingApp: 0x5741, Title: 0x7ba9, DateUTC: 0x4461, Tracks: 0x1654ae6b,
  TrackEntry: 0xae, TrackNumber: 0xd7, Name: 0x536e, CodecID: 0x86, CodecPrivate: 0x63a2, Cluster: 0x1f43b675, Timestamp: 0xe7, SimpleBlock: 0xa3,
  Attachments: 0x1941a469, AttachedFile: 0x61a7, FileName: 0x466e, FileMediaType: 0x4660, FileData: 0x465c, Tags: 0x1254c367, Tag: 0x7373,
  SimpleTag: 0x67c8, TagName: 0x45a3, TagString: 0x4487, CRC32: 0xbf, Void: 0xec,
} as const;

const header = el(ID.EBML, [el(ID.DocType, 'webm')]);
const simpleTag = (name: string, value: string) => el(ID.SimpleTag, [el(ID.TagName, name), el(ID.TagString, value)]);
const tags = el(ID.Tags, [el(ID.Tag, [simpleTag('TITLE', 'Voice memo'), simpleTag('RECORDING_LOCATION', '+48.8584+002.2945/'), simpleTag('ENCODER', 'Lavf60.3.100')])]);
const attachments = el(ID.Attachments, [el(ID.AttachedFile, [el(ID.FileName, 'cover.jpg'), el(ID.FileMediaType, 'image/jpeg'), el(ID.FileData, 'a photo of the flat')])]);
const info = el(ID.Info, [el(ID.CRC32, Buffer.from([1, 2, 3, 4])), uint(ID.TimestampScale, 1_000_000), el(ID.MuxingApp, 'Lavf60.3.100'), el(ID.WritingApp, 'Pixel Recorder'), el(ID.Title, 'Voice memo'), el(ID.DateUTC, Buffer.alloc(8, 1))]);
const tracks = el(ID.Tracks, [el(ID.TrackEntry, [uint(ID.TrackNumber, 1), el(ID.Name, 'Kitchen mic'), el(ID.CodecID, 'A_OPUS')])]);
const cluster = (n: number, size?: 'unknown') => el(ID.Cluster, [uint(ID.Timestamp, n * 1000), el(ID.SimpleBlock, Buffer.alloc(300, n)), el(ID.SimpleBlock, Buffer.alloc(300, n + 1))], size);

/** mkvmerge's layout: SeekHead, Info, Tracks, Clusters, then Attachments and Tags, each found
 * through the SeekHead by its position from the Segment's data. */
function mkvmergeFile(): { file: Buffer; clusters: Buffer } {
  const clusters = Buffer.concat([cluster(1), cluster(2)]);
  const after = [info, tracks, clusters, attachments, tags];
  const seek = (id: number, position: number) => el(ID.Seek, [el(ID.SeekID, Buffer.from(id.toString(16), 'hex')), uint(ID.SeekPosition, position)]);
  const seekHeadSize = el(ID.SeekHead, [0, 0, 0, 0].map((_, i) => seek(ID.Info, i))).length;
  const positions = after.reduce<number[]>((list, part, i) => [...list, (list[i - 1] ?? seekHeadSize) + (i === 0 ? 0 : after[i - 1]!.length)], []);
  const seekHead = el(ID.SeekHead, [seek(ID.Info, positions[0]!), seek(ID.Tracks, positions[1]!), seek(ID.Attachments, positions[3]!), seek(ID.Tags, positions[4]!)]);
  return { file: Buffer.concat([header, el(ID.Segment, [seekHead, ...after])]), clusters };
}

interface Parsed {
  id: number;
  start: number;
  dataStart: number;
  end: number;
}
/** Our own reader: the children of [start, end), known sizes only. */
function children(file: Buffer, start: number, end: number): Parsed[] {
  const out: Parsed[] = [];
  for (let at = start; at < end; ) {
    const idLength = Math.clz32(file[at]!) - 23;
    const id = file.readUIntBE(at, idLength);
    const sizeLength = Math.clz32(file[at + idLength]!) - 23;
    let size = file[at + idLength]! & (0xff >> sizeLength);
    for (let i = 1; i < sizeLength; i++) size = size * 256 + file[at + idLength + i]!;
    const dataStart = at + idLength + sizeLength;
    out.push({ id, start: at, dataStart, end: dataStart + size });
    at = dataStart + size;
  }
  expect(out.at(-1)?.end ?? start).toBe(end);
  return out;
}
const only = (list: Parsed[], id: number) => list.filter((e) => e.id === id);

describe('WebM/Matroska metadata', () => {
  it('Tags and Attachments become Void elements of the same size; the clusters stay byte for byte', async () => {
    const { file: original, clusters } = mkvmergeFile();
    const file = Buffer.from(original);
    await blankMatroskaMetadata(bufferAccess(file));
    expect(file.length).toBe(original.length);
    for (const text of ['Voice memo', 'RECORDING_LOCATION', '+48.8584', 'Lavf', 'Pixel', 'cover.jpg', 'a photo', 'Kitchen']) expect(file.includes(Buffer.from(text))).toBe(false);
    const [, segment] = children(file, 0, file.length);
    const before = children(original, 0, original.length)[1]!;
    const top = children(file, segment!.dataStart, segment!.end);
    expect(top.map((e) => [e.id, e.start, e.end])).toEqual(children(original, before.dataStart, before.end).map((e) => [e.id === ID.Tags || e.id === ID.Attachments ? ID.Void : e.id, e.start, e.end]));
    const clustersAt = original.indexOf(clusters);
    expect(file.subarray(clustersAt, clustersAt + clusters.length).equals(clusters)).toBe(true);
    for (const gone of top.filter((e) => e.id === ID.Void)) expect(file.subarray(gone.dataStart, gone.end).every((b) => b === 0)).toBe(true);
  });

  it('Info keeps its required MuxingApp and WritingApp, emptied; Title, DateUTC, its CRC-32 and a track’s Name become Void', async () => {
    const file = Buffer.from(mkvmergeFile().file);
    await blankMatroskaMetadata(bufferAccess(file));
    const segment = children(file, 0, file.length)[1]!;
    const infoElement = only(children(file, segment.dataStart, segment.end), ID.Info)[0]!;
    const fields = children(file, infoElement.dataStart, infoElement.end);
    expect(fields.map((e) => e.id)).toEqual([ID.Void, ID.TimestampScale, ID.MuxingApp, ID.WritingApp, ID.Void, ID.Void]);
    for (const app of [fields[2]!, fields[3]!]) expect(file.subarray(app.dataStart, app.end).every((b) => b === 0)).toBe(true);
    const tracksElement = only(children(file, segment.dataStart, segment.end), ID.Tracks)[0]!;
    const entry = children(file, tracksElement.dataStart, tracksElement.end)[0]!;
    expect(children(file, entry.dataStart, entry.end).map((e) => e.id)).toEqual([ID.TrackNumber, ID.Void, ID.CodecID]);
  });

  it('the SeekHead no longer points at Tags or Attachments; its entries for Info and Tracks still point at them', async () => {
    const file = Buffer.from(mkvmergeFile().file);
    await blankMatroskaMetadata(bufferAccess(file));
    const segment = children(file, 0, file.length)[1]!;
    const top = children(file, segment.dataStart, segment.end);
    const entries = children(file, top[0]!.dataStart, top[0]!.end);
    expect(entries.map((e) => e.id)).toEqual([ID.Seek, ID.Seek, ID.Void, ID.Void]);
    for (const [entry, target] of [[entries[0]!, ID.Info], [entries[1]!, ID.Tracks]] as const) {
      const [seekId, position] = children(file, entry.dataStart, entry.end);
      expect(file.readUIntBE(seekId!.dataStart, seekId!.end - seekId!.dataStart)).toBe(target);
      const pointed = segment.dataStart + file.readUIntBE(position!.dataStart, position!.end - position!.dataStart);
      expect(top.find((e) => e.start === pointed)?.id).toBe(target);
    }
  });

  it('a live recording (unknown-size Segment and Clusters, as MediaRecorder writes) loses the Tags after its clusters', async () => {
    const clusters = Buffer.concat([cluster(1, 'unknown'), cluster(2, 'unknown')]);
    const original = Buffer.concat([header, el(ID.Segment, [info, tracks, clusters, tags], 'unknown')]);
    const file = Buffer.from(original);
    await blankMatroskaMetadata(bufferAccess(file));
    expect(file.includes(Buffer.from('RECORDING_LOCATION'))).toBe(false);
    const tagsAt = original.indexOf(tags);
    expect(file[tagsAt]).toBe(ID.Void);
    expect(children(file, tagsAt, tagsAt + tags.length).map((e) => e.id)).toEqual([ID.Void]);
    const clustersAt = original.indexOf(clusters);
    expect(file.subarray(clustersAt, clustersAt + clusters.length).equals(clusters)).toBe(true);
  });

  it('an element running past its parent stops the walk: what came before is blanked, the rest left as it is', async () => {
    const broken = Buffer.from([0x1f, 0x43, 0xb6, 0x75, 0x50, 0x00, 0xe7, 0x81, 0x00]); // a Cluster claiming 4 KiB, holding 3 bytes
    const original = Buffer.concat([header, el(ID.Segment, [info, broken, tags])]);
    const file = Buffer.from(original);
    await blankMatroskaMetadata(bufferAccess(file));
    expect(file.includes(Buffer.from('Voice memo'))).toBe(true); // in Tags, after the broken Cluster
    expect(file.includes(Buffer.from('Lavf'))).toBe(true);
    expect(file.includes(Buffer.from('Pixel'))).toBe(false); // in Info, before it
    const brokenAt = original.indexOf(broken);
    expect(file.subarray(brokenAt).equals(original.subarray(brokenAt))).toBe(true);
  });

  it('a live recording of more tiny blocks than any file holds (1,000,000) stops the walk among them; the Tags after them are left as they are', async () => {
    /** An unknown-size Cluster of `n` empty SimpleBlocks (2 bytes each: the id, a size of 0). */
    const emptyBlocks = (n: number) => {
      const blocks = Buffer.alloc(2 * n);
      for (let at = 0; at < blocks.length; at += 2) blocks.set([ID.SimpleBlock, 0x80], at);
      return Buffer.concat([el(ID.Cluster, [], 'unknown'), blocks]);
    };
    const recording = (n: number) => Buffer.concat([header, el(ID.Segment, [emptyBlocks(n), tags], 'unknown')]);
    // Short of the cap, the walk goes through the blocks and voids the Tags after them.
    const fewer = recording(999_000);
    await blankMatroskaMetadata(bufferAccess(fewer));
    expect(fewer.includes(Buffer.from('RECORDING_LOCATION'))).toBe(false);
    // A million blocks: the walk stops among them, having read no more elements than the cap.
    const original = recording(1_000_000);
    const file = countedFile(Buffer.from(original));
    expect(await blankMatroskaMetadata(file)).toBe(0);
    expect(file.reads).toBeLessThanOrEqual(1_000_000);
    expect(file.writes).toBe(0);
  });

  /** Xiph lacing (RFC 9559's lacing, as the codec mappings use it): packets less one, the sizes of all but the last (255s and a
   * byte under 255), then the packets. */
  const xiphLaced = (packets: Buffer[]) => {
    const lace = (n: number) => [...Array<number>(Math.floor(n / 255)).fill(255), n % 255];
    return Buffer.concat([Buffer.from([packets.length - 1, ...packets.slice(0, -1).flatMap((p) => lace(p.length))]), ...packets]);
  };
  const trackFile = (codec: string, codecPrivate: Buffer) =>
    Buffer.concat([header, el(ID.Segment, [info, el(ID.Tracks, [el(ID.TrackEntry, [uint(ID.TrackNumber, 1), el(ID.CodecID, codec), el(ID.CodecPrivate, codecPrivate)])]), cluster(1)])]);

  it('a Vorbis track remuxed from Ogg loses the comment header in its CodecPrivate, which keeps its length; identification and setup stay', async () => {
    // Vorbis I spec §4.2: identification, comment (a cover big enough for two-byte lacing), setup.
    const identification = Buffer.concat([Buffer.from('\x01vorbis', 'latin1'), Buffer.alloc(23, 1)]);
    const comment = Buffer.concat([Buffer.from('\x03vorbis', 'latin1'), vorbisComment('Xiph.Org libVorbis', ['TITLE=Voice memo', `METADATA_BLOCK_PICTURE=${'A'.repeat(600)}`]), Buffer.from([1])]);
    const setup = Buffer.concat([Buffer.from('\x05vorbis', 'latin1'), Buffer.alloc(200, 5)]);
    const codecPrivate = xiphLaced([identification, comment, setup]);
    const original = trackFile('A_VORBIS', codecPrivate);
    const file = Buffer.from(original);
    await blankMatroskaMetadata(bufferAccess(file));
    for (const text of ['Voice memo', 'METADATA_BLOCK_PICTURE', 'libVorbis']) expect(file.includes(Buffer.from(text))).toBe(false);
    expect(file.length).toBe(original.length);
    const at = original.indexOf(codecPrivate);
    const stripped = file.subarray(at, at + codecPrivate.length);
    const packetsAt = codecPrivate.length - identification.length - comment.length - setup.length;
    expect(stripped.subarray(0, packetsAt + identification.length).equals(codecPrivate.subarray(0, packetsAt + identification.length))).toBe(true);
    const emptied = stripped.subarray(packetsAt + identification.length, packetsAt + identification.length + comment.length);
    expect([...emptied.subarray(0, 16)]).toEqual([3, ...Buffer.from('vorbis'), 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(emptied.subarray(16).every((b) => b === 0)).toBe(true);
    expect(stripped.subarray(codecPrivate.length - setup.length).equals(setup)).toBe(true);
  });

  it('a FLAC track loses the VORBIS_COMMENT and PICTURE blocks of its CodecPrivate ("fLaC" and the metadata blocks), as a FLAC file does', async () => {
    const block = (type: number, body: Buffer, last = false) => Buffer.concat([Buffer.from([(last ? 0x80 : 0) | type, 0, body.length >> 8, body.length & 0xff]), body]);
    const codecPrivate = Buffer.concat([Buffer.from('fLaC'), block(0, Buffer.alloc(34, 1)), block(4, vorbisComment('libFLAC', ['TITLE=Voice memo'])), block(6, Buffer.from('a photo of the flat'), true)]);
    const original = trackFile('A_FLAC', codecPrivate);
    const file = Buffer.from(original);
    await blankMatroskaMetadata(bufferAccess(file));
    for (const text of ['Voice memo', 'a photo', 'libFLAC']) expect(file.includes(Buffer.from(text))).toBe(false);
    const at = original.indexOf(codecPrivate);
    expect([file[at + 4], file[at + 4 + 38], file[at + 4 + 38 + 4 + codecPrivate.readUInt16BE(4 + 38 + 2)]]).toEqual([0, 1, 0x81]);
  });
  it('a Vorbis CodecPrivate of a megabyte of 255s (a lacing that never ends) is left as it is after a few reads, not one a byte', async () => {
    const codecPrivate = Buffer.concat([Buffer.from([2]), Buffer.alloc(1024 * 1024, 0xff)]);
    const bytes = trackFile('A_VORBIS', codecPrivate);
    const file = countedFile(bytes);
    await blankMatroskaMetadata(file);
    expect(file.reads).toBeLessThan(50);
    const at = bytes.indexOf(Buffer.from([2, 0xff, 0xff]));
    expect(bytes.subarray(at, at + codecPrivate.length).equals(codecPrivate)).toBe(true);
  });
});
