// The headless HTTP transport: serves the built renderer and the IPC contract (POST
// /ipc/<channel>) to a browser on loopback, behind a bearer token. It is never mounted on the
// public listener. Defences: every IPC call needs the token in an Authorization: Bearer header
// (the page has it from the printed link's #fragment, headless.ts, renderer/headlessToken.ts) —
// never a cookie: browsers do not keep cookies apart by port, so a cookie set here is also sent
// to every other web server on 127.0.0.1 (and SameSite does not help: every port of 127.0.0.1 is
// the same site). IPC calls a browser makes must come from this origin (Sec-Fetch-Site, else
// Origin); the Host header must be this loopback address (against DNS rebinding); IPC calls
// must be JSON (so a foreign page cannot post them without a CORS preflight); bodies are capped.
// Media (<img src> sends no header) is reached with a cookie of its own, a separate random value
// that grants GET /media/* and nothing else. The renderer's files are the built app, the same
// for everyone, and are served without the token: the page must load before it can read it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { dispatch, type Handlers } from './handlers';
import { JsonTooDeepError, parseBoundedJson } from '../net/bounded-json';
import { CHANGES_HTTP_PATH, type ChangeKind } from './changes-contract';

export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** Grants GET /media/* only; set on the answers to the page's IPC calls. */
const MEDIA_COOKIE = 'tern_media';
const MAX_IPC_BODY = 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export interface UiAppOptions {
  handlers: Handlers;
  token: string;
  /** Folder of the built renderer (index.html and assets). */
  staticDir: string;
  /** Host header values accepted, e.g. ["127.0.0.1:4860", "localhost:4860"]; set after listen. */
  allowedHosts: () => readonly string[];
  onInternalError?: (error: unknown) => void;
  /** Media for the page (/media/…: the author's uploads, the remote media proxy). */
  media?: (request: Request) => Promise<Response | null>;
  /** The core's hints for the page (core/changes.ts), streamed at GET CHANGES_HTTP_PATH. */
  changes?: { subscribe(listener: (kinds: ChangeKind[]) => void): () => void };
}

/** Event streams open at once (a page each; a few tabs). More are refused: each holds a socket. */
export const MAX_CHANGE_STREAMS = 8;
/** A comment line this often on each stream: a page that went away is noticed (the write
 * fails) and the page notices a Tern that went away (no line for twice as long). */
export const CHANGE_STREAM_HEARTBEAT_MS = 30_000;

const digest = (s: string) => createHash('sha256').update(s).digest();
function sameToken(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

export function createUiApp(options: UiAppOptions): Hono {
  const app = new Hono();
  // A value of its own, so that what the cookie gives away (it reaches other servers on
  // 127.0.0.1 too) is the author's media, never the IPC surface.
  const mediaKey = randomBytes(24).toString('hex');

  app.use('*', async (c, next) => {
    await next();
    // /media/* answers with a stricter policy of its own (default-src 'none'; sandbox): kept.
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', UI_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
  });

  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (!options.allowedHosts().includes(host)) return c.text('Tern answers only on its loopback address.', 421);
    return next();
  });

  app.use('/ipc/*', async (c, next) => {
    if (!fromThisOrigin(c, options.allowedHosts())) {
      return c.json({ ok: false, error: { code: 'forbidden', message: 'Tern answers IPC calls only from its own page.' } }, 403);
    }
    if (!sameToken(bearerOf(c), options.token)) return unauthorized(c.req.path);
    if (getCookie(c, MEDIA_COOKIE) !== mediaKey) setCookie(c, MEDIA_COOKIE, mediaKey, { httpOnly: true, sameSite: 'Strict', path: '/media' });
    return next();
  });

  app.use('/media/*', async (c, next) => {
    if (!sameToken(bearerOf(c), options.token) && !sameToken(getCookie(c, MEDIA_COOKIE), mediaKey)) return unauthorized(c.req.path);
    return next();
  });

  app.post('/ipc/:channel', bodyLimit({ maxSize: MAX_IPC_BODY, onError: (c) => c.json(badInput('The request is too large.'), 413) }), async (c) => {
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) {
      return c.json(badInput('IPC calls must be sent as application/json.'), 415);
    }
    let input: unknown;
    try {
      input = parseBoundedJson(await c.req.text());
    } catch (error) {
      return c.json(badInput(error instanceof JsonTooDeepError ? `The request body is ${error.message}.` : 'The request body is not valid JSON.'), 400);
    }
    const result = await dispatch(options.handlers, c.req.param('channel'), input, options.onInternalError);
    const status = result.ok ? 200 : result.error.code === 'unknown_channel' ? 404 : result.error.code === 'bad_input' ? 400 : 200;
    return c.json(result, status);
  });

  let changeStreams = 0;
  app.get(CHANGES_HTTP_PATH, (c) => {
    // Hono runs GET routes for HEAD too, and drops the body unread: the stream would never end.
    if (c.req.method !== 'GET') return c.body(null, 405, { Allow: 'GET' });
    const feed = options.changes;
    if (!feed) return c.json({ ok: false, error: { code: 'unknown_channel', message: 'This Tern sends no change hints.' } }, 404);
    if (changeStreams >= MAX_CHANGE_STREAMS) {
      return c.json({ ok: false, error: { code: 'unavailable', message: `${MAX_CHANGE_STREAMS} pages are already following Tern's changes; close one.` } }, 429);
    }
    changeStreams++;
    const encoder = new TextEncoder();
    let end = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let ended = false;
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const unsubscribe = feed.subscribe((kinds) => send(`event: changed\ndata: ${JSON.stringify(kinds)}\n\n`));
        const heartbeat = setInterval(() => send(': still here\n\n'), CHANGE_STREAM_HEARTBEAT_MS);
        heartbeat.unref();
        end = () => {
          if (ended) return;
          ended = true;
          changeStreams--;
          unsubscribe();
          clearInterval(heartbeat);
          c.req.raw.signal.removeEventListener('abort', end);
          try {
            controller.close();
          } catch {
            // already closed by the reader going away
          }
        };
        c.req.raw.signal.addEventListener('abort', end);
        // The first line tells the page the stream is up (and flushes the headers).
        send(': following\n\n');
      },
      cancel() {
        end();
      },
    });
    return c.body(body, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
  });

  app.get('/media/*', async (c) => (await options.media?.(c.req.raw)) ?? c.text('Not found', 404));

  app.get('*', async (c) => {
    const file = await resolveStatic(options.staticDir, c.req.path);
    if (!file) return c.text('Not found', 404);
    const body = await readFile(file);
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    const immutable = file.includes(`${sep}assets${sep}`);
    return c.body(body, 200, {
      'Content-Type': type,
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    });
  });

  return app;
}

const bearerOf = (c: Context) => c.req.header('authorization')?.match(/^Bearer (.+)$/)?.[1];

/** Whether an IPC call comes from this origin's page, or from no browser at all (a script with
 * the token). Browsers say where a request comes from in Sec-Fetch-Site (Chromium, Firefox,
 * Safari 16.4+), older ones at least in Origin on every POST. */
function fromThisOrigin(c: Context, hosts: readonly string[]): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = c.req.header('origin');
  return origin === undefined || hosts.some((host) => origin === `http://${host}`);
}

function badInput(message: string) {
  return { ok: false, error: { code: 'bad_input', message } } as const;
}

function unauthorized(path: string): Response {
  const message = 'This page needs the link Tern printed when it started (with its token).';
  if (path.startsWith('/ipc/')) {
    return Response.json({ ok: false, error: { code: 'forbidden', message } }, { status: 401 });
  }
  return new Response(`<!doctype html><meta charset="utf-8"><title>Tern</title><p>${message}</p>`, {
    status: 401,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': UI_CSP },
  });
}

/** Maps a URL path to a file inside `root`, or null. Unknown paths fall back to index.html (the app routes itself). */
async function resolveStatic(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = normalize(join(root, decoded));
  if (candidate !== root && !candidate.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    if ((await stat(candidate)).isFile()) return candidate;
  } catch {
    // fall through to the app shell
  }
  if (extname(decoded) !== '') return null;
  const index = join(root, 'index.html');
  try {
    return (await stat(index)).isFile() ? index : null;
  } catch {
    return null;
  }
}
