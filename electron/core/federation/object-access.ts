// Who may read a local object (the rule of the service behind the spec, §2.2): public and
// unlisted objects anyone; followers-only objects an actor among our followers; direct objects
// an actor the object is addressed to. The viewer is the owner of a verified HTTP signature on
// the GET; everything else is "not found", so an object's existence is never revealed.
import { eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { follower, outbox, type OutboxObject } from '../../../db/schema';
import { normalizeActorId } from '../net/signatures';
import { idsOf } from './ap';
import type { LocalActor } from './identity';

/** The object or activity published at /o/<publicId>. */
export function findLocalObject(db: DbOrTx, local: LocalActor, publicId: string): OutboxObject | undefined {
  return db.select().from(outbox).where(eq(outbox.apId, local.objectUrl(publicId))).get();
}

/** Whether reading this object needs to know who asks. */
export function needsViewer(row: OutboxObject): boolean {
  return row.visibility === 'FOLLOWERS_ONLY' || row.visibility === 'DIRECT';
}

/** The spellings of an actor id stored rows may use (with and without the trailing slash). */
function spellings(actorId: string): string[] {
  const normal = normalizeActorId(actorId);
  return normal === null ? [actorId] : [...new Set([actorId, normal, `${normal}/`])];
}

export function isFollower(db: DbOrTx, actorId: string): boolean {
  return db.select({ id: follower.id }).from(follower).where(inArray(follower.apActorId, spellings(actorId))).get() !== undefined;
}

/** Whether `viewer` (a verified actor id, or null for an anonymous request) may read `row`. */
export function canView(db: DbOrTx, row: OutboxObject, viewer: string | null): boolean {
  switch (row.visibility) {
    case 'PUBLIC':
    case 'UNLISTED':
      return true;
    case 'FOLLOWERS_ONLY':
      return viewer !== null && isFollower(db, viewer);
    case 'DIRECT': {
      if (viewer === null) return false;
      const normal = normalizeActorId(viewer);
      const object = row.apObject as Record<string, unknown>;
      return [...idsOf(object.to), ...idsOf(object.cc)].some((id) => normalizeActorId(id) === normal);
    }
  }
}
