// The media service of the core: chunked uploads into the data folder's uploads/.
import type { Db } from '../../db/client';
import type { Upload } from '../../db/schema';
import type { UploadView } from '../ipc/media-contract';
import { localMediaPath, localThumbnailPath } from './paths';
import { createUploadSessions, type UploadSessions } from './sessions';

export type MediaService = UploadSessions & { view(row: Upload): UploadView };

export function createMediaService(deps: { db: Db; uploadsDir: string; clock: () => Date }): MediaService {
  return {
    ...createUploadSessions(() => deps),
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
