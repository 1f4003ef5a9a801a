// Announces (boosts). Of one of our objects: announces_count recounted, ANNOUNCE. Of a remote
// object by someone the author follows: the object is fetched when unknown (checking its id and
// author), stored hidden under its own id, and the Announce itself is what shows in the stream —
// unless the same object was already shown within the hour (the original, or another boost of
// it; a Group's boosts of replies — a community's comments — stay hidden). Any type of object is taken (a PeerTube channel boosts its Videos; an unknown type is a
// link card). An Announce of an activity (a Lemmy community relays its members' Create, Update,
// Like, Delete…) is handled by onActivityAnnounced: the inner activity as its own actor's,
// relayed by the announcer; then the Announce as a boost of whatever the inner one is about.
import { and, eq, gte } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, type Actor, type IncomingActivity, type InboxObject } from '../../../../db/schema';
import { NotFoundError } from '../../errors';
import { getOrFetchAuthor } from '../actors';
import { idOf, isObject, str, typeOf, type Json } from '../ap';
import { isLocalUrl } from '../identity';
import { ACTIVITY_TYPES, isShowableType } from '../objects';
import { sanitizeObjectHtml } from '../sanitize';
import { drop, originOf, processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { recountAnnounces } from './counters';
import { fetchRemoteObject } from './fetch';
import { isBlockedUrl } from '../blocked-servers';
import { findInbox, findOutbox, isFollowed, notify, persistActivity, persistInboxObject } from './store';

export const BOOST_DEDUP_MS = 60 * 60 * 1000;

/** A remote object fetched and checked, ready to store: the object, its own id (a URL that
 * answers with a Create names the object inside) and its author's row. */
interface Fetched {
  object: Json;
  id: string;
  author: Actor;
}

async function fetchAnnounced(deps: ProcessDeps, objectId: string): Promise<Fetched | null> {
  try {
    const object = await fetchRemoteObject(deps.fed, objectId);
    const id = str(object.id);
    if (!id || !isShowableType(typeOf(object))) return null;
    if (isBlockedUrl(id, deps.settings.blockedServers)) return null;
    // The author must live where the object lives, or anyone could attribute posts to anyone.
    const author = await getOrFetchAuthor({ db: deps.db, fed: deps.fed, clock: deps.clock }, object, originOf(id)!);
    return author ? { object: sanitizeObjectHtml(object), id, author } : null;
  } catch (error) {
    // Gone, refused or not a post: the boost is kept (hidden). Network trouble: retry later.
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** The stored object an id names: the object itself, or — when the id is an activity's (a Create
 * boosted by its id) — the object that activity is about. */
function storedTarget(db: DbOrTx, apId: string): InboxObject | undefined {
  const row = findInbox(db, apId);
  if (row && ACTIVITY_TYPES.has(row.apType) && row.activityObjectApId) return findInbox(db, row.activityObjectApId) ?? row;
  return row;
}

export async function onAnnounced(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const objectId = idOf(r.activity.object);
  const followed = isFollowed(deps.db, r.actor.id);
  const needsFetch =
    objectId !== null && followed && !isLocalUrl(objectId, deps.identity) && storedTarget(deps.db, objectId) === undefined;
  const fetched = needsFetch ? await fetchAnnounced(deps, objectId) : null;
  // Keep the activity's own fields; an embedded object is replaced by its id (the stored copy is
  // the fetched, checked one, not the one the booster claims).
  const activity: Json = isObject(r.activity.object) && objectId ? { ...r.activity, object: objectId } : r.activity;

  return deps.db.transaction((tx) => {
    const ours = objectId ? findOutbox(tx, objectId) : undefined;
    if (ours) {
      const row = persistActivity(tx, { object: activity, apId: r.id, actor: r.actor, now: r.now, relatesToOutboxObjectId: ours.id, relatesToInboxObjectId: null });
      recountAnnounces(tx, ours.id);
      notify(tx, { type: 'ANNOUNCE', now: r.now, actorId: r.actor.id, outboxObjectId: ours.id, inboxObjectId: row.id });
      return processed(row.id);
    }
    let target = objectId ? storedTarget(tx, objectId) : undefined;
    if (!target && fetched) {
      target = findInbox(tx, fetched.id) ?? persistInboxObject(tx, { object: fetched.object, apId: fetched.id, actor: fetched.author, now: r.now, hidden: true });
    }
    const shows = target !== undefined && isShowableType(target.apType) && !target.isDeleted;
    // A community relays its comments too (Lemmy): those boosts stay out of the stream, where
    // they would bury its posts; the thread of each post shows them.
    const relayedReply = r.actor.apType === 'Group' && target !== undefined && idOf((target.apObject as Json).inReplyTo) !== null;
    const visible = followed && shows && !relayedReply && !alreadyShown(tx, target!, r.now);
    const row = persistActivity(tx, {
      object: activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      hidden: !visible,
      // What it boosts, by the object's own id (what the boost dedup looks for).
      activityObjectApId: target?.apId ?? objectId,
      relatesToInboxObjectId: target?.id ?? null,
      relatesToOutboxObjectId: null,
    });
    return processed(row.id);
  });
}

/** Handles one activity as if it had arrived on its own (the processor's preamble and handler). */
export type ProcessInner = (row: IncomingActivity) => Promise<ProcessOutcome>;

/**
 * An Announce of an activity (Lemmy's communities: Announce{Create{Page}}, Announce{Like}, …).
 * The inner activity is processed first as its own actor's, relayed by the announcer: by the
 * group itself it is believed (the group signed the envelope); by anyone else only as any relayed
 * activity is (a Create's object refetched from its own server, the rest only with its actor's
 * LD signature). Then the Announce is stored: a boost of the object a Create or Update is about
 * (so following a community shows its posts), else linked to the inner activity's row. When the
 * inner activity was dropped and left nothing to point at, the Announce is dropped with its reason.
 */
export async function onActivityAnnounced(deps: ProcessDeps, r: Received, inner: Json, processInner: ProcessInner): Promise<ProcessOutcome> {
  const innerId = str(inner.id);
  const innerType = typeOf(inner)!;
  if (!innerId) drop(`Announce of a ${innerType} without an id`);
  if (innerType === 'Announce') drop('Announce of an Announce: not followed further');
  const outcome = await processInner({ ...r.row, apId: innerId, apObject: inner as IncomingActivity['apObject'], sentByApActorId: r.actor.apId });
  const objectId = innerType === 'Create' || innerType === 'Update' ? idOf(inner.object) : null;
  if (objectId !== null) {
    const stored = storedTarget(deps.db, objectId) ?? findOutbox(deps.db, objectId);
    if (!stored && outcome.status === 'dropped') drop(`Announce of ${innerType} ${innerId}: ${outcome.reason}`);
    return onAnnounced(deps, { ...r, activity: { ...r.activity, object: objectId } });
  }
  const innerRow = findInbox(deps.db, innerId);
  if (!innerRow && outcome.status === 'dropped') drop(`Announce of ${innerType} ${innerId}: ${outcome.reason}`);
  return deps.db.transaction((tx) => {
    const row = persistActivity(tx, {
      object: { ...r.activity, object: innerId },
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: innerId,
      relatesToInboxObjectId: innerRow?.id ?? null,
      relatesToOutboxObjectId: null,
    });
    return processed(row.id);
  });
}

/** Whether the object is already in the stream recently: the original itself, or a boost of it. */
function alreadyShown(db: DbOrTx, target: InboxObject, now: Date): boolean {
  const since = new Date(now.getTime() - BOOST_DEDUP_MS);
  if (!target.isHiddenFromStream && target.createdAt >= since) return true;
  const boost = db
    .select({ id: inbox.id })
    .from(inbox)
    .where(
      and(
        eq(inbox.apType, 'Announce'),
        eq(inbox.activityObjectApId, target.apId),
        eq(inbox.isHiddenFromStream, false),
        eq(inbox.isDeleted, false),
        gte(inbox.createdAt, since),
      ),
    )
    .get();
  return boost !== undefined;
}

/** Undo(Announce), once the Announce is marked undone: recount ours and UNDO_ANNOUNCE. */
export function onAnnounceUndone(tx: DbOrTx, input: { announce: InboxObject; actor: Actor; now: Date }): void {
  const outboxObjectId = input.announce.relatesToOutboxObjectId;
  if (outboxObjectId === null) return;
  recountAnnounces(tx, outboxObjectId);
  notify(tx, { type: 'UNDO_ANNOUNCE', now: input.now, actorId: input.actor.id, outboxObjectId, inboxObjectId: input.announce.id });
}
