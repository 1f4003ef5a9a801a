// Every statement the page handlers run reads by an index: the handlers are called through
// `dispatch` on a real core over a small data folder of the bench's generator
// (bench/scale-fixture.ts), the SQL they prepare is recorded (better-sqlite3 has no statement
// hook: the connection's prepare is wrapped), and SQLite's EXPLAIN QUERY PLAN of each is read.
// Without ANALYZE (Tern never runs it) SQLite plans a small file as it plans a big one, so
// these plans are the ones bench/scale-phase.ts times on 1,000,000 rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadRootIds, writeScaleData, BASE_URL, type ScaleOptions } from '../../../bench/scale-fixture';
import { openCore, type Core } from '../core';
import { createHandlers, dispatch, type Handlers } from './handlers';

const SMALL: ScaleOptions = { inboxRows: 3000, actors: 60, outboxRows: 300, followers: 40, following: 15, notifications: 500, outgoing: 3000, threads: 2, repliesPerThread: 150 };

let dir: string;
let core: Core;
let handlers: Handlers;
/** Statements run since the last page call, with the values they were run with. */
const recorded: Array<{ source: string; args: unknown[] }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-query-plans-'));
  await writeScaleData(dir, SMALL);
  core = await openCore({ dataDir: dir, mode: 'headless' });
  const prepare = core.sqlite.prepare.bind(core.sqlite);
  core.sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const run = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: (...args: unknown[]) => {
          recorded.push({ source, args });
          return run.apply(statement, args);
        },
      });
    }
    return statement;
  }) as typeof core.sqlite.prepare;
  handlers = createHandlers(core);
}, 60_000);

afterAll(() => {
  core?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Statement = { source: string; args: unknown[] };

async function statementsOf(channel: string, input: Record<string, unknown>): Promise<Statement[]> {
  recorded.length = 0;
  const result = await dispatch(handlers, channel, input, (error) => {
    throw error;
  });
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return recorded.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.source));
}

/** The plan SQLite makes with these values bound (a partial index may hang on them). */
function planOf({ source, args }: { source: string; args: unknown[] }): string[] {
  const explain = core.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`);
  return (explain.all(...args) as { detail: string }[]).map((r) => r.detail);
}

const streamCursor = (published: string, origin: 'i' | 'o', id: number) => Buffer.from(`${published}|${origin}|${id}`).toString('base64url');
const post = (id: number) => `${BASE_URL}/o/${String(id).padStart(8, '0')}`;


// Plans that read more than a page's rows, each allowed for a reason that holds at any size.
const ALLOWED: Array<{ statement: RegExp; plan: RegExp; why: string }> = [
  {
    // People: our Follows waiting for an answer. The people waiting (a merge of two indexes, which
    // the other lines show) are read back, and their Follows sorted: the list shows them all.
    statement: /^\s*WITH waiting\(actor_id\)/,
    plan: /^(SCAN waiting|USE TEMP B-TREE FOR ORDER BY)$/,
    why: 'our Follows waiting',
  },
  {
    // Follow requests counted: the people who asked and do not follow the author (a merge of two
    // indexes), less those whose newest Follow was answered, found among the Follows received
    // (read in rowid order, to meet the ids our answers relate to): 14 ms at 100,000 Follows.
    statement: /^\s*WITH asking\(actor_id\)/,
    plan: /^(SCAN asking|SCAN x|USE TEMP B-TREE FOR count\(DISTINCT\)|SEARCH inbox USING INDEX ix_inbox_ap_type \(ap_type=\?\))$/,
    why: 'received Follows of people who do not follow, counted',
  },
  {
    // The status line's "2 posts waiting to send": the waiting rows counted by activity from
    // their own index, then one line per activity (a few) read back to look its type up.
    statement: /^\s*WITH g\(post, n\)/,
    plan: /^SCAN g$/,
    why: 'what waits to be sent, counted by post',
  },
];

/** What in the plan of `s` reads more than its page: a table scanned outside an index, an
 * index on the object type alone (a type is a large share of a box), an automatic index (built
 * from a scan) or a sort of every match. */
function problemsOf(s: Statement): string[] {
  const plan = planOf(s);
  const sorts = plan.some((line) => line.includes('TEMP B-TREE'));
  return plan.filter((line) => {
    if (ALLOWED.some((a) => a.statement.test(s.source) && a.plan.test(line.trim()))) return false;
    const scan = /^SCAN (\w+)(?: AS \w+)?$/.exec(line.trim());
    // A table read in primary-key order, with nothing to sort, stops after its page (LIMIT).
    if (scan && !sorts && new RegExp(`order by "${scan[1]}"\\."id" desc limit \\?$`).test(s.source.trim())) return false;
    // An automatic index is built from a scan of its whole table, on every run of the statement.
    return Boolean(scan) || line.includes('TEMP B-TREE') || line.includes('AUTOMATIC') || /USING INDEX ix_(inbox|outbox)_ap_type\b/.test(line);
  });
}

const noticeCursor = Buffer.from('0|2024-12-31T12:00:00.000Z|300').toString('base64url');

const PAGES: Array<[string, Record<string, unknown>]> = [
  ['timeline.stream', { limit: 20 }],
  ['timeline.stream', { limit: 20, cursor: streamCursor('2024-12-31T12:00:00.000Z', 'i', 2500) }],
  ['timeline.profile', { limit: 20 }],
  ['timeline.profile', { limit: 20, cursor: streamCursor('2024-12-31T12:00:00.000Z', 'o', 250) }],
  ['thread.get', { apId: post(threadRootIds(SMALL)[0]!) }],
  ['notifications.list', { limit: 50 }],
  ['notifications.list', { limit: 50, cursor: noticeCursor }],
  ['notifications.unreadCount', {}],
  ['deliveries.list', { limit: 30 }],
  ['deliveries.list', { limit: 30, state: 'pending' }],
  ['deliveries.list', { limit: 30, state: 'failed', cursor: '2000' }],
  ['deliveries.list', { limit: 30, state: 'sent', cursor: '2000' }],
  ['deliveries.list', { limit: 30, postApId: post(100) }],
  ['people.list', {}],
  ['people.page', { list: 'followers', cursor: Buffer.from('2024-12-31T00:00:00.000Z|20').toString('base64url'), limit: 10 }],
  ['people.page', { list: 'following', cursor: Buffer.from('2024-12-31T00:00:00.000Z|10').toString('base64url'), limit: 10 }],
  ['follow-requests.list', {}],
  ['follow-requests.list', { cursor: '5000', limit: 10 }],
  ['connectivity.get', {}],
];

describe('the pages’ query plans', () => {
  it.each(PAGES)('%s %j: every statement reads a big table by an index, a page at a time', async (channel, input) => {
    const statements = await statementsOf(channel, input);
    expect(statements.length).toBeGreaterThan(0);
    const problems = statements.flatMap((s) => problemsOf(s).map((line) => `${line}\n    in: ${s.source.slice(0, 300)}`));
    expect(problems).toEqual([]);
  });

  it('the pages return rows (the plans are of real work)', async () => {
    const stream = (await dispatch(handlers, 'timeline.stream', { limit: 20 })) as { ok: true; value: { items: unknown[]; nextCursor: string } };
    expect(stream.value.items).toHaveLength(20);
    const next = (await dispatch(handlers, 'timeline.stream', { limit: 20, cursor: stream.value.nextCursor })) as { ok: true; value: { items: { id: number }[] } };
    expect(next.value.items).toHaveLength(20);
    // A thread's replies a page at a time, in one depth-first order, none twice.
    const root = post(threadRootIds(SMALL)[0]!);
    type ThreadPage = { ok: true; value: { replies: { apId: string }[]; totalReplies: number; nextCursor: string | null } };
    const whole = (await dispatch(handlers, 'thread.get', { apId: root, limit: 500 })) as ThreadPage;
    expect(whole.value.replies).toHaveLength(SMALL.repliesPerThread);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await dispatch(handlers, 'thread.get', { apId: root, limit: 40, ...(cursor ? { cursor } : {}) })) as ThreadPage;
      expect(page.value.totalReplies).toBe(SMALL.repliesPerThread);
      paged.push(...page.value.replies.map((r) => r.apId));
      cursor = page.value.nextCursor;
    } while (cursor);
    expect(paged).toEqual(whole.value.replies.map((r) => r.apId));
    const notices = (await dispatch(handlers, 'notifications.list', { limit: 50 })) as { ok: true; value: { items: unknown[]; nextCursor: string } };
    const later = (await dispatch(handlers, 'notifications.list', { limit: 50, cursor: notices.value.nextCursor })) as { ok: true; value: { items: { id: number }[] } };
    expect(later.value.items).toHaveLength(50);
    const deliveries = (await dispatch(handlers, 'deliveries.list', { limit: 30, postApId: post(100) })) as { ok: true; value: { items: unknown[]; counts: Record<string, number> } };
    expect(deliveries.value.items).toHaveLength(SMALL.outgoing / SMALL.outboxRows);
    expect(Object.values(deliveries.value.counts).reduce((a, b) => a + b, 0)).toBe(SMALL.outgoing);
    // People a page at a time: the pages follow one another without a gap or a repeat.
    const people = (await dispatch(handlers, 'people.list', { limit: 15 })) as { ok: true; value: { followers: { actor: { id: number } }[]; counts: { followers: number }; nextCursor: { followers: string } } };
    expect(people.value.counts.followers).toBe(SMALL.followers);
    const more = (await dispatch(handlers, 'people.page', { list: 'followers', cursor: people.value.nextCursor.followers, limit: 100 })) as { ok: true; value: { items: { actor: { id: number } }[]; nextCursor: null } };
    const ids = [...people.value.followers, ...more.value.items].map((p) => p.actor.id);
    expect(new Set(ids).size).toBe(SMALL.followers);
    expect(more.value.nextCursor).toBeNull();
  });

  it('the Follows standing are read from their indexes alone, merged with the follower and following indexes; a thread’s replies from the replies indexes alone', async () => {
    const plans = async (channel: string, input: Record<string, unknown>) => (await statementsOf(channel, input)).map((s) => planOf(s).join('\n')).join('\n');
    const people = await plans('people.list', {});
    expect(people).toContain('SEARCH inbox USING COVERING INDEX ix_inbox_follows (ap_type=?)');
    expect(people).toContain('SCAN follower USING COVERING INDEX sqlite_autoindex_follower_1');
    expect(people).toContain('SEARCH n USING INDEX ix_inbox_follows (ap_type=? AND actor_id=?');
    // What waits to be sent, counted from the waiting rows' own index: no row read.
    const waiting = await plans('connectivity.get', {});
    expect(waiting).toContain('SCAN outgoing_activity USING COVERING INDEX ix_outgoing_activity_waiting');
    const counts = await plans('deliveries.list', { limit: 30 });
    expect(counts).toContain('SCAN outgoing_activity USING COVERING INDEX ix_outgoing_activity_waiting');
    // The window's follow requests: down the standing Follows by arrival, a follower's passed
    // by the index alone.
    const requests = await plans('follow-requests.list', { cursor: '5000' });
    expect(requests).toContain('SEARCH i USING INDEX ix_inbox_follows_arrived (id<?)');
    expect(requests).toContain('SEARCH w USING COVERING INDEX sqlite_autoindex_follower_1 (actor_id=?)');
    expect(people).toContain('SEARCH outbox USING COVERING INDEX ix_outbox_follows (ap_type=?)');
    expect(people).toContain('SCAN following USING COVERING INDEX sqlite_autoindex_following_1');
    expect(people).toContain('SEARCH o USING INDEX ix_outbox_follows (ap_type=? AND relates_to_actor_id=?');
    const thread = await plans('thread.get', { apId: post(threadRootIds(SMALL)[0]!) });
    // The reply tree from the replies indexes alone: no reply's row is read but the page's.
    expect(thread).toContain('SEARCH i USING COVERING INDEX ix_inbox_replies (<expr>=? AND is_deleted=? AND is_transient=?)');
    expect(thread).toContain('SEARCH o USING COVERING INDEX ix_outbox_replies (<expr>=? AND is_deleted=? AND is_transient=?)');
  });

  it('a plan that sorts a whole table is caught (the check can fail)', () => {
    const s = { source: 'select "id" from "inbox" order by "inbox"."ap_published_at" desc limit ?', args: [20] };
    expect(problemsOf(s)).toEqual(['SCAN inbox', 'USE TEMP B-TREE FOR ORDER BY']);
  });
});
