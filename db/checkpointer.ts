// WAL checkpoints on a worker thread. In WAL mode SQLite copies committed pages back into the
// database file every wal_autocheckpoint pages, inside whichever commit crosses the mark, and
// syncs both files while doing it: on the main thread that stalled one commit in ~60 by the
// sync's wait (measured here: 313 µs per commit with inline checkpoints, 127 µs without). While
// the listener runs (the inbox is where commits come fast), a worker with its own connection runs
// PASSIVE checkpoints every second instead, and every 200 ms while commits keep coming; the main
// connection keeps a far-off automatic checkpoint as a backstop, should the worker fall behind or
// fail. Nothing about durability changes: a commit is in the WAL either way, and the WAL is what a
// restart recovers from.
//
// Why 200 ms while busy: under a steady stream of commits (an inbox burst) a PASSIVE checkpoint
// never leaves the WAL fully copied when the next write begins, so the WAL does not restart and
// grows until the inbox processor's backstop (BACKSTOP_PAGES) checkpoints inline, in the commit
// its waiting inbox POSTs are answered after. With a pass a second, that inline checkpoint had up
// to a second of pages left to copy: traced in the bench, commits of 40–55 ms (16–25 ms of it on
// the CPU, copying), 9 of them over 20 ms in a 5,000-activity burst. With passes every 200 ms
// while the WAL moves it has little left: 2–4 over 20 ms, the longest 23–29 ms.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Sqlite } from './client';

/** SQLite's default: checkpoint inline every 1,000 pages (~4 MB of WAL). */
const INLINE_PAGES = 1000;
/** With the worker running: only if it falls this far behind (~40 MB of WAL). Also the mark of
 * the inbox processor's connection (inbox-worker.ts), which leaves checkpoints to the others. */
export const BACKSTOP_PAGES = 10_000;
const STOP_WAIT_MS = 5_000;

// Runs in the worker (CommonJS, eval'd). Closing the connection on 'stop' and then flipping the
// shared flag lets the main thread wait for it synchronously before closing its own connection.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const flag = new Int32Array(workerData.stopped);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const passes = new Int32Array(workerData.passes);
// data_version changes when another connection has committed since this one last asked (this one
// never writes): then commits are coming, and the next pass is sooner. (The WAL's frame counts
// are no such sign: after the WAL restarts, steady commits can leave the same counts each pass.)
let seen = null;
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    Atomics.add(passes, 0, 1);
    const version = db.pragma('data_version', { simple: true });
    const moved = version !== seen;
    seen = version;
    return moved;
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
    return false;
  }
};
let timer = null;
const tick = () => {
  timer = setTimeout(tick, checkpoint() ? workerData.busyIntervalMs : workerData.intervalMs);
};
timer = setTimeout(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  checkpoint();
  db.close();
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  parentPort.close();
});
parentPort.postMessage({ ready: true });
`;

function sqliteModulePath(): string {
  // The Electron main bundle is CommonJS (require in scope); headless and tests are ESM.
  return typeof require === 'function' ? require.resolve('better-sqlite3') : createRequire(import.meta.url).resolve('better-sqlite3');
}

export interface Checkpointer {
  /** Hands checkpoints to the worker (idempotent). */
  start(): void;
  /** Stops the worker and waits (synchronously, bounded) until its connection is closed. */
  stop(): void;
  readonly running: boolean;
  /** Checkpoints the worker has run (for tests and the bench). */
  readonly passes: number;
}

export interface CheckpointerOptions {
  /** Between passes when the last one found nothing new (default 1 s). */
  intervalMs?: number;
  /** Between passes while the WAL moves (default 200 ms). */
  busyIntervalMs?: number;
  log?: (line: string) => void;
}

export function createCheckpointer(sqlite: Sqlite, options: CheckpointerOptions = {}): Checkpointer {
  const log = options.log ?? (() => {});
  let worker: Worker | null = null;
  let stopped: Int32Array | null = null;
  let passes: Int32Array | null = null;
  const usable = () => sqlite.open && !sqlite.memory && !sqlite.readonly;

  return {
    get running() {
      return worker !== null;
    },
    get passes() {
      return passes === null ? 0 : Atomics.load(passes, 0);
    },
    start() {
      if (worker !== null || !usable()) return;
      const shared = new SharedArrayBuffer(4);
      stopped = new Int32Array(shared);
      const interval = options.intervalMs ?? 1_000;
      const counted = new SharedArrayBuffer(4);
      passes = new Int32Array(counted);
      const started = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          sqliteModule: sqliteModulePath(),
          path: sqlite.name,
          intervalMs: interval,
          busyIntervalMs: Math.min(options.busyIntervalMs ?? 200, interval),
          stopped: shared,
          passes: counted,
        },
      });
      // Never what keeps Tern running.
      started.unref();
      started.on('message', (message: { error?: string }) => {
        if (message.error !== undefined) log(`database checkpoint failed: ${message.error}`);
      });
      started.on('error', (error) => {
        // Back to SQLite's own inline checkpoints; nothing is lost either way.
        log(`database checkpoint worker stopped: ${error.message}`);
        if (worker === started) {
          worker = null;
          if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${INLINE_PAGES}`);
        }
      });
      worker = started;
      sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    },
    stop() {
      const running = worker;
      if (running === null || stopped === null) return;
      worker = null;
      running.postMessage('stop');
      if (Atomics.wait(stopped, 0, 0, STOP_WAIT_MS) === 'timed-out') {
        log('database checkpoint worker did not stop in time; terminating it');
        void running.terminate();
      }
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${INLINE_PAGES}`);
    },
  };
}
