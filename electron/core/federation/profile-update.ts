// Telling followers the profile changed: an Update of the actor, stored in the outbox and
// queued for each follower's shared inbox (deduplicated) in one transaction. The delivery loop
// sends it; servers that cache the actor (all of them) refresh name, summary, picture (icon),
// header image (image) and manuallyApprovesFollowers from it.
import { eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../db/client';
import { actor, follower } from '../../../db/schema';
import { enqueueDeliveries } from '../delivery/queue';
import { inboxOf, PUBLIC, type Json } from './ap';
import type { LocalActor } from './identity';
import { saveOutboxObject } from './outbox-store';

/** Each follower's shared inbox (else its own inbox), once per server inbox. */
export function followerInboxes(db: DbOrTx): string[] {
  const rows = db.select({ doc: actor.apActor }).from(follower).innerJoin(actor, eq(follower.actorId, actor.id)).all();
  const inboxes = rows.map((r) => inboxOf(r.doc as Json)).filter((i): i is string => i !== null);
  return [...new Set(inboxes)];
}

export interface QueuedUpdate {
  outboxObjectId: number;
  recipients: number;
}

/**
 * Stores `Update {object: person}` and queues it for every follower. Returns null, storing
 * nothing, when there is no follower to tell.
 */
export function queueProfileUpdate(db: Db, local: LocalActor, person: Json, now: Date): QueuedUpdate | null {
  const recipients = followerInboxes(db);
  if (recipients.length === 0) return null;
  const { '@context': context, ...object } = person;
  return db.transaction((tx) => {
    const row = saveOutboxObject(tx, local, {
      apObject: {
        '@context': context,
        type: 'Update',
        actor: local.id,
        object,
        to: [PUBLIC],
        cc: [local.followers],
        published: now.toISOString(),
      },
      activityObjectApId: local.id,
      visibility: 'PUBLIC',
      now,
    });
    return { outboxObjectId: row.id, recipients: enqueueDeliveries(tx, { outboxObjectId: row.id, recipients, now }) };
  });
}
