// What Settings → Profile checks before uploading a picture or header image, so a wrong file is
// refused with a sentence at once (Tern checks again: the bytes must really be that image).
import { dataStrings } from './strings';

/** The image types Tern decodes (electron/core/media/limits.ts IMAGE_TYPES). */
export const PROFILE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'] as const;
/** Tern's image cap (electron/core/media/limits.ts MAX_IMAGE_BYTES). */
export const PROFILE_IMAGE_MAX_MB = 16;

/** Why this file cannot be a picture or header image, or null when it may be uploaded. */
export function profileImageProblem(file: { name: string; type: string; size: number }): string | null {
  const t = dataStrings.profileImages;
  if (!(PROFILE_IMAGE_TYPES as readonly string[]).includes(file.type.toLowerCase())) return t.notImage(file.name);
  if (file.size > PROFILE_IMAGE_MAX_MB * 1024 * 1024) return t.tooLarge(file.name, PROFILE_IMAGE_MAX_MB);
  return null;
}
