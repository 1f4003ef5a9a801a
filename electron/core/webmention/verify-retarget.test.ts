// A source page edited to reply to another of the author's posts: its one row (the spec's unique
// source) moves to the post it now links to, whichever of the two the sender notifies first.
// Before, notified for the new post first (as Tern's own edits are sent), the new post was
// refused ("already recorded"), then the old one's notification deleted the row: no live
// mention at all, though the page replies to the new post.
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { notifications, outbox, webmention } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';

let tern: ListeningCore;
let site: LoopbackServer;
let body = '';
beforeAll(async () => {
  tern = await openListeningCore();
  site = await startServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(body);
  });
});
afterAll(async () => {
  await site.close();
  await tern.close();
});
let minutes = 0;
afterEach(() => {
  tern.setClockOffset(++minutes * 61_000); // a new rate-limit window
  tern.core.sqlite.exec('DELETE FROM notifications; DELETE FROM webmention; DELETE FROM incoming_activity;');
});
const page = (...targets: string[]) =>
  `<html><body><div class="h-entry">${targets.map((t) => `<a class="u-in-reply-to" href="${t}">re</a>`).join('')}<p class="e-content">hello</p></div></body></html>`;

async function mention(target: string): Promise<void> {
  const res = await fetch(`${tern.url}/webmention`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ source: `${site.origin}/reply`, target }).toString(),
  });
  expect(res.status).toBe(202);
  await tern.core.loops.inbox.drain();
}
const rows = () => tern.core.db.select().from(webmention).all();
const countOf = (id: number) => tern.core.db.select().from(outbox).where(eq(outbox.id, id)).get()!.webmentionsCount;

it.each([
  ['the new post first', true],
  ['the old post first', false],
])('a reply edited to answer another post: one live row for the new post (%s)', async (_order, newFirst) => {
  const t1 = addPost(tern.core, { content: '<p>one</p>' });
  const t2 = addPost(tern.core, { content: '<p>two</p>' });
  body = page(t1.apId);
  await mention(t1.apId);
  body = page(t2.apId); // the page now replies to T2 only
  if (newFirst) {
    await mention(t2.apId);
    await mention(t1.apId);
  } else {
    await mention(t1.apId);
    await mention(t2.apId);
  }
  expect(rows().map((r) => [r.target, r.isDeleted])).toEqual([[t2.apId, false]]);
  expect([countOf(t1.id), countOf(t2.id)]).toEqual([0, 1]);
  const last = tern.core.db.select().from(notifications).all().at(-1)!;
  expect(last).toMatchObject({ notificationType: 'UPDATED_WEBMENTION', outboxObjectId: t2.id, webmentionId: rows()[0]!.id });
});

it('a page that still links to the post it is recorded for keeps its row there', async () => {
  const t1 = addPost(tern.core, { content: '<p>one</p>' });
  const t2 = addPost(tern.core, { content: '<p>two</p>' });
  body = page(t1.apId);
  await mention(t1.apId);
  body = page(t1.apId, t2.apId);
  await mention(t2.apId);
  expect(rows().map((r) => [r.target, r.isDeleted])).toEqual([[t1.apId, false]]);
  expect([countOf(t1.id), countOf(t2.id)]).toEqual([1, 0]);
});
