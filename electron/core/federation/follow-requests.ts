// Follow requests waiting for the author, when followers are approved by hand.
//
// The spec's notification types have no "pending follower" (the reference's
// PENDING_INCOMING_FOLLOWER is not in the enumeration, and NEW_FOLLOWER would be a lie), so a
// request is NOT a notification. It is its stored Follow, and "pending" is derived, never stored:
//   an inbox Follow that is not undone or deleted, that we have not answered (no outbox Accept or
//   Reject relates to it), from an actor who is not a follower.
// The newest such Follow per actor is the request. Accepting makes them a follower and creates
// NEW_FOLLOWER then (as the reference does when the admin accepts); rejecting sends Reject and
// creates no notification (the spec has no type for it). Withdrawing (Undo) removes the request.
import { eq } from 'drizzle-orm';
import { allRows, prepared, rowDecoder, type Db, type DbOrTx } from '../../../db/client';
import { parseStoredDate } from '../../../db/columns';
import { actor, follower, inbox, outbox, type InboxObject } from '../../../db/schema';
import { ConflictError, NotFoundError } from '../errors';
import { summarizeActor, type ActorSummary } from './actor-summary';
import type { LocalActor } from './identity';
import { acceptFollow, answerFollow } from './process/follow';

export interface FollowRequest {
  /** The Follow's inbox row: what acceptFollowRequest/rejectFollowRequest take. */
  inboxObjectId: number;
  followApId: string;
  /** ISO-8601, when the request arrived. */
  requestedAt: string;
  actor: ActorSummary;
}

export interface FollowRequestDeps {
  db: Db;
  clock: () => Date;
  identity: LocalActor;
}

// The people who asked (a Follow not withdrawn nor deleted) and do not follow the author, as a
// merge of two lists in actor order (the Follows' index, ix_inbox_follows, and the follower
// index) — not a look-up in the follower index for each Follow: a follower's own Follow stays
// in the inbox, so the Follows are about as many as the followers. Then their Follows, newest
// first, each with whether we answered it (an Accept or Reject of ours relating to it).
const PENDING = `
WITH asking(actor_id) AS (
  SELECT actor_id FROM inbox WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL
  EXCEPT SELECT actor_id FROM follower
)
SELECT i.id AS follow_id, i.ap_id AS follow_ap_id, i.created_at AS follow_at,
  EXISTS (SELECT 1 FROM outbox o WHERE o.relates_to_inbox_object_id = i.id) AS answered, a.*
FROM inbox i JOIN actor a ON a.id = i.actor_id
WHERE i.ap_type = 'Follow' AND i.is_deleted = 0 AND i.undone_by_inbox_object_id IS NULL AND i.actor_id IN (SELECT actor_id FROM asking)
ORDER BY i.created_at DESC, i.id DESC`;

const decodeActor = rowDecoder(actor);

/** Pending requests, newest first, one per actor. Only an actor's newest Follow counts: once
 * it is answered, their older unanswered Follows are not requests any more. The whole list at
 * once: what the pages below are checked against; nothing the author or a client asks reads it
 * (remote actors decide how long it is). */
export function listPendingFollowRequests(db: DbOrTx): FollowRequest[] {
  const rows = allRows(prepared<[]>(db, PENDING)) as ({ follow_id: number; follow_ap_id: string; follow_at: string; answered: number } & Record<string, unknown>)[];
  const seen = new Set<number>();
  const requests: FollowRequest[] = [];
  for (const row of rows) {
    const actorId = row.id as number;
    if (seen.has(actorId)) continue;
    seen.add(actorId);
    if (row.answered) continue;
    requests.push(requestOf(row));
  }
  return requests;
}

// The same requests one page at a time, by the asker's actor id (the Mastodon client API's
// follow_requests, whose ids are account ids), and counted. listPendingFollowRequests reads
// them all, each asker's actor document decoded: with 15,000 waiting (remote actors decide how
// many) verify_credentials took 321–354 ms and follow_requests?limit=1 181–192 ms (the audit,
// test/hostile/audit-follow-requests.test.ts). Here a Follow is a request when it is its
// asker's newest standing Follow (no later one by created_at, then id: the order the list
// keeps the first of), unanswered, from someone who does not follow; walked down (or up) the
// Follows' index by actor id, so a page reads its own rows and the followers' Follows it
// passes (15,000 passed: 4.4 ms), and decodes only the actors it returns.
const pageSql = (direction: 'DESC' | 'ASC') => `
SELECT i.id AS follow_id, i.ap_id AS follow_ap_id, i.created_at AS follow_at, a.*
FROM inbox i JOIN actor a ON a.id = i.actor_id
WHERE i.ap_type = 'Follow' AND i.is_deleted = 0 AND i.undone_by_inbox_object_id IS NULL
  AND i.actor_id < @below AND i.actor_id > @above
  AND NOT EXISTS (SELECT 1 FROM follower w WHERE w.actor_id = i.actor_id)
  AND NOT EXISTS (SELECT 1 FROM inbox n WHERE n.ap_type = 'Follow' AND n.actor_id = i.actor_id AND n.is_deleted = 0
    AND n.undone_by_inbox_object_id IS NULL AND (n.created_at, n.id) > (i.created_at, i.id))
  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.relates_to_inbox_object_id = i.id)
ORDER BY i.actor_id ${direction} LIMIT @limit`;
const PAGE = { down: pageSql('DESC'), up: pageSql('ASC') };

// The same requests newest first, in the order their Follows arrived (inbox id), a page at a
// time: the window's list (follow-requests.list). Walked down the standing Follows' index by
// arrival (ix_inbox_follows_arrived, revision ae35abd14d3a), which passes the followers' own
// Follows by their sender alone; the rows of the page's requests are read, and only those:
// 100,000 followers' Follows passed, 21 ms (read by the index on ap_type, each row read: 100 ms);
// 100,000 requests waiting, 1 ms a page (every request sorted: 320 ms). Named (INDEXED BY):
// with no statistics SQLite takes the index on ap_type instead (an equality and a rowid range
// look cheap to it), and reads every Follow's row on the way.
const NEWEST = `
SELECT i.id AS follow_id, i.ap_id AS follow_ap_id, i.created_at AS follow_at, a.*
FROM inbox i INDEXED BY ix_inbox_follows_arrived JOIN actor a ON a.id = i.actor_id
WHERE i.ap_type = 'Follow' AND i.is_deleted = 0 AND i.undone_by_inbox_object_id IS NULL AND i.id < @before
  AND NOT EXISTS (SELECT 1 FROM follower w WHERE w.actor_id = i.actor_id)
  AND NOT EXISTS (SELECT 1 FROM inbox n WHERE n.ap_type = 'Follow' AND n.actor_id = i.actor_id AND n.is_deleted = 0
    AND n.undone_by_inbox_object_id IS NULL AND (n.created_at, n.id) > (i.created_at, i.id))
  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.relates_to_inbox_object_id = i.id)
ORDER BY i.id DESC LIMIT @limit`;

// How many: the askers (the merge PENDING starts with) less those whose newest standing Follow
// we answered — found from the answered Follows (a merge of the Follows' ids and the ids our
// activities relate to), not by a look-up per asker. Over 15,000 askers: 2.3 ms; a look-up of
// each asker's newest Follow took 50–65 ms.
const COUNT = `
WITH asking(actor_id) AS (
  SELECT actor_id FROM inbox WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL
  EXCEPT SELECT actor_id FROM follower
),
answered(id) AS (
  SELECT id FROM inbox WHERE ap_type = 'Follow' AND is_deleted = 0 AND undone_by_inbox_object_id IS NULL
  INTERSECT SELECT relates_to_inbox_object_id FROM outbox WHERE relates_to_inbox_object_id IS NOT NULL
)
SELECT (SELECT count(*) FROM asking) - (
  SELECT count(DISTINCT i.actor_id) FROM answered x JOIN inbox i ON i.id = x.id
  WHERE i.actor_id IN (SELECT actor_id FROM asking)
    AND NOT EXISTS (SELECT 1 FROM inbox n WHERE n.ap_type = 'Follow' AND n.actor_id = i.actor_id AND n.is_deleted = 0
      AND n.undone_by_inbox_object_id IS NULL AND (n.created_at, n.id) > (i.created_at, i.id)))`;

type RequestRow = { follow_id: number; follow_ap_id: string; follow_at: string } & Record<string, unknown>;

const requestOf = (row: RequestRow): FollowRequest => ({
  inboxObjectId: row.follow_id,
  followApId: row.follow_ap_id,
  requestedAt: parseStoredDate(row.follow_at).toISOString(),
  actor: summarizeActor(decodeActor(row)),
});

/** A bound no actor id reaches. */
const NO_BOUND = Number.MAX_SAFE_INTEGER;

/** Up to `limit` pending requests by the asker's actor id, highest first: below `below`, above
 * `above`; `closestToAbove`: the ones just above `above` (still highest first). The same
 * requests as listPendingFollowRequests, in another order. */
export function pendingFollowRequestsPage(db: DbOrTx, input: { below?: number | null; above?: number | null; closestToAbove?: boolean; limit: number }): FollowRequest[] {
  const limit = Math.max(0, Math.floor(input.limit));
  if (limit === 0) return [];
  const rows = allRows(prepared<[{ below: number; above: number; limit: number }]>(db, input.closestToAbove ? PAGE.up : PAGE.down), {
    below: input.below ?? NO_BOUND,
    above: input.above ?? 0,
    limit,
  }) as RequestRow[];
  const requests = rows.map(requestOf);
  return input.closestToAbove ? requests.reverse() : requests;
}

/** Up to `limit` pending requests, newest first, whose Follows arrived before the Follow
 * `before` (its inbox id; null: from the newest). */
export function followRequestsNewestFirst(db: DbOrTx, input: { before?: number | null; limit: number }): FollowRequest[] {
  const limit = Math.max(0, Math.floor(input.limit));
  if (limit === 0) return [];
  const rows = allRows(prepared<[{ before: number; limit: number }]>(db, NEWEST), { before: input.before ?? NO_BOUND, limit }) as RequestRow[];
  return rows.map(requestOf);
}

export interface FollowRequestPage {
  items: FollowRequest[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
  /** How many are pending in all. */
  count: number;
}

/** A page of the window's list, newest first, and how many there are. */
export function followRequestPage(db: DbOrTx, input: { cursor?: string | null; limit: number }): FollowRequestPage {
  const rows = followRequestsNewestFirst(db, { before: input.cursor ? Number(input.cursor) : null, limit: input.limit + 1 });
  const items = rows.slice(0, input.limit);
  return {
    items,
    nextCursor: rows.length > input.limit && items.length > 0 ? String(items.at(-1)!.inboxObjectId) : null,
    count: countPendingFollowRequests(db),
  };
}

/** This actor's pending request, or null. */
export function pendingFollowRequestFrom(db: DbOrTx, actorId: number): FollowRequest | null {
  return pendingFollowRequestsPage(db, { below: actorId + 1, above: actorId - 1, limit: 1 })[0] ?? null;
}

/** How many requests are pending (listPendingFollowRequests' length), counted in SQL. */
export function countPendingFollowRequests(db: DbOrTx): number {
  return prepared<[], number>(db, COUNT).pluck().get() ?? 0;
}

function pendingFollow(db: DbOrTx, inboxFollowId: number): InboxObject {
  const follow = db.select().from(inbox).where(eq(inbox.id, inboxFollowId)).get();
  if (!follow || follow.apType !== 'Follow') throw new NotFoundError('There is no such follow request.');
  if (follow.isDeleted || follow.undoneByInboxObjectId !== null) throw new NotFoundError('This follow request was withdrawn.');
  const answered = db.select({ id: outbox.id }).from(outbox).where(eq(outbox.relatesToInboxObjectId, follow.id)).get();
  if (answered) throw new ConflictError('This follow request was already answered.');
  if (db.select({ id: follower.id }).from(follower).where(eq(follower.actorId, follow.actorId)).get()) {
    throw new ConflictError('They already follow you.');
  }
  return follow;
}

function actorOf(db: DbOrTx, follow: InboxObject) {
  const row = db.select().from(actor).where(eq(actor.id, follow.actorId)).get();
  if (!row) throw new NotFoundError('The account that asked to follow you is not known any more.');
  return row;
}

/** Accepts a pending request: follower row, our Accept queued to their inbox, NEW_FOLLOWER. */
export function acceptFollowRequest(deps: FollowRequestDeps, inboxFollowId: number): { acceptOutboxObjectId: number } {
  return deps.db.transaction((tx) => {
    const follow = pendingFollow(tx, inboxFollowId);
    const { accept } = acceptFollow(tx, deps.identity, { follow, actor: actorOf(tx, follow), now: deps.clock() });
    return { acceptOutboxObjectId: accept.id };
  });
}

/** Rejects a pending request: our Reject queued to their inbox; no follower, no notification. */
export function rejectFollowRequest(deps: FollowRequestDeps, inboxFollowId: number): { rejectOutboxObjectId: number } {
  return deps.db.transaction((tx) => {
    const follow = pendingFollow(tx, inboxFollowId);
    const reject = answerFollow(tx, deps.identity, 'Reject', { follow, actor: actorOf(tx, follow), now: deps.clock() });
    return { rejectOutboxObjectId: reject.id };
  });
}
