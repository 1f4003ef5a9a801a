// Sources that stall, end to end on the real listener and inbox processor: they hold neither the
// activities nor each other (a few verified at once, each fetch cut at SOURCE_TIMEOUT_MS), a
// pair re-sent while waiting is one row, and past MAX_PENDING_WEBMENTIONS waiting the listener
// refuses with 429. Before: three stalling sources held the one processor 30.8 s (10 s each, and
// 14 tries of that per source), the activities and the fast source waiting behind them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incomingActivity, webmention } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';
import { MAX_PENDING_WEBMENTIONS } from './receive';
import { SOURCE_TIMEOUT_MS } from './verify';

let tern: ListeningCore;
let site: LoopbackServer;
let target = '';
beforeAll(async () => {
  site = await startServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url?.startsWith('/slow')) {
      res.write('<html>'); // ... and nothing more
      return;
    }
    res.end(`<html><body><a href="${target}">hello</a></body></html>`);
  });
});
afterAll(async () => {
  await site.close();
});

const send = (source: string) =>
  fetch(`${tern.url}/webmention`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ source, target }).toString(),
  });

describe.each([['on the main thread', false], ['on the inbox worker', true]])('%s', (_where, inboxWorker) => {
  beforeAll(async () => {
    tern = await openListeningCore('alice', { inboxWorker });
    // Started (under tsx a worker takes seconds to load), so what is measured is the processing.
    await tern.core.loops.inbox.drain();
  });
  afterAll(() => tern.close());

it('three stalling sources: the fast source and an activity queued after them are done at once, the stalling ones cut at the time-out', async () => {
    const post = addPost(tern.core, { content: '<p>hi</p>' });
    target = post.apId;
    for (let i = 0; i < 3; i++) expect((await send(`${site.origin}/slow/${i}`)).status).toBe(202);
    expect((await send(`${site.origin}/fast`)).status).toBe(202);
    // An activity (malformed: dropped as soon as it is looked at) queued behind them.
    const activity = tern.core.db
      .insert(incomingActivity)
      .values({ createdAt: new Date(), apObject: { type: 'Like' }, tries: 0, nextTry: new Date(), isProcessed: false, isErrored: false })
      .returning()
      .get();
    const t0 = performance.now();
    const drained = tern.core.loops.inbox.drain();
    const row = (id: number) => tern.core.db.select().from(incomingActivity).all().find((r) => r.id === id)!;
    while (!row(activity.id).isProcessed && performance.now() - t0 < 30_000) await new Promise((resolve) => setTimeout(resolve, 10));
    const activityMs = performance.now() - t0;
    await drained;
    const drainMs = performance.now() - t0;
    expect(activityMs).toBeLessThan(1_000);
    expect(tern.core.db.select().from(webmention).all().map((w) => w.source)).toEqual([`${site.origin}/fast`]);
    expect(drainMs).toBeLessThan(SOURCE_TIMEOUT_MS + 3_000);
    const slow = tern.core.db.select().from(incomingActivity).all().filter((r) => r.webmentionSource?.includes('/slow/'));
    expect(slow.map((r) => [r.isProcessed, r.tries])).toEqual([[false, 1], [false, 1], [false, 1]]);
    expect(slow[0]?.error).toMatch(/did not answer within 5 s/);
  }, 30_000);
});

describe('queueing', () => {
  beforeAll(async () => {
    tern = await openListeningCore();
  });
  afterAll(() => tern.close());

it('a pair sent again while it waits is the same row; too many waiting: 429 with a reason', async () => {
    target = addPost(tern.core, { content: '<p>hi</p>' }).apId;
    const before = tern.core.db.select().from(incomingActivity).all().length;
    expect((await send(`${site.origin}/again`)).status).toBe(202);
    expect((await send(`${site.origin}/again`)).status).toBe(202);
    expect(tern.core.db.select().from(incomingActivity).all().length).toBe(before + 1);
    const now = new Date();
    tern.core.db.transaction((tx) => {
      for (let i = 0; i < MAX_PENDING_WEBMENTIONS; i++) {
        const source = `https://flood${i}.example/p`;
        tx.insert(incomingActivity).values({ createdAt: now, webmentionSource: source, apObject: { type: 'Webmention', source, target }, tries: 0, nextTry: now, isProcessed: false, isErrored: false }).run();
      }
    });
    const res = await send(`${site.origin}/one-more`);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: string }).error).toMatch(/waiting to be verified/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
