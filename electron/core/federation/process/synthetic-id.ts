// Ids for activities real servers send without one, so they can be stored, recognised when
// delivered again, and pointed at: Mastodon's Flag (a report forwarded once, from its instance
// actor) and GoToSocial's Delete (of a status or of the account). Any other activity without an
// id is transient (a Like or Follow Tern could never Undo) and is ignored. And ids for
// activities whose id is their object's own (Takahē's vote, WriteFreely's Create and Update).
import { createHash } from 'node:crypto';
import { actorIdOf, idOf, isObject, str, typeOf, type Json } from '../ap';

const WITHOUT_ID = new Set(['Flag', 'Delete']);

/** `<actor>#tern-<type>-<hash of the payload>`: stable for the same payload (a redelivery is a
 * duplicate), unique otherwise; null for the types that must carry their own id. */
export function syntheticActivityId(activity: Json, type: string, actorId: string): string | null {
  if (!WITHOUT_ID.has(type)) return null;
  const url = new URL(actorId);
  url.hash = `tern-${type.toLowerCase()}-${createHash('sha256').update(JSON.stringify(activity)).digest('hex').slice(0, 32)}`;
  return url.href;
}

/** Some servers give an activity the id of the object it carries: Takahē's Create of a poll vote
 * (`<actor>#vote/<n>`, activities/models/post_interaction.py to_create_ap), WriteFreely's Create
 * and every Update of a post (web-core activitystreams NewCreateActivity/NewUpdateActivity). Both
 * are stored, each under its own id (inbox.ap_id is unique), so the activity gets
 * `<actor>#tern-<type>-<hash of the payload>`: a redelivery is a duplicate, while WriteFreely's
 * next edit of the post — same id, new content — is an Update of its own, not dropped as seen. */
export function activityIdBesideObject(activity: Json, type: string, actorId: string): string {
  const url = new URL(actorId);
  url.hash = `tern-${type.toLowerCase()}-${createHash('sha256').update(JSON.stringify(activity)).digest('hex').slice(0, 32)}`;
  return url.href;
}

/** The id an activity is queued and stored under: its own, unless it is the id of the object it
 * carries (then activityIdBesideObject's). The listener's duplicate check and the processor use
 * this one rule, so a second edit WriteFreely sends under the same id is neither turned away at
 * the door nor dropped as processed. Null without an id (syntheticActivityId's cases). */
export function activityIdOf(activity: Json): string | null {
  const id = str(activity.id);
  if (id === null || !isObject(activity.object) || idOf(activity.object) !== id) return id;
  const actorId = actorIdOf(activity);
  return actorId === null ? id : activityIdBesideObject(activity, typeOf(activity) ?? 'Activity', actorId);
}
