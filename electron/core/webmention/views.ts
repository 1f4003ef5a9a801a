// What the Webmentions view shows: received webmentions grouped by the post they mention
// (newest activity first), each with its kind, author, excerpt and state (new, updated,
// deleted) read from the stored, sanitized microformats; and the webmentions Tern sends, with
// their delivery state from outgoing_activity.
import { and, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { viewsOf } from '../../../db/readable-rows';
import { outbox, outgoingActivity, webmention } from '../../../db/schema';
import { isAddress, parseRecipient } from '../delivery/addresses';
import { htmlToExcerpt } from '../federation/sanitize';
import { summarize, type WebmentionAuthor, type WebmentionKind } from './microformats';

export type ReceivedState = 'new' | 'updated' | 'deleted';

export interface ReceivedWebmentionView {
  id: number;
  source: string;
  kind: WebmentionKind;
  state: ReceivedState;
  author: WebmentionAuthor;
  /** Plain text. */
  excerpt: string;
  receivedAt: string;
  /** When it last changed (updated or deleted), if it did. */
  changedAt: string | null;
}

export interface WebmentionGroupView {
  post: { id: number; apId: string; excerpt: string; isDeleted: boolean; webmentionsCount: number };
  /** The newest MENTIONS_PER_POST; the rest through webmentions.ofPost from `moreCursor`. */
  mentions: ReceivedWebmentionView[];
  /** Every webmention of the post, deleted ones included. */
  mentionsTotal: number;
  moreCursor: string | null;
}

export interface ReceivedWebmentionsPage {
  items: WebmentionGroupView[];
  nextCursor: string | null;
}

export interface PostWebmentionsPage {
  items: ReceivedWebmentionView[];
  nextCursor: string | null;
}

export type SentState = 'queued' | 'discovering' | 'sending' | 'retrying' | 'sent' | 'failed';

export interface SentWebmentionView {
  id: number;
  source: string;
  target: string;
  /** The endpoint, once discovered. */
  endpoint: string | null;
  state: SentState;
  tries: number;
  lastStatus: number | null;
  error: string | null;
  nextTry: string | null;
  createdAt: string;
}

export interface SentWebmentionsPage {
  items: SentWebmentionView[];
  nextCursor: string | null;
}

const cursorOf = (value: string | null | undefined) => (value && /^\d+$/.test(value) ? Number(value) : null);

/** Mentions shown per post in a page of groups (a post may have tens of thousands: 20,000 of
 * one post took 566–651 ms on the main thread, and 33,000 failed with "too many SQL variables"). */
export const MENTIONS_PER_POST = 20;

// The last change of each webmention (its newest notification other than NEW_WEBMENTION), read
// by a subquery per row through ix_notifications_webmention_id.
const lastChange = (column: 'notification_type' | 'created_at') =>
  sql<string | null>`(SELECT n.${sql.raw(column)} FROM notifications n WHERE n.webmention_id = "webmention"."id" AND n.notification_type IS NOT 'NEW_WEBMENTION' ORDER BY n.id DESC LIMIT 1)`;

/** A post's webmentions, newest first, `limit` of them before the cursor (a webmention id). A
 * webmention belongs to the post its outbox_object_id names (the spec's reference), whatever its
 * target says: another tool, or an older Tern, may have recorded the post's address with a
 * trailing slash or a fragment. */
function mentionsOf(db: DbOrTx, post: { id: number }, before: number | null, limit: number): PostWebmentionsPage {
  const rows = db
    .select({ row: webmention, changeType: lastChange('notification_type'), changedAt: lastChange('created_at') })
    .from(webmention)
    .where(and(eq(webmention.outboxObjectId, post.id), before === null ? undefined : lt(webmention.id, before)))
    .orderBy(desc(webmention.id))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  // A row that cannot be read (a datetime Date cannot read) is left out (viewsOf), not the view;
  // the cursor is the page's last row, read or not.
  const items = viewsOf(
    page,
    ({ row: r, changeType, changedAt }): ReceivedWebmentionView => {
      const summary = summarize(r.sourceMicroformats, r.target);
      return {
        id: r.id,
        source: r.source,
        kind: summary.kind,
        state: r.isDeleted ? 'deleted' : changeType === 'UPDATED_WEBMENTION' ? 'updated' : 'new',
        author: summary.author,
        excerpt: summary.excerpt,
        receivedAt: r.createdAt.toISOString(),
        changedAt: changedAt === null ? null : new Date(changedAt).toISOString(),
      };
    },
    ({ row }) => `webmention row ${row.id}`,
  );
  return { items, nextCursor: rows.length > limit ? String(page.at(-1)!.row.id) : null };
}

export function listReceivedWebmentions(db: DbOrTx, input: { cursor?: string | null; limit: number }): ReceivedWebmentionsPage {
  const before = cursorOf(input.cursor);
  // By post (outbox_object_id, the spec's reference), only posts that exist: every group read
  // is a group shown, so a page is never short while there are more. Not a GROUP BY over the
  // webmentions: that reads all of them (ix_webmention_post whole) for each page, 25-45 ms for
  // 100,000 and growing with what anyone may send. Instead the posts that have webmentions are
  // walked through ix_webmention_post one seek each (the next outbox_object_id above the last),
  // each with its newest webmention by one more seek: as many steps as posts with webmentions
  // (the author's posts, not the senders'), 0.7-0.9 ms for 1,000 posts and 100,000 webmentions,
  // 0.02 ms when all but 20 of them go to one post.
  const groups = db.all<{ postId: number; latest: number }>(sql`
    WITH RECURSIVE post(id) AS (
      SELECT (SELECT min(outbox_object_id) FROM webmention)
      UNION ALL
      SELECT (SELECT min(outbox_object_id) FROM webmention WHERE outbox_object_id > post.id) FROM post WHERE post.id IS NOT NULL
    )
    SELECT post.id AS postId, (SELECT max(w.id) FROM webmention w WHERE w.outbox_object_id = post.id) AS latest
    FROM post JOIN outbox ON outbox.id = post.id
    ${before === null ? sql`` : sql`WHERE latest < ${before}`}
    ORDER BY latest DESC LIMIT ${input.limit + 1}`);
  const shown = groups.slice(0, input.limit);
  if (shown.length === 0) return { items: [], nextCursor: null };
  const ids = shown.map((g) => g.postId);
  // Counted for the page's posts alone, each a range of ix_webmention_post: 100,000 webmentions
  // of one post count in 2.2 ms.
  const totals = new Map(
    db
      .select({ postId: webmention.outboxObjectId, total: sql<number>`count(*)` })
      .from(webmention)
      .where(inArray(webmention.outboxObjectId, ids))
      .groupBy(webmention.outboxObjectId)
      .all()
      .map((t) => [t.postId, t.total]),
  );
  const posts = new Map(
    db
      .select()
      .from(outbox)
      .where(inArray(outbox.id, ids))
      .all()
      .map((p) => [p.id, p]),
  );

  const items = viewsOf(
    shown,
    ({ postId }): WebmentionGroupView => {
      const post = posts.get(postId)!;
      const object = post.apObject as Record<string, unknown>;
      const mentions = mentionsOf(db, post, null, MENTIONS_PER_POST);
      return {
        post: {
          id: post.id,
          apId: post.apId,
          excerpt: htmlToExcerpt(typeof object.content === 'string' ? object.content : '', 140),
          isDeleted: post.isDeleted,
          webmentionsCount: post.webmentionsCount,
        },
        mentions: mentions.items,
        mentionsTotal: totals.get(postId) ?? 0,
        moreCursor: mentions.nextCursor,
      };
    },
    ({ postId }) => `outbox row ${postId} (its webmentions)`,
  );
  const more = groups.length > input.limit;
  return { items, nextCursor: more ? String(shown.at(-1)!.latest) : null };
}

/** More webmentions of one post, after the ones a group showed (the Webmentions view's "more"). */
export function listWebmentionsOfPost(db: DbOrTx, input: { postId: number; cursor?: string | null; limit: number }): PostWebmentionsPage {
  const post = db.select({ id: outbox.id }).from(outbox).where(eq(outbox.id, input.postId)).get();
  if (!post) return { items: [], nextCursor: null };
  return mentionsOf(db, post, cursorOf(input.cursor), input.limit);
}

export function listSentWebmentions(db: DbOrTx, input: { cursor?: string | null; limit: number }, inFlight: ReadonlySet<number>): SentWebmentionsPage {
  const before = cursorOf(input.cursor);
  const rows = db
    .select({ row: outgoingActivity, source: outbox.apId })
    .from(outgoingActivity)
    .leftJoin(outbox, eq(outbox.id, outgoingActivity.outboxObjectId))
    .where(and(isNotNull(outgoingActivity.webmentionTarget), before === null ? undefined : lt(outgoingActivity.id, before)))
    .orderBy(desc(outgoingActivity.id))
    .limit(input.limit + 1)
    .all();
  const items = rows.slice(0, input.limit).map(({ row, source }): SentWebmentionView => {
    const discovering = isAddress(row.recipient);
    const state: SentState = row.isSent
      ? 'sent'
      : row.isErrored
        ? 'failed'
        : inFlight.has(row.id)
          ? 'sending'
          : row.tries > 0
            ? 'retrying'
            : discovering
              ? 'discovering'
              : 'queued';
    return {
      id: row.id,
      source: source ?? '',
      target: row.webmentionTarget ?? '',
      endpoint: discovering || parseRecipient(row.recipient) === null ? null : row.recipient,
      state,
      tries: row.tries,
      lastStatus: row.lastStatusCode,
      error: row.error,
      nextTry: row.nextTry?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    };
  });
  return { items, nextCursor: rows.length > input.limit ? String(items.at(-1)!.id) : null };
}
