// What a group of emoji reactions says ("Ana and Ben reacted with 🎉 to your post"; "Ana took
// back a 🎉 reaction to your post"): the core tells LIKE and UNDO_LIKE of a reaction apart from
// likes and gives the emoji (federation/reaction-emoji.ts), never as words. The emoji goes in a
// slot of its own, isolated like the names (components/WithNames.tsx): the core takes bidi
// controls out, and the view does not count on it. A custom one shows as its picture when the
// core gave one through the media proxy (content/emoji.tsx checks), else as its :shortcode:.
import type { ReactNode } from 'react';
import { nameSlot } from '../components/WithNames';
import { EmojiText } from '../content/emoji';
import { strings } from '../strings';
import type { NotificationGroup, NotificationReaction } from './groups';

const t = strings.notifications;

/** The sentence with its slots, and what fills them: the names, then the emoji. */
export interface ReactionSentence {
  text: string;
  names: ReactNode[];
}

export function reactionSentence(group: NotificationGroup): ReactionSentence | null {
  const reaction = group.reaction;
  if (!reaction || (group.kind !== 'LIKE' && group.kind !== 'UNDO_LIKE')) return null;
  const names = group.actors.map((a) => a.name);
  const who = t.actors(names.map((_, i) => nameSlot(i)));
  const emoji = nameSlot(names.length);
  return {
    text: group.kind === 'LIKE' ? t.reacted(who, emoji) : t.unreacted(who, emoji, names.length),
    names: [...names, <ReactionEmoji key="emoji" reaction={reaction} />],
  };
}

function ReactionEmoji({ reaction }: { reaction: NotificationReaction }) {
  return (
    <span className="notification__emoji">
      <EmojiText text={reaction.emoji} emojis={reaction.custom ? [reaction.custom] : undefined} />
    </span>
  );
}
