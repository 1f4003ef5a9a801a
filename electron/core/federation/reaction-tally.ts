// The emoji reactions standing on one of the author's posts, per emoji, for the Mastodon client
// API's `pleroma.emoji_reactions` (mastodon/entities.ts). A reaction is an EmojiReact (or a
// Misskey Like carrying its emoji) that is one emoji by reaction-emoji.ts's rule, the rule the
// notifications use; an undone or deleted one is gone (undo.ts marks it deleted). Also says how
// many of the actors counted in likes_count only reacted: likes_count counts every Like, Misskey's
// reactions too (like.ts), and a Mastodon client's favourites_count counts real likes only, as
// Pleroma's does (it turns Misskey's reacting Likes into EmojiReacts). Bounded per answer: a
// post's first rows are read whole (the tally's budget), and past them its rows are counted in
// SQL (a wide budget), so a flood of reactions costs a page ≈ 0.1 s at worst and its
// favourites_count stays a count of likes.
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
 * about 60 ms at worst together. A row whose size was read is spent, read or not. A post past
 * either is counted in SQL (the wide budget below). */
export const MAX_REACTION_ROWS_PER_ANSWER = 3000;
export const MAX_REACTION_BYTES_PER_ANSWER = 8 * 1024 * 1024;
/** What one answer reads at most past the tallies' rows, for a post whose rows were not all read
 * above (past the budget, or past MAX_REACTION_ROWS): its reactions counted by emoji in SQL
 * (reactionCountsOf) and its Like rows, to tell its likes from its reacting Likes
 * (reactingLikersOf). A row there costs about 1 µs besides its bytes (the same 2.3 ns each: its
 * content, and a :shortcode:'s tag, read in SQL); the emoji rule (about 19 µs) runs once per
 * distinct content, at most CLASSIFICATIONS_PER_ANSWER times. About 80 ms at worst together; a
 * post past them keeps what the rows read told (see reactionTallyOf). */
export const MAX_WIDE_ROWS_PER_ANSWER = 20_000;
export const MAX_WIDE_BYTES_PER_ANSWER = 16 * 1024 * 1024;
const CLASSIFICATIONS_PER_ANSWER = 1000;

/** What is left to read for one answer, spent by each tally. */
export interface ReactionBudget {
  rows: number;
  bytes: number;
  /** For what is read past the rows above (reactionCountsOf, reactingLikersOf). */
  wideRows: number;
  wideBytes: number;
  /** How many more contents reactingLikersOf may run the emoji rule on. */
  classifications: number;
  /** The emoji of each short content (and tag) already read in this answer; null: no reaction. */
  emojiOf: Map<string, ReactionEmoji | null>;
}

export const reactionBudget = (): ReactionBudget => ({
  rows: MAX_REACTION_ROWS_PER_ANSWER,
  bytes: MAX_REACTION_BYTES_PER_ANSWER,
  wideRows: MAX_WIDE_ROWS_PER_ANSWER,
  wideBytes: MAX_WIDE_BYTES_PER_ANSWER,
  classifications: CLASSIFICATIONS_PER_ANSWER,
  emojiOf: new Map(),
});

// SQL of an inbox row's content and tag, read only when its activity is short enough to be a
// reaction: octet_length() reads the stored size without loading the text, so a flood of large
// activities costs nothing. The tag is read only for a :shortcode: (a custom emoji needs it),
// however it is padded.
const SMALL = `octet_length(ap_object) <= ${MAX_REACTION_BYTES}`;
// reaction-emoji.ts reads no longer content (bidi controls and spaces around an emoji included).
const MAX_CONTENT_CHARS = 160;
/** The content and tag of `column` (an inbox row's ap_object, named as a query with joins must). */
export const reactionPartsSql = (column: string) => ({
  content: `CASE WHEN octet_length(${column}) <= ${MAX_REACTION_BYTES} THEN json_extract(${column}, '$.content') END`,
  // LIKE '%:%', not ':%': reaction-emoji.ts trims spaces and bidi marks first (' :blobcat:').
  tag: `CASE WHEN octet_length(${column}) <= ${MAX_REACTION_BYTES} AND json_extract(${column}, '$.content') LIKE '%:%' THEN json_extract(${column}, '$.tag') END`,
});
export const REACTION_CONTENT_SQL = reactionPartsSql('ap_object').content;
export const REACTION_TAG_SQL = reactionPartsSql('ap_object').tag;

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
// Rows from the index alone (post, type, deleted, actor), no further than the budget (a post with
// a million likes is not counted through); bytes from the records' sizes, no text loaded.
const rowsSql = (of: string) => `SELECT count(*) FROM (SELECT 1 ${of} LIMIT ?)`;
const bytesSql = (of: string) => `SELECT coalesce(sum(CASE WHEN ${SMALL} THEN octet_length(ap_object) ELSE 0 END), 0) ${of}`;
const LIKE_PARTS_SQL = `SELECT actor_id AS actorId, ${REACTION_CONTENT_SQL} AS content, ${REACTION_TAG_SQL} AS tag ${OF_LIKES} LIMIT ?`;
// Each distinct content (and a :shortcode:'s tag) of the post's reactions and likes, with the
// actors behind it: a content that cannot be one emoji (none, a word longer than any emoji, a
// number) is left out in SQL. A seek of the counts index per type; the grouping is a temporary
// B-tree of the groups (a few, or as many as there are distinct contents: bounded by the rows).
const COUNTS_SQL =
  `SELECT content, tag, count(DISTINCT actor_id) AS actors, min(id) AS first FROM (SELECT id, actor_id, ${REACTION_CONTENT_SQL} AS content, ${REACTION_TAG_SQL} AS tag ${OF_POST} LIMIT ?) ` +
  `WHERE typeof(content) = 'text' AND length(content) <= ${MAX_CONTENT_CHARS} GROUP BY content, tag`;

/** Spends the wide budget on the rows `of` selects if it holds them all: how many there are, or
 * null (then only what was read to tell is spent: index entries counted, sizes read). */
function spendWide(db: DbOrTx, of: string, outboxObjectId: number, budget: ReactionBudget): number | null {
  if (budget.wideRows <= 0) return null;
  const rows = prepared<[number, number], number>(db, rowsSql(of)).pluck().get(outboxObjectId, budget.wideRows + 1) ?? 0;
  if (rows > budget.wideRows) {
    // Counted from the index: about a tenth of a row read each (40 posts of 25,000 likes counted
    // through 20,001 entries each took 0.1–0.2 s). Spent so, or a page of such posts would count
    // them all again and again.
    budget.wideRows = Math.max(0, budget.wideRows - Math.ceil(rows / 10));
    return null;
  }
  const bytes = rows === 0 ? 0 : (prepared<[number], number>(db, bytesSql(of)).pluck().get(outboxObjectId) ?? 0);
  // The sizes were read (a record each): spent, whether the text is read or not, so posts of too
  // many bytes each cannot have their sizes read again and again.
  budget.wideRows -= rows;
  if (bytes > budget.wideBytes) return null;
  budget.wideBytes -= bytes;
  return rows;
}

/**
 * How many of the actors in likes_count only reacted, from every Like row of the post, or null
 * when this answer cannot read them all (the wide budget, the classifications). Reads what tells a
 * reaction only (content, a :shortcode:'s tag), and nothing of an activity too long to be one.
 */
export function reactingLikersOf(db: DbOrTx, outboxObjectId: number, budget: ReactionBudget): number | null {
  const rows = spendWide(db, OF_LIKES, outboxObjectId, budget);
  if (rows === null) return null;
  const reacting = new Set<number>();
  const likers = new Set<number>();
  // As many as were counted: what came since waits for the next answer.
  for (const row of prepared<[number, number], Row>(db, LIKE_PARTS_SQL).all(outboxObjectId, rows)) {
    const emoji = emojiOfParts(budget, row.content, row.tag, true);
    if (emoji === undefined) return null;
    (emoji ? reacting : likers).add(row.actorId);
  }
  for (const actorId of likers) reacting.delete(actorId);
  return reacting.size;
}

/**
 * The post's reactions by emoji from all its rows, counted in SQL (distinct actors per content),
 * or null when this answer cannot read them all. Counted per content: an EmojiReact and a Misskey
 * Like with one content are one group (an actor behind both is counted once), but an actor who
 * reacted with two contents read as one emoji (spaces around it, two tags of one shortcode) is
 * counted in both: telling would take the actors of every row to JavaScript.
 */
export function reactionCountsOf(db: DbOrTx, outboxObjectId: number, budget: ReactionBudget): ReactionCount[] | null {
  const rows = spendWide(db, OF_POST, outboxObjectId, budget);
  if (rows === null) return null;
  const byEmoji = new Map<string, ReactionCount & { first: number }>();
  for (const row of prepared<[number, number], { content: string; tag: unknown; actors: number; first: number }>(db, COUNTS_SQL).all(outboxObjectId, rows)) {
    const emoji = emojiOfParts(budget, row.content, row.tag, true);
    if (emoji === undefined) return null;
    if (emoji === null) continue;
    const known = byEmoji.get(emoji.emoji);
    if (known) byEmoji.set(emoji.emoji, { ...known, count: known.count + row.actors, first: Math.min(known.first, row.first) });
    else byEmoji.set(emoji.emoji, { ...emoji, count: row.actors, first: row.first });
  }
  // Most reacted first; at equal counts, the emoji received first.
  return [...byEmoji.values()].sort((a, b) => b.count - a.count || a.first - b.first).map(({ first: _first, ...r }) => r);
}

/** The tally of one post, from at most MAX_REACTION_ROWS of its reactions and likes (reactions
 * first), as many as `budget` still allows (spent here). When those are not all its rows, its
 * reactions are counted from all its rows in SQL (reactionCountsOf) and its reacting likers from
 * all its Like rows (reactingLikersOf), so a favourites_count stays a count of likes past the
 * budget or past MAX_REACTION_ROWS; only past the wide budget too are they what the rows read
 * told (maybe nothing): then a post shows fewer reactions than it has, and some reacting Likes may
 * be counted as likes, which no cheaper read can tell. */
export function reactionTallyOf(db: DbOrTx, outboxObjectId: number, budget: ReactionBudget = reactionBudget()): ReactionTally {
  const asked = Math.min(MAX_REACTION_ROWS, budget.rows);
  const window = asked <= 0 ? [] : prepared<[number, number], { id: number; bytes: number | null }>(db, WINDOW_SQL).all(outboxObjectId, asked);
  const ids: number[] = [];
  for (const row of window) {
    const cost = (row.bytes ?? 0) <= MAX_REACTION_BYTES ? (row.bytes ?? 0) : 0;
    if (cost > budget.bytes) break;
    budget.bytes -= cost;
    ids.push(row.id);
  }
  // Every row whose size was read is spent, read or not: with the bytes spent, each post of the
  // answer read its window's sizes anyway (2,000 records each: 40 posts of padded reactions held
  // the thread ≈ 0.5 s).
  budget.rows -= window.length;
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
  const read = [...byEmoji.values()].map((g) => ({ ...g.emoji, count: g.actors.size }));
  // Stable sort: equal counts keep the order of their first reaction.
  read.sort((a, b) => b.count - a.count);
  // Fewer rows than asked, all read: every row of the post was.
  if (window.length < asked && ids.length === window.length) return { reactions: read, reactingLikers: reactingLikers.size };
  const reactions = reactionCountsOf(db, outboxObjectId, budget) ?? read;
  return { reactions, reactingLikers: reactingLikersOf(db, outboxObjectId, budget) ?? reactingLikers.size };
}
