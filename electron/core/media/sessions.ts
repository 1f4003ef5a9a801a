// Uploads over the IPC contract, in chunks: `media.uploadBegin` (name, type, size — checked
// against the caps before a byte is sent), `media.uploadChunk` (base64 pieces, in order), then
// `media.uploadFinish`, which runs the pipeline and stores the file. The same JSON channels
// work through Electron's IPC and through the headless HTTP transport (whose bodies are capped
// at 1 MiB), and the renderer can show progress as the chunks are acknowledged. Chunks are
// held in memory until the whole file has arrived (an abandoned upload is forgotten after a
// while); then it is stored as files from the network are, written to a temporary file, and
// nothing is kept of a file that fails a check.
import { randomUUID } from 'node:crypto';
import type { Upload } from '../../../db/schema';
import { BadInputError, NotFoundError } from '../errors';
import { MediaRejectedError } from './errors';
import { acceptedType, checkSize, saveUploadFile, type UploadDeps } from './store';

/** Raw bytes per chunk (base64 makes it ~683 KiB of JSON, under the transport's 1 MiB). */
export const CHUNK_BYTES = 512 * 1024;
/** Uploads in progress at once, and how long one may sit idle. */
const MAX_SESSIONS = 8;
const IDLE_MS = 10 * 60_000;

interface Session {
  contentType: string;
  size: number;
  /** Each chunk as it was decoded, never copied again: saveUploadFile writes these very bytes
   * (a Blob of each would be a copy in, and reading it to write it one more out). */
  chunks: Buffer[];
  received: number;
  touched: number;
}

export interface UploadSessions {
  begin(input: { contentType: string; size: number }): { uploadId: string; chunkBytes: number };
  chunk(input: { uploadId: string; offset: number; data: string }): { received: number };
  finish(input: { uploadId: string }): Promise<Upload>;
  cancel(input: { uploadId: string }): { cancelled: boolean };
}

export function createUploadSessions(deps: () => UploadDeps, now: () => number = Date.now): UploadSessions {
  const sessions = new Map<string, Session>();
  const sweep = () => {
    for (const [id, s] of sessions) if (now() - s.touched > IDLE_MS) sessions.delete(id);
  };
  const get = (id: string): Session => {
    sweep();
    const session = sessions.get(id);
    if (!session) throw new NotFoundError('This upload is no longer in progress; please attach the file again.');
    session.touched = now();
    return session;
  };

  return {
    begin({ contentType, size }) {
      sweep();
      const type = acceptedType(contentType);
      checkSize(type, size);
      if (sessions.size >= MAX_SESSIONS) throw new BadInputError('Too many uploads at once; wait for one to finish.');
      const uploadId = randomUUID();
      sessions.set(uploadId, { contentType: type, size, chunks: [], received: 0, touched: now() });
      return { uploadId, chunkBytes: CHUNK_BYTES };
    },
    chunk({ uploadId, offset, data }) {
      const session = get(uploadId);
      if (offset !== session.received) throw new BadInputError(`Chunks must arrive in order: expected offset ${session.received}.`);
      const bytes = Buffer.from(data, 'base64');
      if (bytes.byteLength > CHUNK_BYTES || session.received + bytes.byteLength > session.size) {
        sessions.delete(uploadId);
        throw new MediaRejectedError('too_large', 'The file sent is larger than announced; the upload was cancelled.');
      }
      session.chunks.push(bytes);
      session.received += bytes.byteLength;
      return { received: session.received };
    },
    async finish({ uploadId }) {
      const session = get(uploadId);
      sessions.delete(uploadId);
      if (session.received !== session.size) throw new BadInputError('The file did not arrive whole; please attach it again.');
      // Written to disk and hashed chunk by chunk (store.ts saveUploadFile), which takes each out
      // of the list as it is written: joined and hashed whole, a 65 MiB video held the main
      // thread — the window's — for 100–200 ms.
      return (await saveUploadFile(deps(), { file: session.chunks, contentType: session.contentType })).upload;
    },
    cancel({ uploadId }) {
      return { cancelled: sessions.delete(uploadId) };
    },
  };
}
