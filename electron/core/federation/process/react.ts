// Emoji reactions (Pleroma/Akkoma, Hollo, Iceshrimp: `EmojiReact`, litepub's vocabulary; Misskey's
// reactions arrive as Likes and are like.ts's). The spec's notification types have no reaction,
// so a reaction to one of our posts is notified as LIKE, pointing at the reaction row (whose
// content is the emoji the notification shows), and its Undo as UNDO_LIKE. It is not counted in
// likes_count: Pleroma's users like and react separately, and Mastodon does not count reactions
// as favourites either. Only a reaction whose content is one emoji (reaction-emoji.ts, Pleroma's
// rule) is one; anything else is kept as a row with no effect.
import type { DbOrTx } from '../../../../db/client';
import type { Actor, InboxObject } from '../../../../db/schema';
import { reactionEmojiOf } from '../reaction-emoji';
import { processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { hasNotification, notify, persistInteraction } from './store';

export async function onReacted(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  return deps.db.transaction((tx) => {
    const { row: reaction, ours } = persistInteraction(tx, r);
    if (ours && reactionEmojiOf(r.activity)) {
      notify(tx, { type: 'LIKE', now: r.now, actorId: r.actor.id, outboxObjectId: ours.id, inboxObjectId: reaction.id });
    }
    return processed(reaction.id);
  });
}

/** Undo of a reaction, once it is marked undone: UNDO_LIKE, when the reaction had notified LIKE. */
export function onReactionUndone(tx: DbOrTx, input: { reaction: InboxObject; actor: Actor; now: Date }): void {
  const outboxObjectId = input.reaction.relatesToOutboxObjectId;
  if (outboxObjectId === null || !hasNotification(tx, 'LIKE', input.reaction.id)) return;
  notify(tx, { type: 'UNDO_LIKE', now: input.now, actorId: input.actor.id, outboxObjectId, inboxObjectId: input.reaction.id });
}
