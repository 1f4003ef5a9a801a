// The messages between the core (main thread) and the delivery worker. Both ends are Tern's own
// code in one process, so these are types, not checked input: nothing remote reaches them.
// Besides these, the worker says what every worker says (worker-host.ts: ready, log, reply,
// stopped); `drain` is answered with nothing once the loop is idle.
import type { ConnectivityState } from '../connectivity/watch';
import type { Settings } from '../settings';
import type { LoopMessage } from '../worker-side';

/** The rows in flight are told to the main thread at most this often while they change: a
 * message per delivery would cost the main thread more than the UI's "sending" is worth. */
export const IN_FLIGHT_EVERY_MS = 100;

/** Plain data the worker builds everything else from. */
export interface DeliveryWorkerData {
  database: string;
  keysDir: string;
  allowPrivateAddresses: boolean;
  /** The core option of that name (tests and the bench only). */
  trustedCa?: string;
  settings: Settings;
  /** The connectivity watch's state when the worker starts (changes follow by message). */
  connectivity: ConnectivityState;
  /** The worker thread's nice value on Linux (default: worker-side.ts's WORKER_NICE). */
  nice?: number;
}

export type ToDeliveryWorker =
  | LoopMessage<Settings>
  | { type: 'stop'; graceMs?: number }
  | { type: 'resumed' }
  | { type: 'connectivity'; state: ConnectivityState };

export type FromDeliveryWorker =
  /** The ids of the rows in flight now (sent at most every IN_FLIGHT_EVERY_MS while they change). */
  | { type: 'inFlight'; ids: number[] }
  /** Deliveries failed at the network level: the connectivity watch should look again. */
  | { type: 'recheck' };
