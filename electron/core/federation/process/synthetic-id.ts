// Ids for activities real servers send without one, so they can be stored, recognised when
// delivered again, and pointed at: Mastodon's Flag (a report forwarded once, from its instance
// actor) and GoToSocial's Delete (of a status or of the account). Any other activity without an
// id is transient (a Like or Follow Tern could never Undo) and is ignored. And ids for
// activities whose id is their object's own (Takahē's Create of a poll vote).
import { createHash } from 'node:crypto';
import type { Json } from '../ap';

const WITHOUT_ID = new Set(['Flag', 'Delete']);

/** `<actor>#tern-<type>-<hash of the payload>`: stable for the same payload (a redelivery is a
 * duplicate), unique otherwise; null for the types that must carry their own id. */
export function syntheticActivityId(activity: Json, type: string, actorId: string): string | null {
  if (!WITHOUT_ID.has(type)) return null;
  const url = new URL(actorId);
  url.hash = `tern-${type.toLowerCase()}-${createHash('sha256').update(JSON.stringify(activity)).digest('hex').slice(0, 32)}`;
  return url.href;
}

/** Takahē sends a poll vote as a Create whose id is the id of the Note it carries
 * (`<actor>#vote/<n>`, activities/models/post_interaction.py to_create_ap). Both are stored, each
 * under its own id (inbox.ap_id is unique), so the Create gets `<actor>#tern-<type>-<hash of the
 * id>`: stable for the same id (a redelivery is a duplicate), the object keeps the id it was given. */
export function activityIdBesideObject(id: string, type: string, actorId: string): string {
  const url = new URL(actorId);
  url.hash = `tern-${type.toLowerCase()}-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
  return url.href;
}
