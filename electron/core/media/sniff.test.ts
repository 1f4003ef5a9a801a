// Telling files apart by their first bytes, whatever their name or declared type says.
import { describe, expect, it } from 'vitest';
import { bytesMatch, sniffImage } from './sniff';
import { acceptedType } from './store';
import { photo } from './test-images';

function ftyp(major: string, ...compatible: string[]): Uint8Array {
  const size = 16 + 4 * compatible.length;
  const box = Buffer.alloc(size + 8);
  box.writeUInt32BE(size, 0);
  box.write(`ftyp${major}`, 4, 'ascii');
  box.writeUInt32BE(0, 12);
  compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'ascii'));
  return box;
}

describe('sniffing', () => {
  it('knows the five image formats by their bytes', async () => {
    for (const format of ['jpeg', 'png', 'gif', 'webp', 'avif'] as const) expect(sniffImage(await photo(8, 8, format))).toBe(`image/${format}`);
  });

  it('finds AVIF among the compatible brands (major brand mif1), and takes HEIC for nothing', () => {
    expect(sniffImage(ftyp('mif1', 'mif1', 'avif', 'miaf'))).toBe('image/avif');
    expect(sniffImage(ftyp('heic', 'mif1', 'heic'))).toBeNull();
    expect(bytesMatch(ftyp('heic', 'mif1', 'heic'), 'video/mp4')).toBe(false);
    expect(bytesMatch(ftyp('isom', 'isom', 'mp41'), 'video/mp4')).toBe(true);
    expect(bytesMatch(ftyp('M4A ', 'M4A ', 'isom'), 'audio/mp4')).toBe(true);
  });

  it('never takes SVG, HTML or text for an image', () => {
    for (const text of ['<svg xmlns="http://www.w3.org/2000/svg"/>', '<!doctype html><p>', 'GIF8', '\x89PNG']) expect(sniffImage(Buffer.from(text, 'latin1'))).toBeNull();
  });

  it('takes the usual other names of accepted types', () => {
    expect(acceptedType('image/jpg')).toBe('image/jpeg');
    expect(acceptedType('audio/x-m4a')).toBe('audio/mp4');
    expect(acceptedType('audio/x-wav')).toBe('audio/wav');
    expect(() => acceptedType('image/heic')).toThrow('Tern can attach JPEG, PNG, WebP, GIF and AVIF images');
  });
});
