// The checks Settings → Profile makes before uploading a picture or header image.
import { describe, expect, it } from 'vitest';
import { PROFILE_IMAGE_MAX_MB, profileImageProblem } from './profileImage';

// The core's cap (electron/core/media/limits.ts; electron/core/media/profile-images.test.ts checks they agree).
const MAX_IMAGE_BYTES = PROFILE_IMAGE_MAX_MB * 1024 * 1024;

describe('profileImageProblem', () => {
  it('lets an image within the cap through', () => {
    expect(profileImageProblem({ name: 'me.png', type: 'image/png', size: 1000 })).toBeNull();
    expect(profileImageProblem({ name: 'me.JPG', type: 'IMAGE/JPEG', size: MAX_IMAGE_BYTES })).toBeNull();
  });

  it('refuses what is not an image, and an image over 16 MB, each with a sentence naming the file', () => {
    expect(profileImageProblem({ name: 'cv.pdf', type: 'application/pdf', size: 10 })).toBe(
      '“cv.pdf” is not an image Tern can use: choose a JPEG, PNG, WebP, GIF or AVIF file.',
    );
    expect(profileImageProblem({ name: 'clip.mp4', type: 'video/mp4', size: 10 })).toMatch(/not an image/);
    expect(profileImageProblem({ name: 'x', type: '', size: 10 })).toMatch(/not an image/);
    expect(profileImageProblem({ name: 'big.png', type: 'image/png', size: MAX_IMAGE_BYTES + 1 })).toBe(
      '“big.png” is too large: a picture can be at most 16 MB.',
    );
  });
});
