// Link previews in the background, end to end: a real core (SQLite in a temp folder), its
// outbound client, the page reader's worker, and a loopback web server that stands for the
// pages posts link to. What is checked is what the author sees (the stream's PostView and the
// og_meta column) and what the web server saw (who fetched what, and when).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inbox, incomingActivity, outbox } from '../../../db/schema';
import { manualSource, type ManualSource } from '../connectivity/watch';
import { openCore, type Core } from '../core';
import { CHANGE_COALESCE_MS } from '../changes';
import { createHttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { saveOutboxObject } from '../federation/outbox-store';
import { storeRemotePost } from '../federation/test-remote-post';
import { createPreviewRunner, MAX_LOOKS } from './runner';

let dir: string;
let core: Core;
let net: ManualSource;
let server: LoopbackServer;
/** What each path answers: [status, content type, body]. */
let pages: Record<string, [number, string, string | Buffer]>;

const OG_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>fallback</title>
<meta property="og:title" content="The Tern field guide">
<meta property="og:description" content="Where terns nest, and why.">
<meta property="og:image" content="/cover.png"><meta property="og:site_name" content="Birds Weekly">
</head><body>${'<p>text</p>'.repeat(2000)}</body></html>`;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-previews-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  net = manualSource(true);
  core.connectivity.setSource(net);
  pages = {};
  server = await startServer((req, res) => {
    const [status, type, body] = pages[(req.url ?? '/').split('?')[0]!] ?? [404, 'text/plain', 'not here'];
    res.writeHead(status, { 'content-type': type }).end(body);
  });
});

afterEach(async () => {
  await core.loops.previews.stop();
  await server.close();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const link = (path: string) => `${server.origin}${path}`;
/** A runner of its own on the test's core, retrying after `retryMs` instead of a minute. */
const quickRetryRunner = (retryMs: number) =>
  createPreviewRunner({ sqlite: core.sqlite, client: core.fed.client, clock: () => new Date(), connectivity: core.connectivity, identity: () => core.identity(), retryMs });
const fetched = (path: string) => server.seen.filter((r) => r.method === 'GET' && r.path === path).length;
const ogMetaOf = (id: number) => core.sqlite.prepare<[number], { og_meta: string | null }>('SELECT og_meta FROM outbox WHERE id = ?').get(id)!.og_meta;

/** The window's hints (core/changes.ts) from now on; `settled` waits out their coalescing. */
function hints() {
  const heard: string[] = [];
  const unsubscribe = core.changes.subscribe((kinds) => heard.push(...kinds));
  return {
    heard,
    settled: async () => {
      await new Promise((resolve) => setTimeout(resolve, CHANGE_COALESCE_MS + 100));
      unsubscribe();
      return heard;
    },
  };
}

async function post(content: string) {
  const created = await core.services.author.createPost({ content, visibility: 'PUBLIC' });
  await core.loops.previews.idle();
  return created;
}

describe('link previews of the author’s posts', () => {
  it('fetches the linked page after the post is stored and shows its preview, picture through the media proxy', async () => {
    pages['/guide'] = [200, 'text/html; charset=utf-8', OG_PAGE];
    core.loops.previews.start();
    const window = hints();
    const created = await post(`Read [this guide](${link('/guide')}) today.`);
    expect(fetched('/guide')).toBe(1);
    // The window is told, and shows the preview without waiting for its next look.
    expect(await window.settled()).toContain('previews');
    expect(JSON.parse(ogMetaOf(created.id)!)).toEqual([
      { url: link('/guide'), title: 'The Tern field guide', description: 'Where terns nest, and why.', image: link('/cover.png'), site_name: 'Birds Weekly' },
    ]);
    const [shown] = core.services.author.stream({}).items;
    expect(shown?.previews).toEqual([
      { url: link('/guide'), title: 'The Tern field guide', description: 'Where terns nest, and why.', siteName: 'Birds Weekly', image: link('/cover.png'), imageSrc: expect.stringMatching(/^\/media\/proxy\//) },
    ]);
    // The page was asked for as HTML, by Tern's client.
    const request = server.seen.find((r) => r.path === '/guide')!;
    expect(request.headers.accept).toMatch(/^text\/html/);
    expect(request.headers['user-agent']).toMatch(/Tern/);
  });

  it('offline, fetches nothing; back online, fills the preview in', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    net.set(false);
    core.loops.previews.start();
    const created = await post(`See ${link('/guide')}`);
    expect(fetched('/guide')).toBe(0);
    expect(ogMetaOf(created.id)).toBeNull();
    net.set(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await core.loops.previews.idle();
    expect(fetched('/guide')).toBe(1);
    expect(JSON.parse(ogMetaOf(created.id)!)[0].title).toBe('The Tern field guide');
  });

  it('records "no preview" for good for a missing page, a non-page and a page without a title; a post without links costs no request', async () => {
    pages['/file'] = [200, 'application/pdf', '%PDF-1.7'];
    pages['/untitled'] = [200, 'text/html', '<head><meta name="x" content="y"></head><body>hi</body>'];
    core.loops.previews.start();
    const window = hints();
    const plain = await post('No links here.');
    const missing = await post(`Gone: ${link('/missing')}`);
    const file = await post(`A file: ${link('/file')}`);
    const untitled = await post(`Untitled: ${link('/untitled')}`);
    expect(ogMetaOf(plain.id)).toBe('[]');
    for (const p of [missing, file, untitled]) expect(ogMetaOf(p.id)).toBe('[]');
    expect(server.seen.map((r) => r.path).sort()).toEqual(['/file', '/missing', '/untitled']);
    expect(core.services.author.stream({}).items.every((p) => p.previews === undefined)).toBe(true);
    // Nothing to show: the window is not told.
    expect(await window.settled()).not.toContain('previews');
  });

  it('a page linked from two posts is fetched once; an edit fetches the new link', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    pages['/other'] = [200, 'text/html', '<head><title>Other page</title></head>'];
    core.loops.previews.start();
    await post(`One ${link('/guide')}`);
    const second = await post(`Two ${link('/guide')}`);
    expect(fetched('/guide')).toBe(1);
    await core.services.author.editPost({ apId: second.apId, content: `Now ${link('/other')}` });
    await core.loops.previews.idle();
    expect(fetched('/other')).toBe(1);
    expect(JSON.parse(ogMetaOf(second.id)!)).toMatchObject([{ url: link('/other'), title: 'Other page' }]);
  });

  it('reads a page in a legacy charset, an XHTML page, and a 3 MiB page (over the 512 KiB read) by its head', async () => {
    const latin1 = Buffer.from('<head><meta charset="iso-8859-1"><title>Caf\xe9 cr\xe8me</title></head>', 'latin1');
    pages['/latin1'] = [200, 'text/html', latin1];
    // 3 MiB of body after a small head: the preview comes from the head alone.
    pages['/huge'] = [200, 'text/html', `<head><title>Huge</title></head><body>${'x'.repeat(3 * 1024 * 1024)}</body>`];
    pages['/xhtml'] = [200, 'application/xhtml+xml; charset=utf-8', '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>An XHTML page</title></head><body/></html>'];
    core.loops.previews.start();
    const a = await post(`A ${link('/latin1')}`);
    const b = await post(`B ${link('/huge')}`);
    const c = await post(`C ${link('/xhtml')}`);
    expect(JSON.parse(ogMetaOf(a.id)!)[0].title).toBe('Café crème');
    expect(JSON.parse(ogMetaOf(b.id)!)[0].title).toBe('Huge');
    expect(JSON.parse(ogMetaOf(c.id)!)[0].title).toBe('An XHTML page');
  });

  it('a page that does not answer (connection refused) is tried again later; one that answers then gives its preview', async () => {
    const down = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(OG_PAGE));
    const port = down.port;
    await down.close();
    const created = await core.services.author.createPost({ content: `Later: http://127.0.0.1:${port}/guide`, visibility: 'PUBLIC' });
    const runner = quickRetryRunner(150);
    runner.start();
    try {
      await runner.idle();
      expect(ogMetaOf(created.id)).toBeNull();
      const up = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(OG_PAGE), '127.0.0.1', port);
      try {
        await expect.poll(() => ogMetaOf(created.id), { timeout: 5_000 }).not.toBeNull();
        expect(JSON.parse(ogMetaOf(created.id)!)[0].title).toBe('The Tern field guide');
        expect(up.seen).toHaveLength(1);
      } finally {
        await up.close();
      }
    } finally {
      await runner.stop();
    }
  });

  it('a page that is busy (503) is tried again; its preview comes with the next answer', async () => {
    let answers = 0;
    const busy = await startServer((_req, res) => {
      answers++;
      if (answers === 1) return res.writeHead(503, { 'retry-after': '1' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(OG_PAGE);
    });
    try {
      const created = await core.services.author.createPost({ content: `Busy: ${busy.origin}/guide`, visibility: 'PUBLIC' });
      const runner = quickRetryRunner(100);
      runner.start();
      try {
        await expect.poll(() => ogMetaOf(created.id), { timeout: 5_000 }).not.toBeNull();
        expect(JSON.parse(ogMetaOf(created.id)!)[0].title).toBe('The Tern field guide');
        expect(busy.seen).toHaveLength(2);
      } finally {
        await runner.stop();
      }
    } finally {
      await busy.close();
    }
  });

  it(`a dead link looked at before anything showed the network working is given up after ${MAX_LOOKS} looks, not looked at hourly forever`, async () => {
    // Nothing has given a preview yet this session: each failure may be the network's, so none
    // spends one of the post's tries; only the looks in all are counted.
    const dead = await startServer((_req, res) => res.writeHead(503).end());
    try {
      const created = await core.services.author.createPost({ content: `Gone for good: ${dead.origin}/article`, visibility: 'PUBLIC' });
      const runner = quickRetryRunner(1);
      runner.start();
      try {
        await expect.poll(() => ogMetaOf(created.id), { timeout: 15_000 }).toBe('[]');
        expect(dead.seen.filter((r) => r.path === '/article')).toHaveLength(MAX_LOOKS);
      } finally {
        await runner.stop();
      }
    } finally {
      await dead.close();
    }
  });

  it('an edit while the old link is being fetched wins: the new link’s preview is stored, not the old one’s', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = await startServer(async (_req, res) => {
      await released;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<head><title>Old link</title></head>');
    });
    try {
      pages['/new'] = [200, 'text/html', '<head><title>New link</title></head>'];
      core.loops.previews.start();
      const created = await core.services.author.createPost({ content: `See ${slow.origin}/old`, visibility: 'PUBLIC' });
      await expect.poll(() => slow.seen.length).toBe(1);
      await core.services.author.editPost({ apId: created.apId, content: `See ${link('/new')} instead` });
      release();
      await core.loops.previews.idle();
      expect(JSON.parse(ogMetaOf(created.id)!)).toMatchObject([{ url: link('/new'), title: 'New link' }]);
    } finally {
      release();
      await slow.close();
    }
  });

  it('stopping does not wait for a page that never answers; the post is looked at next time', async () => {
    const silent = await startServer(() => new Promise(() => {}));
    try {
      core.loops.previews.start();
      const created = await core.services.author.createPost({ content: `See ${silent.origin}/never`, visibility: 'PUBLIC' });
      await expect.poll(() => silent.seen.length).toBe(1);
      const started = Date.now();
      await core.loops.previews.stop();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(ogMetaOf(created.id)).toBeNull();
    } finally {
      await silent.close().catch(() => {});
    }
  });

  it('a post whose link points at a private address the guard refuses gets no preview', async () => {
    // A core without the test's loopback exemption: what a user's Tern is.
    const strictDir = mkdtempSync(join(tmpdir(), 'tern-previews-strict-'));
    const strict = await openCore({ dataDir: strictDir, mode: 'headless' });
    try {
      strict.settings.update({ baseUrl: 'https://tern.example', username: 'alice' });
      strict.connectivity.setSource(manualSource(true));
      strict.loops.previews.start();
      const created = await strict.services.author.createPost({ content: `Internal ${link('/guide')}`, visibility: 'PUBLIC' });
      await strict.loops.previews.idle();
      expect(fetched('/guide')).toBe(0);
      expect(strict.sqlite.prepare('SELECT og_meta FROM outbox WHERE id = ?').pluck().get(created.id)).toBe('[]');
    } finally {
      await strict.loops.previews.stop();
      strict.close();
      rmSync(strictDir, { recursive: true, force: true });
    }
  });
});

describe('link previews on a network that does not let pages through', () => {
  /** Three sites, each with a page of its own title, and a post of the author's linking to each. */
  /** A page seen working first (the author's earlier post): what proves the network works. */
  async function seeAPageWork(runner: { wake(target?: { table: 'outbox'; id: number }): void }): Promise<void> {
    const earlier = await core.services.author.createPost({ content: `Earlier ${link('/guide')}`, visibility: 'PUBLIC' });
    runner.wake({ table: 'outbox', id: earlier.id });
    await expect.poll(() => ogMetaOf(earlier.id), { timeout: 10_000 }).not.toBeNull();
  }

  async function threeSites() {
    const sites = await Promise.all(
      ['First', 'Second', 'Third'].map((title) => startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<head><title>${title} site</title></head>`))),
    );
    const posts = [];
    for (const site of sites) posts.push(await core.services.author.createPost({ content: `See ${site.origin}/page`, visibility: 'PUBLIC' }));
    return { sites, posts, close: () => Promise.all(sites.map((s) => s.close())) };
  }
  /** A runner whose every request goes to `to()` instead while it returns a URL: the network in
   * between (a captive portal, a broken router), not the sites, answers. */
  const runnerBehind = (to: (url: string) => string | null, retryMs = 30) => {
    const fetch: typeof core.fed.client.fetch = (input, init) => {
      const diverted = to(String(input));
      return core.fed.client.fetch(diverted ?? input, init);
    };
    return createPreviewRunner({ sqlite: core.sqlite, client: { fetch }, clock: () => new Date(), connectivity: core.connectivity, identity: () => core.identity(), retryMs });
  };

  it('behind a captive portal (511 and its login page for every site) no post spends its tries; let through, every post gets its preview', async () => {
    const portal = await startServer((_req, res) => res.writeHead(511, { 'content-type': 'text/html' }).end('<head><title>Sign in to Café Wi-Fi</title></head>'));
    const { posts, close } = await threeSites();
    let captive = true;
    const runner = runnerBehind((url) => (captive ? `${portal.origin}${new URL(url).pathname}?from=${new URL(url).host}` : null));
    runner.start();
    try {
      // More looks at each post than a post has tries (3).
      await expect.poll(() => portal.seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4 * posts.length);
      await runner.idle();
      for (const p of posts) expect(ogMetaOf(p.id)).toBeNull();
      captive = false;
      runner.wake();
      await expect.poll(() => posts.map((p) => ogMetaOf(p.id)).every((m) => m !== null), { timeout: 10_000 }).toBe(true);
      expect(posts.map((p) => JSON.parse(ogMetaOf(p.id)!)[0]?.title)).toEqual(['First site', 'Second site', 'Third site']);
    } finally {
      await runner.stop();
      await close();
      await portal.close();
    }
  });

  it('when no site answers (a network that refuses every connection while the machine says online), posts keep their tries; a page that answered before shows it is the network', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    const closed = await startServer((_req, res) => res.end());
    const deadPort = closed.port;
    await closed.close();
    let broken = false;
    const runner = runnerBehind((url) => (broken ? `http://127.0.0.1:${deadPort}${new URL(url).pathname}` : null));
    runner.start();
    try {
      await seeAPageWork(runner);
      broken = true;
      const { posts, sites, close } = await threeSites();
      try {
        for (const p of posts) runner.wake({ table: 'outbox', id: p.id });
        // Long enough for three looks at each post (30 ms, then 300 ms).
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await runner.idle();
        for (const p of posts) expect(ogMetaOf(p.id)).toBeNull();
        expect(sites.every((s) => s.seen.length === 0)).toBe(true);
        broken = false;
        runner.wake();
        await expect.poll(() => posts.map((p) => ogMetaOf(p.id)).every((m) => m !== null), { timeout: 10_000 }).toBe(true);
        expect(posts.map((p) => JSON.parse(ogMetaOf(p.id)!)[0]?.title)).toEqual(['First site', 'Second site', 'Third site']);
      } finally {
        await close();
      }
    } finally {
      await runner.stop();
    }
  });

  it('a login page that answers for several sites is no proof that the network works: a post whose page gets no answer keeps its tries', async () => {
    const portal = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<head><title>Sign in to Café Wi-Fi</title></head>'));
    const closed = await startServer((_req, res) => res.end());
    const deadPort = closed.port;
    await closed.close();
    const { sites, posts, close } = await threeSites();
    let captive = true;
    // The first two sites' pages are answered by the portal; the third's connection fails (as an
    // https page does behind one, its certificate not the site's).
    const runner = runnerBehind((url) => {
      if (!captive) return null;
      const { host, pathname } = new URL(url);
      return host === new URL(sites[2]!.origin).host ? `http://127.0.0.1:${deadPort}${pathname}` : `${portal.origin}${pathname}`;
    }, 10);
    runner.start();
    try {
      // The portal's page answers for the first two sites …
      await expect.poll(() => portal.seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      // … then long enough for four looks at the third post (10, 100 and 600 ms apart).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await runner.idle();
      expect(ogMetaOf(posts[2]!.id)).toBeNull();
      captive = false;
      runner.wake();
      await expect.poll(() => posts.map((p) => JSON.parse(ogMetaOf(p.id) ?? '[]')[0]?.title ?? null), { timeout: 10_000 }).toEqual(['First site', 'Second site', 'Third site']);
    } finally {
      await runner.stop();
      await close();
      await portal.close();
    }
  });

  // A hijacking portal: whatever was asked for, its login page, at an address of its own for each
  // site (the address asked for in its query) or at one address for all.
  it.each([
    ['its login page (200), the address asked for in its query', (origin: string, url: string) => `${origin}/login?continue=${encodeURIComponent(url)}`],
    ['one login address (200)', (origin: string) => `${origin}/login`],
  ])('a portal that answers every site with %s gives no post that page as its preview; let through, each gets its own', async (_kind, loginFor) => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    const portal = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<head><title>Sign in to Café Wi-Fi</title></head>'));
    let captive = false;
    const runner = runnerBehind((url) => (captive ? loginFor(portal.origin, url) : null), 10);
    runner.start();
    const { sites, posts, close } = await threeSites();
    try {
      await seeAPageWork(runner);
      captive = true;
      for (const p of posts) runner.wake({ table: 'outbox', id: p.id });
      await expect.poll(() => portal.seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(posts.length);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await runner.idle();
      for (const p of posts) expect(ogMetaOf(p.id) ?? '', 'no login page as a preview').not.toContain('Sign in');
      captive = false;
      runner.wake();
      await expect.poll(() => posts.map((p) => JSON.parse(ogMetaOf(p.id) ?? '[]')[0]?.title ?? null), { timeout: 10_000 }).toEqual(['First site', 'Second site', 'Third site']);
      expect(sites.every((s) => s.seen.length === 1)).toBe(true);
    } finally {
      await runner.stop();
      await close();
      await portal.close();
    }
  });


  /** A runner on a client that refuses private addresses, 127.0.0.1 (the test's sites) excepted,
   * whose requests go to `to()` instead while it returns a URL. */
  const strictRunnerBehind = (to: (url: string) => string | null, retryMs: number) => {
    const client = createHttpClient({ userAgent: 'Tern test', allowAddresses: ['127.0.0.1'] });
    const fetch: typeof client.fetch = (input, init) => client.fetch(to(String(input)) ?? input, init);
    const runner = createPreviewRunner({ sqlite: core.sqlite, client: { fetch }, clock: () => new Date(), connectivity: core.connectivity, identity: () => core.identity(), retryMs });
    return { runner, close: () => client.close() };
  };
  /** A captive portal's login page on a private address (127.0.0.2), and a server at 127.0.0.1
   * that sends every request there, as the portal's router does. */
  async function privatePortal() {
    const portal = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<head><title>Sign in to Café Wi-Fi</title></head>'), '127.0.0.2');
    const router = await startServer((_req, res) => res.writeHead(302, { location: `${portal.origin}/login` }).end());
    return { portal, router, close: () => Promise.all([portal.close(), router.close()]) };
  }

  it('behind a portal that redirects every site to a private address, no post spends its tries and the portal is never connected to; let through, every post gets its preview', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    const { portal, router, close: closePortal } = await privatePortal();
    let captive = false;
    const { runner, close: closeClient } = strictRunnerBehind((url) => (captive ? `${router.origin}${new URL(url).pathname}` : null), 10);
    runner.start();
    const { posts, close } = await threeSites();
    try {
      await seeAPageWork(runner);
      captive = true;
      for (const p of posts) runner.wake({ table: 'outbox', id: p.id });
      // Long enough for four looks at each post (10, 100 and 600 ms apart).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await runner.idle();
      expect(router.seen.length).toBeGreaterThanOrEqual(4);
      for (const p of posts) expect(ogMetaOf(p.id)).toBeNull();
      expect(portal.seen).toHaveLength(0);
      captive = false;
      runner.wake();
      await expect.poll(() => posts.map((p) => JSON.parse(ogMetaOf(p.id) ?? '[]')[0]?.title ?? null), { timeout: 10_000 }).toEqual(['First site', 'Second site', 'Third site']);
    } finally {
      await runner.stop();
      closeClient();
      await close();
      await closePortal();
    }
  });

  it('a page that redirects to a private address on its own, while other sites answer, spends its tries: no preview after the last', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    const { portal, router, close: closePortal } = await privatePortal();
    const { runner, close: closeClient } = strictRunnerBehind(() => null, 10);
    runner.start();
    try {
      const good = await core.services.author.createPost({ content: `Good ${link('/guide')}`, visibility: 'PUBLIC' });
      const odd = await core.services.author.createPost({ content: `Odd ${router.origin}/page`, visibility: 'PUBLIC' });
      for (const p of [good, odd]) runner.wake({ table: 'outbox', id: p.id });
      await expect.poll(() => ogMetaOf(odd.id), { timeout: 10_000 }).toBe('[]');
      expect(router.seen).toHaveLength(3);
      expect(portal.seen).toHaveLength(0);
      expect(JSON.parse(ogMetaOf(good.id)!)[0].title).toBe('The Tern field guide');
    } finally {
      await runner.stop();
      closeClient();
      await closePortal();
    }
  });

  it('a page that fails on its own, while other sites answer, spends its tries: no preview after the last', async () => {
    pages['/guide'] = [200, 'text/html', OG_PAGE];
    const closed = await startServer((_req, res) => res.end());
    const deadPort = closed.port;
    await closed.close();
    const runner = runnerBehind(() => null);
    runner.start();
    try {
      const good = await core.services.author.createPost({ content: `Good ${link('/guide')}`, visibility: 'PUBLIC' });
      const dead = await core.services.author.createPost({ content: `Dead http://127.0.0.1:${deadPort}/page`, visibility: 'PUBLIC' });
      for (const p of [good, dead]) runner.wake({ table: 'outbox', id: p.id });
      await expect.poll(() => ogMetaOf(dead.id), { timeout: 10_000 }).toBe('[]');
      expect(JSON.parse(ogMetaOf(good.id)!)[0].title).toBe('The Tern field guide');
    } finally {
      await runner.stop();
    }
  });
});

describe('link previews of received posts', () => {
  const remotePost = (name: string, path: string, followed: boolean, now = new Date()): number =>
    storeRemotePost(core, name, { content: `<p>Look <a href="${link(path)}">here</a></p>` }, { followed, now }).id;
  const inboxOgMeta = (id: number) => core.db.select({ og: inbox.ogMeta }).from(inbox).where(eq(inbox.id, id)).get()!.og;

  it('a received post updated while its link was being fetched is looked at again as it is now', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = await startServer(async (_req, res) => {
      await released;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<head><title>Before the edit</title></head>');
    });
    pages['/after'] = [200, 'text/html', '<head><title>After the edit</title></head>'];
    const { id } = storeRemotePost(core, 'friend', { content: `<p><a href="${slow.origin}/before">link</a></p>` }, { followed: true });
    const runner = quickRetryRunner(100);
    runner.start();
    try {
      await expect.poll(() => slow.seen.length).toBe(1);
      // As an Update from its author does (process/update.ts): the object replaced.
      const row = core.db.select().from(inbox).where(eq(inbox.id, id)).get()!;
      core.db.update(inbox).set({ apObject: { ...row.apObject, content: `<p><a href="${link('/after')}">link</a></p>` } }).where(eq(inbox.id, id)).run();
      release();
      await expect.poll(() => inboxOgMeta(id), { timeout: 5_000 }).toMatchObject([{ title: 'After the edit' }]);
    } finally {
      release();
      await runner.stop();
      await slow.close();
    }
  });

  it('a followed person’s Update to another link, processed by the inbox, brings the new link’s preview', async () => {
    pages['/first'] = [200, 'text/html', '<head><title>First page</title></head>'];
    pages['/second'] = [200, 'text/html', '<head><title>Second page</title></head>'];
    const { id, apId } = storeRemotePost(core, 'friend', { content: `<p><a href="${link('/first')}">link</a></p>` }, { followed: true });
    core.loops.previews.start();
    await core.loops.previews.idle();
    expect(inboxOgMeta(id)).toMatchObject([{ title: 'First page' }]);
    const row = core.db.select().from(inbox).where(eq(inbox.id, id)).get()!;
    const actorId = row.apActorId;
    core.db
      .insert(incomingActivity)
      .values({
        createdAt: new Date(),
        sentByApActorId: actorId,
        apId: `${apId}#updates/1`,
        apObject: { id: `${apId}#updates/1`, type: 'Update', actor: actorId, object: { ...row.apObject, content: `<p><a href="${link('/second')}">link</a></p>` } } as never,
        tries: 0,
        nextTry: new Date(),
        isProcessed: false,
        isErrored: false,
      })
      .run();
    await core.loops.inbox.drain();
    await expect.poll(() => inboxOgMeta(id), { timeout: 5_000 }).toMatchObject([{ title: 'Second page' }]);
    expect(fetched('/first')).toBe(1);
    expect(fetched('/second')).toBe(1);
  });

  it('looks at every recent post of followed people, past one batch, and not at a deleted one', async () => {
    pages['/many'] = [200, 'text/html', OG_PAGE];
    const ids = Array.from({ length: 25 }, (_, i) => remotePost(`friend${i}`, '/many', true));
    const deleted = remotePost('gone', '/many', true);
    core.db.update(inbox).set({ isDeleted: true }).where(eq(inbox.id, deleted)).run();
    core.loops.previews.start();
    await core.loops.previews.idle();
    for (const id of ids) expect(inboxOgMeta(id)).toMatchObject([{ title: 'The Tern field guide' }]);
    expect(inboxOgMeta(deleted)).toBeNull();
    // One page, many posts: fetched once.
    expect(fetched('/many')).toBe(1);
  });

  it('fetches previews for recent posts of people the author follows, never for a stranger’s', async () => {
    pages['/friend'] = [200, 'text/html', OG_PAGE];
    pages['/stranger'] = [200, 'text/html', OG_PAGE];
    pages['/old'] = [200, 'text/html', OG_PAGE];
    const old = remotePost('oldfriend', '/old', true, new Date(Date.now() - 3 * 24 * 60 * 60_000));
    const friend = remotePost('friend', '/friend', true);
    const stranger = remotePost('stranger', '/stranger', false);
    core.loops.previews.start();
    await core.loops.previews.idle();
    expect(fetched('/friend')).toBe(1);
    expect(fetched('/stranger')).toBe(0);
    // Received three days ago (before this Tern looked at previews, say): left as it was.
    expect(fetched('/old')).toBe(0);
    expect(inboxOgMeta(old)).toBeNull();
    expect(inboxOgMeta(friend)).toMatchObject([{ title: 'The Tern field guide' }]);
    expect(inboxOgMeta(stranger)).toBeNull();
    // Looking again later asks for nothing more.
    core.loops.previews.wake();
    await core.loops.previews.idle();
    expect(server.seen.length).toBe(1);
  });
});

it('the own post table keeps what it had when the column holds an old microblog.pub value', () => {
  const now = new Date();
  const saved = saveOutboxObject(core.db, core.identity()!, { apObject: { type: 'Note', content: 'x' }, visibility: 'PUBLIC', now });
  core.db.update(outbox).set({ ogMeta: [{ url: 'https://a.example/', title: 'Imported', image: null, description: null, site_name: null }] }).where(eq(outbox.id, saved.id)).run();
  const shown = core.services.author.stream({}).items.find((p) => p.id === saved.id);
  expect(shown?.previews?.[0]).toMatchObject({ url: 'https://a.example/', title: 'Imported', imageSrc: null });
});
