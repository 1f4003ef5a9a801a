// Counters are recomputed from the rows they count, never nudged by ±1: the service behind the
// spec mixes recounts, "recount − 1" and ±1 updates and its counters drift (reference §13.9).
// Each function sets the stored counter to the truth and returns it.
import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { inbox, outbox } from '../../../db/schema';

/** Distinct actors whose Like of our object is not undone or deleted. */
export function recountLikes(db: DbOrTx, outboxObjectId: number): number {
  return recountInteractions(db, outboxObjectId, 'Like');
}

/** Distinct actors whose Announce of our object is not undone or deleted. */
export function recountAnnounces(db: DbOrTx, outboxObjectId: number): number {
  return recountInteractions(db, outboxObjectId, 'Announce');
}

function recountInteractions(db: DbOrTx, outboxObjectId: number, type: 'Like' | 'Announce'): number {
  const row = db
    .select({ n: sql<number>`count(distinct ${inbox.actorId})` })
    .from(inbox)
    .where(and(eq(inbox.apType, type), eq(inbox.relatesToOutboxObjectId, outboxObjectId), eq(inbox.isDeleted, false)))
    .get();
  const n = row?.n ?? 0;
  // Raw SQL: a counter is not an edit, and drizzle's update would bump updated_at.
  if (type === 'Like') db.run(sql`UPDATE outbox SET likes_count = ${n} WHERE id = ${outboxObjectId}`);
  else db.run(sql`UPDATE outbox SET announces_count = ${n} WHERE id = ${outboxObjectId}`);
  return n;
}

// `inReplyTo` as sent: an IRI string, or an object with an id.
const inReplyToOf = (table: typeof inbox | typeof outbox) =>
  sql`coalesce(json_extract(${table.apObject}, '$.inReplyTo.id'), json_extract(${table.apObject}, '$.inReplyTo'))`;

/**
 * Sets replies_count of the object with this ap_id (in inbox or outbox, wherever it is) to the
 * number of non-deleted, non-transient inbox and outbox objects replying to it. Poll votes are
 * transient and are not replies. Returns null when the object is not stored.
 */
export function recountReplies(db: DbOrTx, apId: string): number | null {
  const inboxReplies =
    db
      .select({ n: sql<number>`count(*)` })
      .from(inbox)
      .where(and(sql`${inReplyToOf(inbox)} = ${apId}`, eq(inbox.isDeleted, false), eq(inbox.isTransient, false)))
      .get()?.n ?? 0;
  const outboxReplies =
    db
      .select({ n: sql<number>`count(*)` })
      .from(outbox)
      .where(and(sql`${inReplyToOf(outbox)} = ${apId}`, eq(outbox.isDeleted, false), eq(outbox.isTransient, false)))
      .get()?.n ?? 0;
  const n = inboxReplies + outboxReplies;
  const inInbox = db.run(sql`UPDATE inbox SET replies_count = ${n} WHERE ap_id = ${apId}`);
  const inOutbox = db.run(sql`UPDATE outbox SET replies_count = ${n} WHERE ap_id = ${apId}`);
  return inInbox.changes + inOutbox.changes > 0 ? n : null;
}
