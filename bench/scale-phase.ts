// Scale: the pages the author opens, on years of the fediverse (bench/scale-fixture.ts: 1,000,000
// inbox objects from 5,000 actors, 100,000 outbox objects, 5,000 followers, 200,000
// notifications, 2,000,000 outgoing_activity rows). Each page is asked through the real IPC
// handlers (createHandlers over a core opened on that data folder, called through `dispatch`,
// which checks the input as every transport does), many times with varied cursors and ids;
// p50/p99 of each. Then the whole stream is scrolled by cursor while the heap is read after GC.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { openCore, type Core } from '../electron/core/core';
import { createHandlers, dispatch, type Handlers } from '../electron/core/ipc/handlers';
import { checkpoint, type Checkpoint } from './memory';
import { scaleFixture, type ScaleOptions } from './scale-fixture';
import { cpuByThreadKind, cpuByThreadKindSince, machineShareSince, machineTicks, perUnit } from './thread-cpu';

export interface PageCase {
  name: string;
  targetMs: number;
  calls: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU time of this process per call (µs, mean): what the page costs, whatever the machine's load. */
  cpuUs: number;
  /** What one call returned (items), for the reader to see it was a real page. */
  shape: string;
  /** Bytes this process read from storage meanwhile (/proc/self/io read_bytes: pages not in
   * the OS's cache), or null where the kernel does not say. Wall time far over CPU time with
   * reads here is the disk, not Tern's work. */
  readBytes: number | null;
}

export interface ScaleResult {
  /** What ran in the second before the pages were timed (quietBefore). */
  before: string;
  options: ScaleOptions;
  buildMs: number | null;
  dataDir: string;
  counts: Record<string, number>;
  cases: PageCase[];
  scroll: { rows: number; pages: number; ms: number; memory: Checkpoint[]; reachedEnd: boolean };
}

type Call = [channel: string, input: Record<string, unknown>];

async function call(handlers: Handlers, [channel, input]: Call): Promise<unknown> {
  const result = await dispatch(handlers, channel, input, () => {});
  if (!result.ok) throw new Error(`${channel} ${JSON.stringify(input)}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Bytes this process has read from storage (not from the OS's page cache), or null. */
function storageReadBytes(): number | null {
  try {
    const line = readFileSync('/proc/self/io', 'utf8').split('\n').find((l) => l.startsWith('read_bytes:'));
    return line === undefined ? null : Number(line.slice('read_bytes:'.length));
  } catch {
    return null;
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function measure(handlers: Handlers, name: string, targetMs: number, calls: Call[], describe: (value: unknown) => string): Promise<PageCase> {
  // Warm-up: statements prepared, pages cached, as after the first look at a view.
  for (const c of calls.slice(0, 5)) await call(handlers, c);
  const times: number[] = [];
  let shape = '';
  const cpu = process.cpuUsage();
  const readBefore = storageReadBytes();
  for (const c of calls) {
    const t = performance.now();
    const value = await call(handlers, c);
    times.push(performance.now() - t);
    if (!shape) shape = describe(value);
  }
  const used = process.cpuUsage(cpu);
  const readAfter = storageReadBytes();
  times.sort((a, b) => a - b);
  const cpuUs = (used.user + used.system) / times.length;
  return { name, targetMs, calls: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)!, cpuUs, shape, readBytes: readBefore === null || readAfter === null ? null : readAfter - readBefore };
}

const threadShape = (v: unknown) => {
  const t = v as { replies: unknown[]; totalReplies: number };
  return `${t.replies.length} of ${t.totalReplies} replies`;
};
const items = (value: unknown) => `${(value as { items: unknown[] }).items.length} items`;
/** `n` values spread over `list`, cycling when it is shorter. */
const spread = <T>(list: T[], n: number): T[] => Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n) % list.length]!);
const noticeCursor = (r: { id: number; t: string; isNew: number }) => Buffer.from(`${r.isNew}|${new Date(r.t).toISOString()}|${r.id}`).toString('base64url');
const peopleCursor = (r: { id: number; t: string }) => Buffer.from(`${new Date(r.t).toISOString()}|${r.id}`).toString('base64url');
const streamCursor = (published: string, origin: 'i' | 'o', id: number) => Buffer.from(`${new Date(published).toISOString()}|${origin}|${id}`).toString('base64url');

/** What runs while nothing of the bench should: the whole machine and this process's threads,
 * over the second before the pages are timed (work left over from earlier phases shows here). */
export async function quietBefore(): Promise<string> {
  const threads = cpuByThreadKind();
  const machine = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // µs per second: the window is one second.
  const used = perUnit(cpuByThreadKindSince(threads), 1);
  const share = machineShareSince(machine);
  return `in the second before the pages: the machine ${share === '' ? 'not readable' : share}; this process’s threads ${used === '' ? 'idle' : `(µs of CPU) ${used}`}`;
}

export async function runScale(options: ScaleOptions, calls = 200, scrollRows = 50_000): Promise<ScaleResult> {
  let fixture = await scaleFixture(options);
  let core: Core;
  try {
    core = await openCore({ dataDir: fixture.dataDir, mode: 'headless' });
  } catch (error) {
    if (fixture.buildMs !== null) throw error;
    console.log(`  the cached data folder could not be opened (${(error as Error).message}); building it again`);
    fixture = await scaleFixture(options, true);
    core = await openCore({ dataDir: fixture.dataDir, mode: 'headless' });
  }
  try {
    const handlers = createHandlers(core);
    // Ids and cursors to vary the calls, read straight from the file (not through Tern).
    const peek = new Database(core.paths.database, { readonly: true });
    const counts: Record<string, number> = {};
    for (const table of ['actor', 'inbox', 'outbox', 'follower', 'following', 'notifications', 'outgoing_activity']) {
      counts[table] = peek.prepare(`SELECT max(id) FROM "${table}"`).pluck().get() as number;
    }
    const deepInbox = peek
      .prepare('SELECT id, ap_published_at AS t FROM inbox WHERE id % ? = 1 AND is_hidden_from_stream = 0 LIMIT ?')
      .all(Math.max(10, 10 * Math.floor(options.inboxRows / calls / 10)), calls) as { id: number; t: string }[];
    const posts = peek
      .prepare("SELECT id, ap_id, ap_published_at AS t FROM outbox WHERE ap_type = 'Note' AND id % ? = 0 LIMIT ?")
      .all(Math.max(1, Math.floor(options.outboxRows / calls)), calls) as { id: number; ap_id: string; t: string }[];
    const notices = peek
      .prepare('SELECT id, created_at AS t, is_new AS isNew FROM notifications WHERE id % ? = 0 LIMIT ?')
      .all(Math.max(1, Math.floor(options.notifications / calls)), calls) as { id: number; t: string; isNew: number }[];
    const people = peek
      .prepare("SELECT 'following' AS list, id, created_at AS t FROM following WHERE id % 10 = 0 UNION ALL SELECT 'followers', id, created_at FROM follower WHERE id % 50 = 0 ORDER BY 3 DESC")
      .all() as { list: 'followers' | 'following'; id: number; t: string }[];
    peek.close();

    const before = await quietBefore();
    const cases: PageCase[] = [];
    const n = calls;
    const repeat = (c: Call) => Array.from({ length: n }, () => c);
    cases.push(await measure(handlers, 'stream: first page (20)', 10, repeat(['timeline.stream', { limit: 20 }]), items));
    cases.push(
      await measure(handlers, 'stream: next page by cursor (20), anywhere in 1M', 10, spread(deepInbox, n).map((r) => ['timeline.stream', { limit: 20, cursor: streamCursor(r.t, 'i', r.id) }]), items),
    );
    cases.push(
      await measure(handlers, `thread: a post with ${options.repliesPerThread} replies, first replies`, 10, spread(fixture.threadRoots, n).map((apId) => ['thread.get', { apId }]), threadShape),
    );
    cases.push(
      await measure(handlers, 'thread: later replies by cursor', 10, spread(fixture.threadRoots, n).map((apId, i) => ['thread.get', { apId, cursor: String(50 * (1 + (i % 9))) }]), threadShape),
    );
    cases.push(await measure(handlers, 'notifications: first page (50)', 10, repeat(['notifications.list', { limit: 50 }]), items));
    cases.push(
      await measure(handlers, 'notifications: a later page (50), by cursor', 10, spread(notices, n).map((r) => ['notifications.list', { limit: 50, cursor: noticeCursor(r) }]), items),
    );
    cases.push(await measure(handlers, 'unread count', 1, repeat(['notifications.unreadCount', {}]), (v) => `count ${(v as { count: number }).count}`));
    cases.push(await measure(handlers, 'profile: first page (20, with delivery states)', 10, repeat(['timeline.profile', { limit: 20 }]), items));
    cases.push(
      await measure(handlers, 'profile: next page by cursor (20)', 10, spread(posts, n).map((p) => ['timeline.profile', { limit: 20, cursor: streamCursor(p.t, 'o', p.id) }]), items),
    );
    const states = ['all', 'pending', 'failed', 'sent'] as const;
    cases.push(await measure(handlers, 'deliveries: first page (30), each filter', 10, Array.from({ length: n }, (_, i) => ['deliveries.list', { limit: 30, state: states[i % 4] }]), items));
    cases.push(
      await measure(handlers, 'deliveries: next page by cursor (30)', 10, Array.from({ length: n }, (_, i) => ['deliveries.list', { limit: 30, state: states[i % 4], cursor: String(1 + Math.floor(((i + 1) * counts.outgoing_activity!) / (n + 1))) }]), items),
    );
    cases.push(await measure(handlers, "deliveries: one post's rows and state", 10, spread(posts, n).map((p) => ['deliveries.list', { limit: 30, postApId: p.ap_id }]), items));
    cases.push(await measure(handlers, 'people: the lists (first pages, counts, requests)', 10, repeat(['people.list', {}]), (v) => {
      const p = v as { followers: unknown[]; following: unknown[]; counts: { followers: number; following: number } };
      return `${p.followers.length} of ${p.counts.followers} followers, ${p.following.length} of ${p.counts.following} following`;
    }));
    cases.push(
      await measure(handlers, 'people: next page of followers/following by cursor', 10, spread(people, n).map((r) => ['people.page', { list: r.list, cursor: peopleCursor(r) }]), items),
    );

    // Scrolling: page after page by cursor, the heap read after GC every 5,000 rows.
    const memory: Checkpoint[] = [checkpoint(0)];
    let cursor: string | null = null;
    let rows = 0;
    let pages = 0;
    const t = performance.now();
    let next = 5000;
    do {
      const page = (await call(handlers, ['timeline.stream', { limit: 20, ...(cursor ? { cursor } : {}) }])) as { items: unknown[]; nextCursor: string | null };
      rows += page.items.length;
      pages++;
      cursor = page.nextCursor;
      if (rows >= next) {
        memory.push(checkpoint(rows));
        next += 5000;
      }
    } while (cursor && rows < scrollRows);
    const ms = performance.now() - t;
    return { options, buildMs: fixture.buildMs, dataDir: fixture.dataDir, counts, before, cases, scroll: { rows, pages, ms, memory, reachedEnd: cursor === null } };
  } finally {
    core.close();
  }
}
