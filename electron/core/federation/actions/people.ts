// The People view: who follows the author, whom the author follows, Follows of ours still
// waiting for an answer, and follow requests waiting for the author (manual approval).
// Followers and followed people come a page at a time, newest first, cut by a cursor on
// (created_at, id) (indexes of revision d58a0b6c3e27): thousands of followers are thousands of
// actor documents, too many to read for one view.
import { allRows, prepared, rowDecoder, type DbOrTx } from '../../../../db/client';
import { parseStoredDate } from '../../../../db/columns';
import { viewsOf } from '../../../../db/readable-rows';
import { actor } from '../../../../db/schema';
import type { PageOf, PeopleLists, PeopleView, PersonView } from '../../ipc/author-contract';
import { countPendingFollowRequests, pendingFollowRequestFrom } from '../follow-requests';
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

/** A page of one list, newest first, after the cursor or from the top: four statements, each
 * prepared once. */
const pageSql = (table: 'follower' | 'following', after: boolean) => `
SELECT f.created_at AS since_at, f.id AS since_id, a.* FROM ${table} f JOIN actor a ON a.id = f.actor_id
${after ? 'WHERE (f.created_at, f.id) < (@at, @id)' : ''}
ORDER BY f.created_at DESC, f.id DESC LIMIT @limit`;
const PAGE_SQL = {
  followers: { first: pageSql('follower', false), after: pageSql('follower', true) },
  following: { first: pageSql('following', false), after: pageSql('following', true) },
};

const decodeActor = rowDecoder(actor);

type PageRow = { since_at: string; since_id: number } & Record<string, unknown>;

/** One page of followers or followed people, newest first. */
export function peoplePage(db: DbOrTx, list: PeopleList, input: { cursor?: string | null; limit: number }): PageOf<PersonView> {
  const cursor = decodeCursor(input.cursor);
  const limit = input.limit + 1;
  const rows = (
    cursor ? allRows(prepared<[{ at: string; id: number; limit: number }]>(db, PAGE_SQL[list].after), { ...cursor, limit }) : allRows(prepared<[{ limit: number }]>(db, PAGE_SQL[list].first), { limit })
  ) as PageRow[];
  // A row that cannot be read is left out (viewsOf), and the cursor is the last that can.
  const page = viewsOf(rows.slice(0, input.limit), (r) => ({ actor: actorView(decodeActor(r)), at: parseStoredDate(r.since_at), id: r.since_id }), (r) => `${list} row ${r.since_id}`);
  const last = page.at(-1);
  return {
    items: page.map((p) => ({ actor: p.actor, since: p.at.toISOString() })),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.at, last.id) : null,
  };
}

// Our Follows not answered yet: not undone or deleted, of people we do not follow (a merge of
// two lists in actor order: the Follows' index, ix_outbox_follows, and the following index), not
// refused (a Reject of theirs relating to the Follow). Newest first: the first of each person is
// the one shown. `+o.id`: ordered by the index on ap_type alone (rowid order), SQLite would read
// every Follow of ours again instead of only those of the people waiting, and sort those few.
const STANDING = `
WITH waiting(actor_id) AS (
  SELECT relates_to_actor_id FROM outbox WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_outbox_object_id IS NULL
  EXCEPT SELECT actor_id FROM following
)
SELECT o.created_at AS follow_at, a.*
FROM outbox o JOIN actor a ON a.id = o.relates_to_actor_id
WHERE o.ap_type = 'Follow' AND o.is_deleted = 0 AND o.undone_by_outbox_object_id IS NULL AND o.relates_to_actor_id IN (SELECT actor_id FROM waiting)
  AND NOT EXISTS (SELECT 1 FROM inbox r WHERE r.relates_to_outbox_object_id = o.id AND r.ap_type = 'Reject')
ORDER BY +o.id DESC`;

const COUNT = { followers: 'SELECT count(*) FROM follower', following: 'SELECT count(*) FROM following' };

/** The People view: the first `limit` of followers and followed people, our Follows waiting,
 * the counts, and how many follow requests wait (the desktop's People view over IPC; the
 * requests themselves a page at a time, follow-requests.list: with 15,000 waiting, reading
 * them all here held the main thread 170–270 ms). */
export function listPeople(db: DbOrTx, limit = 50): PeopleView {
  return { ...listPeopleKnown(db, limit), requestCount: countPendingFollowRequests(db) };
}

/** The People view without the follow requests' count: what the Mastodon client API's entities read
 * (it pages, counts and looks the requests up in SQL, follow-requests.ts). Remote actors decide
 * how many requests there are, each an actor document to decode: with 15,000 waiting, every
 * entity of the author's (verify_credentials, the instance's contact account) took 110–354 ms
 * (test/hostile/audit-follow-requests.test.ts). */
export function listPeopleKnown(db: DbOrTx, limit = 50): PeopleLists {
  const followers = peoplePage(db, 'followers', { limit });
  const followed = peoplePage(db, 'following', { limit });
  const pending = new Map<number, PeopleView['pendingFollows'][number]>();
  const standing = allRows(prepared<[]>(db, STANDING)) as ({ follow_at: string } & Record<string, unknown>)[];
  viewsOf(
    standing,
    (s) => {
      const actorId = s.id as number;
      if (!pending.has(actorId)) pending.set(actorId, { actor: actorView(decodeActor(s)), since: parseStoredDate(s.follow_at).toISOString() });
    },
    (s) => `Follow waiting for actor ${String(s.id)}`,
  );
  const countOf = (list: PeopleList) => prepared<[], number>(db, COUNT[list]).pluck().get() ?? 0;
  return {
    followers: followers.items,
    following: followed.items,
    pendingFollows: [...pending.values()],
    counts: { followers: countOf('followers'), following: countOf('following') },
    nextCursor: { followers: followers.nextCursor, following: followed.nextCursor },
  };
}

const RELATION = `SELECT EXISTS (SELECT 1 FROM following WHERE actor_id = @id) AS following, EXISTS (SELECT 1 FROM follower WHERE actor_id = @id) AS followedBy`;

/** Whether the author follows this actor, whether it follows the author, and whether it waits
 * for the author's answer to its Follow: each looked up alone (a Mastodon Relationship), not
 * in a first page of the lists, where the 51st follower was not "followed_by". */
export function relationOf(db: DbOrTx, actorId: number): { following: boolean; followedBy: boolean; requestedBy: boolean } {
  const row = prepared<[{ id: number }], { following: number; followedBy: number }>(db, RELATION).get({ id: actorId });
  return { following: row?.following === 1, followedBy: row?.followedBy === 1, requestedBy: pendingFollowRequestFrom(db, actorId) !== null };
}

/** Up to `limit` followers or followed people by account (actor) id, highest first: below
 * `below`, above `above`; `closestToAbove`: those just above `above` (still highest first). The
 * Mastodon client API's pages of them (max_id, since_id, min_id are account ids). */
export function peopleByAccount(db: DbOrTx, list: PeopleList, input: { below?: number | null; above?: number | null; closestToAbove?: boolean; limit: number }): PersonView[] {
  const limit = Math.max(0, Math.floor(input.limit));
  if (limit === 0) return [];
  const sql = BY_ACCOUNT[list][input.closestToAbove ? 'up' : 'down'];
  const rows = allRows(prepared<[{ below: number; above: number; limit: number }]>(db, sql), { below: input.below ?? Number.MAX_SAFE_INTEGER, above: input.above ?? 0, limit }) as PageRow[];
  const page = viewsOf(rows, (r) => ({ actor: actorView(decodeActor(r)), since: parseStoredDate(r.since_at).toISOString() }), (r) => `${list} row ${r.since_id}`);
  return input.closestToAbove ? page.reverse() : page;
}

const byAccountSql = (table: 'follower' | 'following', direction: 'DESC' | 'ASC') => `
SELECT f.created_at AS since_at, f.id AS since_id, a.* FROM ${table} f JOIN actor a ON a.id = f.actor_id
WHERE f.actor_id < @below AND f.actor_id > @above
ORDER BY f.actor_id ${direction} LIMIT @limit`;
const BY_ACCOUNT = {
  followers: { down: byAccountSql('follower', 'DESC'), up: byAccountSql('follower', 'ASC') },
  following: { down: byAccountSql('following', 'DESC'), up: byAccountSql('following', 'ASC') },
};
