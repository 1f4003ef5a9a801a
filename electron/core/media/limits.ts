// What Tern accepts as media, and how much of it. One place, so the IPC schemas, the upload
// pipeline, the listener and the media proxy agree.

/** Images Tern decodes (sharp): EXIF stripped, thumbnail, blurhash, dimensions. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'] as const;
/** Other files the author may attach, stored without their tags (container-metadata.ts), not
 * decoded, no thumbnail. */
export const AV_TYPES = [
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/flac',
  'audio/mp4',
  'audio/webm',
] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
export type AvType = (typeof AV_TYPES)[number];
export type MediaType = ImageType | AvType;
export const MEDIA_TYPES: readonly MediaType[] = [...IMAGE_TYPES, ...AV_TYPES];

export const isImageType = (t: string): t is ImageType => (IMAGE_TYPES as readonly string[]).includes(t);
export const isMediaType = (t: string): t is MediaType => (MEDIA_TYPES as readonly string[]).includes(t);

const MiB = 1024 * 1024;
/** Largest image upload. Mastodon's limit is 16 MB too. */
export const MAX_IMAGE_BYTES = 16 * MiB;
/** Largest video/audio upload (held in memory while it arrives; Mastodon allows 99 MB). */
export const MAX_AV_BYTES = 40 * MiB;
export const maxBytesFor = (type: MediaType): number => (isImageType(type) ? MAX_IMAGE_BYTES : MAX_AV_BYTES);
/** Decompression-bomb guard: sharp's limitInputPixels (about 7,000 × 7,000). */
export const MAX_INPUT_PIXELS = 50_000_000;
/** Thumbnails fit in this square (microblog.pub's 740 px), as WebP. */
export const THUMBNAIL_SIZE = 740;
/** Blurhash components (x, y), as microblog.pub. */
export const BLURHASH_COMPONENTS = [4, 3] as const;
/** Attachments per post (Mastodon's 4). */
export const MAX_ATTACHMENTS = 4;
/** Alt text length (Mastodon's 1,500). */
export const MAX_ALT_LENGTH = 1_500;

/** Remote images the media proxy fetches for the renderer. */
export const MAX_PROXY_BYTES = 8 * MiB;
