// The media service of the core: chunked uploads into the data folder's uploads/ (Compose), and
// whole files handed over at once (the Micropub media endpoint and multipart creates). Both
// count as handed out, so the sweep of unused uploads gives either two days to be posted.
import type { Db } from '../../../db/client';
import type { Upload } from '../../../db/schema';
import { removeUnattached, sweepUnattached } from './attachments';
import type { UploadView } from '../ipc/media-contract';
import { localMediaPath, localThumbnailPath } from './paths';
import { createUploadSessions, type UploadSessions } from './sessions';
import { saveUploadFile, type IncomingFile } from './store';

export type MediaService = UploadSessions & {
  view(row: Upload): UploadView;
  /** Runs a whole file, in its pieces, through the pipeline (store.ts) and stores it, emptying
   * the list; `created` unless the same bytes were stored before. */
  store(input: { file: IncomingFile; contentType: string }): Promise<{ upload: Upload; created: boolean }>;
  /** Removes these uploads now unless a post uses them (a refused request's files). */
  discard(ids: readonly number[]): void;
};

/** Unattached uploads are kept this long (a Compose left open), then swept. */
const UNATTACHED_MS = 2 * 24 * 60 * 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

export function createMediaService(deps: {
  db: Db;
  uploadsDir: string;
  clock: () => Date;
  /** Uploads never swept or discarded though no post uses them (the profile images). */
  keep?: () => readonly number[];
}): MediaService {
  const sessions = createUploadSessions(() => deps);
  // Ids handed out lately (an upload found again by its hash keeps its old created_at).
  const handedOut = new Map<number, number>();
  let lastSweep = 0;
  const sweep = () => {
    const now = deps.clock().getTime();
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    for (const [id, at] of handedOut) if (now - at > UNATTACHED_MS) handedOut.delete(id);
    sweepUnattached(deps.db, deps.uploadsDir, new Date(now - UNATTACHED_MS), new Set([...handedOut.keys(), ...(deps.keep?.() ?? [])]));
  };
  return {
    ...sessions,
    begin(input) {
      sweep();
      return sessions.begin(input);
    },
    async finish(input) {
      const row = await sessions.finish(input);
      handedOut.set(row.id, deps.clock().getTime());
      return row;
    },
    async store(input) {
      sweep();
      const stored = await saveUploadFile(deps, input);
      handedOut.set(stored.upload.id, deps.clock().getTime());
      return stored;
    },
    discard(ids) {
      for (const id of ids) handedOut.delete(id);
      removeUnattached(deps.db, deps.uploadsDir, ids, deps.keep?.() ?? []);
    },
    view: (row) => ({
      id: row.id,
      contentType: row.contentType,
      contentHash: row.contentHash,
      width: row.width,
      height: row.height,
      blurhash: row.blurhash,
      hasThumbnail: row.hasThumbnail,
      src: localMediaPath(row.contentHash),
      thumbSrc: row.hasThumbnail ? localThumbnailPath(row.contentHash) : null,
    }),
  };
}
