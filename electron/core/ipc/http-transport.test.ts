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
  app = createUiApp({ handlers: createHandlers(core), token: TOKEN, staticDir, allowedHosts: () => [HOST] });
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
    expect(body.value.revision).toBe('5d0e8a3c71f4');
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

  it('refuses the page itself without the token', async () => {
    const res = await call('/');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('needs the link Tern printed');
  });

  it('trades ?token= for an HttpOnly SameSite=Strict cookie and drops it from the URL', async () => {
    const res = await call(`/?token=${TOKEN}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await call('/', { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
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
    const auth = { authorization: `Bearer ${TOKEN}` };
    const asset = await call('/assets/app.js', { headers: auth });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect((await call('/../secret.txt', { headers: auth })).status).toBe(404);
    expect((await call('/%2e%2e/secret.txt', { headers: auth })).status).toBe(404);
    expect((await call('/assets/missing.js', { headers: auth })).status).toBe(404);
  });
});
