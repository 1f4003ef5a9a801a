// The composition root: opens (creates, migrates) the database in the data folder and builds
// the services the IPC handlers and the listener call. Plain Node; never imports electron.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../../db/client';
import { HEAD, currentRevision, pendingRevisions, upgrade } from '../../migrations/runner';
import { dataPaths, type DataPaths } from './paths';
import { lockDataFolder } from './folder-lock';
import { recoverDataFolder } from './data/swap';
import { createStatusService, type StatusService } from './status';
import { createSettingsStore, type SettingsStore } from './settings';
import { identityCache, type LocalActor } from './federation/identity';
import { openFederationContext, useKeyStore, type FederationContext } from './net/federation-context';
import { storedActorKeys } from './federation/stored-keys';
import { createInboxEvents, type InboxEvents } from './federation/inbox-events';
import { createListenerControl, type ListenerAddress, type ListenerControl } from './listener/server';
import { createCheckpointer, type Checkpointer } from '../../db/checkpointer';
import { createInboxLoop, type InboxLoop } from './federation/inbox-loop';
import { createNotificationService, type NotificationService } from './notifications/service';
import { createConnectivityWatch, type ConnectivityWatch } from './connectivity/watch';
import { probeSource } from './connectivity/probe';
import type { DeliveryLoop } from './delivery/loop';
import { createAppDeliveryLoop } from './delivery/app-loop';
import { createDeliveryWorkerHost } from './delivery/worker-host';
import { anyPending } from './delivery/store';
import { createAuthorService, type AuthorService } from './federation/actions';
import { processQueuedRow } from './federation/queued-row';
import { createInboxWorkerHost } from './federation/inbox-worker-host';
import type { InboxCheck, InboxPost } from './federation/inbox';
import type { KeyCacheStats } from './net/key-cache';
import { routeIncomingWrites } from './federation/incoming-writer';
import { notifyDeliveriesQueued } from './delivery/queue';
import type { RowResult } from './federation/inbox-loop';
import { createIndieAuthService, type IndieAuthService } from './indieauth/service';
import { createPollLoop, type PollLoop } from './federation/polls/broadcast';
import { createPollService, type PollService } from './federation/polls/service';
import { createMediaService, type MediaService } from './media/service';
import { profileImageIds } from './media/profile-images';
import { removeOrphanFiles } from './media/store';
import { createSearchIndexer, createSearchLoop, type SearchLoop } from './search/indexer';
import { createSearchService, type SearchService } from './search/service';
import { createPreviewRunner, type PreviewRunner } from './previews/runner';
import { createChangeFeed, type ChangeFeed } from './changes';
import { createQuoteDeadlineWatch, type QuoteDeadlineWatch } from './federation/quote-deadlines';

export interface CoreOptions {
  dataDir: string;
  mode: 'desktop' | 'headless';
  clock?: () => Date;
  /** Where the core reports what it did (migrations, loops); defaults to silence. */
  log?: (line: string) => void;
  /** Lets the outbound client reach loopback/private addresses. Tests with loopback peers
   * only (headless --allow-private-addresses); never a user setting. */
  allowPrivateAddresses?: boolean;
  /** A certificate authority (PEM) the outbound clients trust instead of the system's, for
   * loopback HTTPS peers. Tests and the bench only; never a user setting. */
  trustedCa?: string;
  /** Start the listener here (headless --listen); otherwise it starts when settings.listener.enabled. */
  listen?: ListenerAddress;
  /** Run the inbox processor on a worker thread with its own connection, and the inbox's checks
   * on another (the apps do: a burst of activities must not hold the thread the listener, IPC
   * and the shell answer on). Off by default: tests drive the in-thread loop, with their own
   * clock (the workers read the machine's). */
  inboxWorker?: boolean;
  /** The worker's idle poll (tests); see INBOX_IDLE_POLL_MS. */
  inboxIdlePollMs?: number;
  /** How long the inbox checks worker waits for a POST before it stops (tests; default 10 min). */
  inboxChecksIdleStopMs?: number;
  /** Run the delivery loop on a worker thread with its own connection (the apps do: signing,
   * TLS handshakes and bookkeeping for a fan-out to hundreds of servers must not hold that
   * thread). Off by default: tests drive the in-thread loop, with their own clock (the workers
   * read the machine's clock, not `clock`). */
  deliveryWorker?: boolean;
  /** How long the delivery worker may have nothing to send before it is stopped (tests). */
  deliveryIdleStopMs?: number;
}

// Services take FederationContext from ports.ts (a leaf), never from here; re-exported for callers
// that already hold a Core.
export type { FederationContext } from './ports';

export interface Core {
  paths: DataPaths;
  sqlite: Sqlite;
  db: Db;
  clock: () => Date;
  settings: SettingsStore;
  fed: FederationContext;
  /** The local actor, or null until the base URL and user name are set (first run). */
  identity(): LocalActor | null;
  /** "An activity was queued in incoming_activity": the inbox processor subscribes to wake up. */
  inboxEvents: InboxEvents;
  /** Checks an inbox POST on the inbox checks worker (core option inboxWorker); null when it is
   * not up (the listener then checks on this thread). The listener stores the row it returns. */
  inboxAccept?: (post: InboxPost) => Promise<InboxCheck> | null;
  /** The counters of the key caches that check inbox signatures (this thread's and the checks
   * worker's): the bench. */
  inboxKeyStats(): Promise<KeyCacheStats>;
  /** Rows the inbox processor finished (outcomes committed), told on this thread wherever it runs. */
  onInboxRowsDone(listener: (results: RowResult[]) => void): () => void;
  /** Hints for the window: what it shows changed (the shell and the headless transport pass them on). */
  changes: Pick<ChangeFeed, 'subscribe'>;
  /** The federation listener (Hono on host:port): start, restart, stop, status. */
  listener: ListenerControl;
  services: {
    status: StatusService;
    notifications: NotificationService;
    author: AuthorService;
    indieauth: IndieAuthService;
    polls: PollService;
    media: MediaService;
    search: SearchService;
  };
  /** Whether the network may be used (machine online, "Work offline" off); the Electron shell
   * installs its own source with connectivity.setSource(pushSource(net.isOnline())). */
  connectivity: ConnectivityWatch;
  /** Background loops; created stopped — headless and desktop start them. */
  /** `polls`: tally Updates at most once per window, and closing polls that ended. `search`:
   * indexes written rows, and builds the index of the rows that predate it. `previews`: fetches
   * the link previews (og_meta) of the author's posts and of followed people's. */
  loops: { inbox: InboxLoop; delivery: DeliveryLoop; polls: PollLoop; search: SearchLoop; previews: PreviewRunner; quoteDeadlines: QuoteDeadlineWatch };
  /** What start-up did to the database. */
  migration: { from: string | null; applied: string[]; backup: string | null };
  close(): void;
}

/** Opens the core on a data folder: creates it, copies the database aside when it has
 * anything to migrate, upgrades it to head, and builds the services. */
export async function openCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? (() => {});
  const paths = dataPaths(options.dataDir);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });

  // Before anything is read or written: a second Tern on this folder is refused here.
  const lock = lockDataFolder(paths.dir);
  let sqlite: Sqlite;
  let existed: boolean;
  try {
    // A restore, import or backup cut short (a crash, a power cut) is finished or cleaned away
    // first, so the database opened below is all old or all new data.
    for (const line of await recoverDataFolder(paths.dir, paths.backups, paths.uploads)) log(line);
    existed = existsSync(paths.database);
    sqlite = openSqlite(paths.database);
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    const from = currentRevision(sqlite);
    // Throws UnknownDatabaseRevisionError, touching nothing, for a revision this build does not know.
    const pending = pendingRevisions(sqlite);
    let backup: string | null = null;
    if (pending.length > 0 && existed && from !== null) {
      mkdirSync(paths.backups, { recursive: true, mode: 0o700 });
      backup = join(paths.backups, `tern-${from}-before-upgrade-${clock().toISOString().replace(/[:.]/g, '-')}.db`);
      await sqlite.backup(backup);
      log(`database copied aside to ${backup}`);
    }
    const applied = pending.length > 0 ? upgrade(sqlite) : [];
    if (applied.length > 0) log(`database upgraded: ${[from ?? 'base', ...applied].join(' -> ')} (head)`);

    const worker = options.inboxWorker ?? false;
    const deliveryWorker = options.deliveryWorker ?? false;
    // Two connections write the file when the processor or the loop runs on a worker: see WrapOptions.
    const db = wrapDrizzle(sqlite, { immediate: worker || deliveryWorker });
    // An upload cut short between its files and its row left files no row names.
    const orphans = removeOrphanFiles(db, paths.uploads);
    if (orphans > 0) log(`removed ${orphans} upload file(s) without a row, left by an interrupted upload`);
    const checkpointer = createCheckpointer(sqlite, { log });
    const settings = createSettingsStore(paths.settings);
    const fed = await openFederationContext(paths.keys, options.allowPrivateAddresses ?? false, true, options.trustedCa);
    useKeyStore(fed, storedActorKeys(db, clock));
    const startedAt = clock();
    const rowsDone = new Set<(results: RowResult[]) => void>();
    const tellRowsDone = (results: RowResult[]) => rowsDone.forEach((listener) => listener(results));
    const changes = createChangeFeed({ onListenerError: (error) => log(`change listener failed: ${String(error)}`) });
    // A row processed may be a post in the stream, a notification, or both; dropped ones are neither.
    rowsDone.add((results) => {
      if (results.some((result) => result.outcome === 'processed')) changes.tell('timeline', 'notifications');
    });
    settings.onChange(() => changes.tell('status'));
    // The moment a quote of the author's turns unanswered is no row written: told from a timer
    // (federation/quote-deadlines.ts), set again when a request was delivered or an answer came.
    const quoteDeadlines = createQuoteDeadlineWatch({ db, clock, log, localId: () => core.identity()?.id ?? null, onDue: () => changes.tell('timeline') });
    let quoteDeadlinesSoon: NodeJS.Timeout | null = null;
    let quoteDeadlinesFull = false;
    // A fan-out changes its deliveries hundreds of times a second: looked at once for them all.
    // Only an answer about a quote, or a change to a quote request's deliveries, reads the quotes
    // again (a flood of other activities or deliveries costs one cheap look a second at most).
    const rearmQuoteDeadlines = (full: boolean) => {
      quoteDeadlinesFull ||= full;
      quoteDeadlinesSoon ??= setTimeout(() => {
        quoteDeadlinesSoon = null;
        const rearmAll = quoteDeadlinesFull;
        quoteDeadlinesFull = false;
        if (rearmAll) quoteDeadlines.rearm();
        else quoteDeadlines.deliveriesChanged();
      }, 1_000);
      quoteDeadlinesSoon.unref();
    };
    rowsDone.add((results) => {
      if (results.some((result) => result.outcome === 'processed' && result.quoteAnswered === true)) rearmQuoteDeadlines(true);
    });
    settings.onChange(() => rearmQuoteDeadlines(true));
    const deliveriesChanged = () => {
      changes.tell('deliveries');
      rearmQuoteDeadlines(false);
    };
    // What each worker builds its own connection, keys and client from, read at each start.
    const workerData = () => ({
      database: paths.database,
      keysDir: paths.keys,
      allowPrivateAddresses: fed.allowPrivateAddresses,
      ...(fed.trustedCa === undefined ? {} : { trustedCa: fed.trustedCa }),
      settings: settings.get(),
    });
    const host = worker
      ? createInboxWorkerHost({
          data: () => ({
            ...workerData(),
            ...(options.inboxIdlePollMs === undefined ? {} : { idlePollMs: options.inboxIdlePollMs }),
          }),
          log,
          onRowsDone: tellRowsDone,
          // Accepts, forwarded replies, a Move's follows: the delivery loop hears it as if queued here.
          onDeliveriesQueued: notifyDeliveriesQueued,
          onKeysEvicted: (keyIds) => keyIds.forEach((keyId) => fed.keyCache.evict(keyId)),
          ...(options.inboxChecksIdleStopMs === undefined ? {} : { checksIdleStopMs: options.inboxChecksIdleStopMs }),
        })
      : null;
    const inboxLoop =
      host ??
    createInboxLoop({
        db,
        clock,
        log,
        process: processQueuedRow,
        // Read per row, so a settings change (identity, approval by hand) applies to the next one.
        deps: () => {
          const identity = core.identity();
          return identity ? { db, fed, clock, identity, settings: settings.get() } : null;
        },
        onRowDone: (result) => tellRowsDone([result]),
      });
    if (host) {
      settings.onChange((next) => host.settings(next));
      // The worker owns incoming_activity's writes while it runs (see incoming-writer.ts).
      routeIncomingWrites(db, (rows) => host.insert(rows));
    }
    // Loopback peers (tests) are reachable whatever the interfaces say.
    const connectivity = createConnectivityWatch({
      source: probeSource(options.allowPrivateAddresses ? { probe: () => true } : {}),
      settings,
      clock,
    });
    const deliveryHost = deliveryWorker
      ? createDeliveryWorkerHost({
          data: () => ({
            ...workerData(),
            connectivity: connectivity.state(),
            // At the app's priority, unlike the inbox worker: the author's own post going out is
            // work asked for now. Measured: the main thread's loop delay p99 stays 5–7 ms during
            // a fan-out either way, and nice 5 cost 15–25% of the bench's deliveries/s.
            nice: 0,
          }),
          anyPending: () => anyPending(sqlite),
          connectivity,
          log,
          onInFlightChange: deliveriesChanged,
          ...(options.deliveryIdleStopMs === undefined ? {} : { idleStopMs: options.deliveryIdleStopMs }),
        })
      : null;
    if (deliveryHost) settings.onChange((next) => deliveryHost.settings(next));
    const deliveryLoop =
      deliveryHost ??
      createAppDeliveryLoop({ sqlite, db, fed, clock, connectivity, identity: () => core.identity(), log, onInFlightChange: deliveriesChanged });
    connectivity.onChange(() => changes.tell('status'));
    const pollLoop = createPollLoop({ db, clock, log, identity: () => core.identity() });
    const searchIndexer = createSearchIndexer(sqlite);
    const searchLoop = createSearchLoop(searchIndexer, { log });
    const previews = createPreviewRunner({
      sqlite,
      client: fed.client,
      clock,
      connectivity,
      identity: () => core.identity(),
      log,
      onWritten: () => changes.tell('previews'),
    });
    // Posts the inbox processor stored: looked at once for a whole burst of them; a post whose
    // content an Update changed is looked at again by its id.
    let previewsSoon: NodeJS.Timeout | null = null;
    const relinked = new Set<number>();
    rowsDone.add((results) => {
      for (const result of results) if (result.outcome === 'processed' && result.previewsFor !== undefined) relinked.add(result.previewsFor);
      previewsSoon ??= setTimeout(() => {
        previewsSoon = null;
        for (const id of relinked) previews.wake({ table: 'inbox', id });
        relinked.clear();
        previews.wake();
      }, 1_000);
      previewsSoon.unref();
    });
    // What the author's actions need (posting, voting): the same for every service that queues.
    const actionDeps = {
      db,
      fed,
      clock,
      identity: () => core.identity(),
      isOnline: () => connectivity.isOnline(),
      wake: () => deliveryLoop.wake(),
      postWritten: (outboxId: number) => previews.wake({ table: 'outbox', id: outboxId }),
      displayName: () => settings.get().displayName,
      keepUploads: () => profileImageIds(settings.get()),
    };
    const identityOf = identityCache();
    fed.signingKeyId = () => identityOf(settings.get())?.keyId ?? null;
    const core: Core = {
      paths,
      sqlite,
      db,
      clock,
      settings,
      fed,
      identity: () => identityOf(settings.get()),
      inboxEvents: createInboxEvents((error) => log(`inbox event listener failed: ${String(error)}`)),
      // The inbox's checks run on a worker: the main thread only reads the bytes and answers.
      ...(host ? { inboxAccept: (post: InboxPost) => host.accept(post) } : {}),
      inboxKeyStats: async () => {
        const here = fed.keyCache.stats;
        const there = (await host?.keyStats()?.catch(() => null)) ?? { hits: 0, misses: 0, fetches: 0, evictions: 0 };
        return { hits: here.hits + there.hits, misses: here.misses + there.misses, fetches: here.fetches + there.fetches, evictions: here.evictions + there.evictions };
      },
      onInboxRowsDone(listener) {
        rowsDone.add(listener);
        return () => rowsDone.delete(listener);
      },
      changes,
      listener: withCheckpoints(createListenerControl(() => core, { log }), checkpointer),
      migration: { from, applied, backup },
      services: {
        status: createStatusService({ sqlite, paths, mode: options.mode, startedAt, head: HEAD }),
        notifications: createNotificationService(db),
        author: createAuthorService({
          ...actionDeps,
          uploadsDir: paths.uploads,
          queue: () => ({ inFlight: deliveryLoop.inFlight(), online: connectivity.isOnline() }),
        }),
        indieauth: createIndieAuthService({
          db,
          fed,
          clock,
          identity: () => core.identity(),
          displayName: () => settings.get().displayName,
          onWaiting: () => changes.tell('sign-ins'),
        }),
        polls: createPollService(actionDeps),
        media: createMediaService({ db, uploadsDir: paths.uploads, clock, keep: () => profileImageIds(settings.get()) }),
        search: createSearchService({ db, sqlite, indexer: searchIndexer, identity: () => core.identity(), displayName: () => settings.get().displayName }),
      },
      connectivity,
      loops: { inbox: inboxLoop, delivery: deliveryLoop, polls: pollLoop, search: searchLoop, previews, quoteDeadlines },
      close() {
        // Requests still in flight are aborted; their rows stay due. Await loops.delivery.stop()
        // first to let them finish, and, with the delivery worker, to have the answers it
        // received written before this returns (the apps do).
        void deliveryLoop.stop({ graceMs: 0 });
        connectivity.close();
        pollLoop.stop();
        searchLoop.stop();
        void previews.stop();
        if (previewsSoon) clearTimeout(previewsSoon);
        quoteDeadlines.stop();
        if (quoteDeadlinesSoon) clearTimeout(quoteDeadlinesSoon);
        core.services.search.close();
        void inboxLoop.stop();
        void core.listener.stop();
        fed.client.close();
        checkpointer.stop();
        changes.close();
        if (sqlite.open) sqlite.close();
        lock.release();
      },
    };
    // The listener signals each queued activity; the loop also polls, so a missed signal only waits.
    core.inboxEvents.onQueued(() => inboxLoop.wake());
    quoteDeadlines.rearm();
    if (options.listen !== undefined) {
      await core.listener.start(options.listen).catch((error: unknown) => {
        fed.client.close();
        throw error;
      });
    } else if (settings.get().listener.enabled) {
      // The app still opens without it; Settings shows why it is not running.
      await core.listener.start().catch((error: unknown) => log(`listener not started: ${(error as Error).message}`));
    }
    return core;
  } catch (error) {
    sqlite.close();
    lock.release();
    throw error;
  }
}

/** While the listener runs (the inbox commits fast), WAL checkpoints run on a worker thread
 * (db/checkpointer.ts); until then SQLite's own inline checkpoints are cheap enough. */
function withCheckpoints(control: ListenerControl, checkpointer: Checkpointer): ListenerControl {
  return {
    ...control,
    start: async (address) => {
      const running = await control.start(address);
      checkpointer.start();
      return running;
    },
  };
}
