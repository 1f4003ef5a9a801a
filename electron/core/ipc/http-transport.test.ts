import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { createHandlers } from './handlers';
import { createUiApp } from './http-transport';

const TOKEN = 'test-token-0123456789abcdef';
const HOST = '127.0.0.1:4999';
let dir: string;
let core: Core;
let app: ReturnType<typeof createUiApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-http-'));
  const staticDir = join(dir, 'static');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Tern</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  core = await openCore({ dataDir: join(dir, 'data'), mode: 'headless' });
  // A media handler answering as the real one does: its own, stricter CSP.
  const media = async () => new Response('img', { headers: { 'Content-Type': 'image/png', 'Content-Security-Policy': "default-src 'none'; sandbox" } });
  app = createUiApp({ handlers: createHandlers(core), token: TOKEN, staticDir, allowedHosts: () => [HOST], media });
});
afterAll(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  app.request(`http://${HOST}${path}`, { ...init, headers: { host: HOST, ...init.headers } });
const ipc = (channel: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/ipc/${channel}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
  });

describe('headless HTTP transport', () => {
  it('answers app.status with the revision, the counts and the data folder', async () => {
    const res = await ipc('app.status', {});
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(body.value.revision).toBe('ae35abd14d3a');
    expect(body.value.counts.outbox).toBe(0);
    expect(Object.keys(body.value.counts)).toHaveLength(16);
    expect(body.value.dataDir).toBe(join(dir, 'data'));
  });

  it('refuses an IPC call without the token with 401', async () => {
    const res = await call('/ipc/app.status', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('forbidden');
  });

  it('refuses a wrong token with 401', async () => {
    expect((await ipc('app.status', {}, { authorization: 'Bearer nope-nope-nope-nope' })).status).toBe(401);
  });

  it('serves the page itself without the token (the page reads it from the link\'s #fragment)', async () => {
    const res = await call('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('never accepts the token as a cookie: browsers send cookies to every port of 127.0.0.1', async () => {
    const res = await call('/ipc/app.status', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', cookie: `tern_token=${TOKEN}` } });
    expect(res.status).toBe(401);
    // Nor does the old ?token= link set one.
    expect((await call(`/?token=${TOKEN}`)).headers.get('set-cookie')).toBeNull();
  });

  it('sets, on an IPC answer, a media cookie that opens /media/* and nothing else', async () => {
    const res = await ipc('app.status', {});
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^tern_media=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/media/);
    expect(cookie).not.toContain(TOKEN);
    const pair = cookie.split(';')[0]!;
    expect((await call('/media/local/abc', { headers: { cookie: pair } })).status).toBe(200);
    expect((await call('/media/local/abc')).status).toBe(401);
    expect((await call('/media/local/abc', { headers: { cookie: 'tern_media=guess' } })).status).toBe(401);
    // The media cookie is no IPC credential, neither as a cookie nor as a bearer token.
    const asCookie = await call('/ipc/app.status', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', cookie: pair } });
    expect(asCookie.status).toBe(401);
    expect((await ipc('app.status', {}, { authorization: `Bearer ${pair.slice('tern_media='.length)}` })).status).toBe(401);
    // Once the page has it, it is not set again.
    expect((await ipc('app.status', {}, { cookie: pair })).headers.get('set-cookie')).toBeNull();
  });

  it('keeps the media handler\'s own CSP on /media/*, stricter than the page\'s', async () => {
    const res = await call('/media/local/abc', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses IPC calls a browser makes from another origin, even with the token', async () => {
    expect((await ipc('app.status', {}, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await ipc('app.status', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await ipc('app.status', {}, { origin: 'http://127.0.0.1:5000' })).status).toBe(403);
    expect((await ipc('app.status', {}, { origin: 'null' })).status).toBe(403);
    // The page's own calls, and scripts that are no browser (no Origin, no Sec-Fetch-Site).
    expect((await ipc('app.status', {}, { 'sec-fetch-site': 'same-origin', origin: `http://${HOST}` })).status).toBe(200);
    expect((await ipc('app.status', {}, { origin: `http://${HOST}` })).status).toBe(200);
    expect((await ipc('app.status', {})).status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    const res = await app.request(`http://evil.example/ipc/app.status`, {
      method: 'POST',
      body: '{}',
      headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(421);
  });

  it('gives a typed bad_input error for input the schema refuses', async () => {
    const res = await ipc('app.status', { unexpected: 1 });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(body.error.issues.length).toBeGreaterThan(0);
  });

  it('answers an unknown channel with 404 and unknown_channel', async () => {
    const res = await ipc('app.nope', {});
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('unknown_channel');
  });

  it('refuses non-JSON IPC bodies (no cross-site form posts) and malformed JSON', async () => {
    expect((await ipc('app.status', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await ipc('app.status', '{bad')).status).toBe(400);
  });

  it('caps IPC bodies at 1 MiB with 413', async () => {
    const res = await ipc('app.status', JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) }));
    expect(res.status).toBe(413);
  });

  it('serves built assets but never files outside the renderer folder', async () => {
    const auth = {};
    const asset = await call('/assets/app.js', { headers: auth });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect((await call('/../secret.txt', { headers: auth })).status).toBe(404);
    expect((await call('/%2e%2e/secret.txt', { headers: auth })).status).toBe(404);
    expect((await call('/assets/missing.js', { headers: auth })).status).toBe(404);
  });
});
