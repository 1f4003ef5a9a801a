// The People view: who follows the author, whom the author follows, Follows of ours still
// waiting for an answer, and follow requests waiting for the author (manual approval).
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { actor, follower, following, inbox, outbox } from '../../../db/schema';
import type { PeopleView } from '../../ipc/author-contract';
import { listPendingFollowRequests } from '../follow-requests';
import { actorView } from './views';

export function listPeople(db: DbOrTx): PeopleView {
  const followers = db.select({ a: actor, at: follower.createdAt }).from(follower).innerJoin(actor, eq(actor.id, follower.actorId)).orderBy(desc(follower.createdAt)).all();
  const followed = db.select({ a: actor, at: following.createdAt }).from(following).innerJoin(actor, eq(actor.id, following.actorId)).orderBy(desc(following.createdAt)).all();
  const followedIds = new Set(followed.map((f) => f.a.id));
  const standing = db
    .select({ follow: outbox, a: actor })
    .from(outbox)
    .innerJoin(actor, eq(actor.id, outbox.relatesToActorId))
    .where(and(eq(outbox.apType, 'Follow'), isNull(outbox.undoneByOutboxObjectId), eq(outbox.isDeleted, false)))
    .orderBy(desc(outbox.id))
    .all();
  const rejected = new Set(
    standing.length === 0
      ? []
      : db
          .select({ id: inbox.relatesToOutboxObjectId })
          .from(inbox)
          .where(and(eq(inbox.apType, 'Reject'), inArray(inbox.relatesToOutboxObjectId, standing.map((s) => s.follow.id))))
          .all()
          .map((r) => r.id),
  );
  const pending = new Map<number, PeopleView['pendingFollows'][number]>();
  for (const s of standing) {
    if (followedIds.has(s.a.id) || rejected.has(s.follow.id) || pending.has(s.a.id)) continue;
    pending.set(s.a.id, { actor: actorView(s.a), since: s.follow.createdAt.toISOString() });
  }
  return {
    followers: followers.map((f) => ({ actor: actorView(f.a), since: f.at.toISOString() })),
    following: followed.map((f) => ({ actor: actorView(f.a), since: f.at.toISOString() })),
    pendingFollows: [...pending.values()],
    requests: listPendingFollowRequests(db),
  };
}
