// What each API route works with: the core's services (the same the desktop UI calls), the
// entity mapper for this request, and page helpers over the stream's (published, origin, id)
// keys. Nothing here reads or writes the database itself.
import type { AuthorService } from '../federation/actions';
import type { KeyedPost, KeyRange } from '../federation/actions/reads';
import type { ListenerCore } from '../listener/context';
import { createMapper, type Mapper } from './entities';
import { ApiError, filteredPage, linkHeader, notFound, type C, type PageQuery } from './http';
import { boundKey, parseStatusId, statusId, type FindKey } from './ids';
import { rowKeyFinder } from './row-keys';

export interface Api {
  core: ListenerCore;
  author: AuthorService;
  map: Mapper;
}

export function apiOf(core: ListenerCore, c: C): Api {
  const author = core.services?.author;
  if (!author) throw new ApiError(503, 'The Mastodon API is not available on this Tern');
  const local = c.var.local;
  return { core, author, map: createMapper({ local, settings: () => core.settings.get(), reads: author.reads, people: () => author.peopleKnown(), relation: (actorId) => author.relationOf(actorId) }) };
}

/** A row's key for id decoding (deleted rows too: a page bound may be a deleted post). */
export const findKey = (api: Api): FindKey => rowKeyFinder(api.core.db);

export function rangeOf(api: Api, q: PageQuery): KeyRange {
  return {
    before: boundKey(q.max_id, findKey(api)),
    after: boundKey(q.min_id ?? q.since_id, findKey(api)),
    closestToAfter: q.min_id !== undefined,
    limit: q.limit,
  };
}

/** A page of posts, filtered (public, tag, an account's media…): see filteredPage. */
/** A page of posts; `past`: where its Link header goes on from when the page stopped short of
 * rows the filter dropped (filteredPage's stoppedAt). */
export type CollectedPosts = KeyedPost[] & { past?: { next?: string; prev?: string } };

export function collect(api: Api, read: (range: KeyRange) => KeyedPost[], q: PageQuery, keep: (p: KeyedPost) => boolean = () => true): CollectedPosts {
  const range = rangeOf(api, q);
  const climbing = range.closestToAfter === true;
  const stopped: { at: KeyedPost | null } = { at: null };
  const posts: CollectedPosts = filteredPage<KeyedPost, KeyedPost>({
    limit: q.limit,
    climbing,
    read: (cursor) => read(cursor === null ? range : climbing ? { ...range, after: cursor.key } : { ...range, before: cursor.key }),
    keep: (rows) => rows.filter(keep),
    stoppedAt: (cursor) => (stopped.at = cursor),
  });
  if (stopped.at !== null) posts.past = climbing ? { prev: statusId(stopped.at.key) } : { next: statusId(stopped.at.key) };
  return posts;
}

/** Statuses of a page, with their Link header. */
export function statusPage(api: Api, c: C, posts: CollectedPosts) {
  return { body: posts.map((p) => api.map.status(p.view, p.key)), headers: linkHeader(c, c.var.local, posts.map((p) => statusId(p.key)), posts.past) };
}

/** The post a status id names; 404 when unknown, gone, or the id's time is not its row's. */
export function postById(api: Api, id: string): KeyedPost {
  const key = parseStatusId(id, findKey(api));
  const post = key && api.author.reads.post(key.origin, key.id);
  if (!post) throw notFound();
  return post;
}
