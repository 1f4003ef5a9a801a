// Reads by row rather than by screen, for the Mastodon client API (mastodon/): one post by its
// row (an Announce row read as the boosted post, marked with its booster), where an ap_id is
// stored, one actor's posts, the bookmarked and liked posts — each a page cut on the same
// (published, origin, id) key the home stream sorts by, in either direction.
import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, lte, notInArray, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { viewsOf } from '../../../../db/readable-rows';
import { actor, inbox, outbox, storedValue, upload, type Actor, type InboxObject, type OutboxObject, type Upload } from '../../../../db/schema';
import { IN_STREAM, OWN_COUNTED, OWN_SHOWN, typeOf } from '../index-terms';
import type { ActorView, PostView } from '../../ipc/author-contract';
import { POST_TYPES } from '../outbox';
import { OPEN_VISIBILITIES } from '../collections';
import { NON_POST_TYPES } from '../objects';
import { quoteStateField } from '../quoting';

/** Row types never shown as posts: activities and non-posts (actors, collections, tombstones).
 * Every other object shows: a post, or an unknown type as a link card (objects.ts). */
const NOT_POSTS = [...NON_POST_TYPES];
/** The same, but boosts (Announce) show in streams. */
const NOT_IN_STREAM = NON_POST_TYPES.filter((t) => t !== 'Announce');
import { actorsById, inboxPostView, outboxPostView } from './views';
import { reactionTallyOf, type ReactionBudget, type ReactionTally } from '../reaction-tally';

export type Origin = 'inbox' | 'outbox';

/** Where a row sorts: (published, origin — outbox after inbox at the same instant —, id). */
export interface RowKey {
  published: Date;
  origin: Origin;
  id: number;
}

/** A post as the stream shows it, with the key of the row that put it there. */
export interface KeyedPost {
  key: RowKey;
  view: PostView;
}

export interface KeyRange {
  /** Older than this key. */
  before?: RowKey | null;
  /** Newer than this key. */
  after?: RowKey | null;
  /** The page just above `after` (the rows nearest it) instead of the newest; still listed newest first. */
  closestToAfter?: boolean;
  limit: number;
}

const originRank = (o: Origin) => (o === 'outbox' ? 1 : 0);

export function compareKeys(a: RowKey, b: RowKey): number {
  return a.published.getTime() - b.published.getTime() || originRank(a.origin) - originRank(b.origin) || a.id - b.id;
}

/** Rows on one side of a key. Stated as a range on published (≤ or ≥) first, so a page starts
 * where the (ap_published_at, id) index is cut instead of reading every newer (older) row. The
 * key's time and id may be placeholders, bound when a prepared query runs (streamRows). */
function keyCondition(
  table: typeof inbox | typeof outbox,
  origin: Origin,
  key: { origin: Origin; published: Date | Placeholder; id: number | Placeholder } | null | undefined,
  dir: 'before' | 'after',
): SQL | undefined {
  if (!key) return undefined;
  const cmp = dir === 'before' ? lt : gt;
  const sameInstant =
    origin === key.origin ? cmp(table.id, key.id) : (dir === 'before') === originRank(origin) < originRank(key.origin) ? eq(table.id, table.id) : undefined;
  const bound = (dir === 'before' ? lte : gte)(table.apPublishedAt, key.published);
  return sameInstant ? and(bound, or(cmp(table.apPublishedAt, key.published), sameInstant)) : cmp(table.apPublishedAt, key.published);
}


/** One table's rows in a key range (the `limit` newest, or with `closestToAfter` the `limit`
 * nearest `after`), listed newest first either way: Mastodon lists a min_id page newest first,
 * and a reader that handed back the ascending rows made the caller's next batch start at the
 * oldest row again (the same post twice, the rest never). */
function ranged<T extends typeof inbox | typeof outbox>(db: DbOrTx, table: T, origin: Origin, where: SQL | undefined, range: KeyRange) {
  const order = range.closestToAfter ? [asc(table.apPublishedAt), asc(table.id)] : [desc(table.apPublishedAt), desc(table.id)];
  const rows = db
    .select()
    .from(table as typeof inbox)
    .where(and(where, keyCondition(table, origin, range.before, 'before'), keyCondition(table, origin, range.after, 'after')))
    .orderBy(...order)
    .limit(range.limit)
    .all() as unknown as (T extends typeof inbox ? InboxObject : OutboxObject)[];
  return range.closestToAfter ? rows.reverse() : rows;
}

/** What the home stream shows of each table (the partial indexes' terms, see above). */
const STREAM_WHERE = {
  inbox: and(IN_STREAM, notInArray(typeOf(inbox), NOT_IN_STREAM)),
  outbox: and(OWN_SHOWN, isNull(outbox.undoneByOutboxObjectId), inArray(typeOf(outbox), [...POST_TYPES, 'Announce'])),
};

interface StreamQuery {
  all(values: { published?: unknown; id?: number; limit: number }): unknown[];
}
/** Per database handle: a query per table and key shape (no key, or a key from either table). */
const streamQueries = new WeakMap<object, Map<string, StreamQuery>>();

/**
 * One table's stream rows older than `before` (the `limit` newest), as ranged() reads them, by a
 * query built and prepared once per handle and key shape and bound at each call. The stream is
 * the author's most asked read (each scroll, each change told to the window), on the app's
 * thread, and drizzle built its SQL again for every page: measured over 4,000 posts, a page of
 * 30 took 0.99 ms (p50) that way and takes 0.54 ms so.
 */
function streamRows<O extends Origin>(db: DbOrTx, origin: O, before: RowKey | null | undefined, limit: number): (O extends 'inbox' ? InboxObject : OutboxObject)[] {
  let queries = streamQueries.get(db);
  if (queries === undefined) streamQueries.set(db, (queries = new Map()));
  const shape = `${origin} ${before?.origin ?? 'first'}`;
  let query = queries.get(shape);
  const table = origin === 'inbox' ? inbox : outbox;
  if (query === undefined) {
    const key = before ? { origin: before.origin, published: sql.placeholder('published'), id: sql.placeholder('id') } : null;
    query = db
      .select()
      .from(table as typeof inbox)
      .where(and(STREAM_WHERE[origin], keyCondition(table, origin, key, 'before')))
      .orderBy(desc(table.apPublishedAt), desc(table.id))
      .limit(sql.placeholder('limit'))
      .prepare() as StreamQuery;
    queries.set(shape, query);
  }
  // Placeholders are bound as they are: the time as the column stores it.
  const values = before ? { published: table.apPublishedAt.mapToDriverValue(before.published), id: before.id, limit } : { limit };
  return query.all(values) as (O extends 'inbox' ? InboxObject : OutboxObject)[];
}

export function keyOf(origin: Origin, row: { id: number; apPublishedAt: Date }): RowKey {
  return { published: row.apPublishedAt, origin, id: row.id };
}

/** `now`: the clock the author's own quote posts are read by (where their approval stands). */
export function createReads(db: DbOrTx, me: () => ActorView, now: () => Date) {
  /** Views of rows, Announces read as what they boost (dropped when that is gone). */
  function views(rows: { origin: Origin; row: InboxObject | OutboxObject }[]): KeyedPost[] {
    const inboxTargets = rows.map((r) => r.row.relatesToInboxObjectId).filter((id): id is number => id !== null);
    const ownTargets = rows.map((r) => r.row.relatesToOutboxObjectId).filter((id): id is number => id !== null);
    const targetsIn = new Map(inboxTargets.length ? db.select().from(inbox).where(inArray(inbox.id, inboxTargets)).all().map((r) => [r.id, r]) : []);
    const targetsOut = new Map(ownTargets.length ? db.select().from(outbox).where(inArray(outbox.id, ownTargets)).all().map((r) => [r.id, r]) : []);
    const actors = actorsById(db, [
      ...rows.filter((r) => r.origin === 'inbox').map((r) => (r.row as InboxObject).actorId),
      ...[...targetsIn.values()].map((r) => r.actorId),
    ]);
    // One row that cannot be read (viewsOf) is left out, not the page.
    const one = ({ origin, row }: { origin: Origin; row: InboxObject | OutboxObject }): KeyedPost | null => {
      const key = keyOf(origin, row);
      const plain = (o: Origin, r: InboxObject | OutboxObject) =>
        o === 'outbox' ? { ...outboxPostView(r as OutboxObject, me()), ...quoteStateField(db, me().apId, r as OutboxObject, now()) } : inboxPostView(r as InboxObject, actors.get((r as InboxObject).actorId));
      if (row.apType !== 'Announce') return { key, view: plain(origin, row) };
      const booster = origin === 'outbox' ? me() : plain('inbox', row).author;
      const boostedBy = { actor: booster, apId: row.apId, at: row.apPublishedAt.toISOString() };
      const remote = row.relatesToInboxObjectId !== null ? targetsIn.get(row.relatesToInboxObjectId) : undefined;
      const ours = row.relatesToOutboxObjectId !== null ? targetsOut.get(row.relatesToOutboxObjectId) : undefined;
      if (remote && !remote.isDeleted) return { key, view: { ...plain('inbox', remote), boostedBy } };
      if (ours && !ours.isDeleted) return { key, view: { ...plain('outbox', ours), boostedBy } };
      return null;
    };
    return viewsOf(rows, one, ({ origin, row }) => `${origin} row ${row.id}`).filter((p): p is KeyedPost => p !== null);
  }

  const liveInbox = and(eq(inbox.isDeleted, false), eq(inbox.isTransient, false));
  // The author's lists, read by the Mastodon API on the listener's thread: their terms are those
  // of the partial indexes that serve them (IN_STREAM above), or SQLite read every post by
  // ix_outbox_ap_type and sorted them all for each page (100,000 posts: 0.2–0.5 s a page, and
  // a filter the posts miss, as only_media, asks for five: 1.7 s; now 8–24 ms).
  const liveOutbox = and(OWN_SHOWN, isNull(outbox.undoneByOutboxObjectId));
  /** ix_inbox_bookmarked's, ix_inbox_liked's and ix_*_direct's terms (revision 4a475cedd483). */
  const LISTED = {
    bookmarked: sql`${inbox.isBookmarked} = 1 AND ${inbox.isDeleted} = 0 AND ${inbox.isTransient} = 0`,
    liked: sql`${inbox.likedViaOutboxObjectApId} IS NOT NULL AND ${inbox.isDeleted} = 0 AND ${inbox.isTransient} = 0`,
    directIn: sql`${inbox.visibility} = 'DIRECT' AND ${inbox.isDeleted} = 0 AND ${inbox.isTransient} = 0`,
    directOut: sql`${outbox.visibility} = 'DIRECT' AND ${outbox.isDeleted} = 0 AND ${outbox.isTransient} = 0`,
  };
  const merge = (a: KeyedPost[], b: KeyedPost[], range: KeyRange) => {
    const all = [...a, ...b].sort((x, y) => compareKeys(x.key, y.key) * (range.closestToAfter ? 1 : -1)).slice(0, range.limit);
    return range.closestToAfter ? all.reverse() : all;
  };

  /** `more`: rows remain past the page (a boost of something gone takes a row, shows nothing). */
  function streamPage(range: KeyRange): { posts: KeyedPost[]; more: boolean } {
    const wide = { ...range, limit: range.limit + 1 };
    // The window's pages (older than a key, or the first) by the prepared queries; the Mastodon
    // API's pages above a key (min_id, since_id) as any other range.
    const prepared = !range.after && !range.closestToAfter;
    const received = prepared ? streamRows(db, 'inbox', range.before, wide.limit) : ranged(db, inbox, 'inbox', STREAM_WHERE.inbox, wide);
    const own = prepared ? streamRows(db, 'outbox', range.before, wide.limit) : ranged(db, outbox, 'outbox', STREAM_WHERE.outbox, wide);
    const rows = [...received.map((row) => ({ origin: 'inbox' as const, row })), ...own.map((row) => ({ origin: 'outbox' as const, row }))].sort(
      (x, y) => compareKeys(keyOf(x.origin, x.row), keyOf(y.origin, y.row)) * (range.closestToAfter ? 1 : -1),
    );
    const page = rows.slice(0, range.limit);
    return { posts: views(range.closestToAfter ? page.reverse() : page), more: rows.length > range.limit };
  }

  return {
    /** A stored row as a post (an Announce: the boosted post with boostedBy); null if gone. */
    post(origin: Origin, id: number): KeyedPost | null {
      const row = origin === 'inbox' ? db.select().from(inbox).where(eq(inbox.id, id)).get() : db.select().from(outbox).where(eq(outbox.id, id)).get();
      if (!row || row.isDeleted) return null;
      return views([{ origin, row }])[0] ?? null;
    },

    /** One of the author's posts as it was before each edit, oldest first, then as it is. */
    history(id: number): PostView[] {
      const row = db.select().from(outbox).where(eq(outbox.id, id)).get();
      if (!row || row.isDeleted) return [];
      const earlier = (storedValue(row.revisions) ?? []).filter((r) => typeof r === 'object' && r !== null && !Array.isArray(r) && 'ap_object' in r) as { ap_object: OutboxObject['apObject']; source?: string | null; updated?: string | null }[];
      return [
        ...earlier.map((r) => ({ ...outboxPostView({ ...row, apObject: r.ap_object, source: r.source ?? null }, me()), updated: r.updated ?? null })),
        outboxPostView(row, me()),
      ];
    },

    /** The author's standing boost of an object, if any (found by the object's index: by
     * ix_outbox_ap_type, SQLite read every boost the author ever made). */
    ownBoostOf(apId: string): KeyedPost | null {
      const row = db
        .select()
        .from(outbox)
        .where(and(liveOutbox, eq(typeOf(outbox), 'Announce'), eq(outbox.activityObjectApId, apId)))
        .orderBy(desc(outbox.id))
        .get();
      return row ? (views([{ origin: 'outbox', row }])[0] ?? null) : null;
    },

    /** Uploads by id or by content hash (files of the author's posts). */
    upload: (id: number): Upload | null => db.select().from(upload).where(eq(upload.id, id)).get() ?? null,
    uploadByHash: (hash: string): Upload | null => db.select().from(upload).where(eq(upload.contentHash, hash)).get() ?? null,

    /** The emoji reactions standing on one of the author's posts (reaction-tally.ts), as far as
     * `budget` (one answer's) allows. */
    reactions: (outboxObjectId: number, budget?: ReactionBudget): ReactionTally => reactionTallyOf(db, outboxObjectId, budget),

    /** Where an object is stored (ours first), with its key. */
    find(apId: string): RowKey | null {
      const own = db.select({ id: outbox.id, apPublishedAt: outbox.apPublishedAt }).from(outbox).where(eq(outbox.apId, apId)).get();
      if (own) return keyOf('outbox', own);
      const received = db.select({ id: inbox.id, apPublishedAt: inbox.apPublishedAt }).from(inbox).where(eq(inbox.apId, apId)).get();
      return received ? keyOf('inbox', received) : null;
    },

    /** An actor's row by id, or by ap_id. */
    actor: (id: number): Actor | null => db.select().from(actor).where(eq(actor.id, id)).get() ?? null,
    actorByApId: (apId: string): Actor | null => db.select().from(actor).where(eq(actor.apId, apId)).get() ?? null,

    /** How many posts the author has (not boosts): public and unlisted ones, what anyone may
     * count (the outbox's totalItems does the same); `withPrivate`, followers-only and direct ones
     * too — for the author's own eyes only. */
    ownPostCount: (options: { withPrivate?: boolean } = {}): number =>
      db
        .select({ n: count() })
        .from(outbox)
        .where(and(OWN_COUNTED, inArray(outbox.apType, [...POST_TYPES]), options.withPrivate ? undefined : inArray(outbox.visibility, [...OPEN_VISIBILITIES])))
        .get()?.n ?? 0,

    /** The author's posts and boosts (pinned ones only, if asked). */
    ownPosts(range: KeyRange, filter: { pinned?: boolean; withBoosts?: boolean } = {}): KeyedPost[] {
      const types = filter.withBoosts === false ? [...POST_TYPES] : [...POST_TYPES, 'Announce'];
      const where = and(liveOutbox, inArray(typeOf(outbox), types), filter.pinned ? sql`${outbox.isPinned} = 1` : undefined);
      return views(ranged(db, outbox, 'outbox', where, range).map((row) => ({ origin: 'outbox' as const, row })));
    },

    /** What one remote actor's posts and boosts Tern has stored. */
    actorPosts(actorId: number, range: KeyRange, filter: { withBoosts?: boolean } = {}): KeyedPost[] {
      const where = and(liveInbox, eq(inbox.actorId, actorId), notInArray(inbox.apType, filter.withBoosts === false ? NOT_POSTS : NOT_IN_STREAM));
      return views(ranged(db, inbox, 'inbox', where, range).map((row) => ({ origin: 'inbox' as const, row })));
    },

    /** Received posts the author bookmarked, or liked. */
    marked(which: 'bookmarked' | 'liked', range: KeyRange): KeyedPost[] {
      const where = which === 'bookmarked' ? LISTED.bookmarked : LISTED.liked;
      return views(ranged(db, inbox, 'inbox', where, range).map((row) => ({ origin: 'inbox' as const, row })));
    },

    /** Direct posts, received and the author's own. */
    direct(range: KeyRange): KeyedPost[] {
      const received = views(ranged(db, inbox, 'inbox', and(LISTED.directIn, notInArray(typeOf(inbox), NOT_POSTS)), range).map((row) => ({ origin: 'inbox' as const, row })));
      const own = views(ranged(db, outbox, 'outbox', and(LISTED.directOut, isNull(outbox.undoneByOutboxObjectId), inArray(typeOf(outbox), [...POST_TYPES])), range).map((row) => ({ origin: 'outbox' as const, row })));
      return merge(received, own, range);
    },

    /** The home stream: received posts the inbox processor put in the stream, boosts read as
     * what they boost, and the author's own posts and boosts (one page, and whether more follow). */
    streamPage,

    stream(range: KeyRange): KeyedPost[] {
      return streamPage(range).posts;
    },
  };
}

export type Reads = ReturnType<typeof createReads>;
