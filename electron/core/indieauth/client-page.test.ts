// An IndieAuth client's HTML page (its client_id) is read on the page reader's worker thread,
// within bounds: anyone can name any page as a client_id in an /auth request, and parsing it
// on the main thread took 300 ms for a 500 KB page of h-apps (a stack overflow when nested
// 20,000 deep). microformats-parser is replaced on this thread by one that throws: a page read
// here instead of on the worker would leave the client known by its host only.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpClient, type HttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { stopSourceReader } from '../webmention/source-parse';
import { fetchClientInfo, linkHeaderRedirects } from './clients';

vi.mock('microformats-parser', () => ({
  mf2: () => {
    throw new Error('microformats-parser ran on the main thread');
  },
}));

const APP = '<div class="h-app"><a class="u-url p-name" href="/">Quill-ish</a><img class="u-logo" src="/logo.png" alt=""></div>';

describe('IndieAuth client pages, read off the main thread', () => {
  let server: LoopbackServer;
  let client: HttpClient;
  const pages = new Map<string, string>();
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const page = pages.get(req.url ?? '');
      if (page === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html', link: `<${server.origin}/from-header>; rel="redirect_uri"` }).end(page);
    });
    client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true });
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
    await stopSourceReader();
  });

  it("reads the h-app's name, home and logo and the rel=redirect_uri links on the reader's thread", async () => {
    pages.set('/app', `<!doctype html><html><head><link rel="redirect_uri" href="https://elsewhere.example/cb"></head><body>${APP}</body></html>`);
    const info = await fetchClientInfo(client, `${server.origin}/app`);
    expect(info).toEqual({
      clientId: `${server.origin}/app`,
      name: 'Quill-ish',
      url: `${server.origin}/`,
      logoUrl: `${server.origin}/logo.png`,
      registered: false,
      redirectUris: [`${server.origin}/from-header`, 'https://elsewhere.example/cb'],
    });
  });

  it('reads a 500 KB page of 5,000 h-apps there too: the first one names the client', async () => {
    const big = `<html><body>${APP.replace('Quill-ish', 'First')}${APP.repeat(5_000)}</body></html>`.slice(0, 500 * 1024);
    pages.set('/big', big);
    const info = await fetchClientInfo(client, `${server.origin}/big`);
    expect(info.name).toBe('First');
  });

  it('a page over the bounds (nested 20,000 deep) is not parsed: the client is shown by its host, with the redirect URIs of its Link header', async () => {
    pages.set('/deep', `<html><body>${'<div class="h-app">'.repeat(20_000)}<span class="p-name">Deep</span></body></html>`);
    const info = await fetchClientInfo(client, `${server.origin}/deep`);
    expect(info).toMatchObject({ name: new URL(server.origin).host, url: null, logoUrl: null, redirectUris: [`${server.origin}/from-header`] });
  });
});

describe("a client page's Link header", () => {
  it('names redirect URIs with rel=redirect_uri, resolved against the page', () => {
    const header = '</cb>; rel="redirect_uri", <https://b.example/x>; rel=other, <https://b.example/cb2>;rel=redirect_uri';
    expect(linkHeaderRedirects(header, 'https://a.example/app')).toEqual(['https://a.example/cb', 'https://b.example/cb2']);
  });

  // 16 KiB is about all of a response's headers Node's HTTP parser accepts, and anyone can name
  // a client_id in GET /auth. Each `<` without a `>;` after it used to be scanned to the end of
  // the header: 370–440 ms a header, on the main thread. Now each takes a few hundredths of a
  // millisecond: ten of each within 1 s leaves a wide margin for a busy machine, and the old
  // code fails it.
  it('reads a 16 KiB header of `<<<…`, `<<<…>x` or `<a <a …` in linear time: no redirect URI', () => {
    const started = performance.now();
    for (let i = 0; i < 10; i++) {
      expect(linkHeaderRedirects('<'.repeat(16 * 1024), 'https://a.example/')).toEqual([]);
      expect(linkHeaderRedirects(`${'<'.repeat(16 * 1024 - 2)}>x`, 'https://a.example/')).toEqual([]);
      expect(linkHeaderRedirects('<a '.repeat((16 * 1024) / 3), 'https://a.example/')).toEqual([]);
    }
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
