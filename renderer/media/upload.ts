// Sending a file to Tern in chunks over the IPC contract (media.uploadBegin/Chunk/Finish):
// the same calls under Electron and in headless mode, and a progress figure after each chunk.
import type { UploadView } from '../../electron/core/ipc/media-contract';
import { call } from '../api';

/** Base64 of some bytes, without building one giant argument list. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export async function uploadFile(file: Blob, contentType: string, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<UploadView> {
  const { uploadId, chunkBytes } = await call('media.uploadBegin', { contentType, size: file.size });
  try {
    for (let offset = 0; offset < file.size; offset += chunkBytes) {
      signal?.throwIfAborted();
      const bytes = new Uint8Array(await file.slice(offset, offset + chunkBytes).arrayBuffer());
      const { received } = await call('media.uploadChunk', { uploadId, offset, data: toBase64(bytes) });
      onProgress(received / file.size);
    }
    signal?.throwIfAborted();
    return await call('media.uploadFinish', { uploadId });
  } catch (error) {
    void call('media.uploadCancel', { uploadId }).catch(() => {});
    throw error;
  }
}
