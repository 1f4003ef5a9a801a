// Test support: a remote author's post stored as if received, the author followed by ours or
// not (an actor row, and with `followed` our Follow and its following row), with no network.
// Not imported by production code.
import { actor, following } from '../../../db/schema';
import type { Core } from '../core';
import { saveOutboxObject } from './outbox-store';
import { persistInboxObject } from './process/store';

/** Stores `@name@name.example`'s post `statuses/1` with `fields` (content, quote…); returns its row id and ap_id. */
export function storeRemotePost(core: Core, name: string, fields: Record<string, unknown>, options: { followed: boolean; now?: Date }): { id: number; apId: string } {
  const now = options.now ?? new Date();
  const apId = `https://${name}.example/users/${name}`;
  const row = core.db.insert(actor).values({ apId, apActor: { id: apId, type: 'Person', inbox: `${apId}/inbox` } as never, apType: 'Person', handle: null, createdAt: now, updatedAt: now }).returning().get();
  if (options.followed) {
    const local = core.identity()!;
    const ours = saveOutboxObject(core.db, local, { apObject: { type: 'Follow', actor: local.id, object: apId }, visibility: 'DIRECT', now, activityObjectApId: apId, relatesToActorId: row.id });
    core.db.insert(following).values({ actorId: row.id, outboxObjectId: ours.id, apActorId: apId, createdAt: now, updatedAt: now }).run();
  }
  const noteId = `${apId}/statuses/1`;
  const note = { id: noteId, type: 'Note', attributedTo: apId, published: now.toISOString(), to: ['https://www.w3.org/ns/activitystreams#Public'], ...fields };
  return { id: persistInboxObject(core.db, { object: note, apId: noteId, actor: row, now }).id, apId: noteId };
}
