// Ids for activities real servers send without one, so they can be stored, recognised when
// delivered again, and pointed at: Mastodon's Flag (a report forwarded once, from its instance
// actor) and GoToSocial's Delete (of a status or of the account). Any other activity without an
// id is transient (a Like or Follow Tern could never Undo) and is ignored.
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
