// Writing the author's own activities and objects to `outbox`. Local objects are stored bare
// (Note, Article, Question) as the service behind the spec stores them; the Create/Update
// wrapper is built when delivering or serving. Activities (Follow, Like, Accept, Undo, …) are
// stored as themselves.
import { randomUUID } from 'node:crypto';
import type { DbOrTx } from '../../../db/client';
import { outbox, type NewOutboxObject, type OutboxObject, type Visibility } from '../../../db/schema';
import type { LocalActor } from './identity';

export function allocatePublicId(): string {
  return randomUUID().replaceAll('-', '');
}

export interface SaveOutboxInput {
  publicId?: string;
  /** The object or activity without `id` (assigned here from the public id) — or with one. */
  apObject: Record<string, unknown>;
  visibility: Visibility;
  now: Date;
  source?: string | null;
  apContext?: string | null;
  activityObjectApId?: string | null;
  relatesToInboxObjectId?: number | null;
  relatesToOutboxObjectId?: number | null;
  relatesToActorId?: number | null;
  isTransient?: boolean;
}

export function saveOutboxObject(db: DbOrTx, local: LocalActor, input: SaveOutboxInput): OutboxObject {
  const publicId = input.publicId ?? allocatePublicId();
  const apId = typeof input.apObject.id === 'string' ? input.apObject.id : local.objectUrl(publicId);
  const apObject = { ...input.apObject, id: apId } as NewOutboxObject['apObject'];
  const type = input.apObject.type;
  return db
    .insert(outbox)
    .values({
      createdAt: input.now,
      updatedAt: input.now,
      publicId,
      apId,
      apType: typeof type === 'string' ? type : 'Object',
      apObject,
      apContext: input.apContext ?? null,
      activityObjectApId: input.activityObjectApId ?? null,
      source: input.source ?? null,
      apPublishedAt: input.now,
      visibility: input.visibility,
      likesCount: 0,
      announcesCount: 0,
      repliesCount: 0,
      webmentionsCount: 0,
      isPinned: false,
      isTransient: input.isTransient ?? false,
      isDeleted: false,
      // Replies are kept off the public homepage, as on the service behind the spec.
      isHiddenFromHomepage: input.apObject.inReplyTo != null,
      relatesToInboxObjectId: input.relatesToInboxObjectId ?? null,
      relatesToOutboxObjectId: input.relatesToOutboxObjectId ?? null,
      relatesToActorId: input.relatesToActorId ?? null,
    })
    .returning()
    .get();
}
