// The inbox worker's entry: runs the inbox processor (activities, remote HTML sanitizing,
// webmention verification and microformats parsing) on a worker thread, so a burst of incoming
// activities never holds the main thread, where the listener accepts, IPC answers and the shell
// lives. The same script, started with acceptOnly, is the inbox checks worker: the listener reads
// a POST's bytes on the main thread and posts them (`accept`); the JSON, the signature and the
// key's owner are that thread's work, and its verdict (with the row to store) goes back to the
// main thread, which hands the row to the processor's connection. It has its own SQLite connection to the same file (WAL, busy timeout, immediate
// transactions), its own outbound client, loaders and key cache, and the settings as plain data
// (updated by message). What the processor used to signal on the main thread (deliveries
// queued, rows done) is posted back for the core to re-emit there. Started by inbox-worker-host.
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { BACKSTOP_PAGES } from '../../../db/checkpointer';
import { commitGroup } from '../../../db/commit-group';
import { onDeliveriesQueued } from '../delivery/queue';
import { openFederationContext, useKeyStore, type FederationContext } from '../net/federation-context';
import { storedActorKeys } from './stored-keys';
import type { Settings } from '../settings';
import { handleLoopMessage, workerSide } from '../worker-side';
import { identityCache } from './identity';
import { createInboxLoop, type RowResult } from './inbox-loop';
import type { FromWorker, InboxWorkerData, ToWorker } from './inbox-worker-protocol';
import { processQueuedRow } from './queued-row';
import { handOver, insertIncomingRows } from './incoming-writer';
import { checkInboxPost, inboxPostRequest } from './inbox';

/** New rows arrive with a message (insert, wake) and retries are waited for exactly (inbox-loop
 * idleWait): the poll is only a backstop, so a laptop on battery is not woken for it. */
const WORKER_IDLE_POLL_MS = 30_000;

const side = workerSide<ToWorker, FromWorker>();
const data = side.data as InboxWorkerData;
const post = side.post;

// CommonJS once bundled (a worker script loads from Electron's asar that way), so no top-level await.
openFederationContext(data.keysDir, data.allowPrivateAddresses, false, data.trustedCa).then(run, (error: unknown) => {
  throw error;
});

function run(fed: FederationContext): void {
  const sqlite = openSqlite(data.database);
  if (!data.acceptOnly) {
    // A commit group's rows are savepoints: the pages each one changes are first copied to the
    // statement journal, in memory here rather than a temporary file (measured: 7.6 % of this
    // thread's time went to writing that file). And checkpoints are left to the checkpoint
    // worker and the main connection (db/checkpointer.ts), not done inline in this thread's commits.
    sqlite.pragma('temp_store = MEMORY');
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }
  const db = wrapDrizzle(sqlite, { immediate: true });
  const clock = () => new Date();
  // Keys of actors already known are read from their stored documents, not fetched again.
  useKeyStore(fed, storedActorKeys(db, clock));
  let settings: Settings = data.settings;
  const identityOf = identityCache();
  fed.signingKeyId = () => identityOf(settings)?.keyId ?? null;
  if (data.acceptOnly) {
    // The checks worker: the listener's inbox POSTs, answered with what the checks decided; a row
    // to store goes back with it, and the main thread hands it to the processor's connection
    // (with its LD verdict and the actor's document, which the processor then does not redo).
    // This thread reads the database (replays, known actors) and never writes it.
    side.listen((message) => {
      switch (message.type) {
        case 'accept': {
          const { post } = message;
          const deps = { db, fed, clock, settings: () => settings };
          const limit = post.embeddedChecksAtOnce === undefined ? {} : { embeddedChecksAtOnce: post.embeddedChecksAtOnce };
          return side.reply(message.request, () => checkInboxPost({ ...deps, ...limit }, inboxPostRequest(post), post.body));
        }
        case 'settings':
          settings = message.settings;
          return;
        case 'keyStats':
          return side.reply(message.request, () => ({ ...fed.keyCache.stats }));
        case 'evictKeys':
          for (const keyId of message.keyIds) fed.keyCache.evict(keyId);
          return;
        case 'stop':
          fed.client.close();
          sqlite.close();
          return side.stopped();
        default: // the processor's (start, wake, drain, insert)
          return notHere(message, 'the inbox processor');
      }
    });
    return;
  }

  // Keys this thread drops (an actor's Update or Delete of itself, after its commit) are dropped
  // by the checks worker and the main thread too: each has a cache of its own.
  const evict = fed.keyCache.evict.bind(fed.keyCache);
  fed.keyCache.evict = (keyId) => {
    evict(keyId);
    post({ type: 'keysEvicted', keyIds: [typeof keyId === 'string' ? keyId : keyId.href] });
  };

  // Rows stored and rows processed are written in commit groups (db/commit-group.ts): the inserts
  // of the POSTs that reached this thread in one turn of its event loop share a commit, and so do
  // a batch's rows with their outcomes.
  const group = commitGroup(sqlite);

  // Signals are gathered and posted once the group holding their writes has committed: the
  // processor queues deliveries inside its transaction, and the main thread must look only after
  // the commit.
  let deliveries = false;
  let done: RowResult[] = [];
  let flushing = false;
  function flushSoon(): void {
    if (flushing) return;
    flushing = true;
    group.afterGroup(() => {
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
    log: side.log,
    process: processQueuedRow,
    deps: () => {
      const local = identityOf(settings);
      return local ? { db, fed, clock, identity: local, settings } : null;
    },
    onRowDone: (result) => {
      done.push(result);
      flushSoon();
    },
    idlePollMs: data.idlePollMs ?? WORKER_IDLE_POLL_MS,
    group,
  });

  side.listen((message) => {
    if (handleLoopMessage<Settings>(side, message, loop, (next) => (settings = next))) return;
    switch (message.type) {
      case 'accept':
      case 'keyStats':
      case 'evictKeys':
        return notHere(message, 'the inbox checks worker');
      case 'insert':
        // Answered (and the main thread answers the POSTs 202) once the group's commit is done.
        return side.reply(message.request, () => {
          group.join();
          const inserted = db.transaction((tx) => insertIncomingRows(tx, message.rows));
          loop.wake();
          return new Promise<number[]>((resolve, reject) =>
            group.afterGroup((committed) => {
              if (!committed) return reject(new Error('the database rolled the rows back'));
              handOver(db, inserted.fresh);
              resolve(inserted.ids);
            }),
          );
        });
      case 'stop':
        return void loop.stop().then(() => {
          group.end();
          fed.client.close();
          sqlite.close();
          side.stopped();
        });
    }
  });
}

/** A message for the other mode of this script: a request is answered with an error at once
 * (never left waiting), anything else is ignored. */
function notHere(message: ToWorker, owner: string): void {
  if (!('request' in message)) return;
  side.reply(message.request, () => {
    throw new Error(`${message.type} is for ${owner}`);
  });
}
