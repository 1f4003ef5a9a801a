// Audit: the public outbox and profile page, unauthenticated. collections.ts read them with
// `is_deleted = ?` (bound: the partial index ix_outbox_published is not usable) and an
// `ap_type IN (…) OR ap_type = 'Announce'` that SQLite answered from ix_outbox_ap_type — every
// post read and sorted for each page — and with OFFSET, so `?page=5000` walked 100,000 sorted
// rows; the outbox's totalItems read every post's row. Anyone on the internet may ask. Measured
// on the bench's 100,000 posts (the listener's thread held): /outbox?page=5000 2.9 s, ?page=999999
// 2.6 s, ?page=1 0.5 s, / (HTML) 0.6 s; now 2, 5, 3 and 2 ms, and /outbox (the count) 9 ms.
//
// Building 100,000 posts takes half a minute, so this file checks what holds at any size on
// 20,000: the plan SQLite makes for each statement the routes run (without ANALYZE, which Tern
// never runs, SQLite plans a small file as it plans a big one) reads a page by an index —
// no table scanned, no sort of every match, not by the ap_type index — the counts read an index
// alone, and the deep pages stop at MAX_OUTBOX_PAGE; and, at this size, the stall itself.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL } from '../../bench/scale-fixture';
import { MAX_OUTBOX_PAGE, PAGE_SIZE } from '../../electron/core/federation/collections';
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

const AP = 'application/activity+json';
const get = async (path: string, accept = AP) => {
  const res = await fetch(`${t.url}${path}`, { headers: { accept } });
  return { status: res.status, text: await res.text() };
};
/** The statements a GET runs that read the outbox by drizzle (the lists this audit is about). */
async function outboxStatements(path: string, accept = AP): Promise<Statement[]> {
  await get(path, accept);
  recorded.length = 0;
  expect((await get(path, accept)).status).toBe(200);
  return recorded.filter((s) => /^\s*select\b/i.test(s.source) && /\bfrom "outbox"/.test(s.source));
}
const planOf = (s: Statement) => planFor(t.core.sqlite as Sqlite, s);
/** What in a plan reads more than a page: the table scanned outside an index, every match
 * sorted, or the rows of a type read by the type's index (a type is most of the outbox). */
const problemsOf = (s: Statement) => planOf(s).filter((line) => /^SCAN outbox$/.test(line.trim()) || line.includes('TEMP B-TREE') || /INDEX ix_outbox_ap_type\b/.test(line));

describe(`the public outbox and profile on ${POSTS.toLocaleString('en')} posts`, () => {
  it.each([
    ['/outbox?page=1', AP],
    ['/outbox?page=2', AP],
    [`/outbox?page=${MAX_OUTBOX_PAGE}`, AP],
    ['/', 'text/html'],
  ])('%s: each outbox statement reads a page by the published-date index, not every post sorted', async (path, accept) => {
    const statements = await outboxStatements(path, accept);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.flatMap((s) => problemsOf(s).map((line) => `${line}\n    in: ${s.source}`))).toEqual([]);
    for (const s of statements) expect(planOf(s).join('\n')).toMatch(/USING INDEX ix_outbox_published\b/);
  });

  it('the collection’s totalItems is counted from ix_outbox_counts alone (no post’s row read)', async () => {
    const statements = await outboxStatements('/outbox');
    expect(statements).toHaveLength(1);
    expect(planOf(statements[0]!)).toEqual([expect.stringMatching(/^SEARCH outbox USING COVERING INDEX ix_outbox_counts \(ap_type=\? AND visibility=\?/)]);
    expect(JSON.parse((await get('/outbox')).text)).toMatchObject({ type: 'OrderedCollection', totalItems: POSTS });
  });

  it(`pages are served as far as ${MAX_OUTBOX_PAGE}: the last one has no next, one past it or 999999 is empty and reads no post`, async () => {
    const page = async (n: number) => JSON.parse((await get(`/outbox?page=${n}`)).text) as { orderedItems: unknown[]; next?: string; prev?: string };
    const outbox = `${BASE_URL}/outbox`;
    expect(await page(MAX_OUTBOX_PAGE - 1)).toMatchObject({ next: `${outbox}?page=${MAX_OUTBOX_PAGE}` });
    const last = await page(MAX_OUTBOX_PAGE);
    expect(last.orderedItems).toHaveLength(PAGE_SIZE);
    expect(last.next).toBeUndefined();
    expect(last.prev).toBe(`${outbox}?page=${MAX_OUTBOX_PAGE - 1}`);
    for (const n of [MAX_OUTBOX_PAGE + 1, 999_999]) {
      expect(await outboxStatements(`/outbox?page=${n}`)).toEqual([]);
      const past = await page(n);
      expect(past.orderedItems).toEqual([]);
      expect(past.next).toBeUndefined();
    }
    // The deepest read skips the rows of the pages before the last served one, no more.
    const statements = await outboxStatements(`/outbox?page=${MAX_OUTBOX_PAGE}`);
    expect(statements.map((s) => s.args.at(-1))).toEqual([(MAX_OUTBOX_PAGE - 1) * PAGE_SIZE]);
  });

  it('the pages hold the rows they held, in the same order (the old query, run as it was)', async () => {
    const ids = async (n: number) => (JSON.parse((await get(`/outbox?page=${n}`)).text) as { orderedItems: { id: string }[] }).orderedItems.map((i) => i.id);
    const served = [...(await ids(1)), ...(await ids(2)), ...(await ids(3))];
    const types = ['Note', 'Article', 'Question', 'Page', 'Video', 'Audio', 'Image', 'Event'];
    const old = (t.core.sqlite as Sqlite)
      .prepare(
        `SELECT public_id FROM outbox WHERE visibility IN ('PUBLIC', 'UNLISTED') AND is_deleted = ? AND is_transient = ? AND undone_by_outbox_object_id IS NULL
         AND (ap_type IN (${types.map(() => '?').join(', ')}) OR ap_type = 'Announce') ORDER BY ap_published_at DESC, id DESC LIMIT 60`,
      )
      .pluck()
      .all(0, 0, ...types) as string[];
    expect(served).toHaveLength(60);
    expect(served.map((id) => id.split('/').at(-2))).toEqual(old);
  });

  it.each([
    ['/outbox?page=1', AP],
    [`/outbox?page=${MAX_OUTBOX_PAGE}`, AP],
    ['/outbox?page=999999', AP],
    ['/outbox', AP],
    ['/', 'text/html'],
  ])('%s: the main thread free', async (path, accept) => {
    const { status, stallMs } = await t.measure(path, { anonymous: true, accept });
    expect(status).toBe(200);
    expect(stallMs, `${path}: main-thread stall`).toBeLessThan(STALL_LIMIT_MS);
  });
});
