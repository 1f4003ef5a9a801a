// Undo of an earlier activity by the same actor: the target is marked undone (and deleted), then
// each family reverts its effect — Follow: the follower goes (UNFOLLOW); Like/Announce of ours:
// counters recomputed (UNDO_LIKE / UNDO_ANNOUNCE); an emoji reaction to ours: UNDO_LIKE; Delete: the post restored (Lemmy's "restore"),
// when its author undoes it or its server serves it again (delete.ts restorablePost). The undone
// activity is found by its id, else — for servers that embed a freshly minted copy of it — by its
// shape (undoneByShape). An Undo of something never received is kept as a row with no effect.
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, type Actor, type InboxObject } from '../../../../db/schema';
import { actorIdOf, idOf, isObject, str, typeOf } from '../ap';
import { isLocalActorId, type LocalActor } from '../identity';
import { drop, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { onAnnounceUndone } from './announce';
import { findFollower, onFollowUndone } from './follow';
import { onLikeUndone } from './like';
import { onReactionUndone } from './react';
import { REACTION_TYPES } from '../reaction-emoji';
import { markRestored, restorablePost } from './delete';
import { findInbox, findLiveActivitiesAbout, persistActivity } from './store';

export async function onUndone(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const targetId = idOf(r.activity.object);
  const known = targetId ? findInbox(deps.db, targetId) : undefined;
  // Undo of a Delete: the post comes back (checked before the transaction, which cannot wait).
  const restore = known?.apType === 'Delete' && known.apActorId === r.actor.apId ? await restorablePost(deps, r, known) : null;
  // Relayed without its actor's signature, an Undo is believed only for a restore its server confirms.
  if (r.forwarded && !restore) drop(`Undo of ${targetId} relayed by ${r.row.sentByApActorId}: not trusted (its server does not serve the post again)`);
  return deps.db.transaction((tx) => {
    const target = (targetId ? findInbox(tx, targetId) : undefined) ?? undoneByShape(tx, deps.identity, r);
    if (target && target.apActorId !== r.actor.apId) drop(`Undo of ${targetId} by ${r.actor.apId}, who did not send it`);
    const undo = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: target?.apId ?? targetId,
      relatesToInboxObjectId: target?.id ?? null,
      relatesToOutboxObjectId: null,
    });
    if (!target || target.undoneByInboxObjectId !== null) return processed(undo.id);
    tx.update(inbox).set({ undoneByInboxObjectId: undo.id, isDeleted: true, updatedAt: r.now }).where(eq(inbox.id, target.id)).run();
    const input = { actor: r.actor, now: r.now };
    switch (target.apType) {
      case 'Follow':
        onFollowUndone(tx, { ...input, local: deps.identity });
        break;
      case 'Like':
        onLikeUndone(tx, { ...input, like: target });
        break;
      case 'Announce':
        onAnnounceUndone(tx, { ...input, announce: target });
        break;
      case 'Delete':
        if (restore) markRestored(tx, restore, r.now);
        break;
      default:
        // An emoji reaction: UNDO_LIKE (react.ts). Block, …: marked undone, nothing else to revert.
        if (REACTION_TYPES.has(target.apType)) onReactionUndone(tx, { ...input, reaction: target });
        break;
    }
    return processed(undo.id);
  });
}

/** Activities an Undo may name by their shape alone: one per actor and object (a reaction per emoji). */
const UNDONE_BY_SHAPE = new Set(['Like', 'Dislike', 'Announce', ...REACTION_TYPES, 'Follow']);

/**
 * The activity an Undo embeds with an id we never received: Lemmy builds a new Vote or Follow,
 * with a new id, to undo one (LemmyNet/lemmy activities/voting/mod.rs "undo a previous vote",
 * following/undo_follow.rs), and so does Wildebeest's unfollow. Then it is the undoing actor's
 * newest such activity not undone about the same object — a Follow of our actor: the one their
 * follower row stands on, else their newest request; an EmojiReact: with the same emoji. Only
 * the Undo's own actor's: an embedded copy naming someone else is refused.
 */
function undoneByShape(tx: DbOrTx, local: LocalActor, r: Received): InboxObject | undefined {
  const inner = r.activity.object;
  const type = typeOf(inner);
  if (!isObject(inner) || !type || !UNDONE_BY_SHAPE.has(type)) return undefined;
  const innerActor = actorIdOf(inner);
  if (innerActor !== null && !sameId(innerActor, r.actor.apId)) drop(`Undo by ${r.actor.apId} of a ${type} by ${innerActor}`);
  const objectId = idOf(inner.object);
  if (!objectId) return undefined;
  if (type === 'Follow') return isLocalActorId(objectId, local) ? standingFollow(tx, r.actor) : undefined;
  const candidates = findLiveActivitiesAbout(tx, type, r.actor.apId, objectId);
  const emoji = REACTION_TYPES.has(type) ? str(inner.content) : null;
  return emoji === null ? candidates[0] : candidates.find((row) => str(row.apObject.content) === emoji);
}

/** The Follow an actor follows us by (their follower row's), else their newest request. */
function standingFollow(tx: DbOrTx, actor: Actor): InboxObject | undefined {
  const live = and(eq(inbox.apType, 'Follow'), eq(inbox.actorId, actor.id), eq(inbox.isDeleted, false), isNull(inbox.undoneByInboxObjectId));
  const followerRow = findFollower(tx, actor.id);
  const followedBy = followerRow ? tx.select().from(inbox).where(and(live, eq(inbox.id, followerRow.inboxObjectId))).get() : undefined;
  return followedBy ?? tx.select().from(inbox).where(live).orderBy(desc(inbox.id)).get();
}
