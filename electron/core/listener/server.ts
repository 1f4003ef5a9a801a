// Runs the listener app on a host:port with node:http and @hono/node-server's adapter (default 127.0.0.1: a tunnel in
// front exposes it), and the control the core keeps so Settings can start, restart and stop it.
// Timeouts are short, as for any server facing the internet.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { createListenerApp } from './app';
import { inboxRequestListener, isInboxPost, MAX_INBOX_BYTES } from './inbox-route';
import { MEDIA_BODY_BYTES as MICROPUB_MEDIA_BYTES, MICROPUB_MULTIPART_BYTES } from './micropub-route';
import { MEDIA_BODY_BYTES as MASTODON_MEDIA_BYTES } from '../mastodon/media-routes';
import { PROFILE_BODY_BYTES } from '../mastodon/account-routes';
import { createAcceptFirst } from './accept-first';
import type { ListenerAppOptions, ListenerCore, ListenerTimeouts } from './context';
import type { ListenerAddress, ListenerStatus } from '../ports';

export const DEFAULT_LISTENER_HOST = '127.0.0.1';

/** Short, as for any server facing the internet: a slow client holds a socket and its memory. */
export const LISTENER_TIMEOUTS: ListenerTimeouts = { headersMs: 20_000, requestMs: 30_000, uploadMs: 10 * 60_000, keepAliveMs: 5_000 };
/** How often node:http checks the deadlines above: a request is cut at most this late. */
export const CONNECTIONS_CHECKING_MS = 1_000;

// Declared in ports.ts, where services that switch the listener find them without importing it.
export type { ListenerAddress, ListenerStatus } from '../ports';

export interface RunningListener {
  host: string;
  port: number;
  /** http://host:port (IPv6 hosts in brackets). */
  url: string;
  close(): Promise<void>;
}

export class ListenerStartError extends Error {
  override name = 'ListenerStartError';
}

export function listenerUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Starts the listener app of `core` on `address`; rejects with ListenerStartError (port in use…). */
export async function startListener(core: ListenerCore, address: ListenerAddress, options: ListenerAppOptions = {}): Promise<RunningListener> {
  const app = createListenerApp(core, options);
  let server: Server;
  const port = await new Promise<number>((resolve, reject) => {
    // What @hono/node-server's serve() builds, with POST /inbox answered on node:http directly
    // (inbox-route.ts: the same checks and answers as the app's route, less per-request work).
    // A request Hono cannot make a URL of (a Host of `a b`, `[::1` or port 99999, `OPTIONS *`, a
    // backslash in the path) was answered 400 with an empty body by the adapter: it gets its
    // reason, as node:http's own refusals do (answerClientError).
    const viaHono = getRequestListener(app.fetch, { hostname: address.host, errorHandler: (error) => unreadableRequest(error, options.log) });
    const acceptFirst = createAcceptFirst();
    const inbox = inboxRequestListener(core, options, acceptFirst);
    const timeouts = { ...LISTENER_TIMEOUTS, ...options.timeouts };
    server = createServer(
      {
        // node:http's deadline is the uploads' (a 40 MiB video at 8 Mbit/s takes 40 s); every
        // other body is held to requestMs by bodyDeadline below.
        requestTimeout: Math.max(timeouts.requestMs, timeouts.uploadMs),
        headersTimeout: timeouts.headersMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        // node:http looks for requests past their deadline only this often (default 30 s): headers
        // trickled a byte a second were cut at 30 s instead of 20, a body at 60 s instead of 30.
        connectionsCheckingInterval: CONNECTIONS_CHECKING_MS,
      },
      (req, res) => {
        // RFC 9112 §3.2: a request with more than one Host is answered 400. node:http joins them
        // ("a, b") or keeps the first, so two servers behind each other could read different ones.
        if (hostCount(req.rawHeaders) > 1) return refuse(res, 400, 'the request has more than one Host header');
        bodyDeadline(req, res, isUpload(req) ? timeouts.uploadMs : timeouts.requestMs);
        return isInboxPost(req) ? inbox(req, res) : viaHono(req, res);
      },
    );
    // A client may half-close its side once its request is sent (FIN: nothing more from it; `nc
    // -N`, some HTTP/1.0 clients). node:http then drops the request and ends the socket before an
    // answer that waits on work (every inbox POST's) is written: the row was stored, the 202 lost.
    // With this set node:http finishes the request and answers it, then closes (_http_server.js
    // socketOnEnd; the socket itself is half-open already). A body cut short by the FIN is still
    // refused 400 (clientError), and idle or slow sockets still meet the timeouts above.
    (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
    // Inbox work waits while a burst of new connections is being accepted (accept-first.ts).
    server.on('connection', () => acceptFirst.connection());
    // Requests node:http refuses before Tern sees them (malformed lines, CR/LF in headers,
    // oversized headers, conflicting lengths) get the status with a reason, like every refusal.
    server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket));
    // `Expect: 100-continue` (curl sends it for bodies over 1 MiB): node:http would answer 100 at
    // once and have the client send the whole body, only for the route to refuse it once its cap
    // is read. A body declared larger than any route reads is refused before it is sent.
    const inboxCap = options.maxInboxBytes ?? MAX_INBOX_BYTES;
    server.on('checkContinue', (req, res) => {
      const declared = Number(req.headers['content-length']);
      const cap = isInboxPost(req) ? inboxCap : LARGEST_BODY_BYTES;
      if (Number.isFinite(declared) && declared > cap) {
        const body = JSON.stringify({ error: `body larger than ${cap} bytes` });
        res.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff', Connection: 'close' }).end(body);
        return;
      }
      res.writeContinue();
      server.emit('request', req, res);
    });
    // A CONNECT has no route here: refused with a reason rather than a silently closed socket.
    server.on('connect', (_req, socket) => answerClientError(Object.assign(new Error('CONNECT'), { code: 'HPE_CONNECT' }), socket));
    server.listen(address.port, address.host);
    server.once('listening', () => {
      const info = server.address();
      resolve(typeof info === 'object' && info !== null ? info.port : address.port);
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${address.host}:${address.port}`;
      reject(
        new ListenerStartError(
          error.code === 'EADDRINUSE'
            ? `Port ${address.port} is already in use on ${address.host}; choose another port for the listener.`
            : error.code === 'EADDRNOTAVAIL'
              ? `${address.host} is not an address of this machine.`
              : `The listener could not start on ${where}: ${error.message}`,
        ),
      );
    });
  });
  return {
    host: address.host,
    port,
    url: listenerUrl(address.host, port),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The listener as the core keeps it: at most one running, restartable on another address. */
export interface ListenerControl {
  /** Starts (or restarts) on `address`, default the settings' host and port. */
  start(address?: ListenerAddress): Promise<RunningListener>;
  stop(): Promise<void>;
  status(): ListenerStatus;
}

export function createListenerControl(core: () => ListenerCore, options: ListenerAppOptions = {}): ListenerControl {
  let running: RunningListener | null = null;
  let lastError: string | null = null;
  // Starts and stops are serialised so a quick toggle in Settings cannot leave two servers.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };

  const stopNow = async () => {
    const current = running;
    running = null;
    await current?.close();
  };

  return {
    start: (address) =>
      serial(async () => {
        await stopNow();
        const { host, port } = address ?? core().settings.get().listener;
        try {
          running = await startListener(core(), { host, port }, options);
          lastError = null;
          return running;
        } catch (error) {
          lastError = (error as Error).message;
          throw error;
        }
      }),
    stop: () => serial(stopNow),
    status: () => ({ running: running !== null, url: running?.url ?? null, error: lastError }),
  };
}

/** The answer to a request node:http's parser refused: 431, 413 or 405 when that is the reason,
 * else 400; a problem+JSON body naming it; the connection closed. */
/** The largest body any route reads (the routes' own caps: Micropub's multipart create with its
 * four images, the media endpoints, the profile's two images). Each route refuses past its own
 * cap, smaller for most, as it reads. */
export const LARGEST_BODY_BYTES = Math.max(MAX_INBOX_BYTES, MICROPUB_MULTIPART_BYTES, MICROPUB_MEDIA_BYTES, MASTODON_MEDIA_BYTES, PROFILE_BODY_BYTES);

function hostCount(rawHeaders: string[]): number {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  return hosts;
}

/** A refusal before any route, in the listener's usual shape; the body, unread, is not waited for. */
/** A file upload: its body may take minutes (LISTENER_TIMEOUTS.uploadMs). */
function isUpload(req: IncomingMessage): boolean {
  return /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

/**
 * Answers 408, as node:http does for its own deadline, when the body of `req` has not all arrived
 * `ms` after its headers did (a body sent a byte at a time holds a socket and its memory); the
 * connection is then closed. A request without a body, or answered before it is read, sets none.
 */
function bodyDeadline(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (req.complete) return;
  const timer = setTimeout(() => {
    if (req.complete || res.writableEnded) return;
    if (!res.headersSent) refuse(res, 408, 'the request took too long to arrive');
    res.once('finish', () => req.socket.destroy());
    if (res.headersSent && !res.writableEnded) req.socket.destroy();
  }, ms);
  timer.unref();
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  res.once('close', clear);
}

function refuse(res: ServerResponse, status: number, reason: string): void {
  const body = JSON.stringify({ error: reason });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff', Connection: 'close' }).end(body);
}

// @hono/node-server's RequestError messages, said as the listener's other refusals say them.
const REQUEST_ERRORS: Record<string, string> = {
  'Invalid URL': 'its Host and target do not make a URL',
  'Invalid absolute URL': 'its target is not a URL',
  'Invalid host header': 'its Host is not a host name',
  'Missing host header': 'it has no Host',
  'Backslash in request path': 'a backslash in its path',
};

/** The answer to a request the adapter could not turn into a Request (RequestError): a 400
 * naming why. Anything else that reaches the adapter's error handler is the app's fault: a 500. */
function unreadableRequest(error: unknown, log: ((line: string) => void) | undefined): Response {
  const headers = { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', Connection: 'close' };
  if (error instanceof RequestError) {
    const why = REQUEST_ERRORS[error.message] ?? error.message.toLowerCase();
    return new Response(JSON.stringify({ error: `the request could not be read (${why})` }), { status: 400, headers });
  }
  log?.(`listener: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new Response(JSON.stringify({ error: 'internal error' }), { status: 500, headers });
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A request in flight whose answer has not begun (its body's framing broke: a bad chunk size,
  // a Transfer-Encoding that is not chunked) is answered here too; what its handler writes later
  // goes nowhere (node:http ignores a socket's errors once it has reported one).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code = error.code ?? '';
  const [status, text, reason] =
    code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : code === 'HPE_CONNECT'
        ? [405, 'Method Not Allowed', 'CONNECT is not offered']
        : code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'the request took too long to arrive']
          : [400, 'Bad Request', `the request could not be read (${code || 'malformed'})`];
  const body = JSON.stringify({ error: reason });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}
