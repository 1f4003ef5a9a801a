// The author's notifications: listed unread first, then newest first, each joined with what the
// UI shows — the actor (name, handle, avatar) and the objects involved (type, ap_id, a plain-text
// excerpt). Notifications outlive what they point at: a deleted or undone object is reported as
// deleted, without its text (see federation/process/delete.ts).
import { and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, isNull, lt, lte, max, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../../db/client';
import { isReadableDate, viewsOf } from '../../../db/readable-rows';
import { actor, inbox, notifications, outbox, type InboxObject, type NotificationType, type OutboxObject } from '../../../db/schema';
import { summarizeActor, type ActorSummary } from '../federation/actor-summary';
import { hostOf, idsOf, isObject, str, type Json } from '../federation/ap';
import { reactionEmojiOf, REACTION_TYPES, type ReactionEmoji } from '../federation/reaction-emoji';
import { MAX_REACTION_BYTES, reactionBudget, reactionOfParts, reactionPartsSql, REACTION_CONTENT_SQL, REACTION_TAG_SQL } from '../federation/reaction-tally';
import { htmlToExcerpt } from '../federation/sanitize';
import { languageField } from '../federation/objects';
import { approvalOfRequest, type ApprovalState } from '../federation/quote-authorizations';
import { boundedExcerpt, EXCERPT_SOURCE_CHARS, excerptSourceSql } from './excerpt';

/** An inbox or outbox object a notification points at. */
export interface ObjectSummary {
  /** Row id in its box. */
  id: number;
  box: 'inbox' | 'outbox';
  apId: string;
  apType: string;
  /** Plain text, at most ~140 characters; null when deleted or when it has no text. */
  excerpt: string | null;
  /** Deleted or undone since: the notification stays, the object's text is not shown. */
  isDeleted: boolean;
}

export interface NotificationItem {
  id: number;
  /** One of the spec's notification types (the spec lets it be null). */
  type: NotificationType | null;
  /** ISO-8601 */
  createdAt: string;
  isNew: boolean;
  actor: ActorSummary | null;
  /** Our object that was liked, boosted, replied to… */
  outboxObject: ObjectSummary | null;
  /** The remote object or activity: the mention, the Like, the Follow… */
  inboxObject: ObjectSummary | null;
  webmentionId: number | null;
  /** Typeless notifications that need more than the actor and objects to be worded. */
  detail?: NotificationDetail | null;
  /** A LIKE or UNDO_LIKE of an emoji reaction (an EmojiReact, or a Misskey Like carrying its
   * emoji): which emoji. Present only then. Kept once the reaction is undone: the emoji names the
   * reaction taken back, it is no text of the sender's to withhold. */
  reaction?: ReactionEmoji;
}

/**
 * A quote of one of our posts that Tern approved (actor = the quoter, inbox object = their
 * QuoteRequest, outbox object = our post; `quoting` = the quoting post's id: process/quote-request.ts),
 * `approval` = where our approval of it stands: standing, revoked by the author, or ended otherwise;
 * null if it has none; `allowedAgain`: revoked, and the author since allowed the quote again),
 * the answer to one of the author's own quotes (actor = the quoted post's author, inbox object =
 * their Accept or Reject, outbox object = our quoting post: process/quote-answer.ts; `approved`;
 * `revoked`: the inbox object is their Delete of the authorization, process/quote-revocation.ts),
 * a move (actor = the new account, inbox object = the Move; `from` = the account that moved) or
 * a report forwarded by a server (actor = the reporter, inbox object = the Flag; `posts` = the
 * reported posts that are ours, `comment` = the reporter's words as plain text).
 */
export type NotificationDetail =
  | { kind: 'moved'; from: ActorSummary | null }
  | { kind: 'quoted'; quoting: string | null; approval: ApprovalState | null; allowedAgain: boolean }
  | { kind: 'quote-answered'; approved: boolean; revoked?: true }
  | { kind: 'report'; server: string; comment: string | null; posts: ObjectSummary[] };

/** What tells which Mastodon notification, and which group, a row is (mastodon/notification-types.ts,
 * mastodon/notification-groups.ts), read without its objects' documents: a reaction's emoji from
 * its content (and a :shortcode:'s tag) alone, as unread_count reads it. */
export interface NotificationKey {
  id: number;
  type: NotificationType | null;
  /** ISO-8601 */
  createdAt: string;
  isNew: boolean;
  actorId: number | null;
  outboxObject: { id: number; apType: string } | null;
  inboxObject: { id: number; apType: string } | null;
  reaction?: ReactionEmoji;
}

export interface NotificationPage {
  /** Unread first, then newest first. */
  items: NotificationItem[];
  /** Offset of the next page, or null after the last. */
  nextOffset: number | null;
  /** Pass back as `cursor` for the next page (cheaper than the offset: no row is skipped); null after the last. */
  nextCursor: string | null;
  unreadCount: number;
}

export interface NotificationService {
  list(page?: { limit?: number; offset?: number; cursor?: string | null }): NotificationPage;
  unreadCount(): number;
  /** Marks these as read; returns how many changed. Unknown ids are ignored. */
  markRead(ids: readonly number[]): number;
  /** Marks every notification there is at the call read, a batch at a time (MARK_ALL_BATCH);
   * one that arrives meanwhile stays new. Resolves to how many changed. */
  markAllRead(): Promise<number>;
  /** By id, newest first (the Mastodon client API): older than `before`, newer than `after`
   * (the page just above it when `closestToAfter`), of these types only. */
  range(input: RangeInput): NotificationItem[];
  /** As range (newest first, the page just above `after` when `closestToAfter`), their keys only
   * (no objects read): about a tenth of the cost of a row, for walking and counting groups. */
  rangeKeys(input: RangeInput): NotificationKey[];
  /** The actors of these ids (a group's sample accounts, read by its keys). */
  actorsOf(ids: readonly number[]): Map<number, ActorSummary>;
  /** Removes these; returns how many. */
  dismissAll(ids: readonly number[]): number;
  /** How many there are newer than `after` (null: the unread ones), of these types or typeless
   * about an object of one of `typelessAbout`'s AP types (an ended poll: Question), counting at
   * most `limit` (the Mastodon client API's unread_count). `likes` (default 'all'): which LIKE
   * rows count, the likes only or the emoji reactions only (`reaction` on the item). */
  countNewer(input: { after: number | null; types: readonly NotificationType[]; typelessAbout: readonly string[]; limit: number; likes?: LikeKinds }): number;
  get(id: number): NotificationItem | null;
  /** Removes one (a phone app's "dismiss"); false if there was none. */
  dismiss(id: number): boolean;
  /** Removes them all; returns how many. */
  /** Deletes every notification there is at the call, a batch at a time (MARK_ALL_BATCH); one
   * that arrives meanwhile stays. Resolves to how many went. */
  clear(): Promise<number>;
}

export interface RangeInput {
  before?: number | null;
  after?: number | null;
  closestToAfter?: boolean;
  limit: number;
  types?: readonly NotificationType[];
  /** About this outbox object only (a group's post). */
  outboxObjectId?: number;
  /** Created in [from, to) (a group's window). */
  createdWithin?: { from: Date; to: Date };
  /** From this actor only (the Mastodon client API's account_id); null: those without one (an
   * ended poll of the author's own). */
  actorId?: number | null;
}

/** Which LIKE notifications: the likes, the emoji reactions (NotificationItem.reaction), or both. */
export type LikeKinds = 'likes' | 'reactions' | 'all';

/** LIKE rows read at most to count the likes apart from the reactions (unread_count): past them,
 * the count stops where it is. */
const MAX_LIKES_SPLIT_SCAN = 5000;

/** A notification's inbox activity (a Like, a Follow, an Announce, a QuoteRequest…) longer than
 * this is read as its type and id alone: a list of them parsed whole cost up to a second (400
 * padded reactions under a filter). A reaction this long is no reaction (reaction-tally.ts), so
 * the list and unread_count agree on it. */
const MAX_NOTIFIED_ACTIVITY_BYTES = MAX_REACTION_BYTES;
const POSTS = sql.raw(['Note', 'Article', 'Page', 'Question', 'Image', 'Video', 'Audio', 'Event'].map((t) => `'${t}'`).join(', '));
// (Not an object: read as it is, so a row other tools broke is left out as before: viewsOf.)
const IS_POST = sql`(${notifications.notificationType} = 'MENTION' OR ${inbox.apType} IN (${POSTS})) AND json_type(${inbox.apObject}) = 'object'`;
// A post (a mention, a poll that ended) is read as the one thing the list shows of it: the markup
// its excerpt is made of, cut past EXCERPT_SOURCE_CHARS (excerpt.ts; one character more, which
// tells that it went on). 50 mentions of 60 KB, read whole, parsed as JSON and then as HTML, held
// the thread 99–141 ms for a page of 50 (180–230 ms on a loaded 2-core machine); so, 17–30 ms
// there, and 66–83 ms for a page of 200. (SQLite's JSON functions cost more than JSON.parse per
// call, so the source is read by one expression.)
const EXCERPT_SOURCE = sql.raw(`substr(${excerptSourceSql('"inbox"."ap_object"')}, 1, ${EXCERPT_SOURCE_CHARS + 1})`);
const boundedInboxObject = sql<Json>`CASE WHEN ${IS_POST} THEN json_object('type', ${inbox.apType}, 'id', ${inbox.apId}, 'content', ${EXCERPT_SOURCE})
  WHEN octet_length(${inbox.apObject}) <= ${sql.raw(String(MAX_NOTIFIED_ACTIVITY_BYTES))} THEN ${inbox.apObject} ELSE json_object('type', ${inbox.apType}, 'id', ${inbox.apId}) END`.mapWith(inbox.apObject);

// A reaction's content and tag in a query that joins the outbox too (whose ap_object has the same name).
const INBOX_PARTS = reactionPartsSql('"inbox"."ap_object"');

/** Rows markAllRead changes in one statement before it lets the thread go: one UPDATE of
 * 100,000 unread rows (and their index entries) held it 103–121 ms, 270–460 ms on a loaded
 * 2-core machine; there a batch of 2,000 took 2–4 ms, at worst 20–46 ms (the commit that
 * checkpoints the WAL inline), a batch of 5,000 up to 88 ms. */
const MARK_ALL_BATCH = 2000;

const EXCERPT_CHARS = 140;
const COMMENT_CHARS = 500;

/** The text to preview: an Article's title, else a content warning rather than what it hides,
 * else the content (a Misskey reaction's emoji, too). */
function excerptOf(object: Json): string | null {
  const html = languageField(object, 'name') || languageField(object, 'summary') || languageField(object, 'content');
  if (!html) return null;
  const text = boundedExcerpt(html, EXCERPT_CHARS);
  return text === '' ? null : text;
}

function summarize(box: 'inbox' | 'outbox', row: InboxObject | OutboxObject | null): ObjectSummary | null {
  if (!row) return null;
  return {
    id: row.id,
    box,
    apId: row.apId,
    apType: row.apType,
    excerpt: row.isDeleted ? null : excerptOf(row.apObject as Json),
    isDeleted: row.isDeleted,
  };
}

/** The detail of a typeless notification on a Move, a Flag, a QuoteRequest or the answer to one
 * of ours (process/move.ts, process/flag.ts, process/quote-request.ts, process/quote-answer.ts,
 * process/quote-revocation.ts). */
function detailOf(db: Db, type: NotificationType | null, row: InboxObject | null): NotificationDetail | null {
  if (type !== null || !row) return null;
  if (row.apType === 'Move') {
    const from = db.select().from(actor).where(eq(actor.id, row.actorId)).get();
    return { kind: 'moved', from: from ? summarizeActor(from) : null };
  }
  if (row.apType === 'QuoteRequest') {
    const quoting = (row.apObject as Json).instrument;
    const approval = approvalOfRequest(db, row.id);
    return {
      kind: 'quoted',
      quoting: typeof quoting === 'string' ? quoting : isObject(quoting) ? str(quoting.id) : null,
      approval: approval?.state ?? null,
      allowedAgain: approval?.allowedAgain ?? false,
    };
  }
  // A typeless notification on an Accept or a Reject is only ever an answer to our QuoteRequest,
  // on a Delete the revocation of the authorization such an Accept granted (process/quote-revocation.ts).
  if (row.apType === 'Accept' || row.apType === 'Reject') return { kind: 'quote-answered', approved: row.apType === 'Accept' };
  if (row.apType === 'Delete') return { kind: 'quote-answered', approved: false, revoked: true };
  if (row.apType === 'Flag') {
    const object = row.apObject as Json;
    const ids = idsOf(object.object);
    const posts = ids.length === 0 ? [] : db.select().from(outbox).where(inArray(outbox.apId, ids)).all();
    const content = str(object.content);
    const comment = content ? htmlToExcerpt(content, COMMENT_CHARS) : '';
    return { kind: 'report', server: hostOf(row.apActorId), comment: comment === '' ? null : comment, posts: posts.map((p) => summarize('outbox', p)!) };
  }
  return null;
}

/** The emoji of a LIKE or UNDO_LIKE on a reaction (federation/reaction-emoji.ts); null on a like. */
function reactionOf(type: NotificationType | null, row: Pick<InboxObject, 'apType' | 'apObject'> | null): ReactionEmoji | null {
  if ((type !== 'LIKE' && type !== 'UNDO_LIKE') || !row) return null;
  if (row.apType !== 'Like' && !REACTION_TYPES.has(row.apType)) return null;
  return reactionEmojiOf(row.apObject as Json);
}

interface Cursor {
  isNew: boolean;
  /** As stored (ISO-8601), so the comparison is the index's. */
  createdAt: string;
  id: number;
}

function encodeCursor(n: { isNew: boolean; createdAt: Date; id: number }): string {
  return Buffer.from(`${n.isNew ? 1 : 0}|${n.createdAt.toISOString()}|${n.id}`).toString('base64url');
}

/** A cursor this service gave; anything else reads as the first page. */
function decodeCursor(text: string | null | undefined): Cursor | null {
  if (!text) return null;
  const [isNew, createdAt, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if ((isNew !== '0' && isNew !== '1') || Number.isNaN(new Date(createdAt ?? '').getTime()) || !Number.isSafeInteger(Number(id))) return null;
  return { isNew: isNew === '1', createdAt: createdAt!, id: Number(id) };
}

export function createNotificationService(db: Db): NotificationService {
  const notifiedActor = alias(actor, 'notified_actor');
  const unreadCount = () => db.select({ n: count() }).from(notifications).where(eq(notifications.isNew, true)).get()?.n ?? 0;

  const joined = () =>
    db
      .select({ n: notifications, actor: notifiedActor, outbox, inbox: { ...getTableColumns(inbox), apObject: boundedInboxObject } })
      .from(notifications)
      .leftJoin(notifiedActor, eq(notifiedActor.id, notifications.actorId))
      .leftJoin(outbox, eq(outbox.id, notifications.outboxObjectId))
      .leftJoin(inbox, eq(inbox.id, notifications.inboxObjectId));
  type Row = ReturnType<ReturnType<typeof joined>['all']>[number];

  /** The list's two queries, the first page (or an offset) and a page after a cursor, built and
   * prepared once and bound at each page. The list is read on the app's thread whenever the
   * window hears of a change, and drizzle built the four-table join's SQL again for every page:
   * measured over 4,000 notifications, a page of 40 took 1.35 ms (p50) that way and 0.94 ms so. */
  const listQueries: Partial<Record<'first' | 'after', { all(values: Record<string, unknown>): Row[] }>> = {};
  const listQuery = (afterCursor: boolean) =>
    (listQueries[afterCursor ? 'after' : 'first'] ??= joined()
      // The list's order is the index ix_notifications_is_new_created_at backwards; the cursor
      // is a range on it, so a later page reads its own rows only.
      .where(
        afterCursor
          ? sql`(${notifications.isNew}, ${notifications.createdAt}, ${notifications.id}) < (${sql.placeholder('isNew')}, ${sql.placeholder('createdAt')}, ${sql.placeholder('id')})`
          : undefined,
      )
      .orderBy(desc(notifications.isNew), desc(notifications.createdAt), desc(notifications.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare());
  const itemOf = (row: Row): NotificationItem => {
    const reaction = reactionOf(row.n.notificationType, row.inbox);
    return {
      id: row.n.id,
      type: row.n.notificationType,
      createdAt: row.n.createdAt.toISOString(),
      isNew: row.n.isNew,
      actor: row.actor ? summarizeActor(row.actor) : null,
      outboxObject: summarize('outbox', row.outbox),
      inboxObject: summarize('inbox', row.inbox),
      webmentionId: row.n.webmentionId,
      detail: detailOf(db, row.n.notificationType, row.inbox),
      ...(reaction ? { reaction } : {}),
    };
  };

  const whatOf = (row: Row) => `notification ${row.n.id}`;

  const rangeWhere = (input: RangeInput) =>
    and(
      input.before != null ? lt(notifications.id, input.before) : undefined,
      input.after != null ? gt(notifications.id, input.after) : undefined,
      input.types ? inArray(notifications.notificationType, [...input.types]) : undefined,
      input.outboxObjectId !== undefined ? eq(notifications.outboxObjectId, input.outboxObjectId) : undefined,
      input.createdWithin ? and(gte(notifications.createdAt, input.createdWithin.from), lt(notifications.createdAt, input.createdWithin.to)) : undefined,
      input.actorId === undefined ? undefined : input.actorId === null ? isNull(notifications.actorId) : eq(notifications.actorId, input.actorId),
    );

  /** How many of these kinds are newer than `after`, at most `limit` (countNewer, in SQL). */
  const countKinds = (input: { after: number | null; types: readonly NotificationType[]; typelessAbout: readonly string[]; limit: number }): number => {
    const typeless = input.typelessAbout.length
      ? and(isNull(notifications.notificationType), or(inArray(outbox.apType, [...input.typelessAbout]), inArray(inbox.apType, [...input.typelessAbout])))
      : undefined;
    const kinds = or(input.types.length ? inArray(notifications.notificationType, [...input.types]) : undefined, typeless);
    if (!kinds || input.limit <= 0) return 0;
    return db
      .select({ id: notifications.id })
      .from(notifications)
      .leftJoin(outbox, eq(outbox.id, notifications.outboxObjectId))
      .leftJoin(inbox, eq(inbox.id, notifications.inboxObjectId))
      .where(and(input.after === null ? eq(notifications.isNew, true) : gt(notifications.id, input.after), kinds))
      .limit(input.limit)
      .all().length;
  };

  return {
    range(input) {
      const found = joined()
        .where(rangeWhere(input))
        .orderBy(input.closestToAfter ? asc(notifications.id) : desc(notifications.id))
        .limit(Math.max(1, Math.min(200, input.limit)))
        .all();
      const rows = viewsOf(found, itemOf, whatOf);
      return input.closestToAfter ? rows.reverse() : rows;
    },
    rangeKeys(input) {
      const rows = db
        .select({
          id: notifications.id,
          type: notifications.notificationType,
          createdAt: notifications.createdAt,
          isNew: notifications.isNew,
          actorId: notifications.actorId,
          outboxId: outbox.id,
          outboxType: outbox.apType,
          inboxId: inbox.id,
          inboxType: inbox.apType,
          content: sql<unknown>`${sql.raw(INBOX_PARTS.content)}`,
          tag: sql<unknown>`${sql.raw(INBOX_PARTS.tag)}`,
        })
        .from(notifications)
        .leftJoin(outbox, eq(outbox.id, notifications.outboxObjectId))
        .leftJoin(inbox, eq(inbox.id, notifications.inboxObjectId))
        .where(rangeWhere(input))
        .orderBy(input.closestToAfter ? asc(notifications.id) : desc(notifications.id))
        .limit(Math.max(1, Math.min(200, input.limit)))
        .all();
      if (input.closestToAfter) rows.reverse();
      return rows
        .filter((r) => isReadableDate(r.createdAt))
        .map((r) => {
          const liking = r.type === 'LIKE' || r.type === 'UNDO_LIKE';
          const reaction = liking && r.inboxType !== null && (r.inboxType === 'Like' || REACTION_TYPES.has(r.inboxType)) ? reactionOfParts(r.content, r.tag) : null;
          return {
            id: r.id,
            type: r.type,
            createdAt: r.createdAt.toISOString(),
            isNew: r.isNew,
            actorId: r.actorId,
            outboxObject: r.outboxId === null || r.outboxType === null ? null : { id: r.outboxId, apType: r.outboxType },
            inboxObject: r.inboxId === null || r.inboxType === null ? null : { id: r.inboxId, apType: r.inboxType },
            ...(reaction ? { reaction } : {}),
          };
        });
    },
    countNewer(input) {
      const likes = input.likes ?? 'all';
      if (likes === 'all' || !input.types.includes('LIKE')) return countKinds(input);
      // A LIKE is a like or a reaction by what its inbox row holds (reactionOf): the other kinds
      // are counted in SQL, the LIKE rows read in batches and told apart here.
      let n = countKinds({ ...input, types: input.types.filter((t) => t !== 'LIKE') });
      const newer = input.after === null ? eq(notifications.isNew, true) : gt(notifications.id, input.after);
      let last = 0;
      // Only what tells a reaction is read (its content and tag, and only from an activity short
      // enough to be one: reaction-tally.ts), within a budget of bytes read.
      const budget = reactionBudget();
      for (let scanned = 0; n < input.limit && scanned < MAX_LIKES_SPLIT_SCAN && budget.bytes > 0; ) {
        const rows = db
          .select({ id: notifications.id, apType: inbox.apType, bytes: sql<number | null>`octet_length(${inbox.apObject})`, content: sql<unknown>`${sql.raw(REACTION_CONTENT_SQL)}`, tag: sql<unknown>`${sql.raw(REACTION_TAG_SQL)}` })
          .from(notifications)
          .leftJoin(inbox, eq(inbox.id, notifications.inboxObjectId))
          .where(and(newer, eq(notifications.notificationType, 'LIKE'), gt(notifications.id, last)))
          .orderBy(asc(notifications.id))
          .limit(500)
          .all();
        if (rows.length === 0) break;
        for (const row of rows) {
          const reaction = row.apType === 'Like' || (row.apType !== null && REACTION_TYPES.has(row.apType)) ? reactionOfParts(row.content, row.tag) : null;
          if ((reaction !== null) === (likes === 'reactions')) n++;
          if ((row.bytes ?? 0) <= MAX_REACTION_BYTES) budget.bytes -= row.bytes ?? 0;
        }
        scanned += rows.length;
        last = rows[rows.length - 1]!.id;
      }
      return Math.min(n, Math.max(0, input.limit));
    },
    get(id) {
      const row = joined().where(eq(notifications.id, id)).get();
      return row ? (viewsOf([row], itemOf, whatOf)[0] ?? null) : null;
    },
    actorsOf(ids) {
      const rows = ids.length === 0 ? [] : db.select().from(actor).where(inArray(actor.id, [...new Set(ids)])).all();
      return new Map(viewsOf(rows, (row) => [row.id, summarizeActor(row)] as const, (row) => `actor ${row.id}`));
    },
    dismiss: (id) => db.delete(notifications).where(eq(notifications.id, id)).run().changes > 0,
    dismissAll: (ids) => (ids.length === 0 ? 0 : db.delete(notifications).where(inArray(notifications.id, [...ids])).run().changes),
    async clear() {
      // As markAllRead, in batches: one DELETE of 100,000 notifications held the thread
      // 186–336 ms (POST /api/v1/notifications/clear).
      const newest = db.select({ id: max(notifications.id) }).from(notifications).get()?.id ?? null;
      if (newest === null) return 0;
      const oldest = db.select({ id: notifications.id }).from(notifications).where(lte(notifications.id, newest)).orderBy(asc(notifications.id)).limit(MARK_ALL_BATCH);
      let deleted = 0;
      for (;;) {
        const changes = db.delete(notifications).where(inArray(notifications.id, oldest)).run().changes;
        deleted += changes;
        if (changes < MARK_ALL_BATCH) return deleted;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },

    list(page = {}) {
      const limit = Math.max(1, Math.min(200, page.limit ?? 50));
      const cursor = decodeCursor(page.cursor);
      const offset = cursor ? 0 : Math.max(0, page.offset ?? 0);
      const rows = cursor
        ? listQuery(true).all({ isNew: cursor.isNew ? 1 : 0, createdAt: cursor.createdAt, id: cursor.id, limit: limit + 1, offset })
        : listQuery(false).all({ limit: limit + 1, offset });
      // A row that cannot be read is left out (viewsOf); the cursor is the last one that can.
      const items = viewsOf(rows.slice(0, limit), itemOf, whatOf);
      const last = rows.length > limit ? (rows.slice(0, limit).findLast((r) => isReadableDate(r.n.createdAt))?.n ?? null) : null;
      return {
        items,
        nextOffset: rows.length > limit ? offset + limit : null,
        nextCursor: last ? encodeCursor(last) : null,
        unreadCount: unreadCount(),
      };
    },
    unreadCount,

    markRead(ids) {
      if (ids.length === 0) return 0;
      return db
        .update(notifications)
        .set({ isNew: false })
        .where(and(inArray(notifications.id, [...ids]), eq(notifications.isNew, true)))
        .run().changes;
    },

    async markAllRead() {
      // "All" is what there is now: up to the newest id, so one that arrives between two batches
      // stays new. The first batch runs before the call returns (all of them, when there are
      // fewer than a batch); a batch reads the unread ones from ix_notifications_is_new_created_at.
      const newest = db.select({ id: max(notifications.id) }).from(notifications).get()?.id ?? null;
      if (newest === null) return 0;
      const unread = db
        .select({ id: notifications.id })
        .from(notifications)
        .where(and(eq(notifications.isNew, true), lte(notifications.id, newest)))
        .limit(MARK_ALL_BATCH);
      let updated = 0;
      for (;;) {
        const changes = db.update(notifications).set({ isNew: false }).where(inArray(notifications.id, unread)).run().changes;
        updated += changes;
        if (changes < MARK_ALL_BATCH) return updated;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}
