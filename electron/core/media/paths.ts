// The paths the renderer loads media from, on its own origin (headless UI server or the
// Electron app:// protocol; the CSP allows images from nowhere else):
//   /media/local/<hash>            an upload of the author's, /media/local/<hash>/thumbnail its thumbnail
//   /media/proxy/<sig>/<b64url>    a remote image, fetched by the core (ui-routes.ts)
// Proxy paths are signed with a key that lives only in this process's memory, so the page can
// load only URLs the core itself handed out (views are rebuilt on every read), never one
// smuggled into content.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { httpUrl } from '../federation/ap';

const KEY = randomBytes(32);
const sign = (payload: string) => createHmac('sha256', KEY).update(payload).digest('base64url').slice(0, 32);

export const localMediaPath = (hash: string): string => `/media/local/${hash}`;
export const localThumbnailPath = (hash: string): string => `/media/local/${hash}/thumbnail`;

/** The proxy path of a remote http(s) URL, or null for anything else. */
export function proxyPath(url: string | null | undefined): string | null {
  const href = httpUrl(url);
  if (href === null) return null;
  const payload = Buffer.from(href, 'utf8').toString('base64url');
  return `/media/proxy/${sign(payload)}/${payload}`;
}

/** The remote URL of a proxy path's parts, if the signature is ours. */
export function verifyProxyPath(sig: string, payload: string): string | null {
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return httpUrl(Buffer.from(payload, 'base64url').toString('utf8'));
}
