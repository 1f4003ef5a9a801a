// Reading ActivityPub JSON from remote servers: small total functions over `unknown`, tolerant
// of the shapes real peers send (ids as strings or embedded objects, single values or arrays,
// `endpoints` as an object or an IRI string — interop-notes), plus the zod schema every inbound
// activity must pass before anything is stored.
import { z } from 'zod';
import type { Visibility } from '../../../db/schema';

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const PUBLIC_ALIASES = new Set([PUBLIC, 'as:Public', 'Public']);

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The id of a value that is either an IRI string or an object with an `id`. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  if (isObject(value) && typeof value.href === 'string') return value.href;
  return null;
}

export function idsOf(value: unknown): string[] {
  return asArray(value)
    .map(idOf)
    .filter((v): v is string => v !== null);
}

/** The first type of an object (`type` may be a string or an array). */
export function typeOf(value: unknown): string | null {
  if (!isObject(value)) return null;
  const t = Array.isArray(value.type) ? value.type[0] : value.type;
  return typeof t === 'string' ? t : null;
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** An http(s) URL, or null. */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

export const ACTOR_TYPES = new Set(['Person', 'Service', 'Application', 'Group', 'Organization']);

/** The shared inbox of an actor document, else the actor's own inbox. `endpoints` comes as an
 * object, an array of one (compacted JSON-LD), or a string IRI (activitypub-express, which is
 * not fetched: the own inbox reaches the actor as well); `sharedInbox` as an IRI or an object
 * with an id. Every reader of an actor's inbox goes through here. */
export function inboxOf(actorDoc: Json, preferShared = true): string | null {
  const own = httpUrl(idOf(actorDoc.inbox));
  if (!preferShared) return own;
  const shared = asArray(actorDoc.endpoints)
    .filter(isObject)
    .map((endpoints) => httpUrl(idOf(endpoints.sharedInbox)))
    .find((url) => url !== null);
  return shared ?? own;
}

/** Visibility from addressing, as the service behind the spec computes it: Public in `to` →
 * PUBLIC; Public in `cc` → UNLISTED; the author's followers collection → FOLLOWERS_ONLY; else DIRECT. */
export function visibilityOf(object: Json, followersUrl: string | null): Visibility {
  const to = idsOf(object.to);
  const cc = idsOf(object.cc);
  if (to.some((r) => PUBLIC_ALIASES.has(r))) return 'PUBLIC';
  if (cc.some((r) => PUBLIC_ALIASES.has(r))) return 'UNLISTED';
  if (followersUrl && [...to, ...cc].includes(followersUrl)) return 'FOLLOWERS_ONLY';
  return 'DIRECT';
}

const ADDRESSING = ['to', 'cc', 'bto', 'bcc', 'audience'] as const;

/**
 * An object that names no audience of its own (no to, cc, bto, bcc or audience), addressed as
 * the activity carrying it is: its to, cc and audience, as ids (bto and bcc are not kept). Some
 * servers address only the Create; Mastodon falls back to it too (mastodon/mastodon#12249), and
 * without it such a post was stored as DIRECT. Unchanged (the same object) otherwise.
 */
export function addressedAs(object: Json, activity: Json): Json {
  if (ADDRESSING.some((key) => idsOf(object[key]).length > 0)) return object;
  const fields: Json = {};
  for (const key of ['to', 'cc', 'audience'] as const) {
    const ids = idsOf(activity[key]);
    if (ids.length > 0) fields[key] = ids;
  }
  return Object.keys(fields).length > 0 ? { ...object, ...fields } : object;
}

const actorRefSchema = z.union([z.string().url(), z.object({ id: z.string().url() }).passthrough()]);

/** The minimum an inbound activity must have before it is queued. The actor is one: an IRI, an
 * object with an id, or an array of exactly one of these (Prismo sends `[{type, id}]`). */
export const inboundActivitySchema = z
  .object({
    id: z.string().url().optional(),
    type: z.union([z.string().min(1), z.array(z.string()).min(1)]),
    actor: z.union([actorRefSchema, z.array(actorRefSchema).length(1)]),
  })
  .passthrough();

/** The id of an activity's one actor — an IRI, an object, or an array of one (as the schema
 * above allows); null when there is none or more than one. Every reader of `actor` uses this. */
export function actorIdOf(activity: Json): string | null {
  const actor = Array.isArray(activity.actor) && activity.actor.length === 1 ? activity.actor[0] : activity.actor;
  return Array.isArray(actor) ? null : idOf(actor);
}

/** ISO-8601 `published`, else now. */
export function publishedOf(object: Json, now: Date): Date {
  const p = str(object.published);
  const d = p ? new Date(p) : null;
  return d && !Number.isNaN(d.getTime()) ? d : now;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The origin (scheme, host, port) of a URL, or null. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
