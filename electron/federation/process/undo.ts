// Undo of an earlier activity by the same actor: the target is marked undone (and deleted), then
// each family reverts its effect — Follow: the follower goes (UNFOLLOW); Like/Announce of ours:
// counters recomputed (UNDO_LIKE / UNDO_ANNOUNCE). An Undo of something never received is kept
// as a row with no effect.
import { eq } from 'drizzle-orm';
import { inbox } from '../../../db/schema';
import { idOf } from '../ap';
import { drop, processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { onAnnounceUndone } from './announce';
import { onFollowUndone } from './follow';
import { onLikeUndone } from './like';
import { findInbox, persistActivity } from './store';

export async function onUndone(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const targetId = idOf(r.activity.object);
  return deps.db.transaction((tx) => {
    const target = targetId ? findInbox(tx, targetId) : undefined;
    if (target && target.apActorId !== r.actor.apId) drop(`Undo of ${targetId} by ${r.actor.apId}, who did not send it`);
    const undo = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: targetId,
      relatesToInboxObjectId: target?.id ?? null,
      relatesToOutboxObjectId: null,
    });
    if (!target || target.undoneByInboxObjectId !== null) return processed(undo.id);
    tx.update(inbox).set({ undoneByInboxObjectId: undo.id, isDeleted: true, updatedAt: r.now }).where(eq(inbox.id, target.id)).run();
    const input = { actor: r.actor, now: r.now };
    switch (target.apType) {
      case 'Follow':
        onFollowUndone(tx, input);
        break;
      case 'Like':
        onLikeUndone(tx, { ...input, like: target });
        break;
      case 'Announce':
        onAnnounceUndone(tx, { ...input, announce: target });
        break;
      default:
        break; // Block, EmojiReact, …: marked undone, nothing else to revert
    }
    return processed(undo.id);
  });
}
