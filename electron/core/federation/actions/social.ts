// Following and followers from the author's side: follow (by handle or URL) and unfollow
// (Undo{Follow}, the following row removed at once), answering follow requests (the inbox
// processor's acceptFollowRequest/rejectFollowRequest) and removing a follower (a Reject of
// their Follow, as the fork's remove_from_followers does). All go to the person's own inbox.
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { follower, following, inbox, outbox, type Actor, type OutboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { BadInputError, ConflictError, NotFoundError, UnavailableError } from '../../errors';
import { findActor } from '../actors';
import { acceptFollowRequest, rejectFollowRequest } from '../follow-requests';
import { isLocalActorId, type LocalActor } from '../identity';
import { lookup } from '../lookup';
import { toFollow, toUndo, type ApObject } from '../outbox';
import { saveOutboxObject } from '../outbox-store';
import { answerFollow } from '../process/follow';
import { targetOfActor } from '../recipients';
import { cancelForFormerFollower } from '../withheld';
import { requireLocal, type ActionDeps } from './deps';

export type FollowState = 'following' | 'requested' | 'none';

/** Our Follows of this actor that are still standing (not undone): newest first. */
export function standingFollows(db: DbOrTx, actorApId: string): OutboxObject[] {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.apType, 'Follow'), eq(outbox.activityObjectApId, actorApId), isNull(outbox.undoneByOutboxObjectId), eq(outbox.isDeleted, false)))
    .orderBy(desc(outbox.id))
    .all();
}

/** A Follow of ours the person rejected (an inbox Reject relating to it). */
function wasRejected(db: DbOrTx, follow: OutboxObject): boolean {
  return db.select({ id: inbox.id }).from(inbox).where(and(eq(inbox.apType, 'Reject'), eq(inbox.relatesToOutboxObjectId, follow.id))).get() !== undefined;
}

export function followStateOf(db: DbOrTx, actor: Actor): FollowState {
  if (db.select({ id: following.id }).from(following).where(eq(following.actorId, actor.id)).get()) return 'following';
  const pending = standingFollows(db, actor.apId).find((f) => !wasRejected(db, f));
  return pending ? 'requested' : 'none';
}

async function findPerson(deps: ActionDeps, target: string): Promise<Actor> {
  const local = requireLocal(deps);
  const cached = findActor(deps.db, target.trim());
  if (cached) return cached;
  if (!deps.isOnline()) throw new UnavailableError('Tern is offline and does not know this account yet; try again when online.');
  const found = await lookup({ db: deps.db, fed: deps.fed, clock: deps.clock, local }, target);
  if (found.kind !== 'actor') throw new BadInputError(`${target} is a post, not an account.`);
  return found.actor;
}

export async function follow(deps: ActionDeps, target: string): Promise<{ actor: Actor; state: FollowState }> {
  const local = requireLocal(deps);
  const person = await findPerson(deps, target);
  if (isLocalActorId(person.apId, local)) throw new BadInputError('You cannot follow yourself.');
  const now = deps.clock();
  deps.db.transaction((tx) => {
    const state = followStateOf(tx, person);
    if (state === 'following') throw new ConflictError('You already follow them.');
    if (state === 'requested') throw new ConflictError('You already asked to follow them; they have not answered yet.');
    queueFollow(tx, local, person, now);
  });
  deps.wake();
  return { actor: person, state: 'requested' };
}

/** Saves our Follow of this person and queues it to their own inbox (the caller checked the
 * state). Also used when someone we follow moves (process/move.ts). */
export function queueFollow(tx: DbOrTx, local: LocalActor, person: Actor, now: Date): OutboxObject {
  const row = saveOutboxObject(tx, local, {
    apObject: toFollow(local, person.apId, now.toISOString()),
    visibility: 'DIRECT',
    now,
    activityObjectApId: person.apId,
    relatesToActorId: person.id,
  });
  enqueueDeliveries(tx, { outboxObjectId: row.id, recipients: [targetOfActor(tx, person.apId, true)!], now });
  return row;
}

/** Stops following (or withdraws a request): Undo{Follow} to them; no following row remains. */
export function unfollow(deps: ActionDeps, actorApId: string): { actor: Actor; queued: number } {
  const local = requireLocal(deps);
  const now = deps.clock();
  const result = deps.db.transaction((tx) => {
    const person = findActor(tx, actorApId);
    if (!person) throw new NotFoundError('Tern does not know that account.');
    const queued = queueUnfollow(tx, local, person, now);
    if (queued === null) throw new NotFoundError('You do not follow them.');
    return { actor: person, queued };
  });
  deps.wake();
  return result;
}

/** Removes the following row and undoes our standing Follows of this person, the Undo queued
 * to their own inbox. Returns how many deliveries were queued, or null when there was nothing
 * to undo. Also used when someone we follow moves (process/move.ts). */
export function queueUnfollow(tx: DbOrTx, local: LocalActor, person: Actor, now: Date): number | null {
  const follows = standingFollows(tx, person.apId);
  const row = tx.select().from(following).where(eq(following.actorId, person.id)).get();
  if (follows.length === 0 && !row) return null;
  if (row) tx.delete(following).where(eq(following.id, row.id)).run();
  const latest = follows[0] ?? tx.select().from(outbox).where(eq(outbox.id, row!.outboxObjectId)).get();
  if (!latest) return 0;
  const undo = saveOutboxObject(tx, local, {
    apObject: toUndo(local, latest.apObject as ApObject, now.toISOString()),
    visibility: 'DIRECT',
    now,
    activityObjectApId: latest.apId,
    relatesToOutboxObjectId: latest.id,
  });
  for (const f of follows.length > 0 ? follows : [latest]) {
    tx.update(outbox).set({ undoneByOutboxObjectId: undo.id, isDeleted: true, updatedAt: now }).where(eq(outbox.id, f.id)).run();
  }
  return enqueueDeliveries(tx, { outboxObjectId: undo.id, recipients: [targetOfActor(tx, person.apId, true)!], now });
}

export function acceptRequest(deps: ActionDeps, inboxObjectId: number): { outboxObjectId: number } {
  const result = acceptFollowRequest({ db: deps.db, clock: deps.clock, identity: requireLocal(deps) }, inboxObjectId);
  deps.wake();
  return { outboxObjectId: result.acceptOutboxObjectId };
}

export function rejectRequest(deps: ActionDeps, inboxObjectId: number): { outboxObjectId: number } {
  const result = rejectFollowRequest({ db: deps.db, clock: deps.clock, identity: requireLocal(deps) }, inboxObjectId);
  deps.wake();
  return { outboxObjectId: result.rejectOutboxObjectId };
}

/** Removes a follower: a Reject of their Follow (Mastodon then drops the follow) and the row. */
export function removeFollower(deps: ActionDeps, actorApId: string): { outboxObjectId: number } {
  const local = requireLocal(deps);
  const now = deps.clock();
  const result = deps.db.transaction((tx) => {
    const person = findActor(tx, actorApId);
    const row = person && tx.select().from(follower).where(eq(follower.actorId, person.id)).get();
    if (!person || !row) throw new NotFoundError('They do not follow you.');
    const followRow = tx.select().from(inbox).where(eq(inbox.id, row.inboxObjectId)).get();
    if (!followRow) throw new NotFoundError('Their Follow is no longer stored.');
    tx.delete(follower).where(eq(follower.id, row.id)).run();
    cancelForFormerFollower(tx, local, person.apId);
    return { outboxObjectId: answerFollow(tx, local, 'Reject', { follow: followRow, actor: person, now }).id };
  });
  deps.wake();
  return result;
}
