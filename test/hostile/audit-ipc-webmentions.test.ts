// Audit (IPC): webmentions, which anyone can send (a page of theirs that links to one of the
// author's posts), 100,000 of them over the author's 1,000 posts.
//  - webmentions.received groups every webmention by post to find a page of groups
//    (webmention/views.ts listReceivedWebmentions: GROUP BY outbox_object_id, which no index
//    has): the whole table read for each page, 52-81 ms here; it grows with the table. Then each
//    group's newest 20 (mentionsOf: WHERE outbox_object_id = ? ORDER BY id DESC, no index)
//    reads the table from its newest row down: with the flood all sent to one post, each other
//    post's group reads through all of it: 310 ms for a page.
//  - search.query ranks every webmention holding the words (search/service.ts webmentions:
//    ORDER BY bm25(...) LIMIT), for kind 'webmentions' and kind 'all' alike: 170-176 ms.
// Each handler is called through dispatch (what both transports call) on a real core; the main
// thread's longest hold is measured around the call, best of three (a shared, loaded machine).
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type ScaleOptions } from '../../bench/scale-fixture';
import type { Core } from '../../electron/core/core';
import { planOf as planFor, recordStatements, SMALL, type Statement, scaledCore, type ScaledCore } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

const WEBMENTIONS = 100_000;
const SIZES: ScaleOptions = { ...SMALL };
/** Each a mention with a few words of content (and "hello" in all of them), by one of 500 sites. */
const EXTRA = (core: Core) => {
  core.sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @count)
       INSERT INTO webmention (id, created_at, is_deleted, source, source_microformats, target, outbox_object_id)
       SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch'), 0, 'https://site' || (i % 500) || '.example/p/' || i,
         json_object('items', json_array(json_object('type', json_array('h-entry'), 'properties', json_object(
           'content', json_array('hello from page ' || i),
           'author', json_array(json_object('type', json_array('h-card'), 'properties', json_object('name', json_array('Site ' || (i % 500))))))))),
         '${BASE_URL}/o/' || printf('%08d', 1 + i % @posts), 1 + i % @posts FROM n`,
    )
    .run({ count: WEBMENTIONS, posts: SMALL.outboxRows });
};

let t: ScaledCore;
let core: Core;
let recorded: Statement[] = [];
beforeAll(async () => {
  t = await scaledCore(SIZES, { extra: EXTRA, searchIndex: true });
  core = t.core;
  recorded = recordStatements(core.sqlite as InstanceType<typeof Database>);
}, 300_000);
afterAll(() => t?.close());
const stallOf: ScaledCore['stallOf'] = (channel, input) => t.stallOf(channel, input);
const bestStallOf: ScaledCore['bestStallOf'] = (channel, input, reset) => t.bestStallOf(channel, input, reset);

/** The plans of the SELECTs one call runs (EXPLAIN QUERY PLAN, with the values it bound). */
async function plansOf(channel: string, input: unknown): Promise<{ source: string; plan: string[] }[]> {
  recorded.length = 0;
  await stallOf(channel, input);
  return recorded
    .filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.source))
    .map((s) => ({ source: s.source.replace(/\s+/g, ' ').slice(0, 160), plan: planFor(core.sqlite as InstanceType<typeof Database>, s) }));
}


describe(`${WEBMENTIONS.toLocaleString('en')} webmentions received`, () => {
  it.each([
    ['webmentions.received', { limit: 20 }],
    ['webmentions.received', { limit: 20, cursor: '50000' }],
    ['webmentions.ofPost', { postId: 1, limit: 100 }],
    ['search.query', { text: 'hello', kind: 'webmentions' }],
    ['search.query', { text: 'hello' }],
  ])('%s %j: the main thread free', async (channel, input) => {
    const stallMs = await bestStallOf(channel, input);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it('webmentions.received reads a page of groups by an index, not the whole table', async () => {
    const plans = await plansOf('webmentions.received', { limit: 20 });
    console.log(JSON.stringify(plans, null, 1));
    expect(plans.flatMap((p) => p.plan).filter((line) => /^SCAN webmention\b/.test(line.trim()))).toEqual([]);
  });

  it('the webmentions search ranks a window of its newest matches, not every match (no sort of all of them)', () => {
    // The statements search/field-search.ts prepares when the core opens (before any recorder):
    // the window, newest first (read up to FIELD_WINDOW matches, then left), and the matches
    // below it. Before, ORDER BY bm25(...) LIMIT: a TEMP B-TREE of every match.
    const marked = [0, 1, 2].map((column) => `highlight(search_webmention, ${column}, char(2), char(3))`).join(', ');
    const statements = [
      { source: `SELECT rowid, ${marked} FROM search_webmention WHERE search_webmention MATCH ? ORDER BY rowid DESC`, args: ['hello'] },
      { source: 'SELECT rowid FROM search_webmention WHERE search_webmention MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ? OFFSET ?', args: ['hello', 5_000n, 21, 0] },
    ];
    for (const statement of statements) {
      const plan = planFor(core.sqlite as InstanceType<typeof Database>, statement);
      console.log(plan);
      expect(plan.filter((line) => line.includes('TEMP B-TREE'))).toEqual([]);
    }
  });
});

describe('the same 100,000 webmentions, all but 20 of them to one post (the 20 oldest, one each to 20 others)', () => {
  beforeAll(() => {
    core.sqlite.prepare('UPDATE webmention SET outbox_object_id = CASE WHEN id <= 20 THEN 1 + id ELSE 1 END').run();
  });

  // Each group of the page looks for its post's newest webmentions (webmention/views.ts
  // mentionsOf: WHERE outbox_object_id = ? ORDER BY id DESC LIMIT 21), which no index has: the
  // table is read from the newest row down, through the flood, for each of the page's posts.
  it.each([
    ['webmentions.received', { limit: 20 }],
    ['webmentions.ofPost', { postId: 2, limit: 20 }],
  ])('%s %j: the main thread free', async (channel, input) => {
    const stallMs = await bestStallOf(channel, input);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });
});
