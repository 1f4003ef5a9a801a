// The main thread's side of the delivery worker (worker.ts): starts it when the delivery loop
// starts, passes it what changes (settings, the connectivity watch's state, rows queued on this
// thread or by the inbox worker, the machine's wake from sleep), mirrors which rows are in
// flight for the UI, passes on its requests to recheck the network, and starts it again when it
// dies while running (worker-host.ts). It is the core's delivery loop (the DeliveryLoop
// interface), so the shell and the tests drive it as they drove the in-thread loop.
// Nothing is lost when the worker dies: the rows are the queue. An answer received and not yet
// written is sent again (as after a crash of the app); a peer drops the duplicate by its id.
import type { ConnectivityWatch } from '../connectivity/watch';
import type { Settings } from '../settings';
import { createWorkerHost, workerEntry } from '../worker-host';
import type { DeliveryLoop } from './loop';
import { onDeliveriesQueued } from './queue';
import type { DeliveryWorkerData, FromDeliveryWorker, ToDeliveryWorker } from './worker-protocol';

/** Beyond the grace stop() gives requests in flight: writing their answers, closing. */
const STOP_WAIT_MS = 5_000;
const DEFAULT_GRACE_MS = 5_000;
/** A worker with nothing left to send for this long is stopped (it holds ≈ 135 MB). */
const IDLE_STOP_MS = 10 * 60_000;
/** drain() asks the next worker after one died this many times before it gives up. */
const DRAIN_DEATHS = 3;

export interface DeliveryWorkerHostOptions {
  /** What the worker is built from, read at each start (the current settings and network state). */
  data: () => DeliveryWorkerData;
  /** Whether any delivery is still to be made: the worker is started only once one is. */
  anyPending: () => boolean;
  connectivity: Pick<ConnectivityWatch, 'onChange' | 'recheck'>;
  log?: (line: string) => void;
  restartDelayMs?: number;
  /** A worker with nothing to send for this long is stopped until rows come. Default IDLE_STOP_MS. */
  idleStopMs?: number;
  /** The rows in flight changed (as the worker told it, a few times a second at most). */
  onInFlightChange?: () => void;
}

export interface DeliveryWorkerHost extends DeliveryLoop {
  /** The settings changed (the address to sign as): the worker reads them for its next row. */
  settings(settings: Settings): void;
  /** Ends the worker at once, as a crash would; a started loop starts it again (tests). */
  kill(): Promise<void>;
  /** Resolves once the worker is set up and its loop started (tests: a kill then lands in work). */
  ready(): Promise<void>;
  /** Whether a worker thread is alive now. */
  readonly alive: boolean;
}

export function createDeliveryWorkerHost(options: DeliveryWorkerHostOptions): DeliveryWorkerHost {
  let inFlight: ReadonlySet<number> = new Set();
  let wakeQueued = false;
  let unsubscribe: (() => void)[] = [];
  const host = createWorkerHost<ToDeliveryWorker, FromDeliveryWorker>({
    name: 'delivery worker',
    entry: workerEntry('delivery/worker.ts', 'delivery-worker.cjs'),
    data: options.data,
    log: options.log ?? (() => {}),
    onMessage(message) {
      if (message.type === 'inFlight') {
        inFlight = new Set(message.ids);
        busy();
        options.onInFlightChange?.();
      } else options.connectivity.recheck();
    },
    onExit: () => (inFlight = new Set()),
    startMessage: { type: 'start' } satisfies ToDeliveryWorker,
    stopWaitMs: STOP_WAIT_MS,
    ...(options.restartDelayMs === undefined ? {} : { restartDelayMs: options.restartDelayMs }),
  });

  // Started (the app's loop runs), with or without a worker yet: an app that has nothing to
  // send does not pay for one (≈ 0.7 s and 0.85 s of CPU to start, its memory). The worker
  // comes with the first rows queued, or at start when rows wait, and then stays.
  let started = false;
  const startWorker = () => {
    if (!started) return;
    if (!host.running) host.start();
    busy();
  };
  // A worker that has had nothing to send for idleStopMs is stopped (its memory given back);
  // the next rows start one again. Rows waiting for a retry keep it: it times their next try.
  const idleStopMs = options.idleStopMs ?? IDLE_STOP_MS;
  let idleTimer: NodeJS.Timeout | null = null;
  function busy(): void {
    if (idleTimer) return void idleTimer.refresh();
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (!started || !host.running) return;
      if (inFlight.size > 0 || options.anyPending()) return busy();
      options.log?.('delivery worker: nothing to send; stopping it until rows come');
      void host.stop({ type: 'stop' });
    }, idleStopMs);
    idleTimer.unref();
  }

  function wake(): void {
    startWorker();
    // One message for all the rows queued in this turn.
    if (!host.alive || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      host.post({ type: 'wake' });
    });
  }

  return {
    get running() {
      return started;
    },
    get alive() {
      return host.alive;
    },
    start() {
      if (started) return;
      started = true;
      unsubscribe = [
        onDeliveriesQueued(wake),
        options.connectivity.onChange((state) => host.post({ type: 'connectivity', state })),
      ];
      if (options.anyPending()) startWorker();
    },
    async stop(stopOptions = {}) {
      started = false;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      unsubscribe.forEach((u) => u());
      unsubscribe = [];
      const message: ToDeliveryWorker = stopOptions.graceMs === undefined ? { type: 'stop' } : { type: 'stop', graceMs: stopOptions.graceMs };
      await host.stop(message, stopOptions.graceMs ?? DEFAULT_GRACE_MS);
      inFlight = new Set();
    },
    wake,
    async drain() {
      if (!host.running && options.anyPending()) startWorker();
      // A worker that dies meanwhile fails the request: its successor (started now, when it is
      // not yet) is asked again, a few times, as the in-thread loop's drain never fails.
      for (let deaths = 0; host.running; deaths++) {
        try {
          return await host.request<void>((request) => ({ type: 'drain', request }), { spawn: true, hold: true })!;
        } catch (error) {
          if (deaths >= DRAIN_DEATHS) throw error;
        }
      }
    },
    inFlight: () => inFlight,
    resumed: () => host.post({ type: 'resumed' }),
    settings: (settings) => host.post({ type: 'settings', settings }),
    kill: () => host.kill(),
    ready: () => host.ready(),
  };
}
