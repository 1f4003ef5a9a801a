// Move: an account we follow moved (reference §10). The Move must be the actor moving itself,
// and the new account must claim the old one in its `alsoKnownAs` (fetched from its own
// server at that moment, so nobody can redirect followers to an account that did not agree),
// and must not have moved away itself (a chain, or a loop of two accounts moving to each other). When the author
// follows (or asked to follow) the old account: an Undo of that Follow, a Follow of the new one (the author's own
// follow/unfollow code, so rows and deliveries are the usual ones) and a notification. The
// spec's notification types have no MOVE: it is typeless, actor = the new account, inbox
// object = the Move (the Notifications view and OS notifications word it).
import { notifications, type Actor } from '../../../../db/schema';
import { NotFoundError } from '../../errors';
import { followStateOf, queueFollow, queueUnfollow } from '../actions/social';
import { getOrFetchActor } from '../actors';
import { httpUrl, idOf, idsOf } from '../ap';
import { isBlockedUrl } from '../blocked-servers';
import { isLocalActorId } from '../identity';
import { isFollower } from '../object-access';
import { drop, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { findInbox, persistActivity } from './store';

const claims = (target: Actor, oldId: string) => idsOf(target.apActor.alsoKnownAs).some((aka) => sameId(aka, oldId));

export async function onMoved(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const oldId = r.actor.apId;
  if (!sameId(idOf(r.activity.object), oldId)) drop(`Move of ${idOf(r.activity.object) ?? 'nothing'} by ${oldId}: an actor can only move itself`);
  const targetId = httpUrl(idOf(r.activity.target));
  if (!targetId) drop('Move without a target');
  if (sameId(targetId, oldId)) drop('Move to the same actor');
  if (isLocalActorId(targetId, deps.identity)) drop('Move to our own actor: nothing to follow');
  if (isBlockedUrl(targetId, deps.settings.blockedServers)) drop(`Move to a blocked server (${new URL(targetId).hostname})`);

  const actorDeps = { db: deps.db, fed: deps.fed, clock: deps.clock };
  let target: Actor;
  try {
    // Asked now, from its own server: a cached copy may predate the alias the new account just
    // added, or still hold one it has since taken back; and with its server down, no cached copy
    // decides in its place (the Move is retried).
    target = await getOrFetchActor(actorDeps, targetId, { fresh: true });
  } catch (error) {
    // Gone or not an actor: final. Network trouble (UnavailableError): thrown, retried later.
    if (error instanceof NotFoundError) drop(`Move target unavailable: ${error.message}`);
    throw error;
  }
  if (!claims(target, oldId)) drop(`Move target ${target.apId} does not list ${oldId} in alsoKnownAs`);
  // An account that moved on itself is no place to follow; and A → B, then B → A (each listing
  // the other) would have the author unfollow and follow the two for ever.
  const onward = idOf(target.apActor.movedTo);
  if (onward) drop(`Move target ${target.apId} has moved itself (to ${onward})`);

  // The old account's own document now says movedTo: refresh the cached copy so People shows
  // it (best effort; the profile's Update usually did it already) — only for someone People
  // lists, whom the author follows, asked to follow, or is followed by.
  if (followStateOf(deps.db, r.actor) !== 'none' || isFollower(deps.db, oldId)) {
    await getOrFetchActor(actorDeps, oldId, { refresh: true }).catch(() => undefined);
  }

  return deps.db.transaction((tx) => {
    if (findInbox(tx, r.id)) drop('duplicate: already processed');
    const move = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: oldId });
    // Only someone the author follows (or has asked to follow) takes the author along: the
    // reference's rule, with a pending request withdrawn and made to the new account too.
    if (followStateOf(tx, r.actor) === 'none') return processed(move.id);
    queueUnfollow(tx, deps.identity, r.actor, r.now);
    if (followStateOf(tx, target) === 'none') queueFollow(tx, deps.identity, target, r.now);
    tx.insert(notifications).values({ createdAt: r.now, notificationType: null, isNew: true, actorId: target.id, inboxObjectId: move.id }).run();
    return processed(move.id);
  });
}
