// Follows in both directions. Incoming Follow of our actor: accepted at once (follower row, our
// Accept saved and queued to the follower's own inbox, NEW_FOLLOWER), or, when the author
// approves followers by hand, stored and left pending (see follow-requests.ts). Accept/Reject of
// OUR Follow: a `following` row appears or goes. Undo(Follow): the follower goes.
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { follower, following, outbox, type Actor, type InboxObject, type OutboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { idOf, inboxOf, isObject, typeOf } from '../ap';
import { isLocalActorId, type LocalActor } from '../identity';
import { saveOutboxObject } from '../outbox-store';
import { drop, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { findOutbox, notify, persistActivity } from './store';
import { cancelForFormerFollower } from '../withheld';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

export function findFollower(db: DbOrTx, actorId: number) {
  return db.select().from(follower).where(eq(follower.actorId, actorId)).get();
}

export async function onFollowed(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const target = idOf(r.activity.object);
  if (!isLocalActorId(target, deps.identity)) drop(`Follow of ${target ?? 'nothing'}, not of our actor`);
  return deps.db.transaction((tx) => {
    const follow = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: target });
    // Someone already following who sends a Follow again (servers do, when their state is
    // unsure) is answered again, even under manual approval: they were approved once.
    const already = findFollower(tx, r.actor.id) !== undefined;
    if (deps.settings.manuallyApprovesFollowers && !already) return processed(follow.id);
    acceptFollow(tx, deps.identity, { follow, actor: r.actor, now: r.now });
    return processed(follow.id);
  });
}

/**
 * Makes the Follow's actor a follower (updating an existing follower row rather than failing on
 * the unique key), saves our Accept and queues it to their own inbox. NEW_FOLLOWER only when
 * they were not already a follower. Used on auto-accept and when the author accepts a request.
 */
export function acceptFollow(
  tx: DbOrTx,
  local: LocalActor,
  input: { follow: InboxObject; actor: Actor; now: Date },
): { accept: OutboxObject; isNewFollower: boolean } {
  const { follow, actor, now } = input;
  const existing = findFollower(tx, actor.id);
  if (existing) {
    tx.update(follower).set({ inboxObjectId: follow.id, apActorId: actor.apId, updatedAt: now }).where(eq(follower.id, existing.id)).run();
  } else {
    tx.insert(follower).values({ actorId: actor.id, inboxObjectId: follow.id, apActorId: actor.apId, createdAt: now, updatedAt: now }).run();
  }
  const accept = answerFollow(tx, local, 'Accept', { follow, actor, now });
  if (!existing) notify(tx, { type: 'NEW_FOLLOWER', now, actorId: actor.id, inboxObjectId: follow.id });
  return { accept, isNewFollower: !existing };
}

/** Saves our Accept or Reject of a received Follow and queues it to the follower's own inbox. */
export function answerFollow(
  tx: DbOrTx,
  local: LocalActor,
  type: 'Accept' | 'Reject',
  input: { follow: InboxObject; actor: Actor; now: Date },
): OutboxObject {
  const { follow, actor, now } = input;
  const answer = saveOutboxObject(tx, local, {
    apObject: {
      '@context': AS_CONTEXT,
      type,
      actor: local.id,
      // The Follow embedded with its id: Mastodon matches the id, others read the embedded shape.
      object: { id: follow.apId, type: 'Follow', actor: actor.apId, object: idOf(follow.apObject.object) ?? local.id },
      to: [actor.apId],
    },
    visibility: 'DIRECT',
    now,
    activityObjectApId: follow.apId,
    relatesToInboxObjectId: follow.id,
  });
  // Accept/Reject go to the follower's personal inbox (reference §5.1), never a shared one.
  const recipient = inboxOf(actor.apActor, false);
  if (recipient) enqueueDeliveries(tx, { outboxObjectId: answer.id, recipients: [recipient], now });
  return answer;
}

/** Our Follow that an Accept/Reject answers: by id, else (servers that mint their own Follow
 * object) the newest Follow of ours to that actor that was not undone. */
function findOurFollow(db: DbOrTx, r: Received): OutboxObject | undefined {
  const objectId = idOf(r.activity.object);
  const byId = objectId ? findOutbox(db, objectId) : undefined;
  if (byId) return byId.apType === 'Follow' ? byId : undefined;
  const embedded = r.activity.object;
  if (!isObject(embedded) || typeOf(embedded) !== 'Follow') return undefined;
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.apType, 'Follow'), eq(outbox.activityObjectApId, r.actor.apId), isNull(outbox.undoneByOutboxObjectId)))
    .orderBy(desc(outbox.id))
    .get();
}

export async function onFollowAnswered(deps: ProcessDeps, r: Received, answer: 'Accept' | 'Reject'): Promise<ProcessOutcome> {
  return deps.db.transaction((tx) => {
    const ours = findOurFollow(tx, r);
    if (ours) {
      const followed = ours.activityObjectApId ?? idOf(ours.apObject.object);
      // Only the followed actor may answer our Follow.
      if (!sameId(followed, r.actor.apId)) drop(`${answer} from ${r.actor.apId} of a Follow addressed to ${followed ?? 'nobody'}`);
    }
    const row = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      relatesToOutboxObjectId: ours?.id ?? null,
      relatesToInboxObjectId: null,
    });
    // An answer to something else (an unknown Follow, a quote request, …) is kept, with no effect;
    // so is a late Accept of a Follow we have since undone.
    if (!ours || ours.isDeleted || ours.undoneByOutboxObjectId !== null) return processed(row.id);
    const existing = tx.select().from(following).where(eq(following.actorId, r.actor.id)).get();
    if (answer === 'Accept') {
      if (existing) {
        tx.update(following).set({ outboxObjectId: ours.id, apActorId: r.actor.apId, updatedAt: r.now }).where(eq(following.id, existing.id)).run();
      } else {
        tx.insert(following).values({ actorId: r.actor.id, outboxObjectId: ours.id, apActorId: r.actor.apId, createdAt: r.now, updatedAt: r.now }).run();
        notify(tx, { type: 'FOLLOW_REQUEST_ACCEPTED', now: r.now, actorId: r.actor.id, inboxObjectId: row.id });
      }
    } else {
      if (existing) tx.delete(following).where(eq(following.id, existing.id)).run();
      notify(tx, { type: 'FOLLOW_REQUEST_REJECTED', now: r.now, actorId: r.actor.id, inboxObjectId: row.id });
    }
    return processed(row.id);
  });
}

/** Undo(Follow): they stop following (whichever of their Follows is undone). */
export function onFollowUndone(tx: DbOrTx, input: { actor: Actor; now: Date; local: LocalActor }): void {
  const existing = findFollower(tx, input.actor.id);
  if (!existing) return; // a pending request withdrawn, or a follow we never accepted
  tx.delete(follower).where(eq(follower.id, existing.id)).run();
  cancelForFormerFollower(tx, input.local, input.actor.apId);
  notify(tx, { type: 'UNFOLLOW', now: input.now, actorId: input.actor.id });
}

/**
 * Block of our actor: as Mastodon does, the relationship ends both ways — they are no longer a
 * follower, and our following of them goes (their server will refuse our activities anyway).
 * Quietly: the spec has no notification type for it, and a block is not announced to the
 * blocked. The Block is kept as an inbox row. A Block of someone else is not ours to act on.
 */
export async function onBlocked(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const target = idOf(r.activity.object);
  if (!isLocalActorId(target, deps.identity)) drop(`Block of ${target ?? 'nothing'}, not of our actor`);
  return deps.db.transaction((tx) => {
    const block = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: target });
    tx.delete(follower).where(eq(follower.actorId, r.actor.id)).run();
    cancelForFormerFollower(tx, deps.identity, r.actor.apId);
    tx.delete(following).where(eq(following.actorId, r.actor.id)).run();
    return processed(block.id);
  });
}
