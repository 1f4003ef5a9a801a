// A WAV file's metadata chunks become JUNK of the same size; fmt, data and every offset stay.
import { describe, expect, it } from 'vitest';
import { bufferAccess } from './container-metadata';
import { blankWavMetadata } from './wav-metadata';

/** A RIFF chunk: id, 32-bit little-endian size, data, a pad byte after an odd size. */
const chunk = (id: string, data: Buffer) => {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data, Buffer.alloc(data.length & 1)]);
};
const riff = (...chunks: Buffer[]) => {
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]);
  return Buffer.concat([chunk('RIFF', body).subarray(0, 8), body]);
};
/** WAVEFORMATEX for PCM: 1 channel, 8 kHz, 16 bits. */
const FMT = Buffer.from([1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]);
const SAMPLES = Buffer.alloc(400, 0x11);

/** A field recorder's WAV in outline: bext (EBU Tech 3285), fmt, iXML, data, LIST/INFO, id3. */
function recorderWav(): Buffer {
  const bext = Buffer.concat([Buffer.from('Field recorder at home'.padEnd(256, '\0'), 'latin1'), Buffer.from('Zoom H5'.padEnd(32, '\0'), 'latin1'), Buffer.alloc(314)]);
  const info = Buffer.concat([Buffer.from('INFO', 'latin1'), chunk('INAM', Buffer.from('Voice memo\0', 'latin1')), chunk('IART', Buffer.from('Ada\0', 'latin1'))]);
  return riff(
    chunk('bext', bext),
    chunk('fmt ', FMT),
    chunk('iXML', Buffer.from('<BWFXML><LOCATION><LOCATION_NAME>Home</LOCATION_NAME></LOCATION></BWFXML>', 'latin1')),
    chunk('data', SAMPLES),
    chunk('LIST', info),
    chunk('id3 ', Buffer.from('ID3\x03\0\0\0\0\0\x05TIT2x', 'latin1')),
  );
}

/** The chunk ids and sizes as a reader walks them, and where the data chunk's samples are. */
function chunks(wav: Buffer): [string, number][] {
  const out: [string, number][] = [];
  for (let at = 12; at + 8 <= wav.length; ) {
    const size = wav.readUInt32LE(at + 4);
    out.push([wav.toString('latin1', at, at + 4), size]);
    at += 8 + size + (size & 1);
  }
  return out;
}

describe('WAV metadata', () => {
  it('bext, iXML, LIST/INFO and id3 chunks become zeroed JUNK chunks of the same size; fmt and data stay byte for byte', async () => {
    const original = recorderWav();
    const file = Buffer.from(original);
    expect(await blankWavMetadata(bufferAccess(file))).toBe(4);
    expect(file.length).toBe(original.length);
    for (const text of ['Field recorder', 'Zoom', 'LOCATION', 'Voice memo', 'TIT2']) expect(file.includes(Buffer.from(text))).toBe(false);
    expect(chunks(file)).toEqual(chunks(original).map(([id, size]) => [id === 'fmt ' || id === 'data' ? id : 'JUNK', size]));
    const data = original.indexOf(Buffer.from('data'));
    expect(file.subarray(data, data + 8 + SAMPLES.length).equals(original.subarray(data, data + 8 + SAMPLES.length))).toBe(true);
    expect(file.subarray(0, 12).equals(original.subarray(0, 12))).toBe(true);
  });

  it('a chunk of odd size keeps its pad byte, and the chunk after it is found', async () => {
    const file = riff(chunk('fmt ', FMT), chunk('ICMT', Buffer.from('odd', 'latin1')), chunk('data', SAMPLES), chunk('cart', Buffer.from('Ada on air', 'latin1')));
    expect(await blankWavMetadata(bufferAccess(file))).toBe(2);
    expect(chunks(file).map(([id]) => id)).toEqual(['fmt ', 'JUNK', 'data', 'JUNK']);
    expect(file.includes(Buffer.from('Ada on air'))).toBe(false);
  });

  it('a chunk whose size runs past the end of the file stops the walk; the chunks before it are blanked', async () => {
    const broken = riff(chunk('fmt ', FMT), chunk('LIST', Buffer.from('INFOIART', 'latin1')), chunk('data', SAMPLES).subarray(0, 100));
    const file = Buffer.from(broken);
    expect(await blankWavMetadata(bufferAccess(file))).toBe(1);
    expect(file.includes(Buffer.from('IART'))).toBe(false);
    const data = broken.indexOf(Buffer.from('data'));
    expect(file.subarray(data).equals(broken.subarray(data))).toBe(true);
  });
  it('a data chunk declaring size 0 or 0xFFFFFFFF (an unfinished or streamed recording: players read to the end) ends the walk; the samples stay byte for byte', async () => {
    for (const declared of [0, 0xffffffff]) {
      const header = chunk('data', Buffer.alloc(0));
      header.writeUInt32LE(declared, 4);
      // Samples that read as chunk headers: 'abcd', size 8, eight bytes; twice.
      const samples = Buffer.from('abcd\x08\0\0\0ABCDEFGHabcd\x08\0\0\0ABCDEFGH', 'latin1');
      const original = riff(chunk('LIST', Buffer.from('INFOIART', 'latin1')), chunk('fmt ', FMT), header, samples);
      const file = Buffer.from(original);
      expect(await blankWavMetadata(bufferAccess(file))).toBe(1);
      expect(file.includes(Buffer.from('IART'))).toBe(false);
      const data = original.indexOf(Buffer.from('data'));
      expect(file.subarray(data).equals(original.subarray(data))).toBe(true);
    }
  });

  it('a data chunk whose size runs past the end of the file ends the walk without touching the samples', async () => {
    const header = chunk('data', Buffer.alloc(0));
    header.writeUInt32LE(1000, 4);
    const samples = Buffer.from('abcd\x08\0\0\0ABCDEFGH', 'latin1');
    const original = riff(chunk('fmt ', FMT), header, samples);
    const file = Buffer.from(original);
    expect(await blankWavMetadata(bufferAccess(file))).toBe(0);
    expect(file.equals(original)).toBe(true);
  });
  it('a file of more chunks than any recorder writes (10,000) stops the walk at the one past them; the rest is left as it is', async () => {
    const many = Array.from({ length: 10_000 }, () => chunk('abcd', Buffer.alloc(0)));
    const original = riff(chunk('fmt ', FMT), ...many.slice(1), chunk('LIST', Buffer.from('INFOIART', 'latin1')), chunk('data', SAMPLES));
    const file = Buffer.from(original);
    expect(await blankWavMetadata(bufferAccess(file))).toBe(9_999);
    expect(file.includes(Buffer.from('abcd'))).toBe(false);
    expect(file.subarray(-8 - SAMPLES.length - 16).equals(original.subarray(-8 - SAMPLES.length - 16))).toBe(true);
  });
});
