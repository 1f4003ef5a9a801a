// The author's picture (avatar) and header image: uploads named in the settings. The settings
// keep the upload's id, content hash and type, so the actor document is built without a query;
// the listener serves these two uploads publicly (access.ts) and the sweep of unused uploads
// keeps them (service.ts).
import { z } from 'zod';
import type { LocalActor } from '../federation/identity';
import { IMAGE_TYPES } from './limits';

export const PROFILE_IMAGES = ['avatar', 'header'] as const;
export type ProfileImageKind = (typeof PROFILE_IMAGES)[number];

export const profileImageSchema = z
  .object({
    id: z.number().int().positive(),
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a content hash'),
    contentType: z.enum(IMAGE_TYPES, { message: 'must be an image' }),
  })
  .strict();
export type ProfileImage = z.output<typeof profileImageSchema>;

export interface ProfileImages {
  avatar: ProfileImage | null;
  header: ProfileImage | null;
}

const EXT: Record<ProfileImage['contentType'], string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
};

/** The public URL of a profile image on the listener: /media/<hash>/<avatar|header>.<ext>. */
export function profileImageUrl(local: LocalActor, kind: ProfileImageKind, image: ProfileImage): string {
  return `${local.baseUrl}/media/${image.hash}/${kind}.${EXT[image.contentType]}`;
}

/** The ActivityStreams Image the actor document publishes as `icon` or `image`. */
export function apImage(local: LocalActor, kind: ProfileImageKind, image: ProfileImage): Record<string, string> {
  return { type: 'Image', mediaType: image.contentType, url: profileImageUrl(local, kind, image) };
}

/** Content hashes of the current profile images: public on the listener whatever posts say. */
export const profileImageHashes = (images: ProfileImages): string[] =>
  PROFILE_IMAGES.flatMap((k) => (images[k] ? [images[k].hash] : []));

/** Upload ids of the current profile images: never swept as unused. */
export const profileImageIds = (images: ProfileImages): number[] =>
  PROFILE_IMAGES.flatMap((k) => (images[k] ? [images[k].id] : []));
