// Update of an actor (only by itself: the cached actor row is refreshed from the embedded
// document and its keys are evicted from the key cache, so the next signature is checked with
// the new key) or of a post (only by its author: ap_object replaced, sanitized, updated_at
// bumped; a poll whose options changed forgets the author's choice, which its server dropped; a
// Question that lists none keeps the stored ones). An Update of an object we never stored is kept as a row and otherwise ignored.
import { eq } from 'drizzle-orm';
import { inbox } from '../../../../db/schema';
import { NotFoundError } from '../../errors';
import { fetchActorDocument, handleOf, saveActor } from '../actors';
import { ACTOR_TYPES, addressedAs, asArray, idOf, isObject, str, typeOf, type Json } from '../ap';
import { sanitizeActivityHtml, sanitizeActorHtml, sanitizeObjectHtml } from '../sanitize';
import { drop, originOf, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { recountReplies } from './counters';
import { fetchRemoteObject } from './fetch';
import { isAttributedTo, isCreatedBy, isShowableType } from '../objects';
import { pollChanged, withStoredOptions } from '../polls/question';
import { findInbox, persistActivity } from './store';

/** Key ids an actor document publishes (publicKey and FEP-521a assertionMethod). */
export function keyIdsOf(doc: Json): string[] {
  return [...asArray(doc.publicKey), ...asArray(doc.assertionMethod)].map(idOf).filter((k): k is string => k !== null);
}

export async function onUpdated(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const object = r.activity.object;
  const objectId = idOf(object);
  if (!objectId) drop('Update without an object id');
  if (ACTOR_TYPES.has(typeOf(object) ?? '') || sameId(objectId, r.actor.apId)) return onActorUpdated(deps, r, objectId);
  return onPostUpdated(deps, r, objectId);
}

async function onActorUpdated(deps: ProcessDeps, r: Received, objectId: string): Promise<ProcessOutcome> {
  if (!sameId(objectId, r.actor.apId)) drop(`Update of the actor ${objectId} by another actor (${r.actor.apId})`);
  const embedded = r.activity.object;
  // The embedded document is signed by its own actor; an IRI alone means "fetch me again".
  let doc: Json;
  if (isObject(embedded) && ACTOR_TYPES.has(typeOf(embedded) ?? '') && str(embedded.inbox)) {
    doc = { ...embedded, id: r.actor.apId };
  } else {
    try {
      doc = await fetchActorDocument(deps.fed, r.actor.apId);
    } catch (error) {
      if (error instanceof NotFoundError) drop(`updated actor unavailable: ${error.message}`);
      throw error;
    }
  }
  const previous = r.actor.apActor as Json;
  const renamed = str(doc.preferredUsername) !== str(previous.preferredUsername);
  const handle = renamed ? await handleOf(deps.fed, doc) : r.actor.handle;
  const clean = sanitizeActorHtml(doc);

  const outcome = deps.db.transaction((tx) => {
    const row = persistActivity(tx, {
      object: { ...r.activity, object: clean },
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: r.actor.apId,
      relatesToInboxObjectId: null,
      relatesToOutboxObjectId: null,
    });
    saveActor(tx, clean, handle, r.now);
    return processed(row.id);
  });
  // After the commit: a verification racing with this must not re-cache the old key afterwards.
  for (const keyId of new Set([...keyIdsOf(previous), ...keyIdsOf(doc)])) deps.fed.keyCache.evict(keyId);
  return outcome;
}

async function onPostUpdated(deps: ProcessDeps, r: Received, objectId: string): Promise<ProcessOutcome> {
  const known = findInbox(deps.db, objectId);
  if (known && known.apActorId !== r.actor.apId && !isAttributedTo(known.apObject as Json, r.actor.apId)) drop(`Update of ${objectId} by ${r.actor.apId}, who is not its author`);
  let fresh: Json | null = null;
  if (known && isShowableType(known.apType)) {
    const embedded = r.activity.object;
    if (isObject(embedded) && !r.forwarded) {
      fresh = embedded;
    } else {
      try {
        fresh = await fetchRemoteObject(deps.fed, objectId);
      } catch (error) {
        if (error instanceof NotFoundError) drop(`updated object unavailable: ${error.message}`);
        throw error;
      }
    }
    if (!sameId(str(fresh.id), objectId)) drop(`Update names ${objectId} but carries ${String(fresh.id)}`);
    if (!isCreatedBy(fresh, r.actor.apId) || originOf(objectId) !== originOf(r.actor.apId)) {
      drop(`updated object ${objectId} is not attributed to ${r.actor.apId}`);
    }
  }
  // A new version that names no audience keeps the one stored (the row keeps its visibility: an
  // edit does not change who a post is for), else takes the Update's, so that the stored object
  // and its visibility agree.
  // A Question that lists no options keeps the stored ones (polls/question.ts withStoredOptions).
  const clean = fresh && known ? withStoredOptions(known.apObject as Json, addressedAs(addressedAs(sanitizeObjectHtml(fresh), known.apObject as Json), r.activity)) : null;

  return deps.db.transaction((tx) => {
    const row = persistActivity(tx, {
      object: sanitizeActivityHtml(clean ? { ...r.activity, object: clean } : r.activity),
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: objectId,
      relatesToInboxObjectId: known?.id ?? null,
      relatesToOutboxObjectId: null,
    });
    if (!known || !clean) return processed(row.id); // unknown object, or not a post: ignored
    const oldParent = idOf(known.apObject.inReplyTo);
    // The type is kept as stored (a Question stays a Question even if a server sends a Note).
    // New content may link elsewhere: its link previews are looked for again, as after an edit
    // of the author's own (an unchanged text keeps them).
    const relink = clean.content !== known.apObject.content;
    // A poll asked anew (other options): the author's earlier choice no longer stands there.
    const revote = known.votedForAnswers !== null && pollChanged(known.apObject as Json, clean);
    tx.update(inbox)
      .set({ apObject: clean as typeof known.apObject, updatedAt: r.now, ...(relink ? { ogMeta: null } : {}), ...(revote ? { votedForAnswers: null } : {}) })
      .where(eq(inbox.id, known.id))
      .run();
    const newParent = idOf(clean.inReplyTo);
    for (const parent of new Set([oldParent, newParent])) if (parent) recountReplies(tx, parent);
    return relink ? { ...processed(row.id), previewsFor: known.id } : processed(row.id);
  });
}
