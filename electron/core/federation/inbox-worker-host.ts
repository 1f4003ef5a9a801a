// The main thread's side of the inbox worker (inbox-worker.ts): starts it when the inbox loop
// starts (or a drain is asked for), passes it what changes (settings, the inbox's LD verdicts,
// wake-ups), re-emits on the main thread what it reports (rows done, deliveries queued), and
// starts it again when it dies while running (worker-host.ts). It is the core's inbox loop (the
// InboxLoop interface), so the shell and the tests drive it as they drove the in-thread loop.
// Nothing is lost or done twice when the worker dies: the rows are the queue (a try is counted
// before the work, outcomes are committed after it, and handlers are idempotent on ap_id).
import type { Settings } from '../settings';
import { createWorkerHost, workerEntry } from '../worker-host';
import type { IncomingRow } from './incoming-writer';
import type { DrainSummary, InboxLoop, RowResult } from './inbox-loop';
import type { FromWorker, InboxWorkerData, ToWorker } from './inbox-worker-protocol';

/** How long stop() lets the row in progress finish (it may be waiting on a peer) before ending it. */
const STOP_WAIT_MS = 15_000;

export interface InboxWorkerHostOptions {
  /** What the worker is built from, read at each start (the current settings). */
  data: () => InboxWorkerData;
  log?: (line: string) => void;
  /** Called on the main thread with the rows the worker finished (outcomes committed). */
  onRowsDone?: (results: RowResult[]) => void;
  /** Called on the main thread when the processor queued deliveries (after its commit). */
  onDeliveriesQueued?: () => void;
  restartDelayMs?: number;
}

export interface InboxWorkerHost extends InboxLoop {
  /** The settings changed: the worker reads them for its next row. */
  settings(settings: Settings): void;
  /** Inserts rows the listener accepted on the worker's connection; null when no worker runs. */
  insert(rows: IncomingRow[]): Promise<number[]> | null;
  /** Ends the worker at once, as a crash would; a started loop starts it again (tests). */
  kill(): Promise<void>;
  /** Resolves once the worker is set up and its loop started (tests: a kill then lands in work). */
  ready(): Promise<void>;
  /** Whether a worker thread is alive now. */
  readonly alive: boolean;
}

export function createInboxWorkerHost(options: InboxWorkerHostOptions): InboxWorkerHost {
  let wakeQueued = false;
  const host = createWorkerHost<ToWorker, FromWorker>({
    name: 'inbox worker',
    entry: workerEntry('federation/inbox-worker.ts', 'inbox-worker.cjs'),
    data: options.data,
    log: options.log ?? (() => {}),
    onMessage(message) {
      if (message.type === 'rowsDone') options.onRowsDone?.(message.results);
      else options.onDeliveriesQueued?.();
    },
    startMessage: { type: 'start' } satisfies ToWorker,
    stopWaitMs: STOP_WAIT_MS,
    ...(options.restartDelayMs === undefined ? {} : { restartDelayMs: options.restartDelayMs }),
  });

  return {
    get running() {
      return host.running;
    },
    get alive() {
      return host.alive;
    },
    start: () => host.start(),
    stop: () => host.stop({ type: 'stop' }),
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
    settings: (settings) => host.post({ type: 'settings', settings }),
    insert: (rows) => host.request<number[]>((request) => ({ type: 'insert', request, rows })),
    kill: () => host.kill(),
    ready: () => host.ready(),
  };
}
