// The headless HTTP transport: serves the built renderer and the IPC contract (POST
// /ipc/<channel>) to a browser on loopback, behind a bearer token. It is never mounted on the
// public listener. Defences: every request needs the token (Authorization: Bearer, or the
// HttpOnly SameSite=Strict cookie set when the page is opened with ?token=), the Host header
// must be this loopback address (against DNS rebinding), IPC calls must be JSON (so a foreign
// page cannot post them without a CORS preflight), bodies are capped.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { dispatch, type Handlers } from './handlers';
import { JsonTooDeepError, parseBoundedJson } from '../net/bounded-json';

export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const COOKIE = 'tern_token';
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
}

const digest = (s: string) => createHash('sha256').update(s).digest();
function sameToken(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

export function createUiApp(options: UiAppOptions): Hono {
  const app = new Hono();

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', UI_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
  });

  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (!options.allowedHosts().includes(host)) return c.text('Tern answers only on its loopback address.', 421);
    // Opening the printed link: trade the token in the query for a cookie, then drop it from the URL.
    const queryToken = c.req.query('token');
    if (c.req.method === 'GET' && queryToken !== undefined) {
      if (!sameToken(queryToken, options.token)) return unauthorized(c.req.path);
      setCookie(c, COOKIE, options.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect('/', 303);
    }
    const bearer = c.req.header('authorization')?.match(/^Bearer (.+)$/)?.[1];
    if (!sameToken(bearer ?? getCookie(c, COOKIE), options.token)) return unauthorized(c.req.path);
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
