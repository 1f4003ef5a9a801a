// The main thread's side of the inbox workers (inbox-worker.ts): starts them when the inbox loop
// starts (the processor also when a drain is asked for), passes them what changes (settings, the
// inbox's LD verdicts, wake-ups, the listener's inbox POSTs to check), re-emits on the main thread
// what they report (rows done, deliveries queued, answers), and starts one again when it dies
// while running (worker-host.ts). It is the core's inbox loop (the InboxLoop interface), so the
// shell and the tests drive it as they drove the in-thread loop. Nothing is lost or done twice
// when a worker dies: the rows are the queue (a try is counted before the work, outcomes are
// committed after it, and handlers are idempotent on ap_id), and a POST whose check had no answer
// is checked again by the next checks worker (nothing is stored before the checks answer).
import type { Settings } from '../settings';
import { createWorkerHost, workerEntry, WorkerEndedError } from '../worker-host';
import type { IncomingRow } from './incoming-writer';
import type { InboxCheck, InboxPost } from './inbox';
import type { KeyCacheStats } from '../net/key-cache';
import type { DrainSummary, InboxLoop, RowResult } from './inbox-loop';
import type { FromWorker, InboxWorkerData, ToWorker } from './inbox-worker-protocol';

/** How long stop() lets the row in progress finish (it may be waiting on a peer) before ending it. */
const STOP_WAIT_MS = 15_000;
/**
 * The checks worker's nice value on Linux: the main thread's. A peer's delivery waits on these
 * checks for its answer (an inbox POST is answered once its row is stored), while the processor's
 * work waits for no one and keeps the workers' default (worker-side.ts WORKER_NICE, 5). So when
 * the two cores are short, the checks come first and processing catches up after the burst.
 * Measured in the bench (5,000 activities, 32 in flight, runs alternated in the same half hour),
 * checks at 0 against 5: accept p99 61–78 against 87–98 ms (second burst 44–46 against 52–72
 * ms), accepted 1,086–1,223/s against 1,008–1,086/s; end to end 931–998/s against 918–964/s; the
 * main thread's loop delay (p99 7.2–7.5 ms) and the IPC page (p99 13–16 ms) as before.
 * The processor's thread is not quite out of the accept path: it stores the accepted rows (an
 * 'insert' message, between its rows). In the bench's accept trace a median POST's 25–32 ms
 * were 13–19 ms of checks (there and back) and 6–7 ms of that insert (there and back). Neither
 * committing the insert at once instead of with the processor's next rows, nor groups of 3 ms
 * instead of 10 (inbox-loop GROUP_MAX_MS), nor the processor at nice 0 or 10 changed the
 * insert's time or the rates beyond the runs' noise; the processor at nice 10 fell behind
 * other work on the machine (second burst end to end 647–1,046/s against 1,098–1,195/s).
 */
const CHECKS_NICE = 0;

/** The checks worker is stopped after this long without an inbox POST (its memory given back). */
const CHECKS_IDLE_STOP_MS = 10 * 60_000;
/** How long an inbox POST waits for the checks worker to be up (starting, or starting again
 * after it ended) before it is answered 503: a worker that takes longer is failing to start. */
export const CHECKS_WAIT_MS = 10_000;

/** The checks worker could not take a POST in time (it is failing to start, or the loop
 * stopped): the listener answers 503 with Retry-After. Nothing was stored. */
export class ChecksUnavailableError extends Error {
  override name = 'ChecksUnavailableError';
  constructor() {
    super('the inbox checks are not running; try again shortly');
  }
}

export interface InboxWorkerHostOptions {
  /** What the worker is built from, read at each start (the current settings). */
  data: () => InboxWorkerData;
  log?: (line: string) => void;
  /** Called on the main thread with the rows the worker finished (outcomes committed). */
  onRowsDone?: (results: RowResult[]) => void;
  /** Called on the main thread when the processor queued deliveries (after its commit). */
  onDeliveriesQueued?: () => void;
  /** Called on the main thread with the keys the processor dropped from its cache (an actor's
   * Update or Delete of itself): the main thread's cache drops them too. */
  onKeysEvicted?: (keyIds: string[]) => void;
  restartDelayMs?: number;
  /** The checks worker stops after this long without a POST. Default CHECKS_IDLE_STOP_MS (tests: less). */
  checksIdleStopMs?: number;
}

export interface InboxWorkerHost extends InboxLoop {
  /** The settings changed: both workers read them for their next row or request. */
  settings(settings: Settings): void;
  /** Inserts rows the listener accepted on the processor's connection; null when it is not up. */
  insert(rows: IncomingRow[]): Promise<number[]> | null;
  /** Checks an inbox POST on the checks worker (the row to store comes back), waiting for it
   * to be up (CHECKS_WAIT_MS at most, then ChecksUnavailableError); null when the loop is not
   * running (the caller checks on its own thread). */
  accept(post: InboxPost): Promise<InboxCheck> | null;
  /** The checks worker's key cache counters (the bench); null when it is not up. */
  keyStats(): Promise<KeyCacheStats> | null;
  /** Ends the processor at once, as a crash would; a started loop starts it again (tests). */
  kill(): Promise<void>;
  /** The same for the checks worker. */
  killChecks(): Promise<void>;
  /** Starts the checks worker now rather than at the first POST (the loop must be started). */
  startChecks(): void;
  /** Resolves once the processor is set up (its loop started), and the checks worker if started. */
  ready(): Promise<void>;
  /** Whether the processor's thread is alive now. */
  readonly alive: boolean;
  /** Whether the checks worker's thread is alive now. */
  readonly checksAlive: boolean;
}

/**
 * Two threads: the processor (the rows of incoming_activity, one at a time) and the checks worker
 * (the listener's inbox POSTs: JSON, signature, key owner; the row to store goes back to the main
 * thread, which hands it to the processor's connection). Apart, a burst is checked and processed
 * at once on two cores. Measured (bench, 5,000 activities, same hour): with the checks on the
 * processor's thread, 615–683/s end to end and 1,068–1,243/s accepted; apart, 677–733/s and
 * 871–906/s. The same script runs both (InboxWorkerData.acceptOnly). The processor starts with
 * the loop; the checks worker with the first inbox POST after that (≈ 57 MB of RSS, measured on
 * the bundle), and stops after checksIdleStopMs without one; both stop with the loop.
 */
export function createInboxWorkerHost(options: InboxWorkerHostOptions): InboxWorkerHost {
  let wakeQueued = false;
  const log = options.log ?? (() => {});
  const restart = options.restartDelayMs === undefined ? {} : { restartDelayMs: options.restartDelayMs };
  const entry = workerEntry('federation/inbox-worker.ts', 'inbox-worker.cjs');
  const host = createWorkerHost<ToWorker, FromWorker>({
    name: 'inbox worker',
    entry,
    data: options.data,
    log,
    onMessage(message) {
      if (message.type === 'rowsDone') options.onRowsDone?.(message.results);
      else if (message.type === 'keysEvicted') {
        // A checks worker not running starts with an empty cache: nothing to tell it.
        checks.post({ type: 'evictKeys', keyIds: message.keyIds });
        options.onKeysEvicted?.(message.keyIds);
      } else options.onDeliveriesQueued?.();
    },
    startMessage: { type: 'start' } satisfies ToWorker,
    stopWaitMs: STOP_WAIT_MS,
    ...restart,
  });
  const checks = createWorkerHost<ToWorker, FromWorker>({
    name: 'inbox checks',
    entry,
    data: () => ({ ...options.data(), acceptOnly: true, nice: CHECKS_NICE }),
    log,
    onMessage: () => {},
    startMessage: { type: 'start' } satisfies ToWorker,
    stopWaitMs: STOP_WAIT_MS,
    ...restart,
  });

  // Stopped after checksIdleStopMs without a POST (none waiting for its answer): an app that is
  // written to now and then does not hold its memory in between; the next POST starts it again.
  let checksTimer: NodeJS.Timeout | null = null;
  let checking = 0;
  function checksBusy(): void {
    if (checksTimer) return void checksTimer.refresh();
    checksTimer = setTimeout(() => {
      checksTimer = null;
      if (!checks.running) return;
      // Still starting, or answering: later.
      if (checking > 0 || !checks.isReady) return checksBusy();
      log('inbox checks: no inbox POST for a while; stopping the worker until the next one');
      void checks.stop({ type: 'stop' });
    }, options.checksIdleStopMs ?? CHECKS_IDLE_STOP_MS);
    checksTimer.unref();
  }

  // The idle wait counts from when the worker is ready, not from its start.
  function startChecks(): void {
    checks.start();
    checksBusy();
    void checks.ready().then(checksBusy);
  }

  /** Resolves once the checks worker is set up, started if need be; rejects at `deadline` (or
   * when the loop stops first) with ChecksUnavailableError. */
  function checksReady(deadline: number): Promise<void> {
    if (checks.isReady) return Promise.resolve();
    if (!host.running) return Promise.reject(new ChecksUnavailableError());
    if (!checks.running) startChecks();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ChecksUnavailableError()), Math.max(0, deadline - performance.now()));
      void checks.ready().then(() => {
        clearTimeout(timer);
        // ready() also resolves when the host stops.
        if (checks.isReady) resolve();
        else reject(new ChecksUnavailableError());
      });
    });
  }

  async function acceptOnWorker(post: InboxPost): Promise<InboxCheck> {
    const deadline = performance.now() + CHECKS_WAIT_MS;
    for (;;) {
      await checksReady(deadline);
      const answer = checks.request<InboxCheck>((request) => ({ type: 'accept', request, post: ownBytes(post) }));
      if (answer === null) continue; // ended just now: the next one
      try {
        return await answer;
      } catch (error) {
        // The worker ended with this POST in it: the next one checks it (within the deadline).
        if (!(error instanceof WorkerEndedError)) throw error;
      }
    }
  }

  return {
    get running() {
      return host.running;
    },
    get alive() {
      return host.alive;
    },
    get checksAlive() {
      return checks.alive;
    },
    start: () => host.start(),
    stop: async () => {
      if (checksTimer) clearTimeout(checksTimer);
      checksTimer = null;
      await Promise.all([host.stop({ type: 'stop' }), checks.stop({ type: 'stop' })]);
    },
    wake() {
      // One message for all the rows queued in this turn (a burst queues hundreds a second).
      if (!host.alive || wakeQueued) return;
      wakeQueued = true;
      setImmediate(() => {
        wakeQueued = false;
        host.post({ type: 'wake' });
      });
    },
    // Starts a worker when none runs: a drain asks for the work to be done now.
    drain: () => host.request<DrainSummary>((request) => ({ type: 'drain', request }), { spawn: true, hold: true })!,
    settings(settings) {
      host.post({ type: 'settings', settings });
      checks.post({ type: 'settings', settings });
    },
    insert: (rows) => host.request<number[]>((request) => ({ type: 'insert', request, rows })),
    // Never checked on the main thread while the loop runs: a POST's JSON, its key document and
    // a forwarded activity's LD signature are remote input that can cost seconds (a 1 MiB
    // LD-signed activity took 30 s to canonicalize), and this thread is the app's. A POST that
    // finds the checks worker starting (the first after an idle stop) or gone (it ended with
    // the POST in it) waits for the next one, up to CHECKS_WAIT_MS; then 503, and the peer sends
    // again. Nothing is stored before the checks answer, so a POST checked again is stored once.
    accept(post) {
      if (!host.running) return null;
      checksBusy();
      checking++;
      const done = () => {
        checking--;
        checksBusy();
      };
      const answer = acceptOnWorker(post);
      answer.then(done, done);
      return answer;
    },
    startChecks() {
      if (host.running) startChecks();
    },
    keyStats: () => checks.request<KeyCacheStats>((request) => ({ type: 'keyStats', request })),
    kill: () => host.kill(),
    killChecks: () => checks.kill(),
    ready: async () => {
      await Promise.all([host.ready(), checks.running ? checks.ready() : undefined]);
    },
  };
}

/** A body read from a socket is often a view of a larger pooled buffer, which a message would
 * copy whole: the worker gets a copy of just its bytes (an inbox body is about a kilobyte). */
function ownBytes(post: InboxPost): InboxPost {
  const { body } = post;
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? post : { ...post, body: new Uint8Array(body) };
}
