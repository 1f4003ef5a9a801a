// The worker thread's side of worker-host.ts: its priority, its messages (those that arrive
// before its asynchronous set-up is done wait for it, in order), replies to requests by id, and
// the end of its work. Used by each long-lived worker of the core (inbox, delivery).
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { CommonFromWorker } from './worker-host';

/** Lower priority than the main thread's 0 (higher is lower; 19 is the lowest). */
export const WORKER_NICE = 5;

export interface WorkerSide<In, Out> {
  /** The workerData the host built. */
  readonly data: unknown;
  post(message: Out | CommonFromWorker): void;
  log(line: string): void;
  /** Starts handling messages: those that came before are handled first, in order. Says ready. */
  listen(handle: (message: In) => void): void;
  /** Answers request `request` with what `work` returns or resolves to, or with its error. */
  reply(request: number, work: () => unknown): void;
  /** The work is over (connection closed): says so, and lets the thread end. */
  stopped(): void;
}

/** Sets the thread up: its nice value is the workerData's `nice` (default WORKER_NICE). */
export function workerSide<In, Out>(): WorkerSide<In, Out> {
  if (!parentPort) throw new Error('this script runs as a worker thread only');
  const port = parentPort;
  lowerPriority((workerData as { nice?: number } | null)?.nice ?? WORKER_NICE);
  let handle: ((message: In) => void) | null = null;
  const early: In[] = [];
  port.on('message', (message: In) => (handle ? handle(message) : early.push(message)));
  const post = (message: Out | CommonFromWorker) => port.postMessage(message);
  const failed = (request: number, error: unknown) => post({ type: 'reply', request, error: String((error as Error)?.message ?? error) });
  return {
    data: workerData,
    post,
    log: (line) => post({ type: 'log', line }),
    listen(next) {
      handle = next;
      for (const message of early.splice(0)) next(message);
      post({ type: 'ready' });
    },
    reply(request, work) {
      let value: unknown;
      try {
        value = work();
      } catch (error) {
        return failed(request, error);
      }
      void Promise.resolve(value).then(
        (settled) => post({ type: 'reply', request, value: settled }),
        (error: unknown) => failed(request, error),
      );
    },
    stopped() {
      post({ type: 'stopped' });
      port.close();
    },
  };
}

/** The messages a worker running one of the core's loops takes like every other such worker. */
export type LoopMessage<S> = { type: 'start' } | { type: 'wake' } | { type: 'drain'; request: number } | { type: 'settings'; settings: S };

/** Handles `message` when it is a LoopMessage (start, wake, drain answered once the loop idles,
 * new settings, then a look at the queue); false for the worker's own messages. */
export function handleLoopMessage<S>(
  side: Pick<WorkerSide<unknown, unknown>, 'reply'>,
  message: { type: string },
  loop: { start(): void; wake(): void; drain(): Promise<unknown> },
  settings: (next: S) => void,
): boolean {
  const m = message as LoopMessage<S>;
  switch (m.type) {
    case 'start':
      loop.start();
      return true;
    case 'wake':
      loop.wake();
      return true;
    case 'drain':
      side.reply(m.request, () => loop.drain());
      return true;
    case 'settings':
      settings(m.settings);
      loop.wake();
      return true;
    default:
      return false;
  }
}

// Below the main thread: a worker's work is background work, and when the cores are busy (other
// programs, a burst) the thread the listener, IPC and the window answer on comes first. Linux
// only, where a thread's id takes a nice value of its own (Linux groups a session's threads, so
// without this the worker takes its CPU from the main thread); elsewhere the worker runs at the
// app's priority.
function lowerPriority(nice: number): void {
  if (process.platform !== 'linux' || nice === 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // Below the process's own priority (which Tern may have been started with: `nice tern`), not
    // at an absolute value: under `nice -n 5`, 5 was the main thread's own, and as root a
    // larger nice was even raised to it.
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + nice));
  } catch {
    // No /proc, or not allowed: the app's priority.
  }
}
