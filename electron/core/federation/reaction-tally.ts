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
  /** Actors whose every standing Like of the post read is a reaction: in likes_count, not likes. */
  reactingLikers: number;
}

/** Rows read per post at most: remote input is bounded (a post with more likes and reactions
 * than this is tallied on its first ones). */
export const MAX_REACTION_ROWS = 2000;
/** A stored activity longer than this (bytes of JSON) is not read as a reaction: a real one is a
 * few KB (the real ones in test/fixtures/real: 2–5 KB with their actors), and reading one costs
 * about 2.3 ns a byte (SQLite's json_extract). An EmojiReact this long is left out; a Like this
 * long is a like. */
export const MAX_REACTION_BYTES = 16 * 1024;
/** What all the posts of one answer (a page of up to 80 statuses) read at most: rows (each about
 * 19 µs here, small or not: the emoji rule, a tag's JSON) and JSON bytes (about 2.3 ns each), so
 * about 60 ms at worst together. A post past either shows none. */
export const MAX_REACTION_ROWS_PER_ANSWER = 3000;
export const MAX_REACTION_BYTES_PER_ANSWER = 8 * 1024 * 1024;
/** What one answer reads at most to tell a post's likes from its reacting Likes when its rows were
 * not all read above (past the budget, or past MAX_REACTION_ROWS): the post's Like rows only, each
 * its content (and a :shortcode:'s tag) read in SQL, about 1 µs a row besides its bytes (the same
 * 2.3 ns each); the emoji rule (about 19 µs) runs once per distinct content, at most
 * CLASSIFICATIONS_PER_ANSWER times. About 80 ms at worst together; a post past them keeps what the
 * rows read told (see reactionTallyOf). */
export const MAX_LIKE_ROWS_PER_ANSWER = 20_000;
export const MAX_LIKE_BYTES_PER_ANSWER = 16 * 1024 * 1024;
const CLASSIFICATIONS_PER_ANSWER = 1000;

/** What is left to read for one answer, spent by each tally. */
export interface ReactionBudget {
  rows: number;
  bytes: number;
  /** For telling likes from reactions past the rows above (reactingLikersOf). */
  likeRows: number;
  likeBytes: number;
  /** How many more contents reactingLikersOf may run the emoji rule on. */
  classifications: number;
  /** The emoji of each short content (and tag) already read in this answer; null: no reaction. */
  emojiOf: Map<string, ReactionEmoji | null>;
}

export const reactionBudget = (): ReactionBudget => ({
  rows: MAX_REACTION_ROWS_PER_ANSWER,
  bytes: MAX_REACTION_BYTES_PER_ANSWER,
  likeRows: MAX_LIKE_ROWS_PER_ANSWER,
  likeBytes: MAX_LIKE_BYTES_PER_ANSWER,
  classifications: CLASSIFICATIONS_PER_ANSWER,
  emojiOf: new Map(),
});

// SQL of an inbox row's content and tag, read only when its activity is short enough to be a
// reaction: octet_length() reads the stored size without loading the text, so a flood of large
// activities costs nothing. The tag is read only for a :shortcode: (a custom emoji needs it).
const SMALL = `octet_length(ap_object) <= ${MAX_REACTION_BYTES}`;
export const REACTION_CONTENT_SQL = `CASE WHEN ${SMALL} THEN json_extract(ap_object, '$.content') END`;
export const REACTION_TAG_SQL = `CASE WHEN ${SMALL} AND json_extract(ap_object, '$.content') LIKE ':%' THEN json_extract(ap_object, '$.tag') END`;

const TYPES = ['Like', ...REACTION_TYPES].map((t) => `'${t}'`).join(', ');
const OF_POST = `FROM inbox WHERE relates_to_outbox_object_id = ? AND is_deleted = 0 AND ap_type IN (${TYPES})`;
// The post's reactions, then its likes, in the order of ix_inbox_relates_to_outbox_object_counts
// (post, type, deleted, actor): no sort, so at most MAX_REACTION_ROWS index entries are read
// however many there are (ordered by id, a post with 200,000 was read whole first: 75–90 ms).
// With the size of each: how many of them the budget reads is decided before any is read.
const WINDOW_SQL = `SELECT id, octet_length(ap_object) AS bytes ${OF_POST} LIMIT ?`;
const PARTS_SQL = `SELECT actor_id AS actorId, ap_type AS apType, ${REACTION_CONTENT_SQL} AS content, ${REACTION_TAG_SQL} AS tag FROM inbox WHERE id IN (SELECT value FROM json_each(?))`;

interface Row {
  actorId: number;
  apType: string;
  content: unknown;
  tag: unknown;
}

/** The emoji of a row read with REACTION_CONTENT_SQL and REACTION_TAG_SQL; null: no reaction. */
export function reactionOfParts(content: unknown, tag: unknown): ReactionEmoji | null {
  if (typeof content !== 'string') return null;
  let parsed: unknown = undefined;
  if (typeof tag === 'string') {
    try {
      parsed = JSON.parse(tag) as unknown;
    } catch {
      parsed = undefined;
    }
  }
  return reactionEmojiOf({ content, ...(parsed === undefined ? {} : { tag: parsed }) } as Json);
}

// A flood repeats a few contents: each is read as an emoji once per answer. Keys this long are
// not kept (a reaction's content is at most 160 characters, its tag a few hundred bytes).
const MAX_MEMO_KEY = 1024;

/** The emoji of a row's parts through the answer's memo; when `pay`, a content not in it spends
 * one of the answer's classifications, and past them it is not known (undefined). */
function emojiOfParts(budget: ReactionBudget, content: unknown, tag: unknown, pay: boolean): ReactionEmoji | null | undefined {
  if (typeof content !== 'string') return null;
  const key = `${content}\u0000${typeof tag === 'string' ? tag : ''}`;
  const known = budget.emojiOf.get(key);
  if (known !== undefined) return known;
  if (pay) {
    if (budget.classifications <= 0) return undefined;
    budget.classifications--;
  }
  const emoji = reactionOfParts(content, tag);
  if (key.length <= MAX_MEMO_KEY) budget.emojiOf.set(key, emoji);
  return emoji;
}

const OF_LIKES = `FROM inbox WHERE relates_to_outbox_object_id = ? AND ap_type = 'Like' AND is_deleted = 0`;
// From the index alone (post, type, deleted, actor), and no further than the budget: a post with a
// million likes is not counted through.
const LIKE_ROWS_SQL = `SELECT count(*) FROM (SELECT 1 ${OF_LIKES} LIMIT ?)`;
// The size of each, read from the record without loading the text.
const LIKE_BYTES_SQL = `SELECT coalesce(sum(CASE WHEN ${SMALL} THEN octet_length(ap_object) ELSE 0 END), 0) ${OF_LIKES}`;
const LIKE_PARTS_SQL = `SELECT actor_id AS actorId, ${REACTION_CONTENT_SQL} AS content, ${REACTION_TAG_SQL} AS tag ${OF_LIKES}`;

/**
 * How many of the actors in likes_count only reacted, from every Like row of the post, or null
 * when this answer cannot read them all (MAX_LIKE_ROWS_PER_ANSWER, MAX_LIKE_BYTES_PER_ANSWER, the
 * classifications): a post past the tally's budget, or with more rows than MAX_REACTION_ROWS.
 * Reads what tells a reaction only (content, a :shortcode:'s tag), and nothing of an activity too
 * long to be one. Decided before any text is read: the rows by the index, their bytes by their
 * records' sizes.
 */
export function reactingLikersOf(db: DbOrTx, outboxObjectId: number, budget: ReactionBudget): number | null {
  const rows = prepared<[number, number], number>(db, LIKE_ROWS_SQL).pluck().get(outboxObjectId, budget.likeRows + 1) ?? 0;
  if (rows === 0) return 0;
  if (rows > budget.likeRows) return null;
  budget.likeRows -= rows;
  const bytes = prepared<[number], number>(db, LIKE_BYTES_SQL).pluck().get(outboxObjectId) ?? 0;
  if (bytes > budget.likeBytes) return null;
  budget.likeBytes -= bytes;
  const reacting = new Set<number>();
  const likers = new Set<number>();
  for (const row of prepared<[number], Row>(db, LIKE_PARTS_SQL).all(outboxObjectId)) {
    const emoji = emojiOfParts(budget, row.content, row.tag, true);
    if (emoji === undefined) return null;
    (emoji ? reacting : likers).add(row.actorId);
  }
  for (const actorId of likers) reacting.delete(actorId);
  return reacting.size;
}

/** The tally of one post, from at most MAX_REACTION_ROWS of its reactions and likes (reactions
 * first), as many as `budget` still allows (spent here). When those are not all its rows, the
 * reacting likers are counted from all its Like rows (reactingLikersOf), so a favourites_count
 * stays a count of likes past the budget; only past that one's budget too are they those of the
 * rows read (maybe none): then some reacting Likes may be counted as likes, which no cheaper read
 * can tell. */
export function reactionTallyOf(db: DbOrTx, outboxObjectId: number, budget: ReactionBudget = reactionBudget()): ReactionTally {
  const asked = Math.min(MAX_REACTION_ROWS, budget.rows);
  const window = asked <= 0 ? [] : prepared<[number, number], { id: number; bytes: number | null }>(db, WINDOW_SQL).all(outboxObjectId, asked);
  const ids: number[] = [];
  for (const row of window) {
    const cost = (row.bytes ?? 0) <= MAX_REACTION_BYTES ? (row.bytes ?? 0) : 0;
    if (cost > budget.bytes) break;
    budget.bytes -= cost;
    budget.rows--;
    ids.push(row.id);
  }
  const rows = ids.length === 0 ? [] : prepared<[string], Row>(db, PARTS_SQL).all(JSON.stringify(ids));
  const byEmoji = new Map<string, { emoji: ReactionEmoji; actors: Set<number> }>();
  const reactingLikers = new Set<number>();
  // Likers with a like among the rows read: a plain Like, one whose content is words, or one too
  // long to be read as a reaction.
  const likers = new Set<number>();
  for (const row of rows) {
    const emoji = emojiOfParts(budget, row.content, row.tag, false) ?? null;
    if (row.apType === 'Like') (emoji ? reactingLikers : likers).add(row.actorId);
    if (!emoji) continue;
    const group = byEmoji.get(emoji.emoji) ?? { emoji, actors: new Set<number>() };
    group.actors.add(row.actorId);
    byEmoji.set(emoji.emoji, group);
  }
  for (const actorId of likers) reactingLikers.delete(actorId);
  const reactions = [...byEmoji.values()].map((g) => ({ ...g.emoji, count: g.actors.size }));
  // Stable sort: equal counts keep the order of their first reaction.
  reactions.sort((a, b) => b.count - a.count);
  // Fewer rows than asked, all read: every row of the post was.
  const whole = window.length < asked && ids.length === window.length;
  const counted = whole ? null : reactingLikersOf(db, outboxObjectId, budget);
  return { reactions, reactingLikers: counted ?? reactingLikers.size };
}
