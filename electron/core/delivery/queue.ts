// Queueing deliveries: one outgoing_activity row per recipient URL (inboxes and shared inboxes
// deduplicated), due at once. Called inside the same transaction that writes the outbox row,
// so a post and its deliveries are stored together or not at all.
import type { DbOrTx } from '../../../db/client';
import { outgoingActivity } from '../../../db/schema';

// Whoever queues rows (the author's actions, the inbox processor's Accepts, forwarding) wakes
// the delivery loop through this signal, so no caller needs to know the loop. Listeners are
// called synchronously inside the caller's transaction and must only schedule work (the loop
// looks on the next tick, after the commit).
const queuedListeners = new Set<() => void>();

/** Called after rows are queued; returns the unsubscribe function. */
export function onDeliveriesQueued(listener: () => void): () => void {
  queuedListeners.add(listener);
  return () => queuedListeners.delete(listener);
}

export interface EnqueueInput {
  /** Our own activity/object (outbox row) to deliver… */
  outboxObjectId?: number;
  /** …or a remote activity we forward (inbox row). Exactly one of the two. */
  inboxObjectId?: number;
  recipients: Iterable<string>;
  now: Date;
}

/** Tells the loop rows were queued (for writers that insert rows themselves, e.g. webmentions). */
export function notifyDeliveriesQueued(): void {
  for (const listener of queuedListeners) listener();
}

/** Rows per INSERT statement (about a dozen bound values each). */
const INSERT_CHUNK = 500;

/** Inserts one due row per distinct recipient; returns how many. */
export function enqueueDeliveries(db: DbOrTx, input: EnqueueInput): number {
  if ((input.outboxObjectId === undefined) === (input.inboxObjectId === undefined)) {
    throw new TypeError('a delivery needs exactly one of outboxObjectId and inboxObjectId');
  }
  const recipients = [...new Set(input.recipients)];
  if (recipients.length === 0) return 0;
  // In chunks: one INSERT binds a value per column per row, and SQLite refuses more than 32,766
  // of them (a post to 3,000 inboxes would fail). All chunks share the caller's transaction.
  for (let start = 0; start < recipients.length; start += INSERT_CHUNK) {
    db.insert(outgoingActivity)
      .values(
        recipients.slice(start, start + INSERT_CHUNK).map((recipient) => ({
          createdAt: input.now,
          recipient,
          outboxObjectId: input.outboxObjectId ?? null,
          inboxObjectId: input.inboxObjectId ?? null,
          tries: 0,
          nextTry: input.now,
          isSent: false,
          isErrored: false,
        })),
      )
      .run();
  }
  for (const listener of queuedListeners) listener();
  return recipients.length;
}
