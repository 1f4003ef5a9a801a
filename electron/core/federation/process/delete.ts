// Delete of a QuoteAuthorization one of our quote posts holds, by the author who granted it: the
// quote is revoked (process/quote-revocation.ts). Delete of a post (only by its author, or as its server confirms: is_deleted, parent's
// replies_count and, for a deleted Like or Announce of ours, our counters recomputed; a quote of
// ours it made loses our approval; forwarded to our followers when it is the
// LD-signed Delete of a public reply to one of our posts) or of an actor by itself (follower and following
// rows removed, our Follows to it marked deleted, every inbox row of theirs marked deleted and
// every counter they touched recomputed, their keys evicted).
//
// Notifications are KEPT when what they point at is deleted (the reference deletes them, so a
// mention silently vanished from the list). The notifications service reports the object as
// deleted and gives no excerpt of it; the UI shows "a post that was deleted".
import { and, eq, inArray, ne, or } from 'drizzle-orm';
import { follower, following, inbox, outbox, type InboxObject } from '../../../../db/schema';
import type { DbOrTx } from '../../../../db/client';
import { findActor } from '../actors';
import { idOf, typeOf, type Json } from '../ap';
import { NotFoundError } from '../../errors';
import { isAttributedTo } from '../objects';
import { fetchRemoteObject, ObjectGoneError } from './fetch';
import { drop, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { requestsQuoting } from '../quote-authorizations';
import { heldAuthorization, onQuoteAuthorizationDeleted } from './quote-revocation';
import { recountAnnounces, recountLikes, recountReplies } from './counters';
import { forwardRecipients, isForwardableParent, ldSignedByActor, queueForward } from './forward';
import { findInbox, findOutbox, persistActivity } from './store';
import { keyIdsOf } from './update';
import { withoutTrailingSlashes } from '../../trailing-slashes';

export async function onPostDeleted(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const objectId = idOf(r.activity.object);
  if (!objectId) drop('Delete without an object id');
  const held = heldAuthorization(deps.db, r.actor, objectId);
  if (held !== null) {
    // Relayed without its actor's signature: believed once the authorization is gone there.
    if (r.forwarded) await confirmGone(deps, r, objectId);
    return onQuoteAuthorizationDeleted(deps, r, held);
  }
  // A quoting post of a quote we approved, said deleted by someone else than its author (a
  // relay's or a moderator's own Delete): believed only as its origin confirms it, as a relayed
  // one — it would end our approval (quote-authorizations.ts).
  const quote = requestsQuoting(deps.db, objectId)[0];
  const byOther = quote !== undefined && !sameId(quote.apActorId, r.actor.apId);
  // Gone at its origin, it is gone whoever says so (a Lemmy moderator's removal, relayed).
  const gone = (r.forwarded || byOther) && (await confirmGone(deps, r, objectId));
  const forward = await forwardsDelete(deps, r, findInbox(deps.db, objectId));
  return deps.db.transaction((tx) => {
    const target = findInbox(tx, objectId);
    if (target && !gone && target.apActorId !== r.actor.apId && !isAttributedTo(target.apObject as Json, r.actor.apId)) drop(`Delete of ${objectId} by ${r.actor.apId}, who is not its author`);
    const row = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: objectId,
      // A quoting post we never stored, confirmed gone: the Delete is linked to the request that
      // quoted with it, which ends that approval whoever sent the Delete.
      relatesToInboxObjectId: target?.id ?? (gone && quote ? quote.id : null),
      relatesToOutboxObjectId: null,
    });
    // Unknown target: the row stays, so a Create arriving later is stored as deleted.
    if (target && !target.isDeleted) {
      markDeleted(tx, [target], r.now);
      if (forward) queueForward(tx, r, row.id, forwardRecipients(tx, r));
    }
    return processed(row.id);
  });
}

/** A Delete relayed by someone else without its actor's signature (a Lemmy community passing on
 * a member's), or one of a quoting post by someone else than its author, is believed only when
 * the object's own server says it is gone (404, 410, a Tombstone). Network trouble: retried later. */
async function confirmGone(deps: ProcessDeps, r: Received, objectId: string): Promise<true> {
  try {
    const still = await fetchRemoteObject(deps.fed, objectId);
    if (typeOf(still) === 'Tombstone') return true;
  } catch (error) {
    if (error instanceof ObjectGoneError) return true;
    if (error instanceof NotFoundError) drop(`Delete of ${objectId} ${saidBy(r)}: could not check it (${error.message})`);
    throw error;
  }
  drop(`Delete of ${objectId} ${saidBy(r)}: its server still serves it`);
}

const saidBy = (r: Received): string => (r.forwarded ? `relayed by ${r.row.sentByApActorId}` : `by ${r.actor.apId}, not its author`);

/** The Delete of a public reply to one of our posts, LD-signed by its author: forwarded like the
 * reply was (process/forward.ts), so our followers who saw it through us see it go. */
async function forwardsDelete(deps: ProcessDeps, r: Received, target: InboxObject | undefined): Promise<boolean> {
  if (!target || target.isDeleted || target.apActorId !== r.actor.apId || target.visibility !== 'PUBLIC') return false;
  const parentId = idOf((target.apObject as Json).inReplyTo);
  if (parentId === null || !isForwardableParent(findOutbox(deps.db, parentId))) return false;
  return ldSignedByActor(deps, r);
}

/** Marks rows deleted and recomputes every counter they took part in. */
function markDeleted(tx: DbOrTx, rows: InboxObject[], now: Date): void {
  if (rows.length === 0) return;
  tx.update(inbox)
    .set({ isDeleted: true, updatedAt: now })
    .where(inArray(inbox.id, rows.map((row) => row.id)))
    .run();
  const parents = new Set(rows.map((row) => idOf((row.apObject as Json).inReplyTo)).filter((p): p is string => p !== null));
  for (const parent of parents) recountReplies(tx, parent);
  for (const row of rows) {
    if (row.relatesToOutboxObjectId === null) continue;
    if (row.apType === 'Like') recountLikes(tx, row.relatesToOutboxObjectId);
    if (row.apType === 'Announce') recountAnnounces(tx, row.relatesToOutboxObjectId);
  }
}

/** Undo of a Delete (how Lemmy restores a post): the post the Delete named, when Tern still has
 * it deleted and it may be restored — undone by its author (sent by them), or else served again
 * by its own server (a moderator's restore, or an Undo a community relayed). Null: nothing to
 * restore. Network trouble: retried later. */
export async function restorablePost(deps: ProcessDeps, r: Received, deleteRow: InboxObject): Promise<InboxObject | null> {
  const post = deleteRow.activityObjectApId ? findInbox(deps.db, deleteRow.activityObjectApId) : undefined;
  if (!post || !post.isDeleted || post.apType === 'Delete') return null;
  if (!r.forwarded && (post.apActorId === r.actor.apId || isAttributedTo(post.apObject as Json, r.actor.apId))) return post;
  try {
    const served = await fetchRemoteObject(deps.fed, post.apId);
    return typeOf(served) !== 'Tombstone' && idOf(served) === post.apId ? post : null;
  } catch (error) {
    if (error instanceof ObjectGoneError || error instanceof NotFoundError) return null;
    throw error;
  }
}

/** A deleted post shown again, and the counters it takes part in recomputed. */
export function markRestored(tx: DbOrTx, post: InboxObject, now: Date): void {
  tx.update(inbox).set({ isDeleted: false, updatedAt: now }).where(eq(inbox.id, post.id)).run();
  const parent = idOf((post.apObject as Json).inReplyTo);
  if (parent !== null) recountReplies(tx, parent);
}

/** A gone actor leaves the followers and the following, and our Follows of it no longer mean
 * "request sent" (its Delete here; a 410 at its address, actions/gone.ts). */
export function forgetActorRelations(tx: DbOrTx, gone: { id: number; apId: string }, now: Date): { followers: number; following: number } {
  const followers = tx.delete(follower).where(eq(follower.actorId, gone.id)).run().changes;
  const followed = tx.delete(following).where(eq(following.actorId, gone.id)).run().changes;
  tx.update(outbox)
    .set({ isDeleted: true, updatedAt: now })
    .where(and(eq(outbox.apType, 'Follow'), or(eq(outbox.relatesToActorId, gone.id), eq(outbox.activityObjectApId, gone.apId))))
    .run();
  return { followers, following: followed };
}

/** Delete whose object is its own actor. Needs no fetch: the actor is gone (410) by now, and
 * an actor we never stored leaves nothing to clean up. */
export async function onActorDeleted(deps: ProcessDeps, row: { id: string; activity: Json; actorId: string; now: Date }): Promise<ProcessOutcome> {
  const gone = findActor(deps.db, row.actorId) ?? findActor(deps.db, withoutTrailingSlashes(row.actorId)) ?? findActor(deps.db, `${withoutTrailingSlashes(row.actorId)}/`);
  if (!gone) drop(`Delete of an actor we never stored (${row.actorId}): nothing to do`);
  const outcome = deps.db.transaction((tx) => {
    const del = persistActivity(tx, {
      object: row.activity,
      apId: row.id,
      actor: gone,
      now: row.now,
      activityObjectApId: gone.apId,
      relatesToInboxObjectId: null,
      relatesToOutboxObjectId: null,
    });
    forgetActorRelations(tx, gone, row.now);
    const theirs = tx
      .select()
      .from(inbox)
      .where(and(eq(inbox.actorId, gone.id), eq(inbox.isDeleted, false), ne(inbox.id, del.id)))
      .all();
    markDeleted(tx, theirs, row.now);
    return processed(del.id);
  });
  for (const keyId of keyIdsOf(gone.apActor as Json)) deps.fed.keyCache.evict(keyId);
  return outcome;
}
