// The renderer's media routes with a real core and loopback servers standing in for remote
// hosts: the proxy sniffs bytes (never trusting Content-Type), caps sizes, honours the SSRF
// guard of the core's client, accepts only paths the core signed, and stays quiet offline.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor } from '../../../db/schema';
import { manualSource } from '../connectivity/watch';
import { openCore, type Core } from '../core';
import { actorView } from '../federation/actions/views';
import { createHttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { MAX_PROXY_BYTES } from './limits';
import { proxyPath } from './paths';
import { saveUpload, uploadPath } from './store';
import { photo } from './test-images';
import { createUiMediaHandler, type UiMediaHandler } from './ui-routes';

let dir: string;
let core: Core;
let media: UiMediaHandler;
let remote: LoopbackServer;
let png: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-ui-media-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.connectivity.setSource(manualSource(true));
  media = createUiMediaHandler(core);
  png = await photo(20, 10, 'png');
  remote = await startServer((req, res) => {
    switch (req.url) {
      case '/lying.png':
        return res.writeHead(200, { 'content-type': 'text/html' }).end(png);
      case '/evil.svg':
        return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
      case '/page.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end('<html><script>alert(1)</script></html>');
      case '/huge.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([png, Buffer.alloc(MAX_PROXY_BYTES)]));
      case '/redirect':
        return res.writeHead(302, { location: '/lying.png' }).end();
      default:
        return res.writeHead(404).end();
    }
  });
});
afterAll(async () => {
  await remote?.close();
  core?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (path: string | null, handler = media) => handler(new Request(`http://127.0.0.1:4860${path ?? '/nowhere'}`));

describe('the media proxy', () => {
  it('serves an image by its bytes, whatever the remote Content-Type said, with a private cache and a sandboxing CSP', async () => {
    const res = (await open(proxyPath(`${remote.origin}/lying.png`)))!;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    const fetched = remote.seen.filter((r) => r.path === '/lying.png');
    expect(fetched).toHaveLength(1);
    expect(fetched[0]!.headers['user-agent']).toMatch(/^Tern\//);
    expect(fetched[0]!.headers.cookie).toBeUndefined();
    // A second look comes from memory.
    expect((await open(proxyPath(`${remote.origin}/lying.png`)))!.status).toBe(200);
    expect(remote.seen.filter((r) => r.path === '/lying.png')).toHaveLength(1);
  });

  it('refuses SVG and HTML labelled as images (415)', async () => {
    expect((await open(proxyPath(`${remote.origin}/evil.svg`)))!.status).toBe(415);
    expect((await open(proxyPath(`${remote.origin}/page.png`)))!.status).toBe(415);
  });

  it('refuses a body over the cap (413) and passes on a remote error (502)', async () => {
    expect((await open(proxyPath(`${remote.origin}/huge.png`)))!.status).toBe(413);
    expect((await open(proxyPath(`${remote.origin}/gone.png`)))!.status).toBe(502);
  });

  it('goes through the core client’s SSRF guard: a loopback address is refused (403) when private addresses are not allowed', async () => {
    const guarded = createUiMediaHandler({ ...core, fed: { ...core.fed, client: createHttpClient({ userAgent: 'Tern/test' }) } });
    const before = remote.seen.length;
    expect((await open(proxyPath(`${remote.origin}/lying.png?fresh`), guarded))!.status).toBe(403);
    expect((await open(proxyPath(`http://localhost:${remote.port}/redirect`), guarded))!.status).toBe(403);
    expect(remote.seen.length).toBe(before);
  });

  it('answers only paths the core signed (a forged or altered path is 404 and fetches nothing)', async () => {
    const good = proxyPath(`${remote.origin}/lying.png`)!;
    const payload = Buffer.from(`${remote.origin}/evil.svg`).toString('base64url');
    const before = remote.seen.length;
    expect((await open(good.replace(/\/[^/]+$/, `/${payload}`)))!.status).toBe(404);
    expect((await open(`/media/proxy/${'A'.repeat(32)}/${payload}`))!.status).toBe(404);
    expect(remote.seen.length).toBe(before);
    expect(proxyPath('javascript:alert(1)')).toBeNull();
    expect(proxyPath('file:///etc/passwd')).toBeNull();
  });

  it('fetches nothing while offline (503)', async () => {
    core.connectivity.setSource(manualSource(false));
    try {
      expect((await open(proxyPath(`${remote.origin}/offline.png`)))!.status).toBe(503);
      expect(remote.seen.some((r) => r.path === '/offline.png')).toBe(false);
    } finally {
      core.connectivity.setSource(manualSource(true));
    }
  });

  it('remote avatars reach the page only as proxy paths', () => {
    const now = new Date();
    const row = core.db
      .insert(actor)
      .values({ apId: 'https://social.example/users/ana', apActor: { id: 'https://social.example/users/ana', type: 'Person', icon: { type: 'Image', url: 'https://cdn.social.example/ana.png' } }, apType: 'Person', handle: null, createdAt: now, updatedAt: now })
      .returning()
      .get();
    const view = actorView(row);
    expect(view.iconUrl).toBe('https://cdn.social.example/ana.png');
    expect(view.iconSrc).toBe(proxyPath('https://cdn.social.example/ana.png'));
    expect(view.iconSrc).toMatch(/^\/media\/proxy\//);
  });
});

describe('the author’s own uploads', () => {
  it('are served by hash with their type; anything else under /media is 404 and other paths are not media', async () => {
    const row = await saveUpload({ db: core.db, uploadsDir: core.paths.uploads, clock: () => new Date() }, { bytes: png, contentType: 'image/png' });
    const file = (await open(`/media/local/${row.contentHash}`))!;
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(readFileSync(uploadPath(core.paths.uploads, row.contentHash)))).toBe(true);
    expect((await open(`/media/local/${row.contentHash}/thumbnail`))!.headers.get('content-type')).toBe('image/webp');
    expect((await open(`/media/local/${'f'.repeat(64)}`))!.status).toBe(404);
    expect((await open('/media/local/..%2F..%2Ftern.db'))!.status).toBe(404);
    expect(await open('/index.html')).toBeNull();
  });
});
