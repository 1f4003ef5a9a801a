// Turns one incoming_activity row into inbox/actor/follower/following/notification changes.
// The preamble (reference §10, in its order where it matters) checks the shape, drops blocked
// servers and duplicates, and makes sure the actor is known — fetching it before any transaction;
// then the activity goes to its family's handler (one file each), which writes everything the
// activity causes in one transaction. A relayed activity (HTTP signer ≠ actor) is believed as
// sent only when its actor's LD signature (or integrity proof) verifies: the inbox's verdict on
// these bytes when it reached one in this run (embedded-verdicts.ts), else checked here
// (net/signatures verifyEmbeddedSignature); otherwise only what its origin can confirm is taken:
// a Create's or an Update's object refetched from there, a Delete whose object is gone there.
// An Announce of an activity (a Lemmy community's) has its inner activity processed here too, as
// relayed by the announcer (announce.ts onActivityAnnounced). Idempotent: an activity whose id is already in `inbox` is a no-op. Unknown types are stored as inbox rows and count as processed.
import type { IncomingActivity } from '../../../../db/schema';
import { NotFoundError, UnavailableError } from '../../errors';
import { findActor, getOrFetchActor, saveActor } from '../actors';
import { ACTOR_TYPES, actorIdOf, idOf, inboundActivitySchema, isObject, str, typeOf, type Json } from '../ap';
import { isLocalActorId } from '../identity';
import { sanitizeActorHtml } from '../sanitize';
import { onActivityAnnounced, onAnnounced } from './announce';
import { announcedActivity } from '../objects';
import { isBlockedUrl } from '../blocked-servers';
import { hasProofLike } from '@fedify/fedify';
import { hasLdSignature, verifyEmbeddedSignature } from '../../net/signatures';
import { takeVerdict } from '../embedded-verdicts';
import {
  ActivityDropped,
  drop,
  processed,
  sameId,
  type ProcessDeps,
  type ProcessOutcome,
  type Received,
} from './context';
import { onPostCreated } from './create';
import { onActorDeleted, onPostDeleted } from './delete';
import { onBlocked, onFollowAnswered, onFollowed } from './follow';
import { onFlagged } from './flag';
import { activityIdOf, syntheticActivityId } from './synthetic-id';
import { onLiked } from './like';
import { onMoved } from './move';
import { answeredQuoteRequest, onQuoteAnswered } from './quote-answer';
import { onQuoteRequested } from './quote-request';
import { onReacted } from './react';
import { REACTION_TYPES } from '../reaction-emoji';
import { findInbox, persistActivity } from './store';
import { onUndone } from './undo';
import { onUpdated } from './update';

export { ActivityDropped, type ProcessDeps, type ProcessOutcome } from './context';

/** Processes one row. Resolves with what happened (processed, or dropped on purpose with a
 * reason); rejects when trying again later may help (network trouble), for the loop to retry. */
export async function processIncomingActivity(deps: ProcessDeps, row: IncomingActivity, carried = false): Promise<ProcessOutcome> {
  try {
    return await processRow(deps, row, carried);
  } catch (error) {
    if (error instanceof ActivityDropped) return { status: 'dropped', reason: error.message };
    throw error;
  }
}

/** `carried`: an activity another one carried (an Announce's), not a row of its own — the
 * inbox's verdict on the row's bytes is not about it. */
async function processRow(deps: ProcessDeps, row: IncomingActivity, carried = false): Promise<ProcessOutcome> {
  const activity: Json | null = isObject(row.apObject) ? (row.apObject as Json) : null;
  if (!activity) drop('no activity JSON in the row');
  const now = deps.clock();
  // A bare actor document (python-federation sends these): its owner refreshing its profile.
  if (ACTOR_TYPES.has(typeOf(activity) ?? '')) return onActorPayload(deps, activity, row, now);
  const parsed = inboundActivitySchema.safeParse(activity);
  if (!parsed.success) drop(`malformed activity: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  const type = typeOf(activity)!;
  const actorId = actorIdOf(activity)!;
  const relayed = row.sentByApActorId !== null && !sameId(row.sentByApActorId, actorId);

  if (isBlockedUrl(actorId, deps.settings.blockedServers)) drop(`blocked server ${new URL(actorId).hostname}`);
  if (isLocalActorId(actorId, deps.identity) || actorId.startsWith(`${deps.identity.id}/`)) drop('claims to come from the local actor');

  // Mastodon's Flag and GoToSocial's Delete have no id; they get a synthetic one (synthetic-id.ts).
  const id = activityIdOf(activity) ?? syntheticActivityId(activity, type, actorId);
  if (!id) drop(`${type} without an id: transient, ignored`);
  if (findInbox(deps.db, id)) drop('duplicate: already processed');
  // Relayed by someone other than its actor: trusted as if the actor had sent it only with the
  // actor's own LD signature (or proof): the inbox's verdict on these bytes when it reached one
  // in this run (embedded-verdicts.ts), else checked here. Without one, only Creates, Updates
  // and Deletes of objects can be checked, at the object's origin.
  const signed = relayed && (hasLdSignature(activity) || hasProofLike(activity));
  const verdict = signed && !carried ? takeVerdict(deps.db, row.id) : undefined;
  const vouched = signed ? (verdict ?? (await verifyEmbeddedSignature(activity, actorId, ldDeps(deps)))) : null;
  const ldVerified = vouched?.ok === true && vouched.method === 'ld-signature';
  const forwarded = relayed && vouched?.ok !== true;
  // What can be checked at its origin without the actor's signature: a Create's or an Update's
  // object is refetched, a Delete's must be gone there (a post relayed by a Lemmy community).
  const aboutActor = ACTOR_TYPES.has(typeOf(activity.object) ?? '') || sameId(idOf(activity.object), actorId);
  // An Undo of a Delete (a restore) is checked the same way: the post must be served again.
  const checkable = type === 'Create' || ((type === 'Update' || type === 'Delete') && !aboutActor) || (type === 'Undo' && undoesDelete(deps, activity));
  // The inbox verified it moments ago: a key missing now is network trouble, worth a retry.
  if (forwarded && !checkable && vouched?.ok === false && vouched.reason === 'key_unavailable') {
    throw new UnavailableError(`the key of ${actorId}'s signature on ${type} ${id} is unavailable for now`);
  }
  if (forwarded && !checkable) drop(`${type} from ${actorId} forwarded by ${row.sentByApActorId}: not trusted (no valid LD signature by its actor)`);

  if (type === 'Delete' && sameId(idOf(activity.object), actorId)) {
    if (forwarded) drop('Delete of an actor forwarded by someone else');
    return onActorDeleted(deps, { id, activity, actorId, now });
  }

  let actor;
  try {
    actor = await getOrFetchActor({ db: deps.db, fed: deps.fed, clock: deps.clock }, actorId);
  } catch (error) {
    // Gone or not an actor: nothing can ever be done with it. Network trouble: retry later.
    if (error instanceof NotFoundError) drop(`actor unavailable: ${error.message}`);
    throw error;
  }
  const received: Received = { row, activity, id, type, actor, forwarded, ldVerified: relayed ? ldVerified : null, now };

  switch (type) {
    case 'Follow':
      return onFollowed(deps, received);
    case 'Accept':
    case 'Reject': {
      const request = answeredQuoteRequest(deps, activity);
      if (request) return onQuoteAnswered(deps, received, request, type);
      return onFollowAnswered(deps, received, type);
    }
    case 'Undo':
      return onUndone(deps, received);
    case 'Create':
      return onPostCreated(deps, received);
    case 'Update':
      return onUpdated(deps, received);
    case 'Delete':
      return onPostDeleted(deps, received);
    case 'Like':
      return onLiked(deps, received);
    case 'Announce': {
      const inner = announcedActivity(activity);
      if (!inner) return onAnnounced(deps, received);
      return onActivityAnnounced(deps, received, inner, (carriedRow) => processIncomingActivity(deps, carriedRow, true));
    }
    case 'Block':
      return onBlocked(deps, received);
    case 'Move':
      return onMoved(deps, received);
    case 'Flag':
      return onFlagged(deps, received);
    case 'QuoteRequest':
      return onQuoteRequested(deps, received);
    default:
      if (REACTION_TYPES.has(type)) return onReacted(deps, received);
      return onOtherActivity(deps, received);
  }
}

const ldDeps = (deps: ProcessDeps) => ({
  documentLoader: deps.fed.documentLoader,
  contextLoader: deps.fed.contextLoader,
  keyCache: deps.fed.keyCache,
});

/** Anything else (Add, View, …): stored as an inbox row, linked to our
 * object or a stored one when it names one, with no other effect yet. */
async function onOtherActivity(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  return deps.db.transaction((tx) => {
    if (findInbox(tx, r.id)) drop('duplicate: already processed');
    const row = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now });
    return processed(row.id);
  });
}

async function onActorPayload(deps: ProcessDeps, doc: Json, row: IncomingActivity, now: Date): Promise<ProcessOutcome> {
  const id = str(doc.id);
  if (!id || !row.sentByApActorId || !sameId(id, row.sentByApActorId)) drop('actor document not sent by that actor');
  const known = findActor(deps.db, id);
  if (!known) drop('actor document of an actor we do not know: ignored');
  deps.db.transaction((tx) => saveActor(tx, sanitizeActorHtml({ ...doc, id: known.apId }), known.handle, now));
  return processed(null);
}

/** Whether an Undo undoes a Delete: its object embedded as one, or the id of a stored Delete. */
function undoesDelete(deps: ProcessDeps, undo: Json): boolean {
  if (typeOf(undo.object) === 'Delete') return true;
  const id = idOf(undo.object);
  return id !== null && findInbox(deps.db, id)?.apType === 'Delete';
}
