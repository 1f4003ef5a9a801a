// Telling followers the profile changed: an Update of the actor, stored in the outbox and
// queued for each follower's shared inbox (deduplicated) in one transaction. The delivery loop
// sends it; servers that cache the actor (all of them) refresh name, summary, picture (icon),
// header image (image) and manuallyApprovesFollowers from it.
import type { Db } from '../../../db/client';
import { enqueueDeliveries } from '../delivery/queue';
import { PUBLIC, type Json } from './ap';
import { followerInboxes } from './recipients';
import type { LocalActor } from './identity';
import { saveOutboxObject } from './outbox-store';

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
