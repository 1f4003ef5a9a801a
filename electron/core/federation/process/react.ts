// Emoji reactions (Pleroma/Akkoma, Hollo, Iceshrimp: `EmojiReact`, litepub's vocabulary; Misskey's
// reactions arrive as Likes and are like.ts's). The spec's notification types have no reaction,
// so a reaction to one of our posts is notified as LIKE, pointing at the reaction row (whose
// content is the emoji the notification shows), and its Undo as UNDO_LIKE. It is not counted in
// likes_count: Pleroma's users like and react separately, and Mastodon does not count reactions
// as favourites either. Like Pleroma (EmojiReactValidator), only a reaction whose content is one
// emoji — a Unicode one, or a :shortcode: with its Emoji tag — is one; anything else is kept as
// a row with no effect.
import type { DbOrTx } from '../../../../db/client';
import type { Actor, InboxObject } from '../../../../db/schema';
import { isObject, str, typeOf, type Json } from '../ap';
import { processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { hasNotification, notify, persistInteraction } from './store';

/** `EmojiReaction`: the name a few Misskey forks used for the same activity. */
export const REACTION_TYPES: ReadonlySet<string> = new Set(['EmojiReact', 'EmojiReaction']);

// The characters custom-emoji.ts reads in a shortcode.
const SHORTCODE = /^:([\w.+-]{1,64}):$/u;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
// One pictographic character (with its skin tone, ZWJ sequence and variation selectors), a flag
// (two regional indicators) or a keycap (#️⃣, 1️⃣).
const UNICODE_EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3)/u;

/** Whether a reaction's content is one emoji: a Unicode one, or a custom one its tags define. */
export function isReactionEmoji(activity: Json): boolean {
  const content = str(activity.content)?.trim();
  if (!content) return false;
  const shortcode = SHORTCODE.exec(content)?.[1];
  if (shortcode !== undefined) {
    const tags = Array.isArray(activity.tag) ? activity.tag : [activity.tag];
    return tags.some((t) => isObject(t) && typeOf(t) === 'Emoji' && str(t.name)?.replace(/^:|:$/g, '') === shortcode);
  }
  const segments = [...graphemes.segment(content)];
  return segments.length === 1 && UNICODE_EMOJI.test(content);
}

export async function onReacted(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  return deps.db.transaction((tx) => {
    const { row: reaction, ours } = persistInteraction(tx, r);
    if (ours && isReactionEmoji(r.activity)) {
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
