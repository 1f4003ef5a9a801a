// Who is calling the listener, for its log lines. Directly, that is the socket's peer. Behind a
// tunnel every request comes from the tunnel's local end (127.0.0.1), and the peer's own
// address is only in X-Forwarded-For — which anyone can write, so it is read only when the
// author said the listener is behind a proxy (settings.listener.behindProxy), and then only
// its last entry: the one the tunnel itself appended, not what the caller claimed before it.
//
// Nothing else forwarded is honoured: X-Forwarded-Host and X-Forwarded-Proto never shape a
// URL, because every URL the listener builds or checks a signature against comes from the
// base URL, the identity (http-parts.ts publicUrl).
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

export function forwardedFor(header: string | undefined | null): string | null {
  const last = header?.split(',').at(-1)?.trim();
  return last ? last.replace(/^\[(.*)\]$/, '$1') : null;
}

export function clientAddress(c: Context, behindProxy: boolean): string {
  let socket = 'unknown';
  try {
    socket = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not served by @hono/node-server (app.request in tests): no socket to ask.
  }
  if (!behindProxy) return socket;
  return forwardedFor(c.req.header('x-forwarded-for')) ?? socket;
}

/** The same for POST /inbox, which the listener answers on node:http (inbox-route.ts). */
export function nodeClientAddress(req: IncomingMessage, behindProxy: boolean): string {
  const socket = req.socket.remoteAddress ?? 'unknown';
  if (!behindProxy) return socket;
  const header = req.headers['x-forwarded-for'];
  return forwardedFor(Array.isArray(header) ? header.join(',') : header) ?? socket;
}
