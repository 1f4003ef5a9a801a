// Follow requests waiting for the author, when followers are approved by hand.
//
// The spec's notification types have no "pending follower" (the reference's
// PENDING_INCOMING_FOLLOWER is not in the enumeration, and NEW_FOLLOWER would be a lie), so a
// request is NOT a notification. It is its stored Follow, and "pending" is derived, never stored:
//   an inbox Follow that is not undone or deleted, that we have not answered (no outbox Accept or
//   Reject relates to it), from an actor who is not a follower.
// The newest such Follow per actor is the request. Accepting makes them a follower and creates
// NEW_FOLLOWER then (as the reference does when the admin accepts); rejecting sends Reject and
// creates no notification (the spec has no type for it). Withdrawing (Undo) removes the request.
import { and, desc, eq, exists, isNull, notExists, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../db/client';
import { actor, follower, inbox, outbox, type InboxObject } from '../../../db/schema';
import { ConflictError, NotFoundError } from '../errors';
import { summarizeActor, type ActorSummary } from './actor-summary';
import type { LocalActor } from './identity';
import { acceptFollow, answerFollow } from './process/follow';

export interface FollowRequest {
  /** The Follow's inbox row: what acceptFollowRequest/rejectFollowRequest take. */
  inboxObjectId: number;
  followApId: string;
  /** ISO-8601, when the request arrived. */
  requestedAt: string;
  actor: ActorSummary;
}

export interface FollowRequestDeps {
  db: Db;
  clock: () => Date;
  identity: LocalActor;
}

/** Pending requests, newest first, one per actor. Only an actor's newest Follow counts: once
 * it is answered, their older unanswered Follows are not requests any more. */
export function listPendingFollowRequests(db: DbOrTx): FollowRequest[] {
  // Correlated sub-queries: an Accept/Reject of ours relating to this Follow answers it; a
  // follower row for its actor means they follow already.
  const answers = db.select({ id: outbox.id }).from(outbox).where(eq(outbox.relatesToInboxObjectId, inbox.id));
  const isFollower = db.select({ id: follower.id }).from(follower).where(eq(follower.actorId, inbox.actorId));
  const rows = db
    .select({ follow: inbox, actor, answered: sql<number>`${exists(answers)}` })
    .from(inbox)
    .innerJoin(actor, eq(actor.id, inbox.actorId))
    .where(and(eq(inbox.apType, 'Follow'), eq(inbox.isDeleted, false), isNull(inbox.undoneByInboxObjectId), notExists(isFollower)))
    .orderBy(desc(inbox.createdAt), desc(inbox.id))
    .all();
  const seen = new Set<number>();
  const requests: FollowRequest[] = [];
  for (const row of rows) {
    if (seen.has(row.actor.id)) continue;
    seen.add(row.actor.id);
    if (row.answered) continue;
    requests.push({
      inboxObjectId: row.follow.id,
      followApId: row.follow.apId,
      requestedAt: row.follow.createdAt.toISOString(),
      actor: summarizeActor(row.actor),
    });
  }
  return requests;
}

function pendingFollow(db: DbOrTx, inboxFollowId: number): InboxObject {
  const follow = db.select().from(inbox).where(eq(inbox.id, inboxFollowId)).get();
  if (!follow || follow.apType !== 'Follow') throw new NotFoundError('There is no such follow request.');
  if (follow.isDeleted || follow.undoneByInboxObjectId !== null) throw new NotFoundError('This follow request was withdrawn.');
  const answered = db.select({ id: outbox.id }).from(outbox).where(eq(outbox.relatesToInboxObjectId, follow.id)).get();
  if (answered) throw new ConflictError('This follow request was already answered.');
  if (db.select({ id: follower.id }).from(follower).where(eq(follower.actorId, follow.actorId)).get()) {
    throw new ConflictError('They already follow you.');
  }
  return follow;
}

function actorOf(db: DbOrTx, follow: InboxObject) {
  const row = db.select().from(actor).where(eq(actor.id, follow.actorId)).get();
  if (!row) throw new NotFoundError('The account that asked to follow you is not known any more.');
  return row;
}

/** Accepts a pending request: follower row, our Accept queued to their inbox, NEW_FOLLOWER. */
export function acceptFollowRequest(deps: FollowRequestDeps, inboxFollowId: number): { acceptOutboxObjectId: number } {
  return deps.db.transaction((tx) => {
    const follow = pendingFollow(tx, inboxFollowId);
    const { accept } = acceptFollow(tx, deps.identity, { follow, actor: actorOf(tx, follow), now: deps.clock() });
    return { acceptOutboxObjectId: accept.id };
  });
}

/** Rejects a pending request: our Reject queued to their inbox; no follower, no notification. */
export function rejectFollowRequest(deps: FollowRequestDeps, inboxFollowId: number): { rejectOutboxObjectId: number } {
  return deps.db.transaction((tx) => {
    const follow = pendingFollow(tx, inboxFollowId);
    const reject = answerFollow(tx, deps.identity, 'Reject', { follow, actor: actorOf(tx, follow), now: deps.clock() });
    return { rejectOutboxObjectId: reject.id };
  });
}
