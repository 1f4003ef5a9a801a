// What the Webmentions view shows: received webmentions grouped by the post they mention
// (newest activity first), each with its kind, author, excerpt and state (new, updated,
// deleted) read from the stored, sanitized microformats; and the webmentions Tern sends, with
// their delivery state from outgoing_activity.
import { and, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { notifications, outbox, outgoingActivity, webmention } from '../../../db/schema';
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
  mentions: ReceivedWebmentionView[];
}

export interface ReceivedWebmentionsPage {
  items: WebmentionGroupView[];
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

export function listReceivedWebmentions(db: DbOrTx, input: { cursor?: string | null; limit: number }): ReceivedWebmentionsPage {
  const before = cursorOf(input.cursor);
  const latest = sql<number>`max(${webmention.id})`;
  const groups = db
    .select({ postId: webmention.outboxObjectId, latest })
    .from(webmention)
    .groupBy(webmention.outboxObjectId)
    .having(before === null ? undefined : lt(latest, before))
    .orderBy(desc(latest))
    .limit(input.limit + 1)
    .all();
  const shown = groups.slice(0, input.limit);
  const postIds = shown.map((g) => g.postId);
  if (postIds.length === 0) return { items: [], nextCursor: null };
  const posts = new Map(db.select().from(outbox).where(inArray(outbox.id, postIds)).all().map((p) => [p.id, p]));
  const rows = db.select().from(webmention).where(inArray(webmention.outboxObjectId, postIds)).orderBy(desc(webmention.id)).all();
  const changes = db
    .select({ id: notifications.webmentionId, type: notifications.notificationType, at: notifications.createdAt })
    .from(notifications)
    .where(and(isNotNull(notifications.webmentionId), inArray(notifications.webmentionId, rows.map((r) => r.id))))
    .orderBy(notifications.id)
    .all();
  const lastChange = new Map<number, { type: string | null; at: Date }>();
  for (const c of changes) if (c.id !== null && c.type !== 'NEW_WEBMENTION') lastChange.set(c.id, { type: c.type, at: c.at });

  const items = shown.map(({ postId }) => {
    const post = posts.get(postId)!;
    const object = post.apObject as Record<string, unknown>;
    return {
      post: {
        id: post.id,
        apId: post.apId,
        excerpt: htmlToExcerpt(typeof object.content === 'string' ? object.content : '', 140),
        isDeleted: post.isDeleted,
        webmentionsCount: post.webmentionsCount,
      },
      mentions: rows
        .filter((r) => r.outboxObjectId === postId)
        .map((r): ReceivedWebmentionView => {
          const summary = summarize(r.sourceMicroformats, r.target);
          const change = lastChange.get(r.id);
          return {
            id: r.id,
            source: r.source,
            kind: summary.kind,
            state: r.isDeleted ? 'deleted' : change?.type === 'UPDATED_WEBMENTION' ? 'updated' : 'new',
            author: summary.author,
            excerpt: summary.excerpt,
            receivedAt: r.createdAt.toISOString(),
            changedAt: change?.at.toISOString() ?? null,
          };
        }),
    };
  });
  const more = groups.length > input.limit;
  return { items, nextCursor: more ? String(shown.at(-1)!.latest) : null };
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
