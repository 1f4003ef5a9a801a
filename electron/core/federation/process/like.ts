// Likes (Misskey's reactions arrive as Likes too). A Like of one of our objects recounts its
// likes_count from the rows and notifies LIKE; a Like of anyone else's object is stored and
// has no effect (the reference deletes it; keeping it costs one row and is never an error).
import type { DbOrTx } from '../../../../db/client';
import type { Actor, InboxObject } from '../../../../db/schema';
import { processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { recountLikes } from './counters';
import { notify, persistInteraction } from './store';

export async function onLiked(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  return deps.db.transaction((tx) => {
    const { row: like, ours } = persistInteraction(tx, r);
    if (ours) {
      recountLikes(tx, ours.id);
      notify(tx, { type: 'LIKE', now: r.now, actorId: r.actor.id, outboxObjectId: ours.id, inboxObjectId: like.id });
    }
    return processed(like.id);
  });
}

/** Undo(Like), once the Like is marked undone: recount, and UNDO_LIKE pointing at the Like. */
export function onLikeUndone(tx: DbOrTx, input: { like: InboxObject; actor: Actor; now: Date }): void {
  const outboxObjectId = input.like.relatesToOutboxObjectId;
  if (outboxObjectId === null) return;
  recountLikes(tx, outboxObjectId);
  notify(tx, { type: 'UNDO_LIKE', now: input.now, actorId: input.actor.id, outboxObjectId, inboxObjectId: input.like.id });
}
