// The inbox worker's entry: runs the inbox processor (activities, remote HTML sanitizing,
// webmention verification and microformats parsing) on a worker thread, so a burst of incoming
// activities never holds the main thread, where the listener accepts, IPC answers and the shell
// lives. It has its own SQLite connection to the same file (WAL, busy timeout, immediate
// transactions), its own outbound client, loaders and key cache, and the settings as plain data
// (updated by message). What the processor used to signal on the main thread (deliveries
// queued, rows done) is posted back for the core to re-emit there. Started by inbox-worker-host.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { onDeliveriesQueued } from '../delivery/queue';
import { openFederationContext, type FederationContext } from '../net/federation-context';
import type { Settings } from '../settings';
import { localActor, type LocalActor } from './identity';
import { createInboxLoop, type RowResult } from './inbox-loop';
import type { FromWorker, InboxWorkerData, ToWorker } from './inbox-worker-protocol';
import { processQueuedRow } from './queued-row';
import { insertIncomingRows } from './incoming-writer';

if (!parentPort) throw new Error('inbox-worker runs as a worker thread only');
const port = parentPort;
const data = workerData as InboxWorkerData;
const post = (message: FromWorker) => port.postMessage(message);
/** Lower priority than the main thread's 0 (higher is lower; 19 is the lowest). */
const WORKER_NICE = 5;
/** New rows arrive with a message (insert, wake) and retries are waited for exactly (inbox-loop
 * idleWait): the poll is only a backstop, so a laptop on battery is not woken for it. */
const WORKER_IDLE_POLL_MS = 30_000;

// Below the main thread: processing is background work, and when the cores are busy (other
// programs, a burst) the thread the listener, IPC and the window answer on comes first. Linux
// only, where a thread's id takes a nice value of its own (Linux groups a session's threads, so
// without this the worker takes its CPU from the main thread); elsewhere the worker runs at the
// app's priority.
if (process.platform === 'linux') {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, data.nice ?? WORKER_NICE);
  } catch {
    // No /proc, or not allowed: the app's priority.
  }
}

// Listening before the (async) set-up: messages sent meanwhile wait for it, in order.
let handle: ((message: ToWorker) => void) | null = null;
const early: ToWorker[] = [];
port.on('message', (message: ToWorker) => (handle ? handle(message) : early.push(message)));

// CommonJS once bundled (a worker script loads from Electron's asar that way), so no top-level await.
openFederationContext(data.keysDir, data.allowPrivateAddresses, false).then(run, (error: unknown) => {
  throw error;
});

function run(fed: FederationContext): void {
  const sqlite = openSqlite(data.database);
  const db = wrapDrizzle(sqlite, { immediate: true });
  const clock = () => new Date();
  let settings: Settings = data.settings;
  let identity: { baseUrl: string; username: string; local: LocalActor } | null = null;
  function currentIdentity(): LocalActor | null {
    const { baseUrl, username } = settings;
    if (!baseUrl || !username) return null;
    if (identity?.baseUrl !== baseUrl || identity.username !== username) identity = { baseUrl, username, local: localActor(baseUrl, username) };
    return identity.local;
  }

  // Signals are gathered and posted after the current synchronous work: the processor queues
  // deliveries inside its transaction, and the main thread must look only after the commit.
  let deliveries = false;
  let done: RowResult[] = [];
  let flushing = false;
  function flushSoon(): void {
    if (flushing) return;
    flushing = true;
    queueMicrotask(() => {
      flushing = false;
      if (deliveries) post({ type: 'deliveriesQueued' });
      if (done.length > 0) post({ type: 'rowsDone', results: done });
      deliveries = false;
      done = [];
    });
  }
  onDeliveriesQueued(() => {
    deliveries = true;
    flushSoon();
  });

  const loop = createInboxLoop({
    db,
    clock,
    log: (line) => post({ type: 'log', line }),
    process: processQueuedRow,
    deps: () => {
      const local = currentIdentity();
      return local ? { db, fed, clock, identity: local, settings } : null;
    },
    onRowDone: (result) => {
      done.push(result);
      flushSoon();
    },
    idlePollMs: data.idlePollMs ?? WORKER_IDLE_POLL_MS,
  });

  handle = (message) => {
    switch (message.type) {
      case 'start':
        return loop.start();
      case 'wake':
        return loop.wake();
      case 'settings':
        settings = message.settings;
        return loop.wake();
      case 'insert': {
        let ids: number[];
        try {
          ids = db.transaction((tx) => insertIncomingRows(tx, message.rows));
        } catch (error) {
          return post({ type: 'inserted', request: message.request, error: String((error as Error)?.message ?? error) });
        }
        post({ type: 'inserted', request: message.request, ids });
        return loop.wake();
      }
      case 'drain':
        return void loop.drain().then(
          (summary) => post({ type: 'drained', request: message.request, summary }),
          (error: unknown) => post({ type: 'drained', request: message.request, error: String((error as Error)?.message ?? error) }),
        );
      case 'stop':
        return void loop.stop().then(() => {
          fed.client.close();
          sqlite.close();
          post({ type: 'stopped' });
          port.close();
        });
    }
  };
  for (const message of early.splice(0)) handle(message);
  post({ type: 'ready' });
}
