// The media routes as headless mode mounts them on the UI server: behind the same token as
// everything else there, and a whole upload in chunks over the same JSON transport the
// renderer uses (each body under the transport's 1 MiB cap).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { createHandlers } from '../ipc/handlers';
import { createUiApp } from '../ipc/http-transport';
import { photo } from './test-images';
import { createUiMediaHandler } from './ui-routes';

const TOKEN = 'media-token-0123456789abcdef';
const HOST = '127.0.0.1:4998';
let dir: string;
let core: Core;
let app: ReturnType<typeof createUiApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-ui-media-http-'));
  mkdirSync(join(dir, 'static'));
  writeFileSync(join(dir, 'static', 'index.html'), '<!doctype html><title>Tern</title>');
  core = await openCore({ dataDir: join(dir, 'data'), mode: 'headless' });
  app = createUiApp({ handlers: createHandlers(core), token: TOKEN, staticDir: join(dir, 'static'), allowedHosts: () => [HOST], media: createUiMediaHandler(core) });
});
afterAll(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
  app.request(`http://${HOST}${path}`, { ...init, headers: { host: HOST, ...init.headers } });
const ipc = async (channel: string, body: unknown) => {
  const payload = JSON.stringify(body);
  expect(payload.length).toBeLessThan(1024 * 1024);
  const res = await request(`/ipc/${channel}`, { method: 'POST', body: payload, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } });
  return (await res.json()) as { ok: boolean; value: Record<string, unknown> };
};

describe('media over the headless transport', () => {
  it('uploads a 1.7 MB image in 512 KiB chunks of JSON, then serves it to the token holder only', async () => {
    const bytes = await photo(1500, 1200, 'png');
    expect(bytes.byteLength).toBeGreaterThan(1024 * 1024);
    const begun = await ipc('media.uploadBegin', { contentType: 'image/png', size: bytes.byteLength });
    const { uploadId, chunkBytes } = begun.value as { uploadId: string; chunkBytes: number };
    let calls = 0;
    for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes, calls++) {
      expect((await ipc('media.uploadChunk', { uploadId, offset, data: bytes.subarray(offset, offset + chunkBytes).toString('base64') })).ok).toBe(true);
    }
    expect(calls).toBe(Math.ceil(bytes.byteLength / (512 * 1024)));
    const done = await ipc('media.uploadFinish', { uploadId });
    expect(done).toMatchObject({ ok: true, value: { contentType: 'image/png', width: 1500, height: 1200 } });
    const src = done.value.src as string;

    expect((await request(src)).status).toBe(401);
    const res = await request(src, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect((await request('/media/nothing', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  });
});
