// The emoji reactions standing on one of the author's posts, per emoji, for the Mastodon client
// API's `pleroma.emoji_reactions` (mastodon/entities.ts). A reaction is an EmojiReact (or a
// Misskey Like carrying its emoji) that is one emoji by reaction-emoji.ts's rule, the rule the
// notifications use; an undone or deleted one is gone (undo.ts marks it deleted). Also says how
// many of the actors counted in likes_count only reacted: likes_count counts every Like, Misskey's
// reactions too (like.ts), and a Mastodon client's favourites_count counts real likes only, as
// Pleroma's does (it turns Misskey's reacting Likes into EmojiReacts).
import { prepared, type DbOrTx } from '../../../db/client';
import { reactionEmojiOf, REACTION_TYPES, type ReactionEmoji } from './reaction-emoji';
import type { Json } from './ap';

export interface ReactionCount extends ReactionEmoji {
  /** Distinct actors standing behind this emoji. */
  count: number;
}

export interface ReactionTally {
  /** Most reacted first; at equal counts, the emoji reacted with first. */
  reactions: ReactionCount[];
  /** Actors whose every standing Like of the post is a reaction: in likes_count, not likes. */
  reactingLikers: number;
  /** Reacting rows read (at most the limit asked for). */
  rowsRead: number;
}

/** Rows read per post at most: remote input is bounded (a post with more reactions than this is
 * tallied on its first ones). */
export const MAX_REACTION_ROWS = 2000;
/** Rows read at most for all the posts of one answer (a page of 40 statuses): a tally costs
 * about 8 µs a row here, so 40 posts at MAX_REACTION_ROWS each would hold the thread 0.7 s.
 * Past it, the remaining posts are tallied on what is left (none: no reactions shown). */
export const MAX_REACTION_ROWS_PER_ANSWER = 4000;
/** A tag list longer than this (as JSON text) is not read: no reaction needs it. */
const MAX_TAG_CHARS = 64 * 1024;

// The reacting rows, through ix_inbox_relates_to_outbox_object_counts (post, type, deleted): a
// Like is a candidate only when it has content (Mastodon's likes have none), and only the content
// and tags are taken out of the stored JSON.
const TYPES = [...REACTION_TYPES].map((t) => `'${t}'`).join(', ');
const REACTING_ROWS_SQL =
  `SELECT actor_id AS actorId, ap_type AS apType, json_extract(ap_object, '$.content') AS content, json_extract(ap_object, '$.tag') AS tag FROM inbox` +
  ` WHERE relates_to_outbox_object_id = ? AND is_deleted = 0` +
  ` AND (ap_type IN (${TYPES}) OR (ap_type = 'Like' AND json_extract(ap_object, '$.content') IS NOT NULL))` +
  ` ORDER BY id LIMIT ?`;
// Of these actors, those with a standing Like without content: a real like.
const PLAIN_LIKERS_SQL =
  "SELECT DISTINCT actor_id FROM inbox WHERE relates_to_outbox_object_id = ? AND ap_type = 'Like' AND is_deleted = 0" +
  " AND json_extract(ap_object, '$.content') IS NULL AND actor_id IN (SELECT value FROM json_each(?))";

interface Row {
  actorId: number;
  apType: string;
  content: unknown;
  tag: unknown;
}

function emojiOf(row: Row): ReactionEmoji | null {
  if (typeof row.content !== 'string') return null;
  let tag: unknown = undefined;
  if (typeof row.tag === 'string' && row.tag.length <= MAX_TAG_CHARS && row.content.startsWith(':')) {
    try {
      tag = JSON.parse(row.tag) as unknown;
    } catch {
      tag = undefined;
    }
  }
  return reactionEmojiOf({ content: row.content, ...(tag === undefined ? {} : { tag }) } as Json);
}

/** The tally of one post, read from at most `maxRows` reacting rows (MAX_REACTION_ROWS). */
export function reactionTallyOf(db: DbOrTx, outboxObjectId: number, maxRows = MAX_REACTION_ROWS): ReactionTally {
  const limit = Math.max(0, Math.min(MAX_REACTION_ROWS, Math.floor(maxRows)));
  if (limit === 0) return { reactions: [], reactingLikers: 0, rowsRead: 0 };
  const rows = prepared<[number, number], Row>(db, REACTING_ROWS_SQL).all(outboxObjectId, limit);
  if (rows.length === 0) return { reactions: [], reactingLikers: 0, rowsRead: 0 };
  const byEmoji = new Map<string, { emoji: ReactionEmoji; actors: Set<number> }>();
  const reactingLikers = new Set<number>();
  const wordyLikers = new Set<number>();
  for (const row of rows) {
    const emoji = emojiOf(row);
    if (row.apType === 'Like') (emoji ? reactingLikers : wordyLikers).add(row.actorId);
    if (!emoji) continue;
    const group = byEmoji.get(emoji.emoji) ?? { emoji, actors: new Set<number>() };
    group.actors.add(row.actorId);
    byEmoji.set(emoji.emoji, group);
  }
  // A Like whose content is words is a like; so is a plain one by the same actor.
  for (const actorId of wordyLikers) reactingLikers.delete(actorId);
  if (reactingLikers.size > 0) {
    const plain = prepared<[number, string], number>(db, PLAIN_LIKERS_SQL).pluck().all(outboxObjectId, JSON.stringify([...reactingLikers]));
    for (const actorId of plain) reactingLikers.delete(actorId);
  }
  const reactions = [...byEmoji.values()].map((g) => ({ ...g.emoji, count: g.actors.size }));
  // Stable sort: equal counts keep the order of their first reaction.
  reactions.sort((a, b) => b.count - a.count);
  return { reactions, reactingLikers: reactingLikers.size, rowsRead: rows.length };
}
