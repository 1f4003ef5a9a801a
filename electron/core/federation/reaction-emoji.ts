// What makes an activity an emoji reaction, and which emoji: the one rule that the inbox
// (process/react.ts: notify or not), the notifications list the app shows and the OS
// notifications (through NotificationItem.reaction) all read. Like Pleroma's
// EmojiReactValidator, a reaction's content is one emoji — a Unicode one, or a :shortcode: with
// its Emoji tag; anything else is no reaction. Misskey's reactions arrive as Likes carrying
// their emoji the same way (`content`, and `tag` for a custom one).
import { isObject, str, typeOf, type Json } from './ap';
import { customEmojisOf, type CustomEmoji } from './custom-emoji';

/** `EmojiReaction`: the name a few Misskey forks used for litepub's `EmojiReact`. */
export const REACTION_TYPES: ReadonlySet<string> = new Set(['EmojiReact', 'EmojiReaction']);

export interface ReactionEmoji {
  /** A Unicode emoji (with its joiners, modifiers and variation selectors), or `:shortcode:`. */
  emoji: string;
  /** A custom emoji's picture (through Tern's media proxy), when its tag gives a usable one. */
  custom: CustomEmoji | null;
}

// The characters custom-emoji.ts reads in a shortcode.
const SHORTCODE = /^:([\w.+-]{1,64}):$/u;
/** Bidi controls (embeddings, overrides, isolates, the marks LRM, RLM and ALM): none is part of
 * an emoji, and in a sentence they would reorder the words after it ("Ana reacted with … to
 * your post" shown backwards). Taken out before the content is read as an emoji. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
// One pictographic character (with its skin tone, ZWJ sequence and variation selectors), a flag
// (two regional indicators) or a keycap (#️⃣, 1️⃣).
const UNICODE_EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3)/u;

/** Longer content is no one emoji: a :shortcode: is at most 66 characters, and the longest
 * Unicode emoji (a ZWJ family with skin tones) about 35 code units. Read before anything else, so
 * a Like carrying 256 KiB of text costs nothing here (this runs on the main thread, for every
 * LIKE in a page of notifications). */
const MAX_REACTION_CHARS = 80;

/** The emoji an activity reacts with, or null when its content is not one emoji. */
export function reactionEmojiOf(activity: Json): ReactionEmoji | null {
  const raw = str(activity.content);
  // Bidi controls are taken out below: a few of them around an emoji still fit.
  if (raw === null || raw.length > MAX_REACTION_CHARS * 2) return null;
  const content = raw.replace(BIDI, '').trim();
  if (!content || content.length > MAX_REACTION_CHARS) return null;
  const shortcode = SHORTCODE.exec(content)?.[1];
  if (shortcode !== undefined) {
    const tags = Array.isArray(activity.tag) ? activity.tag : [activity.tag];
    // Akkoma names the Emoji without its colons.
    const tagged = tags.some((t) => isObject(t) && typeOf(t) === 'Emoji' && str(t.name)?.replace(/^:|:$/g, '') === shortcode);
    if (!tagged) return null;
    return { emoji: content, custom: customEmojisOf(activity.tag).find((e) => e.shortcode === shortcode) ?? null };
  }
  const segments = [...graphemes.segment(content)];
  return segments.length === 1 && UNICODE_EMOJI.test(content) ? { emoji: content, custom: null } : null;
}
