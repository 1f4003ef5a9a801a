// Undo of an earlier activity by the same actor: the target is marked undone (and deleted), then
// each family reverts its effect — Follow: the follower goes (UNFOLLOW); Like/Announce of ours:
// counters recomputed (UNDO_LIKE / UNDO_ANNOUNCE); Delete: the post restored (Lemmy's "restore"),
// when its author undoes it or its server serves it again (delete.ts restorablePost). An Undo of
// something never received is kept as a row with no effect.
import { eq } from 'drizzle-orm';
import { inbox } from '../../../../db/schema';
import { idOf } from '../ap';
import { drop, processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { onAnnounceUndone } from './announce';
import { onFollowUndone } from './follow';
import { onLikeUndone } from './like';
import { markRestored, restorablePost } from './delete';
import { findInbox, persistActivity } from './store';

export async function onUndone(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const targetId = idOf(r.activity.object);
  const known = targetId ? findInbox(deps.db, targetId) : undefined;
  // Undo of a Delete: the post comes back (checked before the transaction, which cannot wait).
  const restore = known?.apType === 'Delete' && known.apActorId === r.actor.apId ? await restorablePost(deps, r, known) : null;
  // Relayed without its actor's signature, an Undo is believed only for a restore its server confirms.
  if (r.forwarded && !restore) drop(`Undo of ${targetId} relayed by ${r.row.sentByApActorId}: not trusted (its server does not serve the post again)`);
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
      case 'Delete':
        if (restore) markRestored(tx, restore, r.now);
        break;
      default:
        break; // Block, EmojiReact, …: marked undone, nothing else to revert
    }
    return processed(undo.id);
  });
}
