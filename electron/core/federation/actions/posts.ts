// The author's own posts after publishing: delete (Delete{Tombstone} to everyone the post and
// its edits went to; the row stays, marked is_deleted — outbox rows are never removed) and
// pin/unpin (the listener serves pinned posts as the featured collection; as Mastodon does, a
// change of a post that collection shows is sent to followers as Add / Remove with the
// collection as target, so their servers update the profile without refetching it).
import { eq, inArray } from 'drizzle-orm';
import { outbox, type OutboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { queueWebmentions, versionsOf } from '../../webmention/send';
import { idOf, type Json } from '../ap';
import { isPostType, toDelete, toFeaturedChange } from '../outbox';
import { OPEN_VISIBILITIES } from '../collections';
import { saveOutboxObject } from '../outbox-store';
import { recountReplies } from '../process/counters';
import { computeRecipients, earlierRecipients, postActivityIds } from '../recipients';
import { findOwnPost } from './compose';
import { requireLocal, type ActionDeps } from './deps';
import { detachPost } from '../../media/attachments';

export function deletePost(deps: ActionDeps, apId: string): { apId: string; queued: number } {
  const local = requireLocal(deps);
  const now = deps.clock();
  const queued = deps.db.transaction((tx) => {
    const post = findOwnPost(tx, apId);
    const carriers = postActivityIds(tx, post.id);
    // Queued for everyone who may have it; each row goes out only where a Create or Update of
    // the post was sent, or may have arrived, by then (withheld.ts), the rest are cancelled with
    // a reason.
    const recipients = [...earlierRecipients(tx, carriers), ...computeRecipients(tx, local, post.apObject as Json)];
    const del = saveOutboxObject(tx, local, {
      apObject: toDelete(local, post, now.toISOString()),
      visibility: post.visibility,
      now,
      activityObjectApId: post.apId,
      relatesToOutboxObjectId: post.id,
    });
    tx.update(outbox).set({ isDeleted: true, isPinned: false, updatedAt: now }).where(eq(outbox.id, post.id)).run();
    // Its edits go with it: each Update id is served as a Tombstone (410) and is never sent.
    const edits = carriers.filter((id) => id !== post.id);
    if (edits.length > 0) tx.update(outbox).set({ isDeleted: true, updatedAt: now }).where(inArray(outbox.id, edits)).run();
    const parent = idOf((post.apObject as Json).inReplyTo);
    if (parent) recountReplies(tx, parent);
    // Every page any version linked to: each re-fetches the post, gets 410 and drops the mention.
    queueWebmentions(tx, local, { post, versions: versionsOf(post), now });
    const media = detachPost(tx, post.id, deps.keepUploads?.() ?? []);
    return { queued: enqueueDeliveries(tx, { outboxObjectId: del.id, recipients, now }), media };
  });
  if (deps.uploadsDir) queued.media.removeFiles(deps.uploadsDir);
  deps.wake();
  return { apId, queued: queued.queued };
}

export function setPinned(deps: Pick<ActionDeps, 'db' | 'clock' | 'identity' | 'wake'>, apId: string, pinned: boolean): OutboxObject {
  const local = deps.identity();
  const now = deps.clock();
  let queued = 0;
  const row = deps.db.transaction((tx) => {
    const post = findOwnPost(tx, apId);
    const updated = tx.update(outbox).set({ isPinned: pinned }).where(eq(outbox.id, post.id)).returning().get()!;
    // Only a change of what the featured collection shows is news (featuredItems' filter).
    const featured =
      (OPEN_VISIBILITIES as readonly string[]).includes(post.visibility) && !post.isDeleted && !post.isTransient && isPostType(post.apType);
    if (local === null || post.isPinned === pinned || !featured) return updated;
    const change = saveOutboxObject(tx, local, {
      apObject: toFeaturedChange(pinned ? 'Add' : 'Remove', local, post.apId, now.toISOString()),
      visibility: 'PUBLIC',
      now,
      activityObjectApId: post.apId,
      relatesToOutboxObjectId: post.id,
    });
    queued = enqueueDeliveries(tx, { outboxObjectId: change.id, recipients: computeRecipients(tx, local, change.apObject as Json), now });
    return updated;
  });
  if (queued > 0) deps.wake();
  return row;
}
