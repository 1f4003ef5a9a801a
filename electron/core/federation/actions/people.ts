// The People view: who follows the author, whom the author follows, Follows of ours still
// waiting for an answer, and follow requests waiting for the author (manual approval).
// Followers and followed people come a page at a time, newest first, cut by a cursor on
// (created_at, id) (indexes of revision d58a0b6c3e27): thousands of followers are thousands of
// actor documents, too many to read for one view.
import { and, count, desc, eq, isNull, notExists, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { actor, follower, following, inbox, outbox } from '../../../../db/schema';
import type { PageOf, PeopleView, PersonView } from '../../ipc/author-contract';
import { listPendingFollowRequests } from '../follow-requests';
import { actorView } from './views';

export type PeopleList = 'followers' | 'following';

function encodeCursor(at: Date, id: number): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(text: string | null | undefined): { at: string; id: number } | null {
  if (!text) return null;
  const [at, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (Number.isNaN(new Date(at ?? '').getTime()) || !Number.isSafeInteger(Number(id))) return null;
  return { at: at!, id: Number(id) };
}

/** One page of followers or followed people, newest first. */
export function peoplePage(db: DbOrTx, list: PeopleList, input: { cursor?: string | null; limit: number }): PageOf<PersonView> {
  const table = list === 'followers' ? follower : following;
  const cursor = decodeCursor(input.cursor);
  const rows = db
    .select({ a: actor, at: table.createdAt, id: table.id })
    .from(table)
    .innerJoin(actor, eq(actor.id, table.actorId))
    .where(cursor ? sql`(${table.createdAt}, ${table.id}) < (${cursor.at}, ${cursor.id})` : undefined)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(input.limit + 1)
    .all();
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({ actor: actorView(r.a), since: r.at.toISOString() })),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.at, last.id) : null,
  };
}

export function listPeople(db: DbOrTx, limit = 50): PeopleView {
  const followers = peoplePage(db, 'followers', { limit });
  const followed = peoplePage(db, 'following', { limit });
  // Our Follows not answered yet: not undone, the actor not followed, not refused (a Reject of
  // theirs relating to the Follow).
  const rejected = db
    .select({ id: inbox.id })
    .from(inbox)
    .where(and(eq(inbox.relatesToOutboxObjectId, outbox.id), eq(inbox.apType, 'Reject')));
  const followedAlready = db.select({ id: following.id }).from(following).where(eq(following.actorId, outbox.relatesToActorId));
  const standing = db
    .select({ follow: outbox, a: actor })
    .from(outbox)
    .innerJoin(actor, eq(actor.id, outbox.relatesToActorId))
    .where(
      and(eq(outbox.apType, 'Follow'), isNull(outbox.undoneByOutboxObjectId), eq(outbox.isDeleted, false), notExists(followedAlready), notExists(rejected)),
    )
    .orderBy(desc(outbox.id))
    .all();
  const pending = new Map<number, PeopleView['pendingFollows'][number]>();
  for (const s of standing) {
    if (pending.has(s.a.id)) continue;
    pending.set(s.a.id, { actor: actorView(s.a), since: s.follow.createdAt.toISOString() });
  }
  const countOf = (table: typeof follower | typeof following) => db.select({ n: count() }).from(table).get()?.n ?? 0;
  return {
    followers: followers.items,
    following: followed.items,
    pendingFollows: [...pending.values()],
    requests: listPendingFollowRequests(db),
    counts: { followers: countOf(follower), following: countOf(following) },
    nextCursor: { followers: followers.nextCursor, following: followed.nextCursor },
  };
}
