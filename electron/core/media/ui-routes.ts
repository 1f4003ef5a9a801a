// Media for the renderer, on its own origin: the author's uploads (/media/local/…) and remote
// images through the proxy (/media/proxy/<sig>/<b64url>, paths.ts). A fetch-style handler, so
// the headless UI server (ipc/http-transport) and Electron's app:// protocol (shell/protocol)
// serve the very same thing. The page itself never contacts a remote server: no IP address or
// read time leaks to it, and a tracking pixel learns nothing it did not already know.
//
// The proxy fetches through the core's one client (SSRF guard at connect time, every redirect
// hop re-checked, timeouts), with a body cap, and serves only what its bytes say is a JPEG,
// PNG, GIF, WebP or AVIF — whatever the remote Content-Type claimed; never SVG or HTML. Recent
// answers are kept in a small memory cache so scrolling back does not fetch again.
import { readFile } from 'node:fs/promises';
import type { Db } from '../../../db/client';
import type { DataPaths } from '../paths';
import type { FederationContext } from '../ports';
import { BlockedAddressError, BodyTooLargeError, NetError, UnsupportedSchemeError } from '../net/errors';
import { MAX_PROXY_BYTES } from './limits';
import { verifyProxyPath } from './paths';
import { sniffImage } from './sniff';
import { findUploadByHash, isContentHash, thumbnailPath, uploadPath } from './store';

export type UiMediaHandler = (request: Request) => Promise<Response | null>;

type MediaCore = { db: Db; fed: Pick<FederationContext, 'client'>; paths: Pick<DataPaths, 'uploads'>; connectivity: { isOnline(): boolean } };

const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Referrer-Policy': 'no-referrer',
};

const CACHE_BYTES = 48 * 1024 * 1024;
const CACHE_MS = 60 * 60_000;

interface Cached {
  type: string;
  bytes: Uint8Array;
  at: number;
}

function text(status: number, message: string): Response {
  return new Response(message, { status, headers: { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });
}

export function createUiMediaHandler(core: MediaCore, now: () => number = Date.now): UiMediaHandler {
  const cache = new Map<string, Cached>();
  let cachedBytes = 0;
  const inFlight = new Map<string, Promise<Cached | Response>>();

  const remember = (url: string, entry: Cached) => {
    if (entry.bytes.byteLength > CACHE_BYTES / 4) return;
    cache.set(url, entry);
    cachedBytes += entry.bytes.byteLength;
    for (const [key, old] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(key);
      cachedBytes -= old.bytes.byteLength;
    }
  };

  const fetchImage = async (url: string): Promise<Cached | Response> => {
    let bytes: Uint8Array;
    try {
      const response = await core.fed.client.fetch(url, { headers: { Accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9' }, maxBodyBytes: MAX_PROXY_BYTES });
      if (!response.ok) {
        await response.body?.cancel();
        return text(502, `The server answered ${response.status}.`);
      }
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      if (error instanceof BodyTooLargeError) return text(413, 'The image is larger than Tern loads.');
      if (error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError) return text(403, 'Tern does not load media from that address.');
      if (error instanceof NetError || error instanceof TypeError) return text(502, 'The image could not be fetched.');
      throw error;
    }
    const type = sniffImage(bytes);
    if (type === null) return text(415, 'That is not an image Tern shows.');
    const entry = { type, bytes, at: now() };
    remember(url, entry);
    return entry;
  };

  const proxy = async (sig: string, payload: string): Promise<Response> => {
    const url = verifyProxyPath(sig, payload);
    if (url === null) return text(404, 'Not found');
    let entry: Cached | Response | undefined = cache.get(url);
    if (entry && now() - entry.at > CACHE_MS) {
      cache.delete(url);
      cachedBytes -= entry.bytes.byteLength;
      entry = undefined;
    }
    if (!entry) {
      if (!core.connectivity.isOnline()) return text(503, 'Tern is offline.');
      let pending = inFlight.get(url);
      if (!pending) {
        pending = fetchImage(url).finally(() => inFlight.delete(url));
        inFlight.set(url, pending);
      }
      entry = await pending;
    }
    if (entry instanceof Response) return entry.clone();
    return new Response(entry.bytes.slice(), {
      status: 200,
      headers: { ...BASE_HEADERS, 'Content-Type': entry.type, 'Cache-Control': 'private, max-age=86400' },
    });
  };

  const local = async (hash: string, thumbnail: boolean): Promise<Response> => {
    const row = isContentHash(hash) ? findUploadByHash(core.db, hash) : undefined;
    if (!row || (thumbnail && !row.hasThumbnail)) return text(404, 'Not found');
    try {
      const bytes = await readFile(thumbnail ? thumbnailPath(core.paths.uploads, hash) : uploadPath(core.paths.uploads, hash));
      return new Response(new Uint8Array(bytes), {
        status: 200,
        headers: { ...BASE_HEADERS, 'Content-Type': thumbnail ? 'image/webp' : row.contentType, 'Cache-Control': 'private, max-age=31536000, immutable' },
      });
    } catch {
      return text(404, 'Not found');
    }
  };

  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const path = new URL(request.url).pathname;
    const p = /^\/media\/proxy\/([A-Za-z0-9_-]{32})\/([A-Za-z0-9_-]{1,8000})$/.exec(path);
    if (p) return proxy(p[1]!, p[2]!);
    const l = /^\/media\/local\/([0-9a-f]{64})(\/thumbnail)?$/.exec(path);
    if (l) return local(l[1]!, l[2] !== undefined);
    return path.startsWith('/media/') ? text(404, 'Not found') : null;
  };
}
