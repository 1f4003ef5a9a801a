// Queueing deliveries: one outgoing_activity row per recipient URL (inboxes and shared inboxes
// deduplicated), due at once. Called inside the same transaction that writes the outbox row,
// so a post and its deliveries are stored together or not at all.
import { prepared, type DbOrTx } from '../../../db/client';

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

// All the rows in one statement, the recipients bound as one JSON list (one value, whatever
// their number), in the caller's transaction. Built row by row by drizzle, in chunks of 500, a
// post to 20,000 followers' own inboxes held the main thread 520–750 ms (test/hostile/
// audit-api-shapes.test.ts); so, about 70 ms (the CHECKs, the datetime triggers and the
// table's indexes, for each row).
const ENQUEUE = `
INSERT INTO outgoing_activity (created_at, recipient, outbox_object_id, inbox_object_id, tries, next_try, is_sent, is_errored)
SELECT @now, value, @outbox, @inbox, 0, @now, 0, 0 FROM json_each(@recipients) ORDER BY key`;

/** Inserts one due row per distinct recipient, in their order; returns how many. */
export function enqueueDeliveries(db: DbOrTx, input: EnqueueInput): number {
  if ((input.outboxObjectId === undefined) === (input.inboxObjectId === undefined)) {
    throw new TypeError('a delivery needs exactly one of outboxObjectId and inboxObjectId');
  }
  const recipients = [...new Set(input.recipients)];
  if (recipients.length === 0) return 0;
  prepared<[{ now: string; outbox: number | null; inbox: number | null; recipients: string }]>(db, ENQUEUE).run({
    now: input.now.toISOString(),
    outbox: input.outboxObjectId ?? null,
    inbox: input.inboxObjectId ?? null,
    recipients: JSON.stringify(recipients),
  });
  for (const listener of queuedListeners) listener();
  return recipients.length;
}
