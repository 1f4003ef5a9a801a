// The main thread's side of a long-lived worker thread of the core (the inbox processor's, the
// delivery loop's): starts it, keeps it running (a worker that dies while wanted is started
// again, ever more slowly while it keeps dying before it is ready), passes messages, answers
// requests by id, and stops it (a stop message, then the end of the thread, or terminate()
// when it is late). What the worker does is its owner's: this knows only the messages every
// worker speaks (worker-side.ts).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bundleWorkerEnv } from './compile-cache';

/** What every worker says besides its own messages. */
export type CommonFromWorker =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  /** The answer to a request (`value`), or why it failed (`error`). */
  | { type: 'reply'; request: number; value?: unknown; error?: string }
  /** Its work is stopped and its connection closed: the thread may end. */
  | { type: 'stopped' };

const RESTART_DELAY_MS = 1_000;
/** A worker that keeps dying before it is ready (a broken data folder) is retried ever more slowly. */
const RESTART_DELAY_MAX_MS = 60_000;
/** A worker up this long before it died is started again after the shortest wait. */
const STAYED_UP_MS = 60_000;

/** How a worker thread is started: its script, Node's options, and whether it loads a bundle
 * (then through the compile cache: compile-cache.ts bundleWorkerEnv). */
export interface WorkerEntry {
  file: string;
  execArgv: string[];
  bundle?: boolean;
}

/** The Worker options of `entry`: its Node options, and for a bundle its environment, made as
 * the worker starts (the process's environment then). */
export function entryOptions(entry: WorkerEntry): { execArgv: string[]; env?: NodeJS.ProcessEnv } {
  return entry.bundle === true ? { execArgv: entry.execArgv, env: bundleWorkerEnv() } : { execArgv: entry.execArgv };
}

/** A worker's script: `source` (relative to electron/core) under tsx and vitest, `bundle` beside
 * the app's bundle (dist/electron) once built, with V8's compile cache (bundleWorkerEnv). */
export function workerEntry(source: string, bundle: string): WorkerEntry {
  // The Electron main bundle is CommonJS (__filename in scope); headless, tsx and vitest are ESM.
  const here = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    return { file: join(dirname(here), source), execArgv: ['--import', tsx] };
  }
  return { file: join(dirname(here), bundle), execArgv: [], bundle: true };
}

/** A request's worker ended before answering it (stopped, killed or crashed): whether its work
 * was done is unknown to the host; the caller decides (ask the next worker, or refuse). */
export class WorkerEndedError extends Error {
  override name = 'WorkerEndedError';
}

export interface WorkerHostOptions<Out> {
  /** The thread's name, and how the log calls it ("inbox worker"). */
  name: string;
  entry: WorkerEntry;
  /** What the worker is built from, read at each start. */
  data: () => unknown;
  log: (line: string) => void;
  /** The worker's own messages, on the main thread. */
  onMessage: (message: Out) => void;
  /** The worker thread ended (stopped, killed or crashed). */
  onExit?: () => void;
  /** Sent to each worker started while the host is started (start(), every restart, and a
   * request that starts one). */
  startMessage: unknown;
  /** How long stop() waits for the worker to end before terminating it. */
  stopWaitMs: number;
  restartDelayMs?: number;
}

export interface WorkerHost<In> {
  /** Keeps a worker running, sending it the start message, until stop(). */
  start(): void;
  /** Sends `message`, then waits for the worker to end (terminating it after stopWaitMs). */
  stop(message: In, extraWaitMs?: number): Promise<void>;
  /** Sends to the worker running now; nothing when none runs. */
  post(message: In): void;
  /** Sends a request (built with its id) and resolves with the worker's reply. `spawn` starts
   * a worker when none runs (else: null), sent the start message first when the host is
   * started; `hold` keeps the process alive while it waits. A worker that ends first rejects it. */
  request<T>(build: (request: number) => In, options?: { spawn?: boolean; hold?: boolean }): Promise<T> | null;
  /** Ends the worker at once, as a crash would; a started host starts it again (tests). */
  kill(): Promise<void>;
  /** Resolves once a worker has set itself up and taken its first messages (at once when one
   * has; after the next one does while none has; at stop()). */
  ready(): Promise<void>;
  readonly running: boolean;
  readonly alive: boolean;
  /** A worker is alive and has set itself up (said ready). */
  readonly isReady: boolean;
}

export function createWorkerHost<In, Out extends { type: string }>(options: WorkerHostOptions<Out>): WorkerHost<In> {
  const { log, name } = options;
  let worker: Worker | null = null;
  let running = false;
  let restartTimer: NodeJS.Timeout | null = null;
  let nextRequest = 1;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; hold: boolean }>();
  let exited: Promise<void> = Promise.resolve();
  // Deaths since a worker last stayed up for STAYED_UP_MS: each doubles the wait before the next
  // start (a worker that dies at its first row, again and again, is not started every second).
  let failedStarts = 0;
  let readyAt: number | null = null;
  const readyWaiters: (() => void)[] = [];
  const tellReady = () => readyWaiters.splice(0).forEach((resolve) => resolve());
  // A stop under way: a start meanwhile waits for it, never reuses the worker being stopped.
  let stopping: Promise<void> | null = null;

  // Only requests that hold keep the process alive; a started host relies on the app's own handles.
  const refWhileHeld = () => ([...waiting.values()].some((w) => w.hold) ? worker?.ref() : worker?.unref());

  function onMessage(message: CommonFromWorker | Out): void {
    const common = message as CommonFromWorker;
    switch (common.type) {
      case 'ready':
        readyAt = performance.now();
        tellReady();
        return;
      case 'log':
        return log(common.line);
      case 'reply': {
        const request = waiting.get(common.request);
        waiting.delete(common.request);
        refWhileHeld();
        if (common.error === undefined) request?.resolve(common.value);
        else request?.reject(new Error(`${name}: ${common.error}`));
        return;
      }
      case 'stopped':
        // Its connection is closed; whatever handles its client still holds must not keep it.
        void worker?.terminate();
        return;
      default:
        return options.onMessage(message as Out);
    }
  }

  function spawn(): Worker {
    if (worker) return worker;
    const started = new Worker(options.entry.file, { workerData: options.data(), ...entryOptions(options.entry), name: `tern-${name.replace(/\s+/g, '-')}` });
    worker = started;
    started.unref();
    started.on('message', onMessage);
    started.on('error', (error) => log(`${name} failed: ${error.stack ?? error.message}`));
    exited = new Promise((resolve) =>
      started.once('exit', (code) => {
        resolve();
        if (worker !== started) return;
        worker = null;
        options.onExit?.();
        // Done or not, unknown: each caller decides (a drain asks again, a peer sends again).
        for (const request of waiting.values()) request.reject(new WorkerEndedError(`${name} stopped (exit code ${code})`));
        waiting.clear();
        if (readyAt !== null && performance.now() - readyAt >= STAYED_UP_MS) failedStarts = 0;
        readyAt = null;
        if (!running || stopping) return;
        // Its work is in the database, still due: a new worker takes it again (after a pause,
        // should it die at once).
        const delay = Math.min(RESTART_DELAY_MAX_MS, (options.restartDelayMs ?? RESTART_DELAY_MS) * 2 ** failedStarts++);
        log(`${name} exited (code ${code}); starting it again in ${delay} ms`);
        if (restartTimer) clearTimeout(restartTimer);
        restartTimer = setTimeout(() => {
          restartTimer = null;
          if (running && !worker) spawn().postMessage(options.startMessage);
        }, delay);
        restartTimer.unref();
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
    get isReady() {
      return worker !== null && readyAt !== null;
    },
    start() {
      if (running) return;
      running = true;
      if (stopping) {
        void stopping.then(() => {
          if (running && !worker) spawn().postMessage(options.startMessage);
        });
        return;
      }
      spawn().postMessage(options.startMessage);
    },
    async stop(message, extraWaitMs = 0) {
      running = false;
      tellReady();
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      if (stopping) return stopping;
      const target = worker;
      if (!target) return;
      const stopped = async () => {
        target.postMessage(message);
        target.ref();
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), options.stopWaitMs + extraWaitMs)));
        if ((await Promise.race([exited, late])) === 'late') {
          log(`${name} did not stop in time; ending it`);
          await target.terminate();
        }
        clearTimeout(timer);
      };
      stopping = stopped().finally(() => (stopping = null));
      return stopping;
    },
    post(message) {
      worker?.postMessage(message);
    },
    ready() {
      if (worker && readyAt !== null) return Promise.resolve();
      return new Promise<void>((resolve) => readyWaiters.push(resolve));
    },
    request<T>(build: (request: number) => In, requestOptions: { spawn?: boolean; hold?: boolean } = {}) {
      let target = worker;
      if (!target && requestOptions.spawn) {
        target = spawn();
        if (running) target.postMessage(options.startMessage);
      }
      if (!target) return null;
      const request = nextRequest++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(request, { resolve: resolve as (value: unknown) => void, reject, hold: requestOptions.hold ?? false });
        refWhileHeld();
        target.postMessage(build(request));
      });
    },
    async kill() {
      const killed = worker;
      if (!killed) return;
      // This worker's end, not that of a successor a waiting request may start meanwhile.
      const ended = exited;
      await killed.terminate();
      await ended;
    },
  };
}
