// The delivery loop as the app runs it, wired to ActivityPub (what to POST, LD-signed once per
// post), to Webmention (form POSTs, endpoint discovery) and to address resolution (acct:
// mentions). Built the same way on the main thread (core option deliveryWorker off: tests) and
// on the delivery worker (worker.ts), each from its own connection and context.
import type { Db, Sqlite } from '../../../db/client';
import type { ConnectivityWatch } from '../connectivity/watch';
import { resolveQueuedAddress } from '../federation/actions/deferred';
import { createGoneCheck } from '../federation/actions/gone';
import type { LocalActor } from '../federation/identity';
import { createDeliveryPayloads } from '../federation/outbox';
import type { FederationContext } from '../net/federation-context';
import { resolveWebmentionEndpoint, webmentionPayload } from '../webmention/send';
import { parseRecipient } from './addresses';
import { createDeliveryLoop, type DeliveryLoop } from './loop';

export interface AppDeliveryLoopDeps {
  sqlite: Sqlite;
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  connectivity: Pick<ConnectivityWatch, 'isOnline' | 'onChange' | 'recheck'>;
  /** The local actor of the current settings, or null while the address is not set. */
  identity: () => LocalActor | null;
  log: (line: string) => void;
  /** The rows in flight changed (the worker tells the main thread). */
  onInFlightChange?: () => void;
  /** The loop's turn budget (loop.ts turnBudgetMs): Infinity on the delivery worker. */
  turnBudgetMs?: number;
}

export function createAppDeliveryLoop(deps: AppDeliveryLoopDeps): DeliveryLoop {
  const { db, fed, clock, identity } = deps;
  // One serialised body per post for all its recipients (re-checked against the row each time).
  // Public posts' Create/Update/Delete are LD-signed with our RSA key, once per activity.
  const deliveryPayload = createDeliveryPayloads(32, () => {
    const local = identity();
    return local
      ? {
          keyId: new URL(local.keyId),
          privateKey: fed.keys.rsa.privateKey,
          contextLoader: fed.contextLoader,
          onUnsigned: (reason: string) => deps.log(`delivery: a public activity goes out without its LD signature (${reason})`),
        }
      : null;
  });
  const goneCheck = createGoneCheck({ db, fed, clock, log: deps.log });
  return createDeliveryLoop({
    sqlite: deps.sqlite,
    clock,
    client: fed.client,
    connectivity: deps.connectivity,
    log: deps.log,
    signer: () => {
      const local = identity();
      return local ? { keyId: new URL(local.keyId), publishedKeyId: local.keyId, privateKey: fed.keys.rsa.privateKey } : null;
    },
    payload: (row) => {
      if (row.webmentionTarget !== null) return webmentionPayload(db, row);
      const local = identity();
      return local ? deliveryPayload(db, local, row) : { kind: 'cancel', reason: 'Tern has no public address set.' };
    },
    resolve: async (row, signal) => {
      if (parseRecipient(row.recipient)?.kind === 'webmention') return resolveWebmentionEndpoint({ db, client: fed.client }, row, signal);
      const local = identity();
      if (!local) return { kind: 'retry', reason: 'Tern has no public address set.' };
      return resolveQueuedAddress({ db, fed, clock, local }, row);
    },
    gone: (row) => (row.webmentionTarget === null ? goneCheck(row.recipient) : Promise.resolve()),
    ...(deps.onInFlightChange ? { onInFlightChange: deps.onInFlightChange } : {}),
    // 64 in flight (still 2 per server): real servers take 100+ ms to answer, so a fan-out to
    // many servers is bound by waiting, not by signing (which runs on the thread pool). On
    // loopback, more answers per turn of the event loop also share its fixed costs: 64 against
    // 32 measured +18% deliveries/s and -15% CPU per delivery (4 interleaved runs each). Slow
    // requests beside them stay at 256, the sockets a laptop's open-file limit can spare.
    options: { concurrency: 64, maxSlow: 256, ...(deps.turnBudgetMs === undefined ? {} : { turnBudgetMs: deps.turnBudgetMs }) },
  });
}
