// The listener's media routes: /media/<hash>/<filename> (the file; the name is cosmetic) and
// /media/thumbnails/<hash> (the WebP thumbnail). Content-addressed, so public files are cached
// for a year as immutable; files of followers-only and direct posts need a signed GET (see
// access.ts) and are never cached by shared caches. Anything not visible is a plain 404.
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { problem, type ListenerContext, type ListenerCore, type ListenerEnv } from '../listener/context';
import { signedGetActor } from '../listener/signed-get';
import { mayFetch, mediaAccess } from './access';
import { profileImageHashes } from './profile-images';
import { isContentHash, thumbnailPath, uploadPath } from './store';

export const MEDIA_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Even opened directly, a served file can never run as a page of the listener's origin.
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
} as const;

export function mountMediaRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const serve = async (c: ListenerContext, hash: string, variant: 'file' | 'thumbnail'): Promise<Response> => {
    const uploads = core.paths?.uploads;
    const local = core.identity();
    if (!isContentHash(hash) || uploads === undefined || local === null) return problem(c, 404, 'not found');
    const access = mediaAccess(core.db, hash, profileImageHashes(core.settings.get()));
    if (access.kind === 'none') return problem(c, 404, 'not found');
    const viewer = access.kind === 'restricted' ? await signedGetActor(core, c, local) : null;
    if (!mayFetch(core.db, access, viewer)) return problem(c, 404, 'not found');
    if (variant === 'thumbnail' && !access.upload.hasThumbnail) return problem(c, 404, 'not found');
    // Streamed, never read whole: a 40 MB video asked for by many at once must not be held in
    // memory once per request. A regular file only (a link in uploads/ is not served).
    const path = variant === 'file' ? uploadPath(uploads, hash) : thumbnailPath(uploads, hash);
    const info = await lstat(path).catch(() => null);
    if (info === null || !info.isFile()) return problem(c, 404, 'not found');
    const etag = `"${hash}${variant === 'thumbnail' ? '-t' : ''}"`;
    const headers = {
      ...MEDIA_HEADERS,
      'Content-Type': variant === 'file' ? access.upload.contentType : 'image/webp',
      'Cache-Control': access.kind === 'public' ? 'public, max-age=31536000, immutable' : 'private, max-age=3600',
      ETag: etag,
      ...(access.kind === 'restricted' ? { Vary: 'Signature, Authorization' } : {}),
    };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    if (c.req.method === 'HEAD') return c.body(null, 200, { ...headers, 'Content-Length': String(info.size) });
    const stream = Readable.toWeb(createReadStream(path, { highWaterMark: 64 * 1024 })) as ReadableStream<Uint8Array>;
    return c.body(stream, 200, { ...headers, 'Content-Length': String(info.size) });
  };

  app.get('/media/thumbnails/:hash', (c) => serve(c, c.req.param('hash'), 'thumbnail'));
  app.get('/media/:hash/:filename', (c) => serve(c, c.req.param('hash'), 'file'));
}
