// Forwarding (reference §5.1): a public reply to one of our posts (not to a poll), whose LD
// signature by its author verifies, goes on to our followers, so the conversation reaches them
// even though the replier does not know them; the same for the LD-signed Delete of such a reply.
// Queued as outgoing_activity rows with inbox_object_id = the stored activity, to every
// follower's shared inbox (or inbox) except those on the author's and the forwarder's servers.
// What goes out is the activity as received, byte for byte, since the LD signature is the only
// thing that lets the receiver believe it: outbox.ts deliveryPayload reads the received text
// from incoming_activity (the first row with that id: the one processed, whose signature was
// checked) and sends it as is. The inbox row itself stays sanitized like every other.
import type { DbOrTx } from '../../../../db/client';
import { eq } from 'drizzle-orm';
import { actor, follower, type OutboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { hasLdSignature, verifyLdSignature } from '../../net/signatures';
import { PUBLIC, idsOf, type Json } from '../ap';
import { inboxOfActor } from '../recipients';
import { originOf, type ProcessDeps, type Received } from './context';

const PUBLIC_ALIASES = new Set([PUBLIC, 'as:Public', 'Public']);

/** Addressed to Public in `to` (what the reference calls public; unlisted replies stay put). */
export function isPublicActivity(activity: Json, object?: Json): boolean {
  return [activity, object].some((o) => o !== undefined && idsOf(o.to).some((r) => PUBLIC_ALIASES.has(r)));
}

const verdicts = new WeakMap<Received, Promise<boolean>>();

/**
 * Whether the activity carries a valid LD signature by its actor (Fedify's verifyJsonLd plus the
 * key-owner check, net/signatures). Checked at most once per received activity; the key is
 * normally cached since the inbox checked it.
 */
export function ldSignedByActor(deps: ProcessDeps, r: Received): Promise<boolean> {
  if (!hasLdSignature(r.activity)) return Promise.resolve(false);
  if (typeof r.ldVerified === 'boolean') return Promise.resolve(r.ldVerified);
  let verdict = verdicts.get(r);
  if (verdict === undefined) {
    verdict = verifyLdSignature(r.activity, r.actor.apId, {
      documentLoader: deps.fed.documentLoader,
      contextLoader: deps.fed.contextLoader,
      keyCache: deps.fed.keyCache,
    }).then((result) => result.ok);
    verdicts.set(r, verdict);
  }
  return verdict;
}

/** A reply to one of our posts that may be forwarded: any of our posts but a poll. */
export function isForwardableParent(parent: OutboxObject | undefined): parent is OutboxObject {
  return parent !== undefined && !parent.isDeleted && parent.apType !== 'Question';
}

/** Our followers' inboxes (shared ones once), less those of followers on the author's and the
 * forwarder's servers (by the follower's id or its inbox: they have the activity already). */
export function forwardRecipients(tx: DbOrTx, r: Received): string[] {
  const skip = new Set<string | null>([originOf(r.actor.apId), r.row.sentByApActorId ? originOf(r.row.sentByApActorId) : null]);
  skip.delete(null);
  const rows = tx.select({ apId: actor.apId, apActor: actor.apActor }).from(follower).innerJoin(actor, eq(actor.id, follower.actorId)).all();
  const inboxes = new Set<string>();
  for (const row of rows) {
    const inbox = inboxOfActor(row);
    if (inbox && !skip.has(originOf(row.apId)) && !skip.has(originOf(inbox))) inboxes.add(inbox);
  }
  return [...inboxes];
}

/** Queues `inboxRowId` (the stored activity) to `recipients`. Returns the number of rows queued. */
export function queueForward(tx: DbOrTx, r: Received, inboxRowId: number, recipients: string[]): number {
  if (recipients.length === 0) return 0;
  return enqueueDeliveries(tx, { inboxObjectId: inboxRowId, recipients, now: r.now });
}
