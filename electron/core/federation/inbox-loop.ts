// The inbox processor: takes due incoming_activity rows (next_try <= now, neither processed nor
// errored), oldest first, a few at a time, and runs each through processIncomingActivity.
// One function per outcome, as in the reference's delivery policy:
//   processed → is_processed;
//   dropped on purpose (blocked, duplicate, bad attribution…) → is_processed with `error` = the
//     reason, never retried;
//   failed → `error` (trimmed), next_try after an exponential backoff with jitter; after
//     INBOX_MAX_TRIES (about a day — the reference gives up after 4 minutes, §13.15) is_errored.
// A try is counted (tries + 1, last_try) before the work starts, so a crash mid-way still counts.
// Webmentions (rows with webmention_source) are verified beside the activities, never in their
// sequence: WEBMENTION_CONCURRENCY at a time, each source fetch bounded (webmention/verify.ts),
// WEBMENTION_MAX_TRIES tries. A source that sent its headers and then stalled held the one
// processor for the client's 10 s, and 14 tries of it: three of them kept a follower's activity
// waiting 30 s. The rows stay in the table until their outcome is written, as the activities do.
import { eq } from 'drizzle-orm';
import { prepared, rowDecoder, type Db } from '../../../db/client';
import type { CommitGroup } from '../../../db/commit-group';
import { incomingActivity, type IncomingActivity } from '../../../db/schema';
import { processIncomingActivity, type ProcessDeps, type ProcessOutcome } from './process/index';

export const INBOX_MAX_TRIES = 14;
export const INBOX_BACKOFF_BASE_MS = 60_000;
export const INBOX_BACKOFF_CAP_MS = 4 * 60 * 60_000;
/** Idle poll when nothing signals new rows; wake() cuts it short. */
export const INBOX_IDLE_POLL_MS = 2_000;
/** Webmention sources verified at once, beside the activities. */
export const WEBMENTION_CONCURRENCY = 4;
/** Due webmentions are looked for at most this often while activities keep coming: the look-up
 * walks the due index past every waiting activity (1.8 ms with 5,000 waiting), and was made at
 * every wake (one per accepted activity) and twice a batch: the bench's processing fell from
 * 10,166 to 6,338 rows/s. It is made at once when the activities are done, a webmention ends,
 * or a drain asks. */
export const WEBMENTION_LOOK_MS = 1_000;
/** A source that cannot be read three times (about 35 min) is given up: the sender may send again. */
export const WEBMENTION_MAX_TRIES = 3;
/** Waits before a webmention's 2nd and 3rd tries (±20 % jitter). */
export const WEBMENTION_BACKOFF_MS = [5 * 60_000, 30 * 60_000] as const;
const BATCH_SIZE = 10;
/** A commit group is ended before the next row once it has held the write lock this long: a
 * batch of heavy rows (large posts to sanitize) does not keep the other connections waiting. */
const GROUP_MAX_MS = 10;
const ERROR_MAX_CHARS = 1_000;

/**
 * Wait before try n+1 after n failed tries: 1 min · 2^(n−1), capped at 4 h, ±20 % jitter.
 * Waits of 1, 2, 4 … 128 min, then 4 h: the 13 waits before the 14th try add up to ~24 h.
 */
export function inboxBackoffMs(tries: number, random: () => number = Math.random): number {
  const base = Math.min(INBOX_BACKOFF_CAP_MS, INBOX_BACKOFF_BASE_MS * 2 ** Math.max(0, tries - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Wait before a webmention's try n+1 after n failed tries. */
export function webmentionBackoffMs(tries: number, random: () => number = Math.random): number {
  const base = WEBMENTION_BACKOFF_MS[Math.min(WEBMENTION_BACKOFF_MS.length, Math.max(1, tries)) - 1]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

export interface InboxLoopOptions {
  db: Db;
  clock: () => Date;
  /** The processing dependencies for the next row, or null while Tern has no identity yet. */
  deps: () => ProcessDeps | null;
  /** Defaults to processIncomingActivity; tests may observe it. */
  process?: (deps: ProcessDeps, row: IncomingActivity) => Promise<ProcessOutcome>;
  random?: () => number;
  log?: (line: string) => void;
  /** Called after each row with what became of it (for the shell, and tests that wait). */
  onRowDone?: (result: RowResult) => void;
  idlePollMs?: number;
  /** The connection's commit group, on a thread of the processor's own (the inbox worker): the
   * rows of a batch, their outcomes with them, are then written under one commit, and the batch
   * runs without turning the event loop between rows. Without one (the main thread), every row
   * commits on its own and the loop turns between rows, for the listener's requests. */
  group?: CommitGroup;
}

export type RowResult =
  | { id: number; outcome: 'processed'; previewsFor?: number; quoteAnswered?: true }
  | { id: number; outcome: 'dropped'; reason: string }
  | { id: number; outcome: 'retry'; error: string; nextTry: Date }
  | { id: number; outcome: 'errored'; error: string };

export interface DrainSummary {
  processed: number;
  dropped: number;
  retried: number;
  errored: number;
}

export interface InboxLoop {
  start(): void;
  /** Stops scheduling; resolves when the row in progress (if any) is finished. */
  stop(): Promise<void>;
  /** New rows were stored: look now instead of at the next idle poll. */
  wake(): void;
  /** Processes until nothing is due (by the clock), then resolves. Serialised with the loop. */
  drain(): Promise<DrainSummary>;
  readonly running: boolean;
}

// Due rows, oldest first. Literal 0s (not parameters) so SQLite can use the partial index
// ix_incoming_activity_due (is_processed = 0 AND is_errored = 0), ordered as the query is: the
// look-up reads the due rows only, however many processed rows the table holds.
// The limit is written into the SQL (one statement per limit: the loop uses one): SQLite prepares
// a statement with `LIMIT ?` again at every run, to plan for the value bound (measured here:
// 14.5 µs a run against 3.4 with the literal).
// Activities and webmentions are taken apart (the webmention rows a due look-up passes over are
// few: the listener caps those pending, webmention/receive.ts).
const dueSql = (limit: number, webmentions: boolean) =>
  'SELECT * FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0 AND (next_try IS NULL OR next_try <= ?)' +
  ` AND webmention_source IS ${webmentions ? 'NOT NULL' : 'NULL'} ORDER BY next_try ASC, id ASC LIMIT ${limit}`;
const decodeIncoming = rowDecoder(incomingActivity);
// When the next row waiting for a retry is due (the same partial index: one probe).
const NEXT_DUE_SQL = 'SELECT min(next_try) AS at FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0';

/** Due activities (webmentions: false) or due webmentions, oldest first. */
export function dueIncomingActivities(db: Db, now: Date, limit: number, webmentions = false): IncomingActivity[] {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`dueIncomingActivities: limit ${limit}`);
  const raw = prepared<[string], Record<string, unknown>>(db, dueSql(limit, webmentions)).all(now.toISOString());
  return raw.map(decodeIncoming);
}

/** Lets timers and I/O (the listener's requests) run between rows of a long run. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const trim = (text: string) => (text.length > ERROR_MAX_CHARS ? `${text.slice(0, ERROR_MAX_CHARS - 1)}…` : text);

export function createInboxLoop(options: InboxLoopOptions): InboxLoop {
  const { db, clock } = options;
  const process = options.process ?? processIncomingActivity;
  const random = options.random ?? Math.random;
  const log = options.log ?? (() => {});
  const idlePollMs = options.idlePollMs ?? INBOX_IDLE_POLL_MS;
  let running = false;
  /** The next tick, when one is scheduled: a timer, or the next turn of the event loop. */
  let timer: { cancel(): void } | null = null;
  // Set by wake() while a batch runs, so rows stored meanwhile are looked for at once after it.
  let wokenDuringBatch = false;
  // Every batch runs on this chain, so the loop and drain() never process concurrently.
  let chain: Promise<unknown> = Promise.resolve();
  // Webmention rows being verified, off the chain; drains running (they start webmentions too);
  // what waits for one of them to finish (drain), and who hears their results (drain's count).
  const verifying = new Map<number, Promise<void>>();
  let draining = 0;
  let laneWaiters: (() => void)[] = [];
  const laneListeners = new Set<(result: RowResult) => void>();
  let lastWebmentionLook = -Infinity;

  // Bookkeeping is written a batch at a time: every try of the batch counted in one commit before
  // any row's work starts (so a crash mid-batch still spends those tries), and every outcome in
  // one commit after the last row. A commit costs more than the row updates in it (measured:
  // three commits per row were ≈40 % of the processor's SQLite time). If Tern stops between a
  // row's own transaction and the outcome commit, the row is simply taken again: handlers are
  // idempotent on ap_id, so it ends as a duplicate with nothing done twice. With a commit group
  // (the worker), the rows' own transactions and the outcomes share one commit as well: measured
  // on the bench's 5,000-activity burst, 0.25 commits per row instead of ≈2.4, and 20–25 % more
  // activities accepted and processed end to end.
  function countTries(rows: IncomingActivity[]): void {
    const now = clock().toISOString();
    db.transaction((tx) => {
      const update = prepared<[number, string, number]>(tx, 'UPDATE incoming_activity SET tries = ?, last_try = ? WHERE id = ?');
      for (const row of rows) update.run(row.tries + 1, now, row.id);
    });
  }

  function writeOutcomes(results: RowResult[]): void {
    if (results.length === 0) return;
    db.transaction((tx) => {
      for (const result of results) {
        if (result.outcome === 'processed' || result.outcome === 'dropped') {
          const reason = result.outcome === 'dropped' ? trim(result.reason) : null;
          prepared(tx, 'UPDATE incoming_activity SET is_processed = 1, error = ?, next_try = NULL WHERE id = ?').run(reason, result.id);
        } else if (result.outcome === 'errored') {
          tx.update(incomingActivity).set({ isErrored: true, error: result.error, nextTry: null }).where(eq(incomingActivity.id, result.id)).run();
        } else {
          tx.update(incomingActivity).set({ error: result.error, nextTry: result.nextTry }).where(eq(incomingActivity.id, result.id)).run();
        }
      }
    });
  }

  function failed(row: IncomingActivity, tries: number, error: string): RowResult {
    const webmention = row.webmentionSource !== null;
    if (tries >= (webmention ? WEBMENTION_MAX_TRIES : INBOX_MAX_TRIES)) return { id: row.id, outcome: 'errored', error };
    const wait = webmention ? webmentionBackoffMs(tries, random) : inboxBackoffMs(tries, random);
    return { id: row.id, outcome: 'retry', error, nextTry: new Date(clock().getTime() + wait) };
  }

  /** Runs one row (its try already counted); what became of it is written with the batch. */
  async function processOne(row: IncomingActivity, deps: ProcessDeps): Promise<RowResult> {
    const tries = row.tries + 1;
    try {
      // The handler's own writes are one transaction (it may await the network before them).
      const outcome = await process(deps, { ...row, tries });
      return outcome.status === 'processed'
        ? {
            id: row.id,
            outcome: 'processed',
            ...(outcome.previewsFor === undefined ? {} : { previewsFor: outcome.previewsFor }),
            ...(outcome.quoteAnswered === undefined ? {} : { quoteAnswered: outcome.quoteAnswered }),
          }
        : { id: row.id, outcome: 'dropped', reason: outcome.reason };
    } catch (error) {
      const message = trim(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      log(`inbox: activity ${row.apId ?? row.id} failed (try ${tries}): ${message}`);
      return failed(row, tries, message);
    }
  }

  /** Starts due webmentions while fewer than WEBMENTION_CONCURRENCY are being verified; unless
   * `now`, not more often than WEBMENTION_LOOK_MS. */
  function startWebmentions(now = false): void {
    if (!running && draining === 0) return;
    const free = WEBMENTION_CONCURRENCY - verifying.size;
    if (free <= 0) return;
    const at = performance.now();
    if (!now && at - lastWebmentionLook < WEBMENTION_LOOK_MS) return;
    const deps = options.deps();
    if (!deps) return;
    lastWebmentionLook = at;
    let rows: IncomingActivity[];
    try {
      rows = dueIncomingActivities(db, clock(), 2 * WEBMENTION_CONCURRENCY, true)
        .filter((row) => !verifying.has(row.id))
        .slice(0, free);
      if (rows.length === 0) return;
      // As a batch's: the tries committed before the work, outside any group.
      endGroup();
      countTries(rows);
    } catch (error) {
      // A broken database: said, and looked at again at the next tick.
      log(`inbox: webmentions could not be taken: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    for (const row of rows) {
      const work = verifyOne(row, deps)
        .catch((error: unknown) => log(`inbox: webmention ${row.id} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          verifying.delete(row.id);
          const waiters = laneWaiters;
          laneWaiters = [];
          for (const wake of waiters) wake();
          startWebmentions(true);
        });
      verifying.set(row.id, work);
    }
  }

  /** Commits the open group, if any (its own failure is seen by the batch through `lost`). */
  function endGroup(): void {
    try {
      options.group?.end();
    } catch {
      // counted in stats.lost
    }
  }

  /** One webmention: its work, then its outcome in a commit of its own. */
  async function verifyOne(row: IncomingActivity, deps: ProcessDeps): Promise<void> {
    const { group } = options;
    const lostAtStart = group?.stats.lost ?? 0;
    let result = await processOne(row, deps);
    // Its writes may have joined a batch's open group: committed now, before its outcome. A group
    // lost meanwhile may have held them: the row is then tried again.
    endGroup();
    if (group && group.stats.lost !== lostAtStart) result = failed(row, row.tries + 1, 'the database rolled back this row’s work; it is taken again');
    try {
      writeOutcomes([result]);
    } catch (error) {
      // Left due with its try counted: taken again (verifying a source again does nothing twice).
      log(`inbox: the outcome of webmention ${row.id} could not be written: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    options.onRowDone?.(result);
    for (const listener of laneListeners) listener(result);
  }

  /** The next batch's rows, their tries counted in the commit that wrote the outcomes of the batch
   * before it (claimNext): taken by the next batch without a commit of their own. */
  let claimed: IncomingActivity[] = [];

  /** Inside the transaction that writes a batch's outcomes: the rows due next, their tries counted.
   * Should the loop stop before taking them, each keeps that one try counted without having run. */
  function claimNext(): IncomingActivity[] {
    if (!running && draining === 0) return [];
    const rows = dueIncomingActivities(db, clock(), BATCH_SIZE);
    if (rows.length > 0) countTries(rows);
    return rows;
  }

  /** One batch; returns the results (empty when nothing was due or Tern has no identity yet). */
  async function batch(): Promise<RowResult[]> {
    const deps = options.deps();
    if (!deps) return [];
    const { group } = options;
    // The tries are committed before any row's work, outside the group: a row that brings the
    // process down still spends its try, so it cannot take the worker down for ever. While rows
    // keep coming they were counted in the previous batch's last commit (one commit a batch, not
    // two: a commit was ≈ 0.5 ms of the processor's time, and half of them only counted tries).
    let rows = claimed;
    claimed = [];
    if (rows.length === 0) {
      rows = dueIncomingActivities(db, clock(), BATCH_SIZE);
      if (rows.length === 0) return [];
      group?.end();
      countTries(rows);
    }
    const results: RowResult[] = [];
    // A group of this batch lost (SQLite rolled it back: a full disk, an I/O error; or its commit
    // failed) undid its rows' work. Which rows those were is not worth tracking for so rare a
    // failure: every result of the batch is dropped, so no row is marked done without its work
    // stored. The rows stay due, with their tries counted; those whose work was committed in an
    // earlier group end as duplicates at their next try, with nothing done twice.
    const lostAtStart = group?.stats.lost ?? 0;
    const checkLost = () => {
      if (!group || (!group.lost && group.stats.lost === lostAtStart)) return;
      const undone = results.length + 1;
      results.length = 0;
      try {
        group.end();
      } catch {
        // already counted as lost
      }
      throw new Error(`the database rolled back the work of this batch (${undone} rows); they are taken again`);
    };
    let completed = false;
    try {
      for (const row of rows) {
        if (group) {
          if (group.heldMs >= GROUP_MAX_MS) {
            // Heavy rows: commit, and let the inserts waiting meanwhile (POSTs to answer) in.
            try {
              group.end();
            } catch {
              // lost: checkLost below
            }
            checkLost();
            await yieldToEventLoop();
          }
          // A row that waited on the network ended the group (it ends when the loop turns): the
          // rows after it start the next one.
          group.join();
        } else if (results.length > 0) {
          // Rows are mostly synchronous work: without this a batch (or a whole drain) would hold
          // the event loop, and the listener's requests with it.
          await yieldToEventLoop();
        }
        const result = await processOne(row, options.deps() ?? deps);
        checkLost();
        results.push(result);
      }
      completed = true;
    } finally {
      let next: IncomingActivity[] = [];
      try {
        // The outcomes, and the next batch's tries, in one commit (the group's, or their own).
        let counted: IncomingActivity[] = [];
        db.transaction(() => {
          writeOutcomes(results);
          // Not after a failure (a group lost): its rows are taken again, counted then.
          if (completed && !group?.lost) counted = claimNext();
        });
        // Only once that transaction is done: a COMMIT of its own that failed (a full disk) threw
        // and rolled the tries back with it, so its rows are not taken as counted.
        next = counted;
      } finally {
        const lostBefore = group?.stats.lost ?? 0;
        group?.end();
        // Taken next only when that commit stored their tries (end() throws when it fails).
        if ((group?.stats.lost ?? 0) === lostBefore) claimed = next;
      }
    }
    for (const result of results) options.onRowDone?.(result);
    return results;
  }

  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };

  /** Idle: sleep until the next retry is due, or the idle poll, whichever comes first. */
  function idleWait(): number {
    const at = prepared<[], { at: string | null }>(db, NEXT_DUE_SQL).get()?.at;
    const due = at ? new Date(at).getTime() - clock().getTime() : Number.NaN;
    // Already due yet not taken (no identity yet): the idle pace, never a busy loop.
    return Number.isFinite(due) && due > 0 ? Math.min(idlePollMs, due + 10) : idlePollMs;
  }

  function schedule(delayMs: number): void {
    if (!running) return;
    timer?.cancel();
    // More to do: at the next turn of the event loop (after the I/O and messages waiting: the
    // inserts of POSTs to answer), not on a timer, since Node's setTimeout(…, 0) waits 1 ms. A
    // batch is 3–4 ms of work, so that millisecond left the thread idle a fifth to a quarter of
    // the time while rows were waiting: measured in the bench, processing alone 1,929/s with
    // the processor's thread busy 64 % of the wall time.
    if (delayMs <= 0) {
      // Not unref'd: an unref'd immediate does not keep libuv's poll from blocking, so on a quiet
      // thread it would wait for the next message or I/O.
      const immediate = setImmediate(tick);
      timer = { cancel: () => clearImmediate(immediate) };
      return;
    }
    const timeout = setTimeout(tick, delayMs);
    timeout.unref?.();
    timer = { cancel: () => clearTimeout(timeout) };
  }

  function tick(): void {
    timer = null;
    if (!running) return;
    wokenDuringBatch = false;
    startWebmentions();
    serialised(batch).then(
      (results) => {
        // No activity left: a webmention waiting is taken now.
        startWebmentions(results.length === 0);
        schedule(results.length > 0 || wokenDuringBatch ? 0 : idleWait());
      },
      (error: unknown) => {
        // A broken database or the like: say so, and keep the loop alive at the idle pace.
        log(`inbox: batch failed: ${error instanceof Error ? error.message : String(error)}`);
        schedule(idlePollMs);
      },
    );
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    async stop() {
      running = false;
      timer?.cancel();
      timer = null;
      await chain;
      // Each source's fetch is bounded (verify.ts): this waits seconds at most.
      await Promise.all(verifying.values());
    },
    wake() {
      // A drain waiting on webmentions takes the new rows at once.
      const waiters = laneWaiters;
      laneWaiters = [];
      for (const resume of waiters) resume();
      if (!running) return;
      startWebmentions();
      if (timer) schedule(0);
      else wokenDuringBatch = true;
    },
    drain() {
      return serialised(async () => {
        const summary: DrainSummary = { processed: 0, dropped: 0, retried: 0, errored: 0 };
        const count = (r: RowResult) => {
          if (r.outcome === 'processed') summary.processed++;
          else if (r.outcome === 'dropped') summary.dropped++;
          else if (r.outcome === 'retry') summary.retried++;
          else summary.errored++;
        };
        draining++;
        laneListeners.add(count);
        try {
          for (;;) {
            startWebmentions();
            const results = await batch();
            for (const r of results) count(r);
            if (results.length > 0) {
              await yieldToEventLoop();
              continue;
            }
            startWebmentions(true);
            if (verifying.size === 0) return summary;
            // Activities that arrive meanwhile are taken as soon as a webmention is done.
            await new Promise<void>((resolve) => laneWaiters.push(resolve));
          }
        } finally {
          draining--;
          laneListeners.delete(count);
        }
      });
    },
  };
}
