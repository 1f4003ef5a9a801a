// Receiving webmentions end to end inside the core: POST /webmention on the real listener, the
// inbox processor verifying the source on a loopback page (the core's client allows loopback,
// as in every listener test), and what is stored — or, for each bad input, that nothing is.
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incomingActivity, notifications, outbox, webmention, type OutboxObject } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { createHttpClient } from '../net/http-client';
import { startServer, type LoopbackServer } from '../net/test-server';
import { summarize } from './microformats';
import { listReceivedWebmentions } from './views';
import { MAX_WEBMENTION_BODY_BYTES } from './receive';
import { SOURCE_MAX_BYTES, processIncomingWebmention } from './verify';

let tern: ListeningCore;
let site: LoopbackServer;
/** What the source site serves, by path: status and body. */
const pages = new Map<string, { status?: number; body: string; type?: string }>();

beforeAll(async () => {
  tern = await openListeningCore();
  site = await startServer((req, res) => {
    const found = pages.get(req.url ?? '/');
    res.statusCode = found?.status ?? (found ? 200 : 404);
    res.setHeader('content-type', found?.type ?? 'text/html; charset=utf-8');
    res.end(found?.body ?? 'not here');
  });
});

afterAll(async () => {
  await site.close();
  await tern.close();
});

let post: OutboxObject;
beforeEach(() => {
  post = addPost(tern.core, { content: '<p>Original post</p>' });
});
// Each test in a new rate-limit window (the listener counts per minute of the core's clock).
let minutes = 0;
afterEach(() => {
  tern.setClockOffset(++minutes * 61_000);
  pages.clear();
  tern.core.sqlite.exec('DELETE FROM notifications; DELETE FROM webmention; DELETE FROM incoming_activity;');
});

function send(form: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${tern.url}/webmention`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
}

const entry = (inner: string) =>
  `<!doctype html><html><body><article class="h-entry">` +
  `<span class="p-author h-card"><img class="u-photo" src="https://bob.example/me.jpg" alt=""><a class="p-name u-url" href="https://bob.example/">Bob Blogger</a></span>` +
  `${inner}</article></body></html>`;

const rows = () => tern.core.db.select().from(webmention).all();
const notes = () => tern.core.db.select().from(notifications).all();
const queued = () => tern.core.db.select().from(incomingActivity).all();
const countOf = (id: number) => tern.core.db.select().from(outbox).where(eq(outbox.id, id)).get()!.webmentionsCount;

async function mention(path: string): Promise<void> {
  const res = await send({ source: `${site.origin}${path}`, target: post.apId });
  expect(res.status).toBe(202);
  await tern.core.loops.inbox.drain();
}

describe('POST /webmention refuses bad requests with 400 and a reason, storing nothing', () => {
  const cases: [string, () => Record<string, string> | string, RegExp][] = [
    ['missing source', () => ({ target: post.apId }), /source is missing/],
    ['missing target', () => ({ source: 'https://bob.example/a' }), /target is missing/],
    ['source not a URL', () => ({ source: 'not a url', target: post.apId }), /source must be an absolute http\(s\) URL/],
    ['non-http(s) source', () => ({ source: 'ftp://bob.example/a', target: post.apId }), /source must be an absolute http\(s\) URL/],
    ['relative target', () => ({ source: 'https://bob.example/a', target: '/o/x' }), /target must be an absolute/],
    ['target on another site', () => ({ source: 'https://bob.example/a', target: 'https://elsewhere.example/o/1' }), /not one of this author/],
    ['target that is no post', () => ({ source: 'https://bob.example/a', target: `${tern.url}/o/nope` }), /not one of this author/],
    ['source equal to target', () => ({ source: post.apId, target: `${post.apId}#frag` }), /same page/],
    ['repeated parameter', () => `source=https://bob.example/a&source=https://bob.example/b&target=${encodeURIComponent(post.apId)}`, /more than once/],
    ['body over the cap', () => ({ source: `https://bob.example/${'a'.repeat(MAX_WEBMENTION_BODY_BYTES)}`, target: post.apId }), /body larger than/],
  ];
  it.each(cases)('%s', async (_name, form, reason) => {
    const res = await send(form());
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(reason);
    expect(queued()).toHaveLength(0);
  });

  it('a JSON body is refused', async () => {
    const res = await send(JSON.stringify({ source: 'https://bob.example/a', target: post.apId }), { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(queued()).toHaveLength(0);
  });

  it('a followers-only or deleted post is not a valid target', async () => {
    for (const hidden of [addPost(tern.core, { visibility: 'FOLLOWERS_ONLY' }), addPost(tern.core, { deleted: true })]) {
      const res = await send({ source: 'https://bob.example/a', target: hidden.apId });
      expect(res.status).toBe(400);
    }
    expect(queued()).toHaveLength(0);
  });
});

describe('receiving and verifying', () => {
  it('a valid request is queued with its source and answered 202', async () => {
    const res = await send({ source: 'https://bob.example/a', target: post.apId });
    expect(res.status).toBe(202);
    const [row] = queued();
    expect(row?.webmentionSource).toBe('https://bob.example/a');
    expect(row?.apObject).toMatchObject({ target: post.apId });
  });

  it('a pending row of the same source whose ap_object is NULL or JSON null (another tool) matches nothing: a new row, 202', async () => {
    for (const apObject of [null, 'null']) {
      const source = `https://bob.example/${apObject ?? 'none'}`;
      tern.core.db
        .insert(incomingActivity)
        .values({ createdAt: new Date(), webmentionSource: source, apObject: null, tries: 0, nextTry: new Date(), isProcessed: false, isErrored: false })
        .run();
      if (apObject !== null) tern.core.sqlite.prepare('UPDATE incoming_activity SET ap_object = ? WHERE webmention_source = ?').run(apObject, source);
      const res = await send({ source, target: post.apId });
      expect(res.status).toBe(202);
      const mine = queued().filter((row) => row.webmentionSource === source);
      expect(mine).toHaveLength(2);
      expect(mine[1]?.apObject).toMatchObject({ target: post.apId });
    }
  });

  it('a source that links: one row with sanitized microformats, NEW_WEBMENTION, the count', async () => {
    pages.set('/like', {
      body: entry(`<a class="u-like-of" href="${post.apId}">liked</a><div class="e-content">Nice <script>alert(1)</script><b>post</b></div>`),
    });
    await mention('/like');
    const [row] = rows();
    expect(row).toMatchObject({ source: `${site.origin}/like`, target: post.apId, outboxObjectId: post.id, isDeleted: false });
    expect(JSON.stringify(row!.sourceMicroformats)).not.toContain('<script');
    expect(JSON.stringify(row!.sourceMicroformats)).toContain('<b>post</b>');
    const summary = summarize(row!.sourceMicroformats, post.apId);
    expect(summary).toMatchObject({ kind: 'like', author: { name: 'Bob Blogger', url: 'https://bob.example/', photo: 'https://bob.example/me.jpg' } });
    expect(notes().map((n) => [n.notificationType, n.webmentionId, n.outboxObjectId])).toEqual([['NEW_WEBMENTION', row!.id, post.id]]);
    expect(countOf(post.id)).toBe(1);
  });

  it('the same source again: unchanged → nothing new; changed → UPDATED_WEBMENTION, still one row', async () => {
    pages.set('/r', { body: entry(`<a class="u-in-reply-to" href="${post.apId}">re</a><p class="e-content">First</p>`) });
    await mention('/r');
    await mention('/r');
    expect(notes().map((n) => n.notificationType)).toEqual(['NEW_WEBMENTION']);
    pages.set('/r', { body: entry(`<a class="u-in-reply-to" href="${post.apId}">re</a><p class="e-content">Edited</p>`) });
    await mention('/r');
    expect(rows()).toHaveLength(1);
    expect(summarize(rows()[0]!.sourceMicroformats, post.apId)).toMatchObject({ kind: 'reply', excerpt: 'Edited' });
    expect(notes().map((n) => n.notificationType)).toEqual(['NEW_WEBMENTION', 'UPDATED_WEBMENTION']);
  });

  it.each([404, 410])('a source that is gone (%i) is marked deleted, DELETED_WEBMENTION, count back to 0', async (status) => {
    pages.set('/g', { body: entry(`<a href="${post.apId}">see</a>`) });
    await mention('/g');
    expect(countOf(post.id)).toBe(1);
    pages.set('/g', { status, body: 'gone' });
    await mention('/g');
    expect(rows()[0]?.isDeleted).toBe(true);
    expect(notes().map((n) => n.notificationType)).toEqual(['NEW_WEBMENTION', 'DELETED_WEBMENTION']);
    expect(countOf(post.id)).toBe(0);
  });

  it('a source that no longer links is marked deleted', async () => {
    pages.set('/n', { body: entry(`<a href="${post.apId}">see</a>`) });
    await mention('/n');
    pages.set('/n', { body: entry('<p>nothing here any more</p>') });
    await mention('/n');
    expect(rows()[0]?.isDeleted).toBe(true);
    expect(notes().at(-1)?.notificationType).toBe('DELETED_WEBMENTION');
  });

  it('a relative link in the source is resolved against the source’s URL: it names the source’s site, not the post', async () => {
    pages.set('/rel', { body: entry(`<a href="${new URL(post.apId).pathname}">see</a>`) });
    await mention('/rel');
    expect(rows()).toHaveLength(0);
    expect(queued()[0]?.error).toBe('source does not link to target');
  });

  it('a source that does not link: nothing stored, the reason kept on the queued row', async () => {
    pages.set('/x', { body: entry('<a href="https://elsewhere.example/">other</a>') });
    await mention('/x');
    expect(rows()).toHaveLength(0);
    expect(notes()).toHaveLength(0);
    expect(queued()[0]).toMatchObject({ isProcessed: true, error: 'source does not link to target' });
  });

  it('a missing source (404, never seen): nothing stored', async () => {
    await mention('/missing');
    expect(rows()).toHaveLength(0);
    expect(queued()[0]?.error).toMatch(/HTTP 404; nothing was recorded/);
  });

  it('an oversized source: refused, nothing stored', async () => {
    pages.set('/big', { body: entry(`<a href="${post.apId}">x</a>${'y'.repeat(SOURCE_MAX_BYTES)}`) });
    await mention('/big');
    expect(rows()).toHaveLength(0);
    expect(queued()[0]?.error).toMatch(/source larger than/);
  });

  // Pages no parser should meet on the main thread: refused for good (processed, tries 1), with why.
  it.each([
    ['50,000 nested elements', () => `${'<div>'.repeat(50_000)}<a href="${post.apId}">x</a>${'</div>'.repeat(50_000)}`, /source page refused: HTML nested deeper than 400 levels/],
    ['40,000 elements side by side', () => `<a href="${post.apId}">x</a>${'<i></i>'.repeat(40_000)}`, /source page refused: more than 30000 HTML elements/],
    ['2,000 nested elements', () => `${'<span>'.repeat(2_000)}<a href="${post.apId}">x</a>${'</span>'.repeat(2_000)}`, /source page refused: HTML nested deeper than 400 levels/],
  ])('a source of %s: refused for good with the reason, nothing stored', async (_name, page, reason) => {
    pages.set('/deep', { body: page() });
    await mention('/deep');
    expect(rows()).toHaveLength(0);
    expect(queued()[0]).toMatchObject({ isProcessed: true, isErrored: false, tries: 1 });
    expect(queued()[0]?.error).toMatch(reason);
  });

  it('a long page full of microformats (slow to parse) is read off the main thread and recorded', async () => {
    pages.set('/long', { body: entry(`<a class="u-in-reply-to" href="${post.apId}">re</a>${'<p class="p-name">hello <b>world</b></p>'.repeat(2_000)}`) });
    await mention('/long');
    expect(rows()).toHaveLength(1);
    expect(queued()[0]).toMatchObject({ isProcessed: true, error: null });
  });

  it('an unreachable source: kept for a later try with the error, nothing stored', async () => {
    const dead = await startServer(() => undefined);
    const origin = dead.origin;
    await dead.close();
    const res = await send({ source: `${origin}/gone-server`, target: post.apId });
    expect(res.status).toBe(202);
    await tern.core.loops.inbox.drain();
    expect(rows()).toHaveLength(0);
    const [row] = queued();
    expect(row).toMatchObject({ isProcessed: false, isErrored: false, tries: 1 });
    expect(row?.error).toMatch(/ECONNREFUSED|refused|connect/i);
    expect(row?.nextTry?.getTime()).toBeGreaterThan(tern.core.clock().getTime());
  });

  it('a private-address source is refused by the SSRF guard when private addresses are not allowed', async () => {
    pages.set('/p', { body: entry(`<a href="${post.apId}">x</a>`) });
    const res = await send({ source: `${site.origin}/p`, target: post.apId });
    expect(res.status).toBe(202);
    const [row] = queued();
    const client = createHttpClient({ userAgent: 'Tern-test' });
    try {
      const identity = tern.core.identity()!;
      const outcome = await processIncomingWebmention({ db: tern.core.db, fed: { client }, clock: tern.core.clock, identity, settings: { blockedServers: [] } }, row!);
      expect(outcome.status).toBe('dropped');
      expect(outcome.status === 'dropped' && outcome.reason).toMatch(/source refused: Refusing to connect to 127\.0\.0\.1/);
    } finally {
      client.close();
    }
    expect(rows()).toHaveLength(0);
  });

  it('one row per source: a page mentioning a second post keeps the first while it still links to it', async () => {
    const other = addPost(tern.core, { content: '<p>Other</p>' });
    pages.set('/both', { body: entry(`<a href="${post.apId}">one</a> <a href="${other.apId}">two</a>`) });
    await mention('/both');
    const res = await send({ source: `${site.origin}/both`, target: other.apId });
    expect(res.status).toBe(202);
    await tern.core.loops.inbox.drain();
    expect(rows()).toHaveLength(1);
    expect(rows()[0]?.outboxObjectId).toBe(post.id);
    expect(queued()[1]?.error).toMatch(/already recorded/);
  });

  it('the view groups received webmentions by post, with kind, author, excerpt and state', async () => {
    pages.set('/v1', { body: entry(`<a class="u-in-reply-to" href="${post.apId}">re</a><p class="e-content">Hello <i>there</i></p>`) });
    pages.set('/v2', { body: entry(`<a class="u-repost-of" href="${post.apId}">rp</a>`) });
    await mention('/v1');
    await mention('/v2');
    pages.set('/v1', { body: entry(`<a class="u-in-reply-to" href="${post.apId}">re</a><p class="e-content">Hello again</p>`) });
    await mention('/v1');
    pages.set('/v2', { status: 410, body: '' });
    await mention('/v2');
    const page = listReceivedWebmentions(tern.core.db, { limit: 1 });
    expect(page.items).toHaveLength(1);
    const [group] = page.items;
    expect(group?.post).toMatchObject({ apId: post.apId, excerpt: 'Original post', webmentionsCount: 1 });
    expect(group?.mentions.map((m) => [m.source, m.kind, m.state, m.author.name, m.excerpt])).toEqual([
      [`${site.origin}/v2`, 'repost', 'deleted', 'Bob Blogger', ''],
      [`${site.origin}/v1`, 'reply', 'updated', 'Bob Blogger', 'Hello again'],
    ]);
  });

  it('too many webmentions from one site in a minute: 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await send({ source: `https://flood.example/${i}`, target: post.apId })).status);
    expect(statuses.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    const res = await send({ source: 'https://flood.example/again', target: post.apId });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('kinds from microformats', () => {
  it.each([
    ['reply', `<a class="u-in-reply-to" href="TARGET">r</a>`],
    ['like', `<a class="u-like-of" href="TARGET">l</a>`],
    ['repost', `<a class="u-repost-of" href="TARGET">r</a>`],
    ['bookmark', `<a class="u-bookmark-of" href="TARGET">b</a>`],
    ['reply', `<div class="u-in-reply-to h-cite"><a class="u-url" href="TARGET">cited</a></div>`],
    ['mention', `<p class="e-content">I read <a href="TARGET">this</a></p>`],
    ['mention', `<a class="u-like-of" href="https://elsewhere.example/">liked something else</a> <a href="TARGET">x</a>`],
  ])('%s from %s', async (kind, inner) => {
    const { parseSource } = await import('./microformats');
    const target = 'https://tern.example/o/abc';
    const parsed = parseSource(entry(inner.replaceAll('TARGET', target)), 'https://bob.example/post');
    expect(summarize(parsed, target).kind).toBe(kind);
  });
});
