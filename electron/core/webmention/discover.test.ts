// Endpoint discovery against real pages on loopback, one per discovery test of the
// webmention.rocks suite (1–23), served as that suite serves them; the client is the real one,
// with its test-only permission to reach loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError, TooManyRedirectsError } from '../net/errors';
import { createHttpClient, type HttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { NoWebmentionEndpointError, TargetUnavailableError, discoverEndpoint } from './discover';
import { webmentionLinksInHeader } from './links';

interface Case {
  headers?: Record<string, string | string[]>;
  html?: string;
  status?: number;
}

const page = (head: string, body = '') => `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

// Paths mirror webmention.rocks: /test/N, endpoints at /test/N/webmention.
const CASES: Record<string, Case> = {
  '/test/1': { headers: { link: '</test/1/webmention?head=true>; rel=webmention' }, html: page('') },
  '/test/2': { headers: { link: '<ORIGIN/test/2/webmention?head=true>; rel=webmention' }, html: page('') },
  '/test/3': { html: page('<link rel="webmention" href="/test/3/webmention">') },
  '/test/4': { html: page('<link rel="webmention" href="ORIGIN/test/4/webmention">') },
  '/test/5': { html: page('', '<a rel="webmention" href="/test/5/webmention">endpoint</a>') },
  '/test/6': { html: page('', '<a rel="webmention" href="ORIGIN/test/6/webmention">endpoint</a>') },
  '/test/7': { headers: { LinK: '<ORIGIN/test/7/webmention?head=true>; Rel=webmention' }, html: page('') },
  '/test/8': { headers: { link: '<ORIGIN/test/8/webmention?head=true>; rel="webmention"' }, html: page('') },
  '/test/9': { html: page('<link rel="webmention somethingelse" href="/test/9/webmention">') },
  '/test/10': { headers: { link: '<ORIGIN/test/10/webmention?head=true>; rel="webmention somethingelse"' }, html: page('') },
  '/test/11': {
    headers: { link: '<ORIGIN/test/11/webmention?head=true>; rel="webmention"' },
    html: page('<link rel="webmention" href="/test/11/webmention/error">', '<a rel="webmention" href="/test/11/webmention/error">x</a>'),
  },
  '/test/12': {
    html: page('<link rel="not-webmention" href="/test/12/webmention/error"><link rel="webmention" href="/test/12/webmention">'),
  },
  '/test/13': {
    html: page('<!-- <link rel="webmention" href="/test/13/webmention/error"> --><link rel="webmention" href="/test/13/webmention">'),
  },
  '/test/14': {
    html: page('', '<pre><code>&lt;a href="/test/14/webmention/error" rel="webmention"&gt;&lt;/a&gt;</code></pre><a rel="webmention" href="/test/14/webmention">x</a>'),
  },
  '/test/15': { html: page('<link rel="webmention" href="">') },
  '/test/16': { html: page('', '<a rel="webmention" href="/test/16/webmention">a</a><link rel="webmention" href="/test/16/webmention/error">') },
  '/test/17': { html: page('<link rel="webmention" href="/test/17/webmention">', '<a rel="webmention" href="/test/17/webmention/error">a</a>') },
  '/test/18': {
    headers: { link: ['<ORIGIN/test/18/webmention?head=true>; rel="webmention"', '<ORIGIN/test/18/webmention/error>; rel="other"'] },
    html: page(''),
  },
  '/test/19': {
    headers: { link: '<ORIGIN/test/19/webmention/error>; rel="other", <ORIGIN/test/19/webmention?head=true>; rel="webmention"' },
    html: page(''),
  },
  '/test/20': { html: page('<link rel="webmention">', '<a rel="webmention" href="/test/20/webmention">x</a>') },
  '/test/21': { html: page('<link rel="webmention" href="/test/21/webmention?query=yes">') },
  '/test/22': { html: page('<link rel="webmention" href="22/webmention">') },
  '/test/23/page': { status: 302, headers: { location: '/test/23/page/redirected' } },
  '/test/23/page/redirected': { html: page('<link rel="webmention" href="webmention-endpoint">') },
};

const EXPECTED: Record<number, string> = {
  1: '/test/1/webmention?head=true',
  2: '/test/2/webmention?head=true',
  3: '/test/3/webmention',
  4: '/test/4/webmention',
  5: '/test/5/webmention',
  6: '/test/6/webmention',
  7: '/test/7/webmention?head=true',
  8: '/test/8/webmention?head=true',
  9: '/test/9/webmention',
  10: '/test/10/webmention?head=true',
  11: '/test/11/webmention?head=true',
  12: '/test/12/webmention',
  13: '/test/13/webmention',
  14: '/test/14/webmention',
  15: '/test/15',
  16: '/test/16/webmention',
  17: '/test/17/webmention',
  18: '/test/18/webmention?head=true',
  19: '/test/19/webmention?head=true',
  20: '/test/20/webmention',
  21: '/test/21/webmention?query=yes',
  // Relative to the page's path: /test/22 + "22/webmention" → /test/22/webmention.
  22: '/test/22/webmention',
  // Resolved against the URL after the redirect, not the one asked for.
  23: '/test/23/page/webmention-endpoint',
};

let server: LoopbackServer;
let client: HttpClient;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const found = CASES[path];
    if (path === '/plain') {
      res.setHeader('content-type', 'text/plain');
      return res.end('<link rel="webmention" href="/nope">');
    }
    if (path === '/gone') {
      res.statusCode = 410;
      return res.end('gone');
    }
    if (path === '/none') return res.end(page('<link rel="alternate" href="/x">'));
    if (path === '/loop') {
      res.statusCode = 302;
      res.setHeader('location', '/loop');
      return res.end();
    }
    if (!found) {
      res.statusCode = 404;
      return res.end();
    }
    res.statusCode = found.status ?? 200;
    for (const [name, value] of Object.entries(found.headers ?? {})) {
      res.setHeader(name, Array.isArray(value) ? value.map((v) => v.replaceAll('ORIGIN', server.origin)) : value.replaceAll('ORIGIN', server.origin));
    }
    if (found.html !== undefined) res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end((found.html ?? '').replaceAll('ORIGIN', server.origin));
  });
  client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true });
});

afterAll(async () => {
  client.close();
  await server.close();
});

describe('webmention endpoint discovery (webmention.rocks discovery tests)', () => {
  it.each(Object.entries(EXPECTED).map(([n, path]) => [Number(n), path] as const))('test %i finds %s', async (n, path) => {
    const target = n === 23 ? `${server.origin}/test/23/page` : `${server.origin}/test/${n}`;
    await expect(discoverEndpoint(client, target)).resolves.toBe(`${server.origin}${path}`);
  });

  it('a page without rel=webmention has no endpoint', async () => {
    await expect(discoverEndpoint(client, `${server.origin}/none`)).rejects.toBeInstanceOf(NoWebmentionEndpointError);
  });

  it('a non-HTML body is not searched for <link> tags', async () => {
    await expect(discoverEndpoint(client, `${server.origin}/plain`)).rejects.toBeInstanceOf(NoWebmentionEndpointError);
  });

  it('a target answering 410 is reported with its status', async () => {
    const error = await discoverEndpoint(client, `${server.origin}/gone`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetUnavailableError);
    expect((error as TargetUnavailableError).status).toBe(410);
  });

  it('redirect loops stop at the client’s limit', async () => {
    await expect(discoverEndpoint(client, `${server.origin}/loop`)).rejects.toBeInstanceOf(TooManyRedirectsError);
  });

  it('without the test permission, a loopback target is refused by the SSRF guard', async () => {
    const guarded = createHttpClient({ userAgent: 'Tern-test' });
    try {
      await expect(discoverEndpoint(guarded, `${server.origin}/test/3`)).rejects.toBeInstanceOf(BlockedAddressError);
    } finally {
      guarded.close();
    }
  });
});

describe('webmentionLinksInHeader', () => {
  // 16 KiB is about all of a response's headers Node's HTTP parser accepts. Each `<` without a
  // `>` after it used to be scanned to the end of the header: 280 ms a header, on the main thread
  // (a target's server chooses its headers). Now each takes a few hundredths of a millisecond:
  // ten of each within 1 s leaves a wide margin for a busy machine, and the old code fails it.
  it('reads a 16 KiB header of `<<<…` or `<a <a …` in linear time: no endpoint', () => {
    const started = performance.now();
    for (let i = 0; i < 10; i++) {
      expect(webmentionLinksInHeader('<'.repeat(16 * 1024))).toEqual([]);
      expect(webmentionLinksInHeader('<a '.repeat((16 * 1024) / 3))).toEqual([]);
    }
    // A value's <…> runs from its `<` to the first `>`, as before: the junk is part of the URI.
    expect(webmentionLinksInHeader(`${'<'.repeat(16 * 1024)}</wm>; rel=webmention`)).toEqual([`${'<'.repeat(16 * 1024)}/wm`]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
