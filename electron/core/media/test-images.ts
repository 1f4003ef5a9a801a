// Images for media tests and the bench, made on the spot with sharp (nothing binary in the
// repository): a photo-like JPEG with EXIF orientation and GPS, a PNG whose header claims
// more pixels than any screen (a decompression bomb), a truncated file. Not imported by
// production code.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** A gradient with some detail, so encoders have work to do and blurhash has colours. */
export async function photo(width: number, height: number, format: 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' = 'jpeg'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = ((x ^ y) & 0x3f) * 4;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).toFormat(format).toBuffer();
}

/** A JPEG stored sideways (EXIF orientation 6: display rotated 90° clockwise) with a GPS position. */
export async function sidewaysJpegWithGps(width = 64, height = 32): Promise<Buffer> {
  const base = await photo(width, height, 'jpeg');
  return sharp(base)
    .withExif({
      IFD0: { Copyright: 'Ana', Make: 'TernCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    })
    .withMetadata({ orientation: 6 })
    .jpeg()
    .toBuffer();
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid PNG header claiming width × height pixels, with a few bytes of data: opening it
 * naively would allocate gigabytes. */
export function pngBomb(width = 30_000, height = 30_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
