// Small HTTP pieces of the listener: content negotiation, the public URL a peer addressed (the
// one its signature covers), and reading a request body under a hard cap (and knowing when one
// was left unread).
import { withoutTrailingSlashes } from '../trailing-slashes';

/**
 * Whether the client asks for ActivityPub JSON: application/activity+json or
 * application/ld+json anywhere in Accept (not only first, as the service behind the spec
 * checked), unless refused with q=0.
 */
export function wantsActivityJson(accept: string | undefined | null): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'application/activity+json' && type !== 'application/ld+json') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The URL the peer addressed: the configured base URL plus the path. The base URL is the
 * identity and the public address behind any tunnel, so forwarded headers are never consulted —
 * trusting X-Forwarded-Host would let a server replay a delivery signed for its own /inbox to us.
 */
export function publicUrl(request: Request, baseUrl: string): URL {
  const local = new URL(request.url);
  return new URL(`${withoutTrailingSlashes(baseUrl)}${local.pathname}${local.search}`);
}

/**
 * A copy of `request` addressed to `url`, with Host set to that URL's host: what the peer signed,
 * whatever the tunnel rewrote on the way. `body` is the bytes already read, if any.
 */
export function asAddressed(request: Request, url: URL, body: Uint8Array | null): Request {
  const headers = new Headers(request.headers);
  headers.set('host', url.host);
  return new Request(url, { method: request.method, headers, body: body === null ? null : (body as Uint8Array<ArrayBuffer>) });
}

/** Requests whose bodies were read to their end (or that had none). */
const readToEnd = new WeakSet<Request>();

/**
 * Whether a request came with a body that was not read to its end — answered on its headers, or
 * refused halfway by size or count. Its connection should then close: the rest of the body is
 * not worth reading to keep it alive, and a client would otherwise send its next request on a
 * socket that is about to be dropped.
 */
export function bodyLeftUnread(request: Request): boolean {
  if (readToEnd.has(request) || request.method === 'GET' || request.method === 'HEAD') return false;
  const length = request.headers.get('content-length');
  return request.headers.has('transfer-encoding') || (length !== null && length.trim() !== '0');
}

export type CappedBody = { ok: true; bytes: Uint8Array; size: number } | { ok: false; reason: 'too_large' | 'aborted' | 'stopped' };

/**
 * Reads a request body, refusing it as soon as it is known to pass `cap` bytes: from
 * Content-Length before reading anything, and by counting while reading (chunked bodies, or a
 * Content-Length that lies). `stop` sees each chunk as it arrives; when it says so, reading
 * ends there ('stopped'). Unless `keep`, the chunks are left to `stop` (a reader that parses them
 * as they come): `bytes` is then empty, and only `size` says how much arrived.
 */
export async function readCappedBody(request: Request, cap: number, stop?: (chunk: Uint8Array) => boolean, keep = true): Promise<CappedBody> {
  const declared = request.headers.get('content-length');
  if (declared !== null && (!/^\d+$/.test(declared.trim()) || Number(declared) > cap)) {
    await request.body?.cancel().catch(() => undefined);
    return { ok: false, reason: 'too_large' };
  }
  if (request.body === null) {
    readToEnd.add(request);
    return { ok: true, bytes: new Uint8Array(0), size: 0 };
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: 'too_large' };
      }
      if (stop?.(value)) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: 'stopped' };
      }
      if (keep) chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'aborted' };
  }
  readToEnd.add(request);
  // Unless kept, the chunks were the watcher's: an array of the body's size would be empty.
  const bytes = new Uint8Array(keep ? size : 0);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes, size };
}
