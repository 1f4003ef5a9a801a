// Remote actors: fetched through the safe client, cached in the `actor` table, refreshed when
// older than a day or on demand (an Update, a failed signature). The handle is verified by
// WebFinger (so custom WebFinger domains are respected) and stored as @user@host.
import { eq } from 'drizzle-orm';
import { prepared, rowDecoder, type DbOrTx } from '../../../db/client';
import { actor, type Actor } from '../../../db/schema';
import type { FederationContext } from '../ports';
import { NotFoundError, UnavailableError } from '../errors';
import { ACTOR_TYPES, httpUrl, isObject, str, typeOf, type Json } from './ap';
import { fetchActivityDocument } from '../net/document-fetch';
import { authorOf } from './objects';
import { readDocument } from './read-document';
import { sanitizeActorHtml } from './sanitize';
import { webfingerActorId, webfingerSubjectOf } from './webfinger-client';
import { takeFetchedActor } from './fetched-actors';
import { bareOriginTwin, withoutTrailingSlashes } from '../trailing-slashes';

export const ACTOR_REFRESH_MS = 24 * 60 * 60 * 1000;

/** The updated_at of an actor whose stored document Tern does not vouch for (one brought from
 * microblog.pub, one whose actor was found gone): fetched again before any use, and its keys
 * never believed without a fetch (stored-keys.ts). updated_at is when Tern last checked it. */
export const UNCHECKED_ACTOR_DATE = new Date(0);

export interface ActorDeps {
  db: DbOrTx;
  fed: FederationContext;
  clock: () => Date;
}

const decodeActor = rowDecoder(actor);

/** The cached actor (prepared once per connection: every inbound activity looks its actor up). */
export function findActor(db: DbOrTx, apId: string): Actor | undefined {
  const byId = prepared<[string], Record<string, unknown>>(db, 'SELECT * FROM actor WHERE ap_id = ?');
  // A bare origin is one actor with or without its trailing slash (bareOriginTwin): without
  // this, an actor stored as `https://host` was fetched again at every mention of `https://host/`.
  const twin = bareOriginTwin(apId);
  const raw = byId.get(apId) ?? (twin === null ? undefined : byId.get(twin));
  return raw === undefined ? undefined : decodeActor(raw);
}

/** Fetches an actor document (through the SSRF-guarded client; signed when its server refuses
 * unsigned GETs, as GoToSocial does: document-fetch.ts) and checks its shape. It comes back with
 * its HTML sanitized, read off the main thread when large (read-document.ts). */
export async function fetchActorDocument(fed: FederationContext, apId: string): Promise<Json> {
  let text: string;
  let status: number;
  let finalUrl: string;
  try {
    const res = await fetchActivityDocument(fed, apId);
    status = res.response.status;
    text = res.text;
    finalUrl = res.response.url || apId;
  } catch (error) {
    throw new UnavailableError(`Could not fetch ${apId}: ${(error as Error).message}`);
  }
  if (status === 404 || status === 410) throw new NotFoundError(`${apId} does not exist (HTTP ${status}).`);
  if (status >= 400) throw new UnavailableError(`${new URL(apId).host} answered HTTP ${status} for ${apId}.`);
  const reading = await readDocument(text);
  if (!reading.ok) {
    throw reading.retryable ? new UnavailableError(`Could not fetch ${apId}: it ${reading.reason}.`) : new NotFoundError(`${apId} ${reading.reason}.`);
  }
  return checkActorDocument(apId, reading.doc, finalUrl);
}

/** What a fetched actor document must be: an actor, `apId` itself, served by its own server. */
export function checkActorDocument(apId: string, json: unknown, finalUrl: string): Json {
  if (!isObject(json) || !ACTOR_TYPES.has(typeOf(json) ?? '') || str(json.id) === null) {
    throw new NotFoundError(`${apId} is not an ActivityPub actor.`);
  }
  // The document must be the one asked for, served by its own server (no impersonation through
  // an open redirect elsewhere, or a lie).
  if (new URL(finalUrl).origin !== new URL(apId).origin) {
    throw new NotFoundError(`${apId} was redirected to another server (${new URL(finalUrl).host}).`);
  }
  if (withoutTrailingSlashes(str(json.id)!) !== withoutTrailingSlashes(apId)) {
    throw new NotFoundError(`${apId} answered with a different actor (${String(json.id)}).`);
  }
  return json;
}

/** The actor document of `apId`: the one the inbox fetched a moment ago while verifying the
 * activity's signature (fetched-actors.ts), checked the same way, or else a fetch. */
async function actorDocument(deps: ActorDeps, apId: string): Promise<Json> {
  const fetched = takeFetchedActor(deps.db, apId);
  if (fetched !== undefined) {
    try {
      return checkActorDocument(apId, fetched.document, fetched.documentUrl);
    } catch {
      // not usable as it is: fetch it as if it had never been handed over
    }
  }
  return fetchActorDocument(deps.fed, apId);
}

const sameActor = (a: string, b: string) => withoutTrailingSlashes(a) === withoutTrailingSlashes(b);

/** The actor's handle, @user@domain. A WebFinger answer is believed only when the handle's own
 * domain points back to this actor (Mastodon's rule) — otherwise any server could claim any
 * handle and receive the mentions and direct messages meant for it. Without a confirmed
 * answer: @preferredUsername@<host of the actor id>, which no other server can claim. */
export async function handleOf(fed: FederationContext, doc: Json): Promise<string | null> {
  const username = str(doc.preferredUsername);
  const id = str(doc.id);
  if (!username || !id) return null;
  const host = new URL(id).host;
  const fallback = `@${username}@${host}`;
  try {
    const subject = await webfingerSubjectOf(fed, id);
    if (!subject) return fallback;
    const handle = `@${subject.user}@${subject.domain}`;
    // A subject that is no handle (saveActor would refuse it) gives way to the fallback.
    if (validHandle(handle) === null) return fallback;
    if (subject.domain === host.toLowerCase()) return handle;
    // A custom WebFinger domain: ask that domain, and keep the handle only if it names this actor.
    return sameActor(await webfingerActorId(fed, subject.user, subject.domain), id) ? handle : fallback;
  } catch {
    // WebFinger is optional for a handle.
    return fallback;
  }
}

/** A handle as stored: `@user@host` with no markup, quotes, spaces or slashes in it (it comes
 * from a remote preferredUsername or WebFinger subject), and no control or format character —
 * a bidi override turns `@\u202Elaicos.nodotsam@evil.example` into what reads as
 * `@elpmaxe.live@mastodon.social`, and zero-width ones hide in a name that looks like another.
 * No server's user names have them (Mastodon's are [a-z0-9_]). At most as long as an address
 * can be (64 characters, @, a 253-character domain). Anything else is no handle. */
const HANDLE_RE = /^@[^\s<>"'`@/\\\p{Cc}\p{Cf}]+@[^\s<>"'`@/\\\p{Cc}\p{Cf}]+$/u;
const HANDLE_MAX_CHARS = 1 + 64 + 1 + 253;

/** `handle` when it may be stored and shown as one, else null. */
export function validHandle(handle: string | null): string | null {
  return handle !== null && handle.length <= HANDLE_MAX_CHARS && HANDLE_RE.test(handle) ? handle : null;
}

/** Stores (or refreshes) an actor document in the cache, its HTML sanitized, and returns the row. */
/**
 * The largest actor document kept, as JSON text after sanitizing. A post's views decode its
 * author's document with it (a 2 MiB actor took 180–280 ms per row, on the app's thread); real
 * ones are 3–60 KB (Mastodon's, Misskey's with many emoji).
 */
export const MAX_STORED_ACTOR_CHARS = 256 * 1024;

export function saveActor(db: DbOrTx, remoteDoc: Json, givenHandle: string | null, now: Date): Actor {
  const doc = sanitizeActorHtml(remoteDoc);
  const chars = JSON.stringify(doc).length;
  if (chars > MAX_STORED_ACTOR_CHARS) {
    throw new NotFoundError(`${String(doc.id)} has a profile too large to keep (${chars} characters of JSON, at most ${MAX_STORED_ACTOR_CHARS}).`);
  }
  const handle = validHandle(givenHandle);
  const apId = str(doc.id)!;
  const existing = findActor(db, apId);
  if (existing) {
    return db
      .update(actor)
      .set({ apActor: doc as Actor['apActor'], apType: typeOf(doc)!, handle: handle ?? existing.handle, updatedAt: now })
      .where(eq(actor.id, existing.id))
      .returning()
      .get();
  }
  return db
    .insert(actor)
    .values({ apId, apActor: doc as Actor['apActor'], apType: typeOf(doc)!, handle, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** Gives a stored actor the handle its own server's WebFinger confirmed, and nothing else: its
 * document and updated_at (when Tern last checked that document) stay as they were. */
export function setActorHandle(db: DbOrTx, row: Actor, givenHandle: string): Actor {
  const handle = validHandle(givenHandle);
  if (handle === null || handle === row.handle) return row;
  // updatedAt named: drizzle's $onUpdateFn would otherwise date it now.
  return db.update(actor).set({ handle, updatedAt: row.updatedAt }).where(eq(actor.id, row.id)).returning().get();
}

/** The cached actor, fetched when unknown or older than a day (or when `refresh` is set). With
 * `fresh`, always fetched from its server now, and a failure is thrown — never the cached copy
 * instead (for checks the actor's present word must answer: a Move's alias). */
export async function getOrFetchActor(deps: ActorDeps, apId: string, options: { refresh?: boolean; fresh?: boolean } = {}): Promise<Actor> {
  const url = httpUrl(apId);
  if (!url) throw new NotFoundError(`“${apId}” is not an actor URL.`);
  const cached = findActor(deps.db, apId);
  const stale = cached && deps.clock().getTime() - cached.updatedAt.getTime() > ACTOR_REFRESH_MS;
  const refresh = options.refresh === true || options.fresh === true;
  if (cached && !stale && !refresh) return cached;
  try {
    const doc = refresh ? await fetchActorDocument(deps.fed, apId) : await actorDocument(deps, apId);
    const handle = cached?.handle && !refresh ? cached.handle : await handleOf(deps.fed, doc);
    return saveActor(deps.db, doc, handle, deps.clock());
  } catch (error) {
    // A stale copy is better than nothing when the remote is down.
    if (cached && !options.fresh && error instanceof UnavailableError) return cached;
    throw error;
  }
}

/** The type (Person, Group…) of a cached actor by id, for objects.ts authorOf. */
export const cachedActorType =
  (db: DbOrTx) =>
  (apId: string): string | null =>
    findActor(db, apId)?.apType ?? null;

/**
 * The author of an object (objects.ts authorOf), fetched and cached — only on `origin` (a server
 * speaks for its own accounts). One listed by id alone that turns out to be a Group (a PeerTube
 * channel listed before its account) gives way to the next one listed. Null: no author there.
 */
export async function getOrFetchAuthor(deps: ActorDeps, object: Json, origin: string): Promise<Actor | null> {
  const tried = new Set<string>();
  let found: Actor | null = null;
  for (let id = authorOf(object, cachedActorType(deps.db)); id && !tried.has(id); id = authorOf(object, cachedActorType(deps.db))) {
    tried.add(id);
    if (originOf(id) !== origin) return found;
    found = await getOrFetchActor(deps, id);
    if (found.apType !== 'Group') return found;
  }
  return found;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
