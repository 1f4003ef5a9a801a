// The main thread's side of the inbox worker (inbox-worker.ts): starts it when the inbox loop
// starts (or a drain is asked for), passes it what changes (settings, the inbox's LD verdicts,
// wake-ups), re-emits on the main thread what it reports (rows done, deliveries queued), and
// starts it again when it dies while running. It is the core's inbox loop (the InboxLoop
// interface), so the shell and the tests drive it as they drove the in-thread loop.
// Nothing is lost or done twice when the worker dies: the rows are the queue (a try is counted
// before the work, outcomes are committed after it, and handlers are idempotent on ap_id).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Settings } from '../settings';
import type { IncomingRow } from './incoming-writer';
import type { DrainSummary, InboxLoop, RowResult } from './inbox-loop';
import type { FromWorker, InboxWorkerData, ToWorker } from './inbox-worker-protocol';

/** How long stop() lets the row in progress finish (it may be waiting on a peer) before ending it. */
const STOP_WAIT_MS = 15_000;
const RESTART_DELAY_MS = 1_000;
/** A worker that keeps dying before it is ready (a broken data folder) is retried ever more slowly. */
const RESTART_DELAY_MAX_MS = 60_000;

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
  /** Whether a worker thread is alive now. */
  readonly alive: boolean;
}

/** Where the worker's script is: beside the bundle (dist/electron), or the source under tsx/vitest. */
export function inboxWorkerEntry(): { file: string; execArgv: string[] } {
  // The Electron main bundle is CommonJS (__filename in scope); headless, tsx and vitest are ESM.
  const here = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    return { file: join(dirname(here), 'inbox-worker.ts'), execArgv: ['--import', tsx] };
  }
  return { file: join(dirname(here), 'inbox-worker.cjs'), execArgv: [] };
}

export function createInboxWorkerHost(options: InboxWorkerHostOptions): InboxWorkerHost {
  const log = options.log ?? (() => {});
  let worker: Worker | null = null;
  let running = false;
  let restartTimer: NodeJS.Timeout | null = null;
  let nextRequest = 1;
  const drains = new Map<number, { resolve(summary: DrainSummary): void; reject(error: Error): void }>();
  const inserts = new Map<number, { resolve(ids: number[]): void; reject(error: Error): void }>();
  let exited: Promise<void> = Promise.resolve();
  let wakeQueued = false;
  // Deaths since the last worker that came up: each doubles the wait before the next start.
  let failedStarts = 0;

  const send = (message: ToWorker) => worker?.postMessage(message);
  // Only waiting drains keep the process alive; a started loop relies on the app's own handles.
  const holdWhileDraining = () => (drains.size > 0 ? worker?.ref() : worker?.unref());

  function onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        failedStarts = 0;
        return;
      case 'log':
        return log(message.line);
      case 'rowsDone':
        return options.onRowsDone?.(message.results);
      case 'deliveriesQueued':
        return options.onDeliveriesQueued?.();
      case 'drained': {
        const waiting = drains.get(message.request);
        drains.delete(message.request);
        holdWhileDraining();
        if (message.summary) waiting?.resolve(message.summary);
        else waiting?.reject(new Error(`inbox worker: ${message.error ?? 'drain failed'}`));
        return;
      }
      case 'inserted': {
        const waiting = inserts.get(message.request);
        inserts.delete(message.request);
        if (message.ids) waiting?.resolve(message.ids);
        else waiting?.reject(new Error(`inbox worker: ${message.error ?? 'insert failed'}`));
        return;
      }
      case 'stopped':
        // Its connection is closed; whatever handles its client still holds must not keep it.
        void worker?.terminate();
        return;
      default:
        return;
    }
  }

  function spawn(): Worker {
    if (worker) return worker;
    const entry = inboxWorkerEntry();
    const started = new Worker(entry.file, { workerData: options.data(), execArgv: entry.execArgv, name: 'tern-inbox' });
    worker = started;
    started.unref();
    started.on('message', onMessage);
    started.on('error', (error) => log(`inbox worker failed: ${error.stack ?? error.message}`));
    exited = new Promise((resolve) =>
      started.once('exit', (code) => {
        resolve();
        if (worker !== started) return;
        worker = null;
        for (const waiting of drains.values()) waiting.reject(new Error(`inbox worker stopped (exit code ${code})`));
        drains.clear();
        // Committed or not, unknown: the request fails and the peer sends it again (a duplicate is dropped by ap_id).
        for (const waiting of inserts.values()) waiting.reject(new Error(`inbox worker stopped (exit code ${code})`));
        inserts.clear();
        if (running) {
          // Its rows are still due: a new worker takes them again (after a pause, should it die at once).
          const delay = Math.min(RESTART_DELAY_MAX_MS, (options.restartDelayMs ?? RESTART_DELAY_MS) * 2 ** failedStarts++);
          log(`inbox worker exited (code ${code}); starting it again in ${delay} ms`);
          restartTimer = setTimeout(() => {
            restartTimer = null;
            if (running && !worker) spawn().postMessage({ type: 'start' } satisfies ToWorker);
          }, delay);
          restartTimer.unref();
        }
      }),
    );
    return started;
  }

  return {
    get running() {
      return running;
    },
    get alive() {
      return worker !== null;
    },
    start() {
      if (running) return;
      running = true;
      spawn().postMessage({ type: 'start' } satisfies ToWorker);
    },
    async stop() {
      running = false;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      const stopping = worker;
      if (!stopping) return;
      stopping.postMessage({ type: 'stop' } satisfies ToWorker);
      stopping.ref();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WAIT_MS)));
      if ((await Promise.race([exited, late])) === 'late') {
        log('inbox worker did not stop in time; ending it');
        await stopping.terminate();
      }
      clearTimeout(timer);
    },
    wake() {
      // One message for all the rows queued in this turn (a burst queues hundreds a second).
      if (!worker || wakeQueued) return;
      wakeQueued = true;
      setImmediate(() => {
        wakeQueued = false;
        send({ type: 'wake' });
      });
    },
    drain() {
      const target = spawn();
      const request = nextRequest++;
      return new Promise<DrainSummary>((resolve, reject) => {
        drains.set(request, { resolve, reject });
        holdWhileDraining();
        target.postMessage({ type: 'drain', request } satisfies ToWorker);
      });
    },
    settings(settings) {
      send({ type: 'settings', settings });
    },
    insert(rows) {
      const target = worker;
      if (!target) return null;
      const request = nextRequest++;
      return new Promise<number[]>((resolve, reject) => {
        inserts.set(request, { resolve, reject });
        target.postMessage({ type: 'insert', request, rows } satisfies ToWorker);
      });
    },
    async kill() {
      const killed = worker;
      if (!killed) return;
      await killed.terminate();
      await exited;
    },
  };
}
