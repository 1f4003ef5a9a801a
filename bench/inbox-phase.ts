// Inbox phase: signed activities from a few remote actors POSTed over loopback to Tern's real
// listener (verify → incoming_activity → 202), in slices of 1,000 with a GC'd memory reading
// after each; then the core's own inbox loop is started, as the app starts it, and processes
// what was accepted (incoming_activity → inbox, actor, notifications…) until done or until the
// time budget is spent. Accepting and processing are timed separately, then combined.
import { sql } from 'drizzle-orm';
import { checkpoint, type Checkpoint, type MemorySampler } from './memory';
import type { InboxWorkerHost } from '../electron/core/federation/inbox-worker-host';
import type { Remote } from './remote-client';
import { savePost, type BenchTern } from './tern';
import { watchMainThread, type MainThreadFeel } from './main-thread';
import { startLeanBaseline } from './lean-baseline';
import { startAcceptTrace, type ClientRecord } from './accept-trace';
import { cpuByThreadKind, cpuByThreadKindSince, machineShareSince, machineTicks, perUnit, waitedByKind, waitsWith } from './thread-cpu';

export interface InboxOptions {
  activities: number;
  actors: number;
  concurrency: number;
  createBytes: number;
  slice: number;
  /** Processing stops after this long even if rows remain (keeps the bench near a minute). */
  processBudgetMs: number;
}

export interface Slice {
  rows: number;
  acceptedPerSec: number;
  /** The slice's own p99 accept latency: shows whether the tail is the start (JIT, key fetches). */
  p99Ms: number;
}

export interface InboxResult {
  options: InboxOptions;
  presign: { ms: number; bySpec: Record<string, number>; byType: Record<string, number>; meanBodyBytes: number };
  accept: {
    sent: number;
    statuses: Record<string, number>;
    failures: string[];
    wallMs: number;
    perSec: number;
    latencyMs: { p50: number; p90: number; p99: number; max: number };
    /** Tern's CPU time (user + system, all threads) per accepted activity. */
    cpuUsPerActivity: number;
    /** The same on the main thread alone (the listener, IPC, the shell). */
    mainThreadCpuUsPerActivity: number;
    /** µs per accepted activity by thread kind (thread-cpu.ts), meanwhile: processing overlaps. */
    byThread: string;
    /** The machine's CPU time meanwhile: busy, idle, stolen by the hypervisor (thread-cpu.ts). */
    machine: string;
    /** ms per second of the burst each thread kind (and the remote process that sends the burst)
     * waited for a core while runnable (schedstat), its threads summed; '' where the kernel does
     * not say. */
    waitedForCore: string;
    slices: Slice[];
  };
  keys: { fetchesCounted: number; actorDocGets: Record<string, number>; cacheHits: number; cacheMisses: number };
  process: {
    wallMs: number;
    perSec: number;
    /** Rows done (processed, dropped or errored) of those accepted; the loop stops at the budget. */
    done: number;
    of: number;
    budgetHit: boolean;
    /** Heap after GC and RSS each time another half `slice` rows were done. */
    memory: Checkpoint[];
    /** Per row done in this phase (overlapping, most were done while accepting). */
    cpuUsPerActivity: number;
    byThread: string;
    summary: { processed: number; dropped: number; retried: number; errored: number };
    /** Processing rate over the first and the last fifth of the rows. */
    firstFifthPerSec: number;
    lastFifthPerSec: number;
    actorServerGets: Record<string, number>;
    dropReasons: Record<string, number>;
    inboxRows: number;
    notifications: number;
  };
  combinedPerSec: number;
  /** Whether the inbox loop ran while accepting (the app's way; end to end = until the last row is done). */
  overlap: boolean;
  /** The lean baseline (lean-baseline.ts) on the same activities, just before Tern (BENCH_LEAN=0: skipped). */
  lean: { perSec: number; p99Ms: number; rows: number; failures: number; feel: MainThreadFeel } | null;
  /** The main thread during the burst (accepting, and processing until the last row was done). */
  feel: MainThreadFeel;
  memory: Checkpoint[];
  /** BENCH_ACCEPT_TRACE=1: what the slowest accepts are made of (accept-trace.ts). */
  trace: string[];
  /** A second burst as large, right after the first was processed (the workers' code compiled
   * and optimised by then, as for every burst after the first in a session), or null
   * (BENCH_INBOX_WARM=0, or not overlapping). Comparison only: the targets judge the first. */
  warm: { perSec: number; endToEndPerSec: number; p99Ms: number; accepted: number; cpuUsPerActivity: number; byThread: string } | null;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** Brackets each measured part (BENCH_CPU_PROFILE); does nothing otherwise. */
export interface PartHooks {
  start(part: string): Promise<void>;
  stop(): Promise<void>;
}
export const noHooks: PartHooks = { start: () => Promise.resolve(), stop: () => Promise.resolve() };

export async function runInbox(
  tern: BenchTern,
  remote: Remote,
  sampler: MemorySampler,
  options: InboxOptions,
  hooks: PartHooks = noHooks,
): Promise<InboxResult> {
  const { core } = tern;
  const likeTargets = Array.from({ length: 10 }, (_, i) => savePost(core.db, tern.local, core.clock(), `post ${i}`).apId);
  await remote.ask({ type: 'setupActors', actors: options.actors }, 'actorsReady');
  // The inbox workers (under tsx here: their sources compile on start) are up before anything is
  // timed: the processor (drain starts it) and, with the loop started as the app starts it, the
  // checks worker (the app starts it at the first POST; until it is up, the main thread checks).
  await core.loops.inbox.drain();
  const overlap = process.env.BENCH_INBOX_OVERLAP !== '0';
  const workers = core.loops.inbox as Partial<InboxWorkerHost>;
  if (overlap && workers.ready && workers.startChecks) {
    core.loops.inbox.start();
    workers.startChecks();
    await workers.ready();
  }
  let lean: InboxResult['lean'] = null;
  if (process.env.BENCH_LEAN !== '0') {
    sampler.phase('inbox: lean baseline');
    const baseline = await startLeanBaseline();
    try {
      const common = { count: options.activities, likeTargets, createBytes: options.createBytes };
      await remote.ask({ type: 'presign', inbox: baseline.inboxUrl, spec: 'draft-cavage-http-signatures-12', ...common }, 'presigned');
      // The same watch on this thread while the lean server takes the burst: what the machine's
      // load alone does to a thread's loop delay and to the IPC call (Tern's core is idle then).
      const leanWatch = watchMainThread(core);
      const done = await remote.ask({ type: 'blast', concurrency: options.concurrency, from: 0, to: options.activities }, 'blastDone');
      const feel = leanWatch.stop();
      const sorted = [...done.latenciesMs].sort((a, b) => a - b);
      lean = { perSec: baseline.rows() / (done.wallMs / 1000), p99Ms: quantile(sorted, 0.99), rows: baseline.rows(), failures: baseline.failures(), feel };
    } finally {
      await baseline.close();
    }
    await remote.ask({ type: 'actorGets', reset: true }, 'actorGetsReply');
  }
  sampler.phase('inbox: presign (remote process)');
  const warmBurst = overlap && process.env.BENCH_INBOX_WARM !== '0';
  // With the warm burst, twice as many: the second half (new ids) is the second burst.
  const presigned = await remote.ask(
    { type: 'presign', inbox: `${tern.local.inbox}`, count: options.activities * (warmBurst ? 2 : 1), likeTargets, createBytes: options.createBytes },
    'presigned',
  );

  // ---- accept
  // The inbox loop runs while accepting, as in the app (on its worker thread unless
  // BENCH_INBOX_WORKER=0); "combined" is then activities / wall time until all are processed.
  // BENCH_INBOX_OVERLAP=0: accept first, then process (each timed alone).
  const watch = watchMainThread(core);
  if (overlap) core.loops.inbox.start();
  sampler.phase('inbox: accept');
  const memory: Checkpoint[] = [watch.aside(() => checkpoint(0))];
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  const slices: Slice[] = [];
  let wallMs = 0;
  let cpu = 0;
  let mainCpu = 0;
  const tracing = process.env.BENCH_ACCEPT_TRACE === '1';
  const trace = tracing ? startAcceptTrace(core) : null;
  const clientTrace: ClientRecord[] = [];
  const remoteSide: string[] = [];
  await hooks.start('inbox accept');
  const threadsBefore = cpuByThreadKind();
  const machineBefore = machineTicks();
  const senders = { pid: remote.pid, kind: 'the remote process (the senders)' };
  const waitsBefore = waitsWith(senders);
  const burstStart = performance.now();
  for (let from = 0; from < options.activities; from += options.slice) {
    const to = Math.min(options.activities, from + options.slice);
    const cpuStart = process.cpuUsage();
    const mainStart = process.threadCpuUsage();
    const done = await remote.ask({ type: 'blast', concurrency: options.concurrency, from, to, trace: tracing }, 'blastDone');
    cpu += cpuMicros(cpuStart);
    const mainUsed = process.threadCpuUsage(mainStart);
    mainCpu += mainUsed.user + mainUsed.system;
    wallMs += done.wallMs;
    latencies.push(...done.latenciesMs);
    for (const [status, n] of Object.entries(done.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
    failures.push(...done.failures);
    const sliceLatencies = [...done.latenciesMs].sort((a, b) => a - b);
    slices.push({ rows: to, acceptedPerSec: done.sent / (done.wallMs / 1000), p99Ms: quantile(sliceLatencies, 0.99) });
    if (done.trace) clientTrace.push(...done.trace);
    if (done.remote) remoteSide.push(`${n0(done.remote.cpuUs / done.sent)} µs CPU/request, loop delay p99 ${done.remote.loopDelayP99Ms.toFixed(1)} ms`);
    const asideFrom = performance.timeOrigin + performance.now();
    memory.push(watch.aside(() => checkpoint(to))); // between slices, outside the timing
    trace?.aside(asideFrom, performance.timeOrigin + performance.now());
  }
  const byThread = cpuByThreadKindSince(threadsBefore);
  const machine = machineShareSince(machineBefore);
  // Per second of the whole loop, the forced GCs between slices included (a few ms each).
  const waitedForCore = perUnit(waitedByKind(waitsWith(senders), waitsBefore), performance.now() - burstStart);
  await hooks.stop();
  trace?.stop();
  const traceLines = trace ? [...trace.report(clientTrace, { slice: options.slice, concurrency: options.concurrency }), `  the remote (client) process per slice: ${remoteSide.join(' · ')}`] : [];
  latencies.sort((a, b) => a - b);
  const accepted = statuses['202'] ?? 0;
  const acceptGets = (await remote.ask({ type: 'actorGets', reset: true }, 'actorGetsReply')).gets;
  // The cache that checked the signatures: the inbox worker's (and the main thread's, had any
  // request been checked there while the worker started).
  const stats = await core.inboxKeyStats();
  const keys = { fetchesCounted: stats.fetches, actorDocGets: acceptGets, cacheHits: stats.hits, cacheMisses: stats.misses };

  // ---- process: the core's own inbox loop, started as the app starts it (it yields to the
  // event loop between batches; drain() would not) and stopped when every row is done or the
  // time budget is spent. Progress and RSS are read from the table / process meanwhile.
  sampler.phase('inbox: process (loop)');
  // Done = rows − rows still due. The due count reads the partial index ix_incoming_activity_due
  // (the pending rows only); counting done rows directly scanned the whole table every 50 ms on
  // the thread being measured (≈5 ms a time at 5,000 rows, ≈12 % of processing).
  const rowsAccepted = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM incoming_activity`).n;
  const countDone = () =>
    rowsAccepted - core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0`).n;
  const progress: Array<{ t: number; n: number }> = [];
  const processMemory: Checkpoint[] = [];
  await hooks.start('inbox process');
  const cpuStart = process.cpuUsage();
  const processThreadsBefore = cpuByThreadKind();
  const processStart = performance.now();
  if (!overlap) core.loops.inbox.start();
  // Overlapping, many rows are done already: memory marks count from here.
  const doneAtStart = countDone();
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      const n = countDone();
      const t = performance.now() - processStart;
      progress.push({ t, n });
      const nextMark = doneAtStart + (processMemory.length + 1) * (options.slice / 2);
      // A forced GC between batches (a few ms, three or four times): heap after GC is what is kept.
      if (n >= nextMark) processMemory.push(watch.aside(() => checkpoint(n)));
      if (n >= accepted || t >= options.processBudgetMs) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
  });
  const feel = watch.stop();
  const processMs = performance.now() - processStart;
  const processCpu = cpuMicros(cpuStart);
  const processByThread = cpuByThreadKindSince(processThreadsBefore);
  await hooks.stop();
  const total = countDone();
  progress.push({ t: processMs, n: total });
  memory.push(checkpoint(total));
  const processGets = (await remote.ask({ type: 'actorGets', reset: true }, 'actorGetsReply')).gets;
  const outcomes = core.db.get<{ processed: number; dropped: number; errored: number; retried: number }>(sql`
    SELECT sum(is_processed = 1 AND error IS NULL) AS processed, sum(is_processed = 1 AND error IS NOT NULL) AS dropped,
           sum(is_errored = 1) AS errored, sum(is_processed = 0 AND is_errored = 0 AND tries > 0) AS retried
    FROM incoming_activity`);
  const summary = { processed: outcomes.processed ?? 0, dropped: outcomes.dropped ?? 0, retried: outcomes.retried ?? 0, errored: outcomes.errored ?? 0 };

  const fifth = Math.max(1, Math.floor(total / 5));
  const timeAt = (n: number) => {
    // Linear interpolation between the polled points around n.
    let previous = { t: 0, n: 0 };
    for (const point of progress) {
      if (point.n >= n) return previous.t + ((n - previous.n) / Math.max(1, point.n - previous.n)) * (point.t - previous.t);
      previous = point;
    }
    return processMs;
  };
  const firstFifthPerSec = fifth / (timeAt(fifth) / 1000);
  const lastFifthPerSec = fifth / ((processMs - timeAt(total - fifth)) / 1000);
  const dropRows = core.db.all<{ error: string; n: number }>(
    sql`SELECT substr(error, 1, 60) AS error, count(*) AS n FROM incoming_activity WHERE error IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
  );
  const inboxRows = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM inbox`).n;
  const notifications = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM notifications`).n;

  // The second burst, before the loop stops (stopping it ends the checks worker too).
  const warm = warmBurst ? await secondBurst(tern, remote, options, rowsAccepted, hooks) : null;
  await core.loops.inbox.stop();

  const processedCount = total;
  const acceptPerSec = accepted / (wallMs / 1000);
  const processPerSec = processedCount / (processMs / 1000);
  return {
    options,
    presign: { ms: presigned.ms, bySpec: presigned.bySpec, byType: presigned.byType, meanBodyBytes: presigned.meanBodyBytes },
    accept: {
      sent: options.activities,
      statuses,
      failures,
      wallMs,
      perSec: acceptPerSec,
      latencyMs: { p50: quantile(latencies, 0.5), p90: quantile(latencies, 0.9), p99: quantile(latencies, 0.99), max: latencies.at(-1) ?? 0 },
      cpuUsPerActivity: cpu / Math.max(1, accepted),
      mainThreadCpuUsPerActivity: mainCpu / Math.max(1, accepted),
      byThread: perUnit(byThread, accepted),
      machine,
      waitedForCore,
      slices,
    },
    keys,
    process: {
      wallMs: processMs,
      perSec: processPerSec,
      done: processedCount,
      of: accepted,
      budgetHit: processedCount < accepted,
      memory: processMemory,
      cpuUsPerActivity: processCpu / Math.max(1, processedCount - doneAtStart),
      byThread: perUnit(processByThread, processedCount - doneAtStart),
      summary,
      firstFifthPerSec,
      lastFifthPerSec,
      actorServerGets: processGets,
      dropReasons: Object.fromEntries(dropRows.map((r) => [r.error, r.n])),
      inboxRows,
      notifications,
    },
    // Per activity: its share of accepting plus its share of processing.
    combinedPerSec: overlap ? accepted / ((wallMs + processMs) / 1000) : 1 / (1 / acceptPerSec + 1 / processPerSec),
    overlap,
    lean,
    feel,
    memory,
    trace: traceLines,
    warm,
  };
}

/** Activities [n, 2n) of the presigned ones, at the same concurrency, in one go: accepted/s, and
 * end to end until every row is done (the same definition as the first burst's). */
async function secondBurst(tern: BenchTern, remote: Remote, options: InboxOptions, rowsBefore: number, hooks: PartHooks): Promise<InboxResult['warm']> {
  const { core } = tern;
  const pending = () => core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0`).n;
  await hooks.start('inbox second burst');
  const cpuStart = process.cpuUsage();
  const threadsBefore = cpuByThreadKind();
  const started = performance.now();
  const done = await remote.ask({ type: 'blast', concurrency: options.concurrency, from: options.activities, to: 2 * options.activities }, 'blastDone');
  const accepted = done.statuses['202'] ?? 0;
  const rows = rowsBefore + accepted;
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      const stored = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM incoming_activity`).n;
      if ((stored >= rows && pending() === 0) || performance.now() - started >= options.processBudgetMs) {
        clearInterval(poll);
        resolve();
      }
    }, 20);
  });
  const endToEndMs = performance.now() - started;
  const byThread = cpuByThreadKindSince(threadsBefore);
  await hooks.stop();
  const latencies = [...done.latenciesMs].sort((a, b) => a - b);
  return {
    perSec: accepted / (done.wallMs / 1000),
    endToEndPerSec: accepted / (endToEndMs / 1000),
    p99Ms: quantile(latencies, 0.99),
    accepted,
    cpuUsPerActivity: cpuMicros(cpuStart) / Math.max(1, accepted),
    byThread: perUnit(byThread, accepted),
  };
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
