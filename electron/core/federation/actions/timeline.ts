// The two lists the author reads most: the home stream (received posts the inbox processor put
// in the stream, boosts marked with the booster, and the author's own posts and boosts, newest
// first) and the profile (the author's posts, pinned first, each with its delivery state).
// Pages are cut by a cursor on (published, origin, id), so new posts never shift a page.
import { and, desc, eq, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { isReadableDate, viewsOf } from '../../../../db/readable-rows';
import { inbox, outbox, type OutboxObject } from '../../../../db/schema';
import type { ActorView, PageOf, PostView, ProfilePost } from '../../ipc/author-contract';
import { deliverySummaries, type QueueContext } from '../../delivery/status';
import { POST_TYPES } from '../outbox';
import { outboxPostView } from './views';
import { createReads } from './reads';
import { quoteStateField } from '../quoting';


interface Cursor {
  t: Date;
  o: 'i' | 'o';
  id: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.t.toISOString()}|${c.o}|${c.id}`).toString('base64url');
}

function decodeCursor(text: string | null | undefined): Cursor | null {
  if (!text) return null;
  const [t, o, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  const date = new Date(t ?? '');
  if (Number.isNaN(date.getTime()) || (o !== 'i' && o !== 'o') || !Number.isInteger(Number(id))) return null;
  return { t: date, o, id: Number(id) };
}

/** Rows after the cursor in (published desc, origin desc, id desc) order; 'o' sorts before 'i'.
 * Stated as a range on published (≤ or <) first, so the page starts where the index is cut
 * instead of reading every newer row. */
function after(table: typeof inbox | typeof outbox, origin: 'i' | 'o', cursor: Cursor | null): SQL | undefined {
  if (!cursor) return undefined;
  if (origin === cursor.o) return and(lte(table.apPublishedAt, cursor.t), or(lt(table.apPublishedAt, cursor.t), lt(table.id, cursor.id)));
  return origin === 'i' ? lte(table.apPublishedAt, cursor.t) : lt(table.apPublishedAt, cursor.t);
}

// The terms of the partial index ix_outbox_published (revision
// d58a0b6c3e27), written as they are there: SQLite uses a partial index only for a query that
// states its WHERE (a bound parameter would not do). The type lists are checked row by row (`+`
// keeps SQLite from reading by ix_*_ap_type and sorting every post ever received instead).
const OWN_SHOWN = sql`${outbox.isDeleted} = 0 AND ${outbox.isTransient} = 0`;
const typeOf = (table: typeof inbox | typeof outbox) => sql`+${table.apType}`;

/** The home stream, newest first (reads.ts holds its filter and the boosts' reading). */
export function homeStream(db: DbOrTx, me: ActorView, input: { cursor?: string | null; limit: number }, now: Date): PageOf<PostView> {
  const cursor = decodeCursor(input.cursor);
  const before = cursor ? { published: cursor.t, origin: cursor.o === 'o' ? ('outbox' as const) : ('inbox' as const), id: cursor.id } : null;
  const { posts, more } = createReads(db, () => me, () => now).streamPage({ before, limit: input.limit });
  const last = posts.at(-1)?.key;
  return {
    items: posts.map((p) => p.view),
    nextCursor: more && last ? encodeCursor({ t: last.published, o: last.origin === 'outbox' ? 'o' : 'i', id: last.id }) : null,
  };
}

/** The author's posts: pinned ones first (on the first page), then the rest newest first, each
 * with its delivery state. */
export function profilePosts(
  db: DbOrTx,
  me: ActorView,
  input: { cursor?: string | null; limit: number },
  queue: QueueContext,
  now: Date,
): PageOf<ProfilePost> {
  const cursor = decodeCursor(input.cursor);
  const base = and(OWN_SHOWN, inArray(typeOf(outbox), [...POST_TYPES]));
  // `is_pinned = 1` literal: the partial index ix_outbox_pinned holds the few pinned posts.
  const pinned = cursor ? [] : db.select().from(outbox).where(and(base, sql`${outbox.isPinned} = 1`)).orderBy(desc(outbox.apPublishedAt), desc(outbox.id)).all();
  const rest = db
    .select()
    .from(outbox)
    .where(and(base, eq(outbox.isPinned, false), after(outbox, 'o', cursor)))
    .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
    .limit(input.limit + 1)
    .all();
  const page = rest.slice(0, input.limit);
  const rows = [...pinned, ...page];
  const states = deliverySummaries(db, rows.map((r) => r.id), queue);
  // A row that cannot be read is left out (viewsOf), and the cursor is the last row that can.
  const last = page.findLast((r) => isReadableDate(r.apPublishedAt));
  return {
    items: viewsOf(rows, (row) => ({ ...outboxPostView(row, me), ...quoteStateField(db, me.apId, row, now), delivery: states.get(row.id)! }), (row) => `outbox row ${row.id}`),
    nextCursor: rest.length > input.limit && last ? encodeCursor({ t: last.apPublishedAt, o: 'o', id: last.id }) : null,
  };
}

/** One of the author's posts with its delivery state. */
export function profilePost(db: DbOrTx, me: ActorView, row: OutboxObject, queue: QueueContext, now: Date): ProfilePost {
  return { ...outboxPostView(row, me), ...quoteStateField(db, me.apId, row, now), delivery: deliverySummaries(db, [row.id], queue).get(row.id)! };
}
