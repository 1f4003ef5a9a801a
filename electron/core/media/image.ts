// The image half of the upload pipeline (sharp): checks the pixel count before decoding
// (decompression bombs), applies the EXIF orientation and re-encodes the pixels in the same
// format, which drops EXIF (GPS included), XMP and comments; then a WebP thumbnail and a
// blurhash of the result. A GIF keeps its frames byte for byte but loses its XMP and comment
// extensions (container-metadata.ts).
// The input is bytes in memory or the path of a file (an upload from the window or the
// network, already on disk: store.ts saveUploadFile), which libvips reads itself on its
// threads.
import sharp, { type Sharp } from 'sharp';
import { encode } from 'blurhash';
import { readFile } from 'node:fs/promises';
import { gifWithoutMetadata } from './container-metadata';
import { MediaRejectedError } from './errors';
import { BLURHASH_COMPONENTS, MAX_INPUT_PIXELS, THUMBNAIL_SIZE, type ImageType } from './limits';

// libvips keeps input files open in its operation cache (20 by default); on Windows a file held
// open cannot be renamed or removed (sharp issues #415, #4093), and saveUploadFile renames or
// removes its temporary file as soon as the image is processed. Operations are still cached.
sharp.cache({ files: 0 });

export interface ProcessedImage {
  /** What is stored and served: the cleaned image, in its own format. */
  bytes: Buffer | null;
  /** WebP, fitting in THUMBNAIL_SIZE² (first frame of an animation). */
  thumbnail: Buffer;
  /** As displayed (orientation applied; one frame of an animation). */
  width: number;
  height: number;
  blurhash: string;
}

/** Bytes, or the path of a file: saveUploadFile's temporary file, named `incoming-<uuid>.tmp`.
 * No libvips loader claims a .tmp name by its suffix, so the loader is chosen by the first bytes
 * as for bytes (and those were checked, sniff.ts); and no two files share a name, so libvips'
 * operation cache, keyed by it, never answers for other bytes. */
export type ImageInput = Buffer | string;

const open = (input: ImageInput, animated: boolean): Sharp => sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated });

function refuse(error: unknown): never {
  if (error instanceof MediaRejectedError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) throw tooManyPixels();
  throw new MediaRejectedError('corrupt', 'This image could not be read: the file is damaged or incomplete.');
}

const tooManyPixels = () =>
  new MediaRejectedError('too_many_pixels', `This image is too large to open safely (more than ${MAX_INPUT_PIXELS / 1_000_000} million pixels).`);

function reencode(pipeline: Sharp, type: ImageType): Sharp {
  switch (type) {
    case 'image/jpeg':
      return pipeline.jpeg({ quality: 90 });
    case 'image/png':
      return pipeline.png();
    case 'image/webp':
      return pipeline.webp({ quality: 90 });
    case 'image/avif':
      return pipeline.avif({ quality: 60, effort: 2 });
    case 'image/gif':
      return pipeline.gif();
  }
}

/** A GIF without its metadata extensions (XMP, comments), its frames copied byte for byte; one
 * whose structure cannot be followed is re-encoded instead. */
async function cleanGif(input: ImageInput, animated: boolean): Promise<Buffer> {
  const gif = typeof input === 'string' ? await readFile(input) : input;
  return gifWithoutMetadata(gif) ?? open(gif, animated).gif().toBuffer();
}

export async function processImage(input: ImageInput, type: ImageType): Promise<ProcessedImage> {
  try {
    // The header alone: refuse a bomb before a single pixel is decoded.
    const meta = await sharp(input, { limitInputPixels: false }).metadata();
    const frameHeight = meta.pageHeight ?? meta.height;
    if (meta.width * frameHeight > MAX_INPUT_PIXELS || meta.width * meta.height > MAX_INPUT_PIXELS * 4) throw tooManyPixels();
    const animated = (meta.pages ?? 1) > 1 && (type === 'image/gif' || type === 'image/webp');
    // sharp writes no metadata unless asked (keepMetadata/withMetadata): re-encoding strips it.
    // The thumbnail is made from the original at the same time (JPEG and WebP decode straight
    // to a smaller size), and the blurhash from the thumbnail: the full image is decoded once
    // per output, never again from the re-encoded bytes.
    const [bytes, thumbnail] = await Promise.all([
      type === 'image/gif' ? cleanGif(input, animated) : reencode(open(input, animated).autoOrient(), type).toBuffer(),
      open(input, false).autoOrient().resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer(),
    ]);
    const width = meta.autoOrient.width;
    const height = animated ? frameHeight : meta.autoOrient.height;
    const small = await sharp(thumbnail).resize(32, 32, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const blurhash = encode(new Uint8ClampedArray(small.data), small.info.width, small.info.height, ...BLURHASH_COMPONENTS);
    return { bytes, thumbnail, width, height, blurhash };
  } catch (error) {
    refuse(error);
  }
}
