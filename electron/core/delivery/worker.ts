// The delivery worker's entry: runs the delivery loop (building and signing each request, TLS
// handshakes, reading answers, writing outcomes) on a worker thread, so a fan-out to hundreds of
// servers never holds the main thread, where the listener accepts, IPC answers and the window
// lives. A full TLS handshake costs the thread that runs it 1–3 ms; a post to 500 servers was a
// second of the main thread's time. It has its own SQLite connection to the same file (WAL, busy
// timeout, immediate transactions), its own outbound client and keys (read from the data
// folder), the settings and the connectivity watch's state as plain data (updated by message).
// It tells the main thread which rows are in flight ("sending" in the UI). Started by
// delivery/worker-host.ts.
import { openSqlite, wrapDrizzle } from '../../../db/client';
import type { ConnectivityState } from '../connectivity/watch';
import { identityCache } from '../federation/identity';
import { openFederationContext, type FederationContext } from '../net/federation-context';
import type { Settings } from '../settings';
import { handleLoopMessage, workerSide } from '../worker-side';
import { createAppDeliveryLoop } from './app-loop';
import { IN_FLIGHT_EVERY_MS, type DeliveryWorkerData, type FromDeliveryWorker, type ToDeliveryWorker } from './worker-protocol';

const side = workerSide<ToDeliveryWorker, FromDeliveryWorker>();
const data = side.data as DeliveryWorkerData;

// CommonJS once bundled (a worker script loads from Electron's asar that way), so no top-level await.
openFederationContext(data.keysDir, data.allowPrivateAddresses, false, data.trustedCa).then(run, (error: unknown) => {
  throw error;
});

function run(fed: FederationContext): void {
  const sqlite = openSqlite(data.database);
  const db = wrapDrizzle(sqlite, { immediate: true });
  let settings: Settings = data.settings;
  const identityOf = identityCache();
  fed.signingKeyId = () => identityOf(settings)?.keyId ?? null;

  // The main thread's watch, mirrored: its state by message, a recheck asked of it by message.
  let connectivity: ConnectivityState = data.connectivity;
  const connectivityListeners = new Set<(state: ConnectivityState) => void>();

  let inFlightTimer: NodeJS.Timeout | null = null;
  let toldEmpty = true;
  function tellInFlight(): void {
    inFlightTimer = null;
    const ids = [...loop.inFlight()];
    if (ids.length === 0 && toldEmpty) return;
    toldEmpty = ids.length === 0;
    side.post({ type: 'inFlight', ids });
  }

  const loop = createAppDeliveryLoop({
    sqlite,
    db,
    fed,
    clock: () => new Date(),
    connectivity: {
      isOnline: () => connectivity.online,
      onChange(listener) {
        connectivityListeners.add(listener);
        return () => connectivityListeners.delete(listener);
      },
      recheck: () => side.post({ type: 'recheck' }),
    },
    identity: () => identityOf(settings),
    log: side.log,
    onInFlightChange() {
      // Something started or ended: told even if the set is empty again by then (a delivery
      // that took less than IN_FLIGHT_EVERY_MS still changed what the window shows).
      toldEmpty = false;
      inFlightTimer ??= setTimeout(tellInFlight, IN_FLIGHT_EVERY_MS);
    },
    // Not paced: the turn budget keeps the app's thread free for its timers and IPC answers; on
    // this thread nothing waits on a turn but the loop's own messages and its in-flight timer,
    // which still run between the loop's macrotasks. Pacing here cost a timer and a macrotask
    // per turn, and left the thread idle between turns: measured in the bench (4 runs alternated), a first post's fan-out
    // 1,479–1,576/s unpaced against 1,324–1,365/s paced, the second 2,233–2,530 against
    // 1,601–2,019/s, the delivery worker's CPU per delivery 420–450 against 470–490 µs.
    turnBudgetMs: Infinity,
  });

  side.listen((message) => {
    if (handleLoopMessage<Settings>(side, message, loop, (next) => (settings = next))) return;
    switch (message.type) {
      case 'resumed':
        return loop.resumed();
      case 'connectivity': {
        const flipped = message.state.online !== connectivity.online;
        connectivity = message.state;
        if (flipped) connectivityListeners.forEach((listener) => listener(connectivity));
        return;
      }
      case 'stop':
        return void loop.stop(message.graceMs === undefined ? {} : { graceMs: message.graceMs }).then(() => {
          if (inFlightTimer) clearTimeout(inFlightTimer);
          tellInFlight();
          fed.client.close();
          sqlite.close();
          side.stopped();
        });
    }
  });
}
