// The local actor's public collections and objects as ActivityPub (rows → ActivityPub): the
// outbox (posts wrapped in Create, and Announces), followers, following and featured (pinned),
// each an OrderedCollection whose pages hold 20 items, newest first. Pages fetch one row more
// than they show to know whether a next page exists; only the collection itself counts.
import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { follower, following, outbox, taggedOutboxObject, type OutboxObject } from '../../../db/schema';
import { OWN_COUNTED, OWN_SHOWN, typeOf } from './index-terms';
import type { LocalActor } from './identity';
import { AP_CONTEXT } from './outbox';
import { publishedForm } from './polls/question';
import { POST_TYPES } from './webfinger';
import { withQuotePolicy } from './quote-policy';

export const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
export const PAGE_SIZE = 20;
/** Visible to anyone, signed or not. */
export const OPEN_VISIBILITIES = ['PUBLIC', 'UNLISTED'] as const;

type Json = Record<string, unknown>;

export interface Page<T> {
  items: T[];
  hasNext: boolean;
}

const isPostType = (type: string) => (POST_TYPES as readonly string[]).includes(type);

/** The object with its own @context removed, for embedding in an activity. */
function embedded(apObject: Json): Json {
  // A poll's hidden totals are withheld from what is served (polls/question.ts).
  const copy = publishedForm({ ...apObject });
  delete copy['@context'];
  return copy;
}

/** A row's object as served: a post with who may quote it (quote-policy.ts; its own context,
 * if it has one, then defines the policy's terms). */
function servedObject(row: OutboxObject): Json {
  return withQuotePolicy(row.apObject as Json, row.visibility);
}

/** A poll needs the extension terms (votersCount) in its context for JSON-LD readers (Fedify). */
// Served posts carry the context they are sent with (AP_CONTEXT): under the bare ActivityStreams
// one a JSON-LD reader (Fedify's) lost `sensitive` and the hashtags of a post fetched rather than
// received.

/** A local object as served bare: with a @context even if stored without one. */
export function bareObject(row: OutboxObject): Json {
  const object = servedObject(row);
  return { '@context': object['@context'] ?? AP_CONTEXT, ...embedded(object) };
}

/**
 * The activity that carries a local post: Create, or Update once the post was edited
 * (`updated` set), with the id the service behind the spec uses (`<object>/activity`).
 */
// `<object>/activity` is always the Create (carrying the current version of the object): each
// edit is delivered as its own Update activity with its own id (see federation/outbox.ts), so
// one id never names two different activities.
export function wrapperActivity(row: OutboxObject, local: LocalActor, kind: 'Create' | 'Update' = 'Create'): Json {
  const object = servedObject(row);
  const updated = typeof object.updated === 'string' ? object.updated : null;
  const type = kind;
  return {
    '@context': object['@context'] ?? AP_CONTEXT,
    id: local.activityUrl(row.publicId),
    type,
    actor: local.id,
    published: typeof object.published === 'string' ? object.published : row.apPublishedAt.toISOString(),
    ...(type === 'Update' && updated ? { updated } : {}),
    ...(object.to !== undefined ? { to: object.to } : {}),
    ...(object.cc !== undefined ? { cc: object.cc } : {}),
    object: embedded(object),
  };
}

export function isPost(row: OutboxObject): boolean {
  return isPostType(row.apType);
}

export function tombstone(row: OutboxObject): Json {
  return { '@context': AS_CONTEXT, id: row.apId, type: 'Tombstone', formerType: row.apType, deleted: row.updatedAt.toISOString() };
}

// ---- outbox ---------------------------------------------------------------------------------

// These lists are read for anyone who asks, on the listener's thread, so each reads a page's
// worth of rows however many posts the author has, by the partial indexes' terms (index-terms.ts).
// Measured on 100,000 posts: /outbox?page=1 held the thread 0.5 s, and the profile page
// 0.3–0.6 s, before; 2–3 ms now.
const OUTBOX_TYPES = [...POST_TYPES, 'Announce'];

/** The outbox's rows: posts and Announces anyone may see, not deleted, transient or undone. */
function outboxFilter(): SQL {
  return and(inArray(outbox.visibility, [...OPEN_VISIBILITIES]), OWN_SHOWN, isNull(outbox.undoneByOutboxObjectId), inArray(typeOf(outbox), OUTBOX_TYPES))!;
}

/** The outbox's totalItems, from ix_outbox_counts alone (not a row read). */
export function countOutbox(db: DbOrTx): number {
  return db.select({ n: count() }).from(outbox).where(and(OWN_COUNTED, inArray(outbox.apType, OUTBOX_TYPES), inArray(outbox.visibility, [...OPEN_VISIBILITIES]))).get()?.n ?? 0;
}

/**
 * The outbox's pages are served as far as this one: a page is an OFFSET into the published-date
 * index, and reaching it walks every row before it (read, for the visibility and the type), so
 * `?page=5000` of 100,000 posts, which anyone may ask, still held the listener's thread 0.1–0.4 s
 * by the index (2.9 s before, every post sorted). 500 pages are the latest 10,000 posts (10–20
 * ms to reach the last); a page past it answers empty, as a page past the end does, and the last
 * one served has no `next`, so a peer walking the collection from `first` stops there. Older
 * posts are still served by their own ids.
 */
export const MAX_OUTBOX_PAGE = 500;

/** Page `page` (1-based) of the outbox: posts in their Create, Announces as they are. */
export function outboxPage(db: DbOrTx, local: LocalActor, page: number): Page<Json> {
  if (page > MAX_OUTBOX_PAGE) return { items: [], hasNext: false };
  const rows = db
    .select()
    .from(outbox)
    .where(outboxFilter())
    .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
    .limit(PAGE_SIZE + 1)
    .offset((page - 1) * PAGE_SIZE)
    .all();
  const items = rows.slice(0, PAGE_SIZE).map((row) => (isPost(row) ? wrapperActivity(row, local, 'Create') : embedded(row.apObject as Json)));
  return { items, hasNext: rows.length > PAGE_SIZE && page < MAX_OUTBOX_PAGE };
}

// ---- followers / following ------------------------------------------------------------------

export function countFollowers(db: DbOrTx): number {
  return db.select({ n: count() }).from(follower).get()?.n ?? 0;
}

export function countFollowing(db: DbOrTx): number {
  return db.select({ n: count() }).from(following).get()?.n ?? 0;
}

export function followersPage(db: DbOrTx, page: number): Page<string> {
  const rows = db
    .select({ id: follower.apActorId })
    .from(follower)
    .orderBy(desc(follower.createdAt), desc(follower.id))
    .limit(PAGE_SIZE + 1)
    .offset((page - 1) * PAGE_SIZE)
    .all();
  return { items: rows.slice(0, PAGE_SIZE).map((r) => r.id), hasNext: rows.length > PAGE_SIZE };
}

export function followingPage(db: DbOrTx, page: number): Page<string> {
  const rows = db
    .select({ id: following.apActorId })
    .from(following)
    .orderBy(desc(following.createdAt), desc(following.id))
    .limit(PAGE_SIZE + 1)
    .offset((page - 1) * PAGE_SIZE)
    .all();
  return { items: rows.slice(0, PAGE_SIZE).map((r) => r.id), hasNext: rows.length > PAGE_SIZE };
}

/** The author's posts (no activities) that are not deleted or transient, with one of these
 * visibilities: what the featured collection, a tag's page and the profile page list (read by
 * ix_outbox_published, or ix_outbox_pinned: index-terms.ts). */
function livePosts(visibilities: readonly OutboxObject['visibility'][]): SQL {
  return and(inArray(outbox.visibility, [...visibilities]), OWN_SHOWN, inArray(typeOf(outbox), [...POST_TYPES]))!;
}

// ---- featured -------------------------------------------------------------------------------

export const MAX_FEATURED = 50;

/** Pinned posts visible to anyone: a Note as its bare object, any other post (an Article, a
 * poll) by its id. Mastodon takes from the featured collection only ids and embedded Notes
 * (fetch_featured_collection_service.rb, process_note_items): an embedded Article was skipped,
 * and its pin dropped at the next refresh. Peers fetch an id from its own server. */
export function featuredItems(db: DbOrTx): (Json | string)[] {
  return db
    .select()
    .from(outbox)
    .where(and(sql`${outbox.isPinned} = 1`, livePosts(OPEN_VISIBILITIES)))
    .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
    .limit(MAX_FEATURED)
    .all()
    .map((row) => (row.apType === 'Note' ? embedded(servedObject(row)) : row.apId));
}

// ---- collection documents -------------------------------------------------------------------

export function orderedCollection(id: string, totalItems: number): Json {
  return { '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems, first: `${id}?page=1` };
}

export function orderedCollectionPage(collectionId: string, page: number, result: Page<unknown>): Json {
  return {
    // AP_CONTEXT: an outbox page embeds posts, which carry its terms (sensitive, Hashtag, blurhash).
    '@context': AP_CONTEXT,
    id: `${collectionId}?page=${page}`,
    type: 'OrderedCollectionPage',
    partOf: collectionId,
    orderedItems: result.items,
    ...(result.hasNext ? { next: `${collectionId}?page=${page + 1}` } : {}),
    ...(page > 1 ? { prev: `${collectionId}?page=${page - 1}` } : {}),
  };
}

/** The latest public posts tagged `tag` (lower-cased, as stored), newest first (`/t/<tag>`). */
export function taggedPublicPosts(db: DbOrTx, tag: string, limit = PAGE_SIZE): OutboxObject[] {
  return db
    .select()
    .from(outbox)
    .innerJoin(taggedOutboxObject, eq(taggedOutboxObject.outboxObjectId, outbox.id))
    .where(and(eq(taggedOutboxObject.tag, tag), livePosts(['PUBLIC'])))
    .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
    .limit(limit)
    .all()
    .map((r) => r.outbox);
}

/** The latest public posts that belong on the profile page (replies are kept off it). */
export function recentPublicPosts(db: DbOrTx, limit = PAGE_SIZE): OutboxObject[] {
  return db
    .select()
    .from(outbox)
    .where(and(livePosts(['PUBLIC']), sql`${outbox.isHiddenFromHomepage} = 0`))
    .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
    .limit(limit)
    .all();
}
