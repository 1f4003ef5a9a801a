// A source page is read in the charset it declares: a windows-1252 page was decoded as UTF-8
// (the client's response.text()), and "José Müller" was stored as "Jos� M�ller".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webmention } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';
import { summarize } from './microformats';

let tern: ListeningCore;
let site: LoopbackServer;
let target = '';
beforeAll(async () => {
  tern = await openListeningCore();
  site = await startServer((req, res) => {
    // Declared in the Content-Type, or only in a <meta>.
    res.setHeader('content-type', req.url === '/meta' ? 'text/html' : 'text/html; charset=windows-1252');
    const html = `<html><head><meta charset="windows-1252"></head><body><div class="h-entry"><span class="p-author h-card"><span class="p-name">José Müller</span></span><a class="u-like-of" href="${target}">like</a><p class="e-content">Très bien</p></div></body></html>`;
    res.end(Buffer.from(html, 'latin1'));
  });
});
afterAll(async () => {
  await site.close();
  await tern.close();
});

it.each(['/header', '/meta'])('a windows-1252 source (%s) is stored as it reads', async (path) => {
  const post = addPost(tern.core, { content: '<p>hi</p>' });
  target = post.apId;
  const res = await fetch(`${tern.url}/webmention`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ source: `${site.origin}${path}`, target }).toString(),
  });
  expect(res.status).toBe(202);
  await tern.core.loops.inbox.drain();
  const row = tern.core.db.select().from(webmention).all().find((w) => w.source.endsWith(path));
  const summary = summarize(row!.sourceMicroformats, target);
  expect(summary.author.name).toBe('José Müller');
  expect(summary.excerpt).toBe('Très bien');
  expect(summary.kind).toBe('like');
}, 30_000);
