// Interactions with other people's posts (reference §1 Interactions, §5.1): like and boost,
// each undone with Undo to the same recipients, and private bookmarks. The post is taken from
// the stream (stored), or fetched and stored first when online. A Like goes to the author's own
// inbox; an Announce to our followers and the author. State lives on the inbox row:
// liked_via_outbox_object_ap_id, announced_via_outbox_object_ap_id, is_bookmarked.
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, outbox, type InboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { BadInputError, ConflictError, NotFoundError } from '../../errors';
import { findOrFetchObject } from '../lookup';
import { toAnnounce, toLike, toUndo, type ApObject } from '../outbox';
import { saveOutboxObject } from '../outbox-store';
import { computeRecipients, earlierRecipients, targetOfActor } from '../recipients';
import { requireLocal, type ActionDeps } from './deps';
import type { LocalActor } from '../identity';

async function remoteObject(deps: ActionDeps, local: LocalActor, apId: string, what: string): Promise<InboxObject> {
  const found = await findOrFetchObject({ db: deps.db, fed: deps.fed, clock: deps.clock, local, isOnline: deps.isOnline }, apId);
  if (found.kind === 'own') throw new BadInputError(`You can't ${what} your own post.`);
  if (found.kind !== 'object') throw new BadInputError(`${apId} is not a post.`);
  if (found.row.isDeleted) throw new ConflictError('That post was deleted by its author.');
  return found.row;
}

function storedObject(db: DbOrTx, apId: string): InboxObject {
  const row = db.select().from(inbox).where(eq(inbox.apId, apId)).get();
  if (!row) throw new NotFoundError('Tern does not know that post.');
  return row;
}

/** Undo of one of our activities, to wherever the activity went (or its recomputed audience). */
function undo(tx: DbOrTx, local: LocalActor, activityApId: string, now: Date, fallback: string[]): void {
  const done = tx.select().from(outbox).where(eq(outbox.apId, activityApId)).get();
  if (!done) return;
  const row = saveOutboxObject(tx, local, {
    apObject: toUndo(local, done.apObject as ApObject, now.toISOString()),
    visibility: done.visibility,
    now,
    activityObjectApId: done.apId,
    relatesToOutboxObjectId: done.id,
  });
  tx.update(outbox).set({ undoneByOutboxObjectId: row.id, isDeleted: true, updatedAt: now }).where(eq(outbox.id, done.id)).run();
  const before = earlierRecipients(tx, [done.id]);
  enqueueDeliveries(tx, { outboxObjectId: row.id, recipients: before.length > 0 ? before : fallback, now });
}

export async function like(deps: ActionDeps, apId: string): Promise<InboxObject> {
  const local = requireLocal(deps);
  const object = await remoteObject(deps, local, apId, 'like');
  if (object.likedViaOutboxObjectApId) return object;
  const now = deps.clock();
  const row = deps.db.transaction((tx) => {
    const like = saveOutboxObject(tx, local, {
      apObject: toLike(local, object.apId, object.apActorId, now.toISOString()),
      visibility: 'DIRECT',
      now,
      activityObjectApId: object.apId,
      relatesToInboxObjectId: object.id,
    });
    const target = targetOfActor(tx, object.apActorId, true);
    enqueueDeliveries(tx, { outboxObjectId: like.id, recipients: target ? [target] : [], now });
    return tx.update(inbox).set({ likedViaOutboxObjectApId: like.apId }).where(eq(inbox.id, object.id)).returning().get()!;
  });
  deps.wake();
  return row;
}

export function unlike(deps: ActionDeps, apId: string): InboxObject {
  const local = requireLocal(deps);
  const now = deps.clock();
  const row = deps.db.transaction((tx) => {
    const object = storedObject(tx, apId);
    if (!object.likedViaOutboxObjectApId) return object;
    const target = targetOfActor(tx, object.apActorId, true);
    undo(tx, local, object.likedViaOutboxObjectApId, now, target ? [target] : []);
    return tx.update(inbox).set({ likedViaOutboxObjectApId: null }).where(eq(inbox.id, object.id)).returning().get()!;
  });
  deps.wake();
  return row;
}

export async function boost(deps: ActionDeps, apId: string): Promise<InboxObject> {
  const local = requireLocal(deps);
  const object = await remoteObject(deps, local, apId, 'boost');
  if (object.visibility !== 'PUBLIC' && object.visibility !== 'UNLISTED') {
    throw new BadInputError('Only public and unlisted posts can be boosted.');
  }
  if (object.announcedViaOutboxObjectApId) return object;
  const now = deps.clock();
  const row = deps.db.transaction((tx) => {
    const announce = saveOutboxObject(tx, local, {
      apObject: toAnnounce(local, object.apId, object.apActorId, now.toISOString()),
      visibility: 'PUBLIC',
      now,
      activityObjectApId: object.apId,
      relatesToInboxObjectId: object.id,
    });
    enqueueDeliveries(tx, { outboxObjectId: announce.id, recipients: computeRecipients(tx, local, announce.apObject), now });
    return tx.update(inbox).set({ announcedViaOutboxObjectApId: announce.apId }).where(eq(inbox.id, object.id)).returning().get()!;
  });
  deps.wake();
  return row;
}

export function unboost(deps: ActionDeps, apId: string): InboxObject {
  const local = requireLocal(deps);
  const now = deps.clock();
  const row = deps.db.transaction((tx) => {
    const object = storedObject(tx, apId);
    if (!object.announcedViaOutboxObjectApId) return object;
    const announce = tx.select().from(outbox).where(eq(outbox.apId, object.announcedViaOutboxObjectApId)).get();
    const fallback = announce ? computeRecipients(tx, local, announce.apObject) : [];
    undo(tx, local, object.announcedViaOutboxObjectApId, now, fallback);
    return tx.update(inbox).set({ announcedViaOutboxObjectApId: null }).where(eq(inbox.id, object.id)).returning().get()!;
  });
  deps.wake();
  return row;
}

export async function setBookmarked(deps: ActionDeps, apId: string, bookmarked: boolean): Promise<InboxObject> {
  const local = requireLocal(deps);
  const object = bookmarked ? await remoteObject(deps, local, apId, 'bookmark') : storedObject(deps.db, apId);
  return deps.db.update(inbox).set({ isBookmarked: bookmarked }).where(eq(inbox.id, object.id)).returning().get()!;
}
