// What a file's first bytes say it is. Declared types (from the author's file picker or a
// remote server's Content-Type) are never trusted on their own: an upload must be what it
// claims, and the media proxy serves only what is an image by its bytes (never SVG or HTML).
import type { MediaType } from './limits';

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** The brands of an ISO-BMFF `ftyp` box (major and compatible), or [] if there is none. */
function ftypBrands(bytes: Uint8Array): string[] {
  if (!ascii(bytes, 4, 'ftyp') || bytes.length < 16) return [];
  const size = Math.min(((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0, bytes.length, 256);
  const brands: string[] = [];
  for (let at = 8; at + 4 <= size; at += 4) {
    if (at === 12) continue; // minor version
    brands.push(String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!));
  }
  return brands;
}

const isAvif = (bytes: Uint8Array) => ftypBrands(bytes).some((b) => b === 'avif' || b === 'avis');

/** The image type of these bytes, or null: JPEG, PNG, GIF, WebP, AVIF only. */
export function sniffImage(bytes: Uint8Array): MediaType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(bytes, 0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return 'image/gif';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'image/webp';
  if (isAvif(bytes)) return 'image/avif';
  return null;
}

/** The container family of audio/video bytes: which declared types they can honestly carry. */
function avContainer(bytes: Uint8Array): readonly MediaType[] | null {
  if (ascii(bytes, 4, 'ftyp')) {
    const brands = ftypBrands(bytes);
    // HEIF stills (iPhone photos) are images, not video; Tern takes neither as video.
    if (brands.some((b) => ['avif', 'avis', 'heic', 'heix', 'mif1', 'msf1'].includes(b))) return null;
    if (ascii(bytes, 8, 'qt  ')) return ['video/quicktime'];
    return ['video/mp4', 'audio/mp4', 'video/quicktime'];
  }
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return ['video/webm', 'audio/webm'];
  if (ascii(bytes, 0, 'OggS')) return ['video/ogg', 'audio/ogg'];
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WAVE')) return ['audio/wav'];
  if (ascii(bytes, 0, 'fLaC')) return ['audio/flac'];
  // MP3: an ID3 tag, or an MPEG audio frame sync (11 set bits).
  if (ascii(bytes, 0, 'ID3') || (bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) return ['audio/mpeg'];
  return null;
}

/** Whether these bytes can be a file of the declared type. */
export function bytesMatch(bytes: Uint8Array, declared: MediaType): boolean {
  if (declared.startsWith('image/')) return sniffImage(bytes) === declared;
  // An image (or anything else) renamed .mp4 is refused; a JPEG's FF D8 FF also matches the MP3
  // frame sync, so images are ruled out first.
  if (sniffImage(bytes) !== null) return false;
  return avContainer(bytes)?.includes(declared) ?? false;
}
