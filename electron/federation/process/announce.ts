// Announces (boosts). Of one of our objects: announces_count recounted, ANNOUNCE. Of a remote
// object by someone the author follows: the object is fetched when unknown (checking its id and
// author), stored hidden, and the Announce itself is what shows in the stream — unless the same
// object was already shown within the hour (the original, or another boost of it).
import { and, eq, gte } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { inbox, type Actor, type InboxObject } from '../../../db/schema';
import { NotFoundError } from '../../errors';
import { getOrFetchActor } from '../actors';
import { idOf, idsOf, isObject, type Json } from '../ap';
import { isLocalUrl } from '../identity';
import { sanitizeObjectHtml } from '../sanitize';
import { originOf, processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { recountAnnounces } from './counters';
import { fetchRemoteObject } from './fetch';
import { isBlockedUrl } from '../blocked-servers';
import { POST_TYPES } from './create';
import { findInbox, findOutbox, isFollowed, notify, persistActivity, persistInboxObject } from './store';

export const BOOST_DEDUP_MS = 60 * 60 * 1000;

/** A remote object fetched and checked, ready to store: the object and its author's row. */
interface Fetched {
  object: Json;
  author: Actor;
}

async function fetchAnnounced(deps: ProcessDeps, objectId: string): Promise<Fetched | null> {
  try {
    const object = await fetchRemoteObject(deps.fed, objectId);
    if (!POST_TYPES.has(String(object.type))) return null;
    const authorId = idsOf(object.attributedTo)[0];
    // The author must live where the object lives, or anyone could attribute posts to anyone.
    if (!authorId || originOf(authorId) !== originOf(objectId)) return null;
    if (isBlockedUrl(authorId, deps.settings.blockedServers)) return null;
    const author = await getOrFetchActor({ db: deps.db, fed: deps.fed, clock: deps.clock }, authorId);
    return { object: sanitizeObjectHtml(object), author };
  } catch (error) {
    // Gone, refused or not a post: the boost is kept (hidden). Network trouble: retry later.
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export async function onAnnounced(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const objectId = idOf(r.activity.object);
  const followed = isFollowed(deps.db, r.actor.id);
  const needsFetch =
    objectId !== null && followed && !isLocalUrl(objectId, deps.identity) && findInbox(deps.db, objectId) === undefined;
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
    let target = objectId ? findInbox(tx, objectId) : undefined;
    if (!target && fetched && objectId) {
      target = persistInboxObject(tx, { object: fetched.object, apId: objectId, actor: fetched.author, now: r.now, hidden: true });
    }
    const visible = followed && target !== undefined && !target.isDeleted && !alreadyShown(tx, target, r.now);
    const row = persistActivity(tx, {
      object: activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      hidden: !visible,
      relatesToInboxObjectId: target?.id ?? null,
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
