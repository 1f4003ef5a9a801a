// The media part of the IPC contract: uploading a file in chunks (electron/core/media/sessions.ts).
// Bytes travel as base64 in JSON, so the same channels work through Electron's IPC and the
// headless HTTP transport; each chunk is at most 512 KiB of bytes (the transport caps bodies
// at 1 MiB) and the whole file is checked against the caps at uploadBegin.
import { z } from 'zod';
import { MAX_AV_BYTES } from '../media/limits';

export interface UploadView {
  /** upload.id: what posts.create's attachments name. */
  id: number;
  contentType: string;
  contentHash: string;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  hasThumbnail: boolean;
  /** Paths the page loads the file and its thumbnail from. */
  src: string;
  thumbSrc: string | null;
}

const uploadId = z.string().uuid();
// 512 KiB of bytes is 699,052 characters of base64.
const BASE64_CHUNK = 699_052;

export const mediaInputs = {
  'media.uploadBegin': z
    .object({
      contentType: z.string().trim().toLowerCase().max(100),
      size: z.number().int().min(0).max(MAX_AV_BYTES * 2),
    })
    .strict(),
  'media.uploadChunk': z
    .object({
      uploadId,
      offset: z.number().int().min(0),
      data: z.string().max(BASE64_CHUNK).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
    })
    .strict(),
  'media.uploadFinish': z.object({ uploadId }).strict(),
  'media.uploadCancel': z.object({ uploadId }).strict(),
} as const;

export interface MediaOutputs {
  'media.uploadBegin': { uploadId: string; chunkBytes: number };
  'media.uploadChunk': { received: number };
  'media.uploadFinish': UploadView;
  'media.uploadCancel': { cancelled: boolean };
}
