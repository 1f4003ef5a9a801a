// Audit: Mastodon API lists over received posts that no index served. reads.marked (bookmarks,
// favourites) and reads.direct (conversations) filtered on is_bookmarked /
// liked_via_outbox_object_ap_id / visibility with bound is_deleted terms: every received row was
// read and sorted for each page, however small the page. Revision 4a475cedd483 indexes each
// list's rows apart (partial indexes whose WHERE the queries state term for term). Measured on
// 300,000 received rows (the bench's scale fixture has 1,000,000), the listener's thread held
// for `?limit=1`: bookmarks 0.39 s, favourites 0.31 s, conversations 0.34 s; now 7, 2 and 24 ms.
//
// Building 300,000 rows takes most of a minute, so this file checks what holds at any size on
// 20,000 (see audit-outbox-pages.test.ts): each list's statement reads its own index, in order,
// a page at a time (no table scanned, no sort of every match); and, at this size, the stall.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NON_POST_TYPES } from '../../electron/core/federation/objects';
import { planOf as planFor, recordStatements, scaledListener, type ScaledListener, type Statement } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

const ROWS = 20_000;
type Sqlite = InstanceType<typeof Database>;

let t: ScaledListener;
/** Statements run since the last request (recordStatements). */
let recorded: Statement[] = [];
beforeAll(async () => {
  t = await scaledListener({ inboxRows: ROWS });
  const sqlite = t.core.sqlite as Sqlite;
  // The fixture likes nothing, and bookmarks activities more than posts: one received Note in
  // 200 liked, and one in 300 bookmarked instead.
  sqlite.exec("UPDATE inbox SET liked_via_outbox_object_ap_id = 'https://tern.example/o/like-' || id WHERE ap_type = 'Note' AND id % 200 = 3");
  sqlite.exec("UPDATE inbox SET is_bookmarked = (ap_type = 'Note' AND id % 300 = 7)");
  recorded = recordStatements(sqlite);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const get = async (path: string) => {
  const res = await fetch(`${t.url}${path}`, { headers: { accept: 'application/json', authorization: `Bearer ${t.token}` } });
  return { status: res.status, link: res.headers.get('link'), text: await res.text() };
};
/** The list statements a GET runs: those that read the inbox or outbox in order, a page at a time. */
async function listStatements(path: string): Promise<Statement[]> {
  await get(path);
  recorded.length = 0;
  expect((await get(path)).status).toBe(200);
  return recorded.filter((s) => /^\s*select\b/i.test(s.source) && /\bfrom "(inbox|outbox)" where .* order by /.test(s.source));
}
const planOf = (s: Statement) => planFor(t.core.sqlite as Sqlite, s);
/** The path of a page's Link rel="next", on this listener. */
const nextOf = (link: string | null) => {
  const next = new URL(/<([^>]+)>; rel="next"/.exec(link ?? '')![1]!);
  return next.pathname + next.search;
};

const LISTS: Array<[string, string[]]> = [
  ['/api/v1/bookmarks?limit=1', ['inbox USING INDEX ix_inbox_bookmarked']],
  ['/api/v1/favourites?limit=1', ['inbox USING INDEX ix_inbox_liked']],
  ['/api/v1/conversations?limit=1', ['inbox USING INDEX ix_inbox_direct', 'outbox USING INDEX ix_outbox_direct']],
  ['/api/v1/bookmarks?limit=40', ['inbox USING INDEX ix_inbox_bookmarked']],
  ['/api/v1/conversations?limit=40', ['inbox USING INDEX ix_inbox_direct', 'outbox USING INDEX ix_outbox_direct']],
];

describe(`bookmarks, favourites and conversations on ${ROWS.toLocaleString('en')} received posts`, () => {
  it.each(LISTS)('%s: each list reads its own index, newest first, not every received row sorted', async (path, plans) => {
    const statements = await listStatements(path);
    expect(statements.map((s) => planOf(s))).toEqual(plans.map((p) => [expect.stringMatching(new RegExp(`^SCAN ${p}$`))]));
  });

  it('a page after a key starts where the index is cut', async () => {
    const first = await get('/api/v1/bookmarks?limit=5');
    const statements = await listStatements(nextOf(first.link));
    expect(statements.map((s) => planOf(s))).toEqual([[expect.stringMatching(/^SEARCH inbox USING INDEX ix_inbox_bookmarked \(ap_published_at<\?\)$/)]]);
  });

  it('the lists hold the posts they held, in the same order, page after page (the old queries, run as they were)', async () => {
    const sqlite = t.core.sqlite as Sqlite;
    const old = (where: string, limit: number, ...args: unknown[]) =>
      sqlite.prepare(`SELECT ap_id FROM inbox WHERE is_deleted = ? AND is_transient = ? AND ${where} ORDER BY ap_published_at DESC, id DESC LIMIT ${limit}`).pluck().all(0, 0, ...args);
    const uris = (text: string) => (JSON.parse(text) as { uri?: string; last_status?: { uri: string } }[]).map((s) => s.uri ?? s.last_status!.uri);
    const twoPages = async (path: string) => {
      const first = await get(path);
      return [...uris(first.text), ...uris((await get(nextOf(first.link))).text)];
    };
    const bookmarks = await twoPages('/api/v1/bookmarks?limit=15');
    expect(bookmarks).toHaveLength(30);
    expect(bookmarks).toEqual(old('is_bookmarked = ?', 30, 1));
    const favourites = await twoPages('/api/v1/favourites?limit=15');
    expect(favourites).toHaveLength(30);
    expect(favourites).toEqual(old('liked_via_outbox_object_ap_id IS NOT NULL', 30));
    const conversations = await twoPages('/api/v1/conversations?limit=15');
    expect(conversations).toHaveLength(30);
    expect(conversations).toEqual(old(`visibility = ? AND ap_type NOT IN (${NON_POST_TYPES.map(() => '?').join(', ')})`, 30, 'DIRECT', ...NON_POST_TYPES));
  });

  it.each(LISTS.map(([path]) => [path]))('%s: the main thread free', async (path) => {
    const { status, stallMs } = await t.measure(path);
    expect(status).toBe(200);
    expect(stallMs, `${path}: main-thread stall`).toBeLessThan(STALL_LIMIT_MS);
  });
});
