// The Webmentions view with tens of thousands of webmentions of one post (the listener lets
// anyone add 60 a minute, one per source URL): a page of groups shows the newest mentions of
// each post and how many there are, and the rest page from there. Before, every row of the
// posts shown was loaded and summarized (20,000: 566–651 ms on the main thread) and their ids
// passed as SQL variables (33,000: "too many SQL variables").
import { afterEach, beforeEach, expect, it } from 'vitest';
import { setSkipLog } from '../../../db/readable-rows';
import { notifications, webmention } from '../../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';
import { listReceivedWebmentions, listWebmentionsOfPost, MENTIONS_PER_POST } from './views';

let tern: ListeningCore;
beforeEach(async () => {
  tern = await openListeningCore();
});
afterEach(async () => {
  await tern.close();
});

function flood(n: number) {
  const post = addPost(tern.core, { content: '<p>hi</p>' });
  const mf = {
    items: [
      {
        type: ['h-entry'],
        properties: { author: [{ type: ['h-card'], properties: { name: ['Spam'], url: ['https://spam.example/'] } }], content: [{ value: 'x'.repeat(200), html: 'x'.repeat(200) }], 'like-of': [post.apId] },
      },
    ],
  };
  const at = new Date('2026-11-01T10:00:00Z');
  tern.core.db.transaction((tx) => {
    for (let i = 0; i < n; i++) {
      const row = tx
        .insert(webmention)
        .values({ createdAt: at, isDeleted: false, source: `https://spam${i % 1000}.example/${i}`, sourceMicroformats: mf, target: post.apId, outboxObjectId: post.id })
        .returning({ id: webmention.id })
        .get();
      tx.insert(notifications).values({ createdAt: at, notificationType: 'NEW_WEBMENTION', isNew: true, outboxObjectId: post.id, webmentionId: row.id }).run();
    }
  });
  return post;
}

it('33,000 mentions of one post: a page shows the newest 20 and the count, fast; the rest page by post', () => {
  const post = flood(33_000);
  const newest = tern.core.db.select({ id: webmention.id }).from(webmention).all().at(-1)!.id;
  // The newest was updated: its state and time come from its last change.
  tern.core.db.insert(notifications).values({ createdAt: new Date('2026-11-02T10:00:00Z'), notificationType: 'UPDATED_WEBMENTION', isNew: true, outboxObjectId: post.id, webmentionId: newest }).run();
  listReceivedWebmentions(tern.core.db, { limit: 20 }); // statements prepared
  const t0 = performance.now();
  const page = listReceivedWebmentions(tern.core.db, { limit: 20 });
  const ms = performance.now() - t0;
  expect(ms).toBeLessThan(100);
  const [group] = page.items;
  expect(group!.mentions).toHaveLength(MENTIONS_PER_POST);
  expect(group!.mentionsTotal).toBe(33_000);
  expect(group!.mentions[0]).toMatchObject({ id: newest, state: 'updated', kind: 'like', changedAt: '2026-11-02T10:00:00.000Z' });
  expect(group!.mentions[1]).toMatchObject({ id: newest - 1, state: 'new', changedAt: null });
  const more = listWebmentionsOfPost(tern.core.db, { postId: post.id, cursor: group!.moreCursor, limit: 50 });
  expect(more.items.map((m) => m.id)).toEqual(Array.from({ length: 50 }, (_, i) => newest - MENTIONS_PER_POST - i));
  expect(more.nextCursor).toBe(String(newest - MENTIONS_PER_POST - 49));
}, 120_000);

/** One webmention of `post`, with the target given (another tool may write the post's address
 * its own way). */
function mentionOf(post: { id: number }, target: string, source: string) {
  return tern.core.db
    .insert(webmention)
    .values({ createdAt: new Date('2026-11-01T10:00:00Z'), isDeleted: false, source, sourceMicroformats: null, target, outboxObjectId: post.id })
    .returning({ id: webmention.id })
    .get().id;
}

it('a webmention belongs to the post its outbox_object_id names, whatever its target: a target with a trailing slash is shown, and pages stay full', () => {
  const first = addPost(tern.core, { content: '<p>first</p>' });
  const second = addPost(tern.core, { content: '<p>second</p>' });
  const a = mentionOf(first, first.apId, 'https://a.example/1');
  const b = mentionOf(second, `${second.apId}/`, 'https://b.example/1');
  const c = mentionOf(first, `${first.apId}/`, 'https://c.example/1');
  const page1 = listReceivedWebmentions(tern.core.db, { limit: 1 });
  expect(page1.items.map((g) => [g.post.id, g.mentions.map((m) => m.id), g.mentionsTotal])).toEqual([[first.id, [c, a], 2]]);
  expect(page1.nextCursor).not.toBeNull();
  const page2 = listReceivedWebmentions(tern.core.db, { limit: 1, cursor: page1.nextCursor });
  expect(page2.items.map((g) => [g.post.id, g.mentions.map((m) => m.id), g.mentionsTotal])).toEqual([[second.id, [b], 1]]);
  expect(page2.nextCursor).toBeNull();
  expect(listWebmentionsOfPost(tern.core.db, { postId: second.id, limit: 10 }).items.map((m) => m.id)).toEqual([b]);
});

it('a webmention whose date cannot be read (or its last change’s) is left out and reported; the view goes on', () => {
  const post = addPost(tern.core, { content: '<p>hi</p>' });
  const ids = [1, 2, 3, 4].map((i) => mentionOf(post, post.apId, `https://s.example/${i}`));
  tern.core.db.insert(notifications).values({ createdAt: new Date('2026-11-02T10:00:00Z'), notificationType: 'UPDATED_WEBMENTION', isNew: true, outboxObjectId: post.id, webmentionId: ids[1]! }).run();
  tern.core.sqlite.pragma('ignore_check_constraints = ON');
  tern.core.sqlite.prepare("UPDATE webmention SET created_at = '2026-11-xxT10:00:00.000Z' WHERE id = ?").run(ids[2]);
  tern.core.sqlite.prepare("UPDATE notifications SET created_at = '2026-13-45T10:00:00.000Z' WHERE webmention_id = ?").run(ids[1]);
  tern.core.sqlite.pragma('ignore_check_constraints = OFF');
  const skipped: string[] = [];
  const previous = setSkipLog((m) => skipped.push(m));
  try {
    const [group] = listReceivedWebmentions(tern.core.db, { limit: 10 }).items;
    expect(group!.mentions.map((m) => m.id)).toEqual([ids[3], ids[0]]);
    expect(group!.mentionsTotal).toBe(4);
    expect(skipped).toEqual([
      `skipped webmention row ${ids[2]}, which cannot be read: Invalid time value`,
      `skipped webmention row ${ids[1]}, which cannot be read: Invalid time value`,
    ]);
    // Paging goes past an unreadable row: the cursor is the last row read, shown or not.
    const first = listWebmentionsOfPost(tern.core.db, { postId: post.id, limit: 2 });
    expect(first.items.map((m) => m.id)).toEqual([ids[3]]);
    expect(listWebmentionsOfPost(tern.core.db, { postId: post.id, cursor: first.nextCursor, limit: 2 }).items.map((m) => m.id)).toEqual([ids[0]]);
  } finally {
    setSkipLog(previous);
  }
});

it('groups are the posts that exist, newest webmention first, each with its count, paged to the last: as a GROUP BY over every webmention gives them', () => {
  const posts = Array.from({ length: 12 }, (_, i) => addPost(tern.core, { content: `<p>post ${i}</p>` }));
  // Mentions spread unevenly (one post many, some none), in an order unlike the posts'.
  for (let i = 0; i < 90; i++) {
    const post = posts[i % 3 === 0 ? 0 : (i * 7) % 11]!;
    mentionOf(post, post.apId, `https://s.example/${i}`);
  }
  // A webmention of a post no longer there (written before foreign keys were checked) is no group.
  tern.core.sqlite.pragma('foreign_keys = OFF');
  tern.core.sqlite
    .prepare("INSERT INTO webmention (created_at, is_deleted, source, target, outbox_object_id) VALUES ('2026-11-01T10:00:00.000Z', 0, 'https://gone.example/1', 'https://gone.example/', 999999)")
    .run();
  tern.core.sqlite.pragma('foreign_keys = ON');
  const expected = tern.core.sqlite
    .prepare(
      `SELECT w.outbox_object_id AS postId, max(w.id) AS latest, count(*) AS total FROM webmention w JOIN outbox o ON o.id = w.outbox_object_id
       GROUP BY w.outbox_object_id ORDER BY latest DESC`,
    )
    .all() as { postId: number; latest: number; total: number }[];
  const shown: [number, number, number][] = [];
  let cursor: string | null = null;
  do {
    const page = listReceivedWebmentions(tern.core.db, { limit: 4, cursor });
    shown.push(...page.items.map((g): [number, number, number] => [g.post.id, g.mentions[0]!.id, g.mentionsTotal]));
    cursor = page.nextCursor;
  } while (cursor !== null);
  expect(shown).toEqual(expected.map((g) => [g.postId, g.latest, g.total]));
  expect(shown.map(([postId]) => postId)).not.toContain(999999);
});
