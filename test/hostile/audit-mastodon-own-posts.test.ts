// Audit: the Mastodon API's lists of the author's own posts, and their count. reads.ownPosts
// (and ownPostCount) filtered with bound `is_deleted = ?` terms and an indexed `ap_type IN (…)`:
// SQLite read every post by ix_outbox_ap_type and sorted them all for each batch, a filter the
// page does not match (only_media) asked for five batches, and each count read every post's row
// (the instance's status_count, asked with no token; each account entity's statuses_count).
// Measured on the bench's 100,000 posts (the listener's thread held): 0.14–1.7 s per request;
// now 8–24 ms (only_media with limit=80, five batches of 80 posts made into statuses, the most).
//
// Building 100,000 posts takes half a minute, so this file checks what holds at any size on
// 20,000 (see audit-outbox-pages.test.ts): each page's statement reads by the published-date or
// pinned index, each count by ix_outbox_counts alone; and, at this size, the stall itself.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planOf as planFor, recordStatements, scaledListener, type ScaledListener, type Statement } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

const POSTS = 20_000;
type Sqlite = InstanceType<typeof Database>;

let t: ScaledListener;
/** Statements run since the last request (recordStatements). */
let recorded: Statement[] = [];
beforeAll(async () => {
  t = await scaledListener({ outboxRows: POSTS });
  const sqlite = t.core.sqlite as Sqlite;
  recorded = recordStatements(sqlite);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const get = async (path: string, anonymous = false) => {
  const res = await fetch(`${t.url}${path}`, { headers: { accept: 'application/json', ...(anonymous ? {} : { authorization: `Bearer ${t.token}` }) } });
  return { status: res.status, text: await res.text() };
};
/** The statements a GET runs that read the outbox by drizzle, a list or a count (not one row by id). */
async function outboxStatements(path: string, anonymous = false): Promise<Statement[]> {
  await get(path, anonymous);
  recorded.length = 0;
  expect((await get(path, anonymous)).status).toBe(200);
  return recorded.filter((s) => /^\s*select\b/i.test(s.source) && /\bfrom "outbox" where \(/.test(s.source));
}
const planOf = (s: Statement) => planFor(t.core.sqlite as Sqlite, s);
const isCount = (s: Statement) => /^\s*select count\(\*\)/i.test(s.source);

const ROUTES: Array<[string, boolean]> = [
  ['/api/v1/accounts/0/statuses?only_media=true&limit=80', false],
  ['/api/v1/accounts/0/statuses?exclude_replies=true&tagged=nothing', false],
  ['/api/v1/accounts/0/statuses', false],
  ['/api/v1/accounts/0/statuses?pinned=true', false],
  ['/api/v1/timelines/public?local=true', false],
  ['/api/v1/instance', true],
];

describe(`the author’s own posts through the Mastodon API, ${POSTS.toLocaleString('en')} of them`, () => {
  it.each(ROUTES)('%s: each list reads a page by the published-date (or pinned) index, each count ix_outbox_counts alone', async (path, anonymous) => {
    const statements = await outboxStatements(path, anonymous);
    expect(statements.some(isCount)).toBe(true);
    for (const s of statements) {
      const plan = planOf(s);
      if (isCount(s)) expect(plan, s.source).toEqual([expect.stringMatching(/^SEARCH outbox USING COVERING INDEX ix_outbox_counts \(ap_type=\?/)]);
      else expect(plan, s.source).toEqual([expect.stringMatching(/^(SCAN|SEARCH) outbox USING INDEX ix_outbox_(published|pinned)\b/)]);
    }
    if (path !== '/api/v1/instance') expect(statements.some((s) => !isCount(s))).toBe(true);
  });

  it('the lists hold the posts they held, in the same order, and the counts the same number (the old queries, run as they were)', async () => {
    const sqlite = t.core.sqlite as Sqlite;
    const live = 'is_deleted = ? AND is_transient = ? AND undone_by_outbox_object_id IS NULL';
    const newest = (extra: string, limit: number, ...args: number[]) =>
      sqlite.prepare(`SELECT ap_id FROM outbox WHERE ${live} AND ap_type IN ('Note', 'Article', 'Question', 'Announce') ${extra} ORDER BY ap_published_at DESC, id DESC LIMIT ${limit}`).pluck().all(0, 0, ...args);
    const uris = async (path: string) => (JSON.parse((await get(path)).text) as { uri: string }[]).map((s) => s.uri);
    expect(await uris('/api/v1/accounts/0/statuses?limit=40')).toEqual(newest('', 40));
    const pinned = await uris('/api/v1/accounts/0/statuses?pinned=true');
    expect(pinned.length).toBeGreaterThan(0);
    expect(pinned).toEqual(newest('AND is_pinned = ?', 20, 1));
    const count = sqlite.prepare(`SELECT count(*) FROM outbox WHERE ${live} AND ap_type IN ('Note', 'Article', 'Question') AND visibility IN ('PUBLIC', 'UNLISTED')`).pluck().get(0, 0);
    expect(count).toBe(POSTS);
    expect(JSON.parse((await get('/api/v1/instance', true)).text)).toMatchObject({ stats: { status_count: count } });
  });

  it.each(ROUTES)('%s: the main thread free', async (path, anonymous) => {
    const { status, stallMs } = await t.measure(path, { anonymous });
    expect(status).toBe(200);
    expect(stallMs, `${path}: main-thread stall`).toBeLessThan(STALL_LIMIT_MS);
  });
});
