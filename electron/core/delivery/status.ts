// The delivery queue as people see it: each post's delivery state ("sent to 3 of 4 servers",
// "queued", "failed: …"), the per-row list of the Deliveries view, and "retry now".
import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import { prepared, type DbOrTx } from '../../../db/client';
import { parseStoredDate } from '../../../db/columns';
import { viewsOf } from '../../../db/readable-rows';
import { outbox, outgoingActivity, type OutgoingActivity } from '../../../db/schema';
import type { DeliveriesView, DeliveryRowState, DeliveryRowView, DeliveryState, WaitingView } from '../ipc/author-contract';
import { NON_POST_TYPES } from '../federation/objects';
import { ConflictError, NotFoundError } from '../errors';
import { hostOfRecipient, isAddress } from './addresses';
import { deliveryCounts } from './counts';

export interface QueueContext {
  /** Rows being sent right now (the loop's in-flight set). */
  inFlight: ReadonlySet<number>;
  online: boolean;
}

/** One activity's deliveries, counted (SUMMARY). */
interface Counted {
  activity: number;
  total: number;
  sent: number;
  failed: number;
  pending: number;
  attempted: number;
  next_try: string | null;
}

// Each activity's deliveries counted in SQL, down the index by activity
// (ix_outgoing_activity_outbox_object_id), instead of every row made an object and grouped here:
// a post goes to one row per inbox, and remote actors decide how many inboxes its followers
// name. Grouped with a copy of the list per row, 10,000 inboxes held the main thread 106–110 ms,
// 20,000 1.8 s and 50,000 19 s (posts.create; a profile page with four such posts 78 s:
// test/hostile/audit-ipc-delivery-states.test.ts). Booleans are 0 or 1 (their CHECKs); a
// next_try is UTC text of one form (revision 5d0e8a3c71f4), so the least text is the soonest.
const SUMMARY = `
SELECT outbox_object_id AS activity, count(*) AS total,
  total(is_sent = 1) AS sent, total(is_errored = 1) AS failed, total(is_sent = 0 AND is_errored = 0) AS pending,
  max(is_sent = 0 AND is_errored = 0 AND tries > 0) AS attempted,
  min(CASE WHEN is_sent = 0 AND is_errored = 0 THEN next_try END) AS next_try
FROM outgoing_activity
WHERE outbox_object_id IN (SELECT value FROM json_each(?)) AND webmention_target IS NULL
GROUP BY outbox_object_id`;

// The reason shown: the first error of a row still waiting, else of a row given up (by id).
const FIRST_ERROR = `
SELECT coalesce(
  (SELECT error FROM outgoing_activity WHERE outbox_object_id = @activity AND webmention_target IS NULL AND is_sent = 0 AND is_errored = 0
     AND error IS NOT NULL AND error <> '' ORDER BY id LIMIT 1),
  (SELECT error FROM outgoing_activity WHERE outbox_object_id = @activity AND webmention_target IS NULL AND is_errored = 1
     AND error IS NOT NULL AND error <> '' ORDER BY id LIMIT 1))`;

// Which of these activities have a waiting row in flight (the loop's set: its concurrency at most).
const IN_FLIGHT = `
SELECT DISTINCT outbox_object_id FROM outgoing_activity
WHERE id IN (SELECT value FROM json_each(?)) AND is_sent = 0 AND is_errored = 0 AND webmention_target IS NULL`;

function summarize(db: DbOrTx, activity: string, counted: Counted | undefined, inFlight: boolean, ctx: QueueContext): DeliveryState {
  if (!counted) return { state: 'local', activity, total: 0, sent: 0, failed: 0, pending: 0, error: null, nextTry: null };
  const { total, sent, failed, pending } = counted;
  const error = pending + failed > 0 ? (prepared<[{ activity: number }], string | null>(db, FIRST_ERROR).pluck().get({ activity: counted.activity }) ?? null) : null;
  let state: DeliveryState['state'];
  if (pending > 0) state = inFlight || (ctx.online && counted.attempted > 0) ? 'sending' : 'queued';
  else state = failed > 0 ? 'failed' : 'sent';
  return { state, activity, total, sent, failed, pending, error, nextTry: counted.next_try === null ? null : parseStoredDate(counted.next_try).toISOString() };
}

/** The delivery state of each post: of its latest activity (the Create, or the last Update). */
export function deliverySummaries(db: DbOrTx, postIds: number[], ctx: QueueContext): Map<number, DeliveryState> {
  const out = new Map<number, DeliveryState>();
  if (postIds.length === 0) return out;
  const updates = db
    .select({ id: outbox.id, post: outbox.relatesToOutboxObjectId })
    .from(outbox)
    // `+ap_type`: read by the post (ix_outbox_relates_to_outbox_object_id), not every Update ever made.
    .where(and(sql`+${outbox.apType} = 'Update'`, inArray(outbox.relatesToOutboxObjectId, postIds)))
    .all();
  const postOf = new Map<number, number>(postIds.map((id) => [id, id]));
  for (const u of updates) if (u.post !== null) postOf.set(u.id, u.post);
  const activities = JSON.stringify([...postOf.keys()]);
  const counted = new Map(prepared<[string], Counted>(db, SUMMARY).all(activities).map((c) => [c.activity, c]));
  const inFlight = new Set(ctx.inFlight.size === 0 ? [] : prepared<[string], number>(db, IN_FLIGHT).pluck().all(JSON.stringify([...ctx.inFlight])));
  for (const postId of postIds) {
    const ofPost = [...postOf.entries()].filter(([, p]) => p === postId).map(([a]) => a).sort((a, b) => b - a);
    // The newest activity that has deliveries (an edit nobody needed to receive has none).
    const latest = ofPost.find((a) => counted.has(a)) ?? ofPost[0]!;
    out.set(postId, summarize(db, latest === postId ? 'Create' : 'Update', counted.get(latest), inFlight.has(latest), ctx));
  }
  return out;
}

function rowState(row: OutgoingActivity, ctx: QueueContext): DeliveryRowState {
  if (row.isSent) return 'sent';
  if (row.isErrored) return 'failed';
  if (ctx.inFlight.has(row.id)) return 'sending';
  if (isAddress(row.recipient)) return 'resolving';
  return row.tries > 0 ? 'retrying' : 'queued';
}

function label(type: string, object: Record<string, unknown> | null): string {
  const text = typeof object?.content === 'string' ? object.content.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim() : '';
  const target = typeof object?.object === 'string' ? object.object : '';
  if (type === 'Note' || type === 'Article' || type === 'Question') return `Post: ${text.slice(0, 80) || '(no text)'}`;
  if (target) return `${type} of ${target}`;
  return type;
}

export function listDeliveries(
  db: DbOrTx,
  input: { cursor?: string | null; limit: number; state: 'all' | 'pending' | 'failed' | 'sent'; postApId?: string },
  ctx: QueueContext,
): DeliveriesView {
  const before = input.cursor ? Number(input.cursor) : null;
  // Literal terms, so the waiting and failed filters read the partial index of unsent rows.
  const filter = {
    all: undefined,
    pending: sql`${outgoingActivity.isSent} = 0 AND ${outgoingActivity.isErrored} = 0`,
    failed: sql`${outgoingActivity.isSent} = 0 AND ${outgoingActivity.isErrored} = 1`,
    sent: eq(outgoingActivity.isSent, true),
  }[input.state];
  // One post's rows: its own (Create) and those of the activities about it (Update, Delete),
  // found first by their ids, so the rows are read by post and not the whole history joined.
  const postIds =
    input.postApId === undefined
      ? null
      : db
          .select({ id: outbox.id })
          .from(outbox)
          .where(or(eq(outbox.apId, input.postApId), eq(outbox.activityObjectApId, input.postApId)))
          .all()
          .map((r) => r.id);
  const rows =
    postIds?.length === 0
      ? []
      : db
          .select({ row: outgoingActivity, apType: outbox.apType, apId: outbox.apId, apObject: outbox.apObject })
          .from(outgoingActivity)
          .leftJoin(outbox, eq(outbox.id, outgoingActivity.outboxObjectId))
          .where(
            and(
              filter,
              before !== null && Number.isFinite(before) ? lt(outgoingActivity.id, before) : undefined,
              postIds ? inArray(outgoingActivity.outboxObjectId, postIds) : undefined,
            ),
          )
          .orderBy(desc(outgoingActivity.id))
          .limit(input.limit + 1)
          .all();
  // A row that cannot be read is left out (viewsOf), not the page.
  const items: DeliveryRowView[] = viewsOf(rows.slice(0, input.limit), ({ row, apType, apId, apObject }) => {
    const type = row.webmentionTarget !== null ? 'Webmention' : (apType ?? (row.inboxObjectId !== null ? 'Forward' : 'Unknown'));
    return {
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      state: rowState(row, ctx),
      recipient: row.recipient,
      host: hostOfRecipient(row.recipient),
      activity: {
        type,
        apId: apId ?? null,
        label: row.webmentionTarget !== null ? `Webmention to ${row.webmentionTarget}` : label(type, (apObject as Record<string, unknown> | null) ?? null),
      },
      tries: row.tries,
      nextTry: row.nextTry?.toISOString() ?? null,
      lastTry: row.lastTry?.toISOString() ?? null,
      lastStatus: row.lastStatusCode,
      lastResponse: row.lastResponse,
      error: row.error,
    };
  }, ({ row }) => `outgoing_activity row ${row.id}`);
  const c = deliveryCounts(db);
  // Rows in flight are counted as sending, not as what they were before.
  const flying = ctx.inFlight.size > 0
    ? db.select().from(outgoingActivity).where(inArray(outgoingActivity.id, [...ctx.inFlight])).all()
    : [];
  const counts: Record<DeliveryRowState, number> = { ...c, sending: 0 };
  for (const r of flying) {
    if (r.isSent || r.isErrored) continue;
    const was: DeliveryRowState = isAddress(r.recipient) ? 'resolving' : r.tries > 0 ? 'retrying' : 'queued';
    counts[was]--;
    counts.sending++;
  }
  const last = items.at(-1);
  return { items, counts, nextCursor: rows.length > input.limit && last ? String(last.id) : null };
}

// Rows whose activity the author undid (a Follow, Like or Boost taken back): revived, the old
// activity would reach the peer after its Undo and stand again there.
// (coalesce: a forwarded row names no outbox object, and NULL IN … is NULL, not false.)
const UNDONE = sql`coalesce(${outgoingActivity.outboxObjectId} IN (SELECT id FROM outbox WHERE undone_by_outbox_object_id IS NOT NULL), 0)`;

/** Retries one row now, or every failed or waiting row: a fresh set of tries, due at once.
 * A row of an undone activity is not retried (its Undo says what is still true). */
export function retryNow(db: DbOrTx, now: Date, id?: number): number {
  const reset = { isErrored: false, tries: 0, nextTry: now, error: null };
  if (id !== undefined) {
    const row = db.select().from(outgoingActivity).where(eq(outgoingActivity.id, id)).get();
    if (!row) throw new NotFoundError('There is no such delivery.');
    if (row.isSent) throw new ConflictError('That delivery was already sent.');
    const own = row.outboxObjectId === null ? undefined : db.select().from(outbox).where(eq(outbox.id, row.outboxObjectId)).get();
    if (own?.undoneByOutboxObjectId != null) throw new ConflictError(`That ${own.apType} was undone since; it is not sent again.`);
    return db.update(outgoingActivity).set(reset).where(and(eq(outgoingActivity.id, id), eq(outgoingActivity.isSent, false))).run().changes;
  }
  return db
    .update(outgoingActivity)
    .set(reset)
    .where(and(eq(outgoingActivity.isSent, false), or(eq(outgoingActivity.isErrored, true), sql`${outgoingActivity.tries} > 0`), sql`NOT (${UNDONE})`))
    .run().changes;
}

/** The types that are no post (likes, follows…), as the JSON list SQLite's json_each reads. */
const NON_POST_TYPES_JSON = JSON.stringify(NON_POST_TYPES);

// The waiting rows counted by activity down their own index (ix_outgoing_activity_waiting,
// revision ae35abd14d3a: no row read), then each activity's type looked up once. Joined row by
// row to the outbox and counted distinct, 200,000 deliveries waiting (ten posts while offline,
// to 20,000 followers' inboxes) held the main thread 60–80 ms at every tray and status refresh.
const WAITING = `
WITH g(post, n) AS (
  SELECT outbox_object_id, count(*) FROM outgoing_activity INDEXED BY ix_outgoing_activity_waiting
  WHERE is_sent = 0 AND is_errored = 0 GROUP BY outbox_object_id
)
SELECT coalesce(sum(g.n), 0) AS deliveries,
       count(CASE WHEN g.post IS NOT NULL AND o.ap_type NOT IN (SELECT value FROM json_each(@nonPosts)) THEN 1 END) AS posts,
       coalesce(sum(CASE WHEN g.post IS NULL THEN g.n WHEN o.ap_type IS NULL OR o.ap_type IN (SELECT value FROM json_each(@nonPosts)) THEN 1 ELSE 0 END), 0) AS other
FROM g LEFT JOIN outbox o ON o.id = g.post`;

/** What waits to be sent (the status line's "2 posts waiting to send"): deliveries not sent yet
 * (one per server), and what they are for — the author's posts (an outbox object of a post's
 * type) and their other actions (likes, boosts, follows, deletions… each one thing however many
 * servers it goes to; a row of no outbox object, each one thing). */
export function waitingToSend(db: DbOrTx): WaitingView {
  const row = prepared<[{ nonPosts: string }], WaitingView>(db, WAITING).get({ nonPosts: NON_POST_TYPES_JSON });
  return { deliveries: row?.deliveries ?? 0, posts: row?.posts ?? 0, other: row?.other ?? 0 };
}
