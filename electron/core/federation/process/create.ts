// Create of a post (Note, Article, Question, Page, Video, Audio, Image, Event — or an object of a
// type Tern does not know, kept and shown as a link card): the object is sanitized and stored as
// its own inbox row under its own id, by its author (objects.ts authorOf), linked both ways with
// the Create row. A Create of something that is no post (an actor, a collection) is dropped with
// the reason. It shows in the stream when its author is
// followed (replies to third parties included — the reference hides those, and its users called
// them "missing posts"), when it mentions the author, or when it replies to one of our posts.
// Mentions notify; the parent's replies_count is recomputed; votes on our polls go to poll.ts.
// A public, LD-signed reply to one of our posts is forwarded to our followers (forward.ts).
import { eq } from 'drizzle-orm';
import { NotFoundError } from '../../errors';
import { inbox, type Actor } from '../../../../db/schema';
import { cachedActorType, getOrFetchAuthor } from '../actors';
import { addressedAs, asArray, idOf, isObject, str, typeOf, type Json } from '../ap';
import { attributedIds, authorOf, isCreatedBy, isShowableType } from '../objects';
import { isLocalActorId, isLocalUrl, type LocalActor } from '../identity';
import { sanitizeActivityHtml, sanitizeObjectHtml } from '../sanitize';
import { drop, originOf, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { recountReplies } from './counters';
import { fetchRemoteObject } from './fetch';
import { forwardRecipients, isForwardableParent, isPublicActivity, ldSignedByActor, queueForward } from './forward';
import { isPollVote, onPollVoted } from './poll';
import {
  findActivityAbout,
  findInbox,
  findOutbox,
  hasNotification,
  isFollowed,
  linkInbox,
  notify,
  persistActivity,
  persistInboxObject,
} from './store';

/** Whether the object's tags mention the local actor, by actor id (either slash) or handle. */
export function mentionsLocalActor(object: Json, local: LocalActor): boolean {
  const handle = local.handle.slice(1).toLowerCase();
  return asArray(object.tag).some((tag) => {
    if (!isObject(tag) || typeOf(tag) !== 'Mention') return false;
    if (isLocalActorId(str(tag.href), local)) return true;
    const name = str(tag.name)?.trim().replace(/^@/, '').toLowerCase();
    return name === handle;
  });
}

/** The object of a Create, checked: the embedded copy, or (forwarded, or only an IRI) a fresh
 * copy from its own server. Its author must be the activity's actor, on the actor's server (an
 * object that credits nobody is the actor's: objects.ts isCreatedBy). */
async function createdObject(deps: ProcessDeps, r: Received): Promise<Json> {
  const embedded = r.activity.object;
  const objectId = idOf(embedded);
  if (!objectId) drop('Create without an object id');
  let object: Json;
  if (isObject(embedded) && !r.forwarded) {
    object = embedded;
  } else {
    try {
      object = await fetchRemoteObject(deps.fed, objectId);
    } catch (error) {
      if (error instanceof NotFoundError) drop(`created object unavailable: ${error.message}`);
      throw error;
    }
  }
  if (!isCreatedBy(object, r.actor.apId)) {
    drop(`attributedTo (${attributedIds(object).join(', ') || 'none'}) does not match the actor ${r.actor.apId}`);
  }
  if (originOf(objectId) !== originOf(r.actor.apId)) drop(`object ${objectId} is not on the actor's server`);
  return object;
}

/** The author's row: the activity's actor, or — when the object credits someone else first (a
 * group's event: its organiser) — that actor, who must live on the object's server. */
async function authorRow(deps: ProcessDeps, r: Received, object: Json): Promise<Actor> {
  const authorId = authorOf(object, cachedActorType(deps.db));
  if (!authorId || sameId(authorId, r.actor.apId)) return r.actor;
  try {
    return (await getOrFetchAuthor({ db: deps.db, fed: deps.fed, clock: deps.clock }, object, originOf(r.actor.apId)!)) ?? r.actor;
  } catch (error) {
    if (error instanceof NotFoundError) return r.actor;
    throw error;
  }
}

export async function onPostCreated(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  if (typeOf(r.activity.object) === 'CacheFile') drop('PeerTube CacheFile: not a post');
  const object = await createdObject(deps, r);
  const objectId = str(object.id)!;
  const type = typeOf(object) ?? 'Object';
  if (!isShowableType(type)) drop(`Create of a ${type}: not a post`);
  const author = await authorRow(deps, r, object);
  // Addressed as its Create when it names no audience of its own: stored so, and its visibility with it.
  const clean = addressedAs(sanitizeObjectHtml(object), r.activity);
  const parentId = idOf(object.inReplyTo);
  const local = deps.identity;
  // Forwarding (process/forward.ts): decided before the transaction, which cannot wait on keys.
  const forward =
    parentId !== null &&
    isForwardableParent(findOutbox(deps.db, parentId)) &&
    isPublicActivity(r.activity, object) &&
    (await ldSignedByActor(deps, r));

  return deps.db.transaction((tx) => {
    const create = persistActivity(tx, {
      object: sanitizeActivityHtml({ ...r.activity, object: clean }),
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: objectId,
      relatesToOutboxObjectId: null,
      relatesToInboxObjectId: null,
    });
    const parentOutbox = parentId ? findOutbox(tx, parentId) : undefined;
    const mentionsUs = mentionsLocalActor(clean, local);
    const repliesToUs = parentOutbox !== undefined || isLocalUrl(parentId, local);
    const visible = isFollowed(tx, r.actor.id) || (author !== r.actor && isFollowed(tx, author.id)) || mentionsUs || repliesToUs;

    const known = findInbox(tx, objectId);
    if (known && known.apActorId !== r.actor.apId && known.apActorId !== author.apId) {
      // Someone else's object: a Create cannot claim it, un-hide it or notify about it.
      linkInbox(tx, create.id, known.id);
      return processed(create.id);
    }
    if (known) {
      // Seen before (fetched for a boost, say): link it, and let it show and notify now if it
      // qualifies, without a second MENTION.
      linkInbox(tx, create.id, known.id);
      if (visible && known.isHiddenFromStream && !known.isTransient) {
        tx.update(inbox).set({ isHiddenFromStream: false, updatedAt: r.now }).where(eq(inbox.id, known.id)).run();
      }
      if (mentionsUs && !known.isDeleted && !hasNotification(tx, 'MENTION', known.id)) {
        notify(tx, { type: 'MENTION', now: r.now, actorId: r.actor.id, inboxObjectId: known.id });
      }
      return processed(create.id);
    }

    if (isPollVote(clean, parentOutbox)) {
      const vote = onPollVoted(tx, { vote: clean, voteId: objectId, question: parentOutbox!, actor: r.actor, now: r.now, createRowId: create.id });
      linkInbox(tx, create.id, vote.id);
      return processed(create.id);
    }

    // A Delete may have overtaken its Create; the object is then stored already deleted.
    const deletedEarlier = findActivityAbout(tx, 'Delete', r.actor.apId, objectId) !== undefined;
    const row = persistInboxObject(tx, {
      object: clean,
      apId: objectId,
      actor: author,
      now: r.now,
      local,
      apType: type,
      hidden: !visible,
      isDeleted: deletedEarlier,
      relatesToInboxObjectId: create.id,
    });
    linkInbox(tx, create.id, row.id);
    recountReplies(tx, objectId); // replies that arrived before their parent
    if (parentId) recountReplies(tx, parentId);
    if (mentionsUs && !deletedEarlier) notify(tx, { type: 'MENTION', now: r.now, actorId: r.actor.id, inboxObjectId: row.id });
    // The Create row then holds the activity as received (its Note row is the sanitized copy
    // everything displays): what the LD signature covers, to be sent on unchanged.
    if (forward && !deletedEarlier) queueForward(tx, r, create.id, forwardRecipients(tx, r));
    return processed(create.id);
  });
}
