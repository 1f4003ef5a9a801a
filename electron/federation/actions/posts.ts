// The author's own posts after publishing: delete (Delete{Tombstone} to everyone the post and
// its edits went to; the row stays, marked is_deleted — outbox rows are never removed) and
// pin/unpin (local state; the listener serves pinned posts as the featured collection).
import { eq } from 'drizzle-orm';
import { outbox, type OutboxObject } from '../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { queueWebmentions, versionsOf } from '../../webmention/send';
import { idOf, type Json } from '../ap';
import { toDelete } from '../outbox';
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
    const recipients = [...earlierRecipients(tx, postActivityIds(tx, post.id)), ...computeRecipients(tx, local, post.apObject as Json)];
    const del = saveOutboxObject(tx, local, {
      apObject: toDelete(local, post, now.toISOString()),
      visibility: post.visibility,
      now,
      activityObjectApId: post.apId,
      relatesToOutboxObjectId: post.id,
    });
    tx.update(outbox).set({ isDeleted: true, isPinned: false, updatedAt: now }).where(eq(outbox.id, post.id)).run();
    const parent = idOf((post.apObject as Json).inReplyTo);
    if (parent) recountReplies(tx, parent);
    // Every page any version linked to: each re-fetches the post, gets 410 and drops the mention.
    queueWebmentions(tx, local, { post, versions: versionsOf(post), now });
    const media = detachPost(tx, post.id);
    return { queued: enqueueDeliveries(tx, { outboxObjectId: del.id, recipients, now }), media };
  });
  if (deps.uploadsDir) queued.media.removeFiles(deps.uploadsDir);
  deps.wake();
  return { apId, queued: queued.queued };
}

export function setPinned(deps: Pick<ActionDeps, 'db' | 'clock'>, apId: string, pinned: boolean): OutboxObject {
  return deps.db.transaction((tx) => {
    const post = findOwnPost(tx, apId);
    return tx.update(outbox).set({ isPinned: pinned }).where(eq(outbox.id, post.id)).returning().get()!;
  });
}
