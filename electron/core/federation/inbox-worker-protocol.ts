// The messages between the core (main thread) and the inbox worker. Both ends are Tern's own
// code in one process, so these are types, not checked input: nothing remote reaches them.
// Besides these, the worker says what every worker says (worker-host.ts: ready, log, reply,
// stopped); `drain` is answered with a DrainSummary, `insert` with the new rows' ids, `accept`
// with an InboxCheck, `keyStats` with the worker's KeyCacheStats.
import type { Settings } from '../settings';
import type { LoopMessage } from '../worker-side';
import type { RowResult } from './inbox-loop';
import type { IncomingRow } from './incoming-writer';
import type { InboxPost } from './inbox';

/** Plain data the worker builds everything else from. */
export interface InboxWorkerData {
  database: string;
  keysDir: string;
  allowPrivateAddresses: boolean;
  /** The core option of that name (tests and the bench only). */
  trustedCa?: string;
  settings: Settings;
  idlePollMs?: number;
  /** Checks inbox POSTs only: no processor (a second worker beside the processor's). */
  acceptOnly?: boolean;
  /** The worker thread's nice value on Linux (default 5: below the main thread). */
  nice?: number;
}

export type ToWorker =
  | LoopMessage<Settings>
  | { type: 'stop' }
  /** Rows the listener accepted, to insert in one transaction (with their LD verdicts). */
  | { type: 'insert'; request: number; rows: IncomingRow[] }
  /** An inbox POST the listener read, to check (signature, key owner, blocks): the checks worker. */
  | { type: 'accept'; request: number; post: InboxPost }
  | { type: 'keyStats'; request: number }
  /** Keys the processor dropped (an actor's Update or Delete of itself): the checks worker drops
   * them from its cache too, so the next request of that actor is checked with what stands now. */
  | { type: 'evictKeys'; keyIds: string[] };

export type FromWorker =
  /** Rows finished since the last message (outcomes already committed). */
  | { type: 'rowsDone'; results: RowResult[] }
  /** The processor queued deliveries (Accepts, forwarded replies, Move's follows). */
  | { type: 'deliveriesQueued' }
  /** The processor dropped these keys from its cache (its fed.keyCache.evict). */
  | { type: 'keysEvicted'; keyIds: string[] };
