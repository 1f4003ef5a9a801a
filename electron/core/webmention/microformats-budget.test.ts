// A source page's microformats are stored within a budget: one element with many e-* classes
// (each class a copy of the element's HTML) once turned a ~100 KB page into 75.6 MB of JSON,
// and the Webmentions view then spent 325 ms reading it on the main thread.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webmention } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';
import { MAX_PROPERTIES, MAX_STORED_CHARS, parseSource, summarize } from './microformats';
import { listReceivedWebmentions } from './views';

let tern: ListeningCore;
let site: LoopbackServer;
let target = '';
const classes = (n: number) => Array.from({ length: n }, (_, i) => `e-p${i.toString(36)}`).join(' ');
const amplifying = () =>
  `<!doctype html><html><body><div class="h-entry"><a class="p-author h-card" href="https://bob.example/">Bob</a>` +
  `<div class="${classes(1000)}">${'lorem ipsum '.repeat(8000)}</div><a class="u-in-reply-to" href="${target}">re</a></div></body></html>`;

beforeAll(async () => {
  tern = await openListeningCore();
  site = await startServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(amplifying());
  });
});
afterAll(async () => {
  await site.close();
  await tern.close();
});

it('one element with 1,000 e-* classes: properties per item and the stored JSON are bounded, the kind still read', () => {
  target = 'https://tern.example/o/abc';
  const parsed = parseSource(amplifying(), 'https://bob.example/p');
  const json = JSON.stringify(parsed);
  expect(json.length).toBeLessThan(MAX_STORED_CHARS * 1.1);
  const entry = parsed.items[0] as { properties: Record<string, unknown> };
  expect(Object.keys(entry.properties).length).toBeLessThanOrEqual(MAX_PROPERTIES);
  // What the view reads is kept first, whatever the page order.
  const summary = summarize(parsed, target);
  expect(summary.kind).toBe('reply');
  expect(summary.author.name).toBe('Bob');
});

it('received through the listener: the stored row stays under the budget and listing it is fast', async () => {
  const post = addPost(tern.core, { content: '<p>hi</p>' });
  target = post.apId;
  const res = await fetch(`${tern.url}/webmention`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ source: `${site.origin}/p1`, target }).toString(),
  });
  expect(res.status).toBe(202);
  await tern.core.loops.inbox.drain();
  const [row] = tern.core.db.select().from(webmention).all();
  expect(JSON.stringify(row!.sourceMicroformats).length).toBeLessThan(MAX_STORED_CHARS * 1.1);
  const t0 = performance.now();
  const page = listReceivedWebmentions(tern.core.db, { limit: 20 });
  expect(performance.now() - t0).toBeLessThan(100);
  expect(page.items[0]?.mentions[0]?.kind).toBe('reply');
}, 60_000);
