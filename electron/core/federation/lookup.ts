// Looking up remote actors and objects by handle or URL, through the one SSRF-guarded client:
// WebFinger for `@user@host`, a plain GET for URLs and a signed GET when the plain one is refused
// with 401/403 (servers in "authorized fetch" mode), an HTML page's `alternate` ActivityPub link.
// What is found is cached: actors in `actor`, objects in `inbox` (hidden from the stream).
// Errors say whether trying later can help: NotFoundError is final, UnavailableError is not.
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { actor as actorTable, inbox, outbox, type Actor, type InboxObject, type OutboxObject } from '../../../db/schema';
import type { FederationContext } from '../ports';
import { BadInputError, NotFoundError, UnavailableError } from '../errors';
import { NetError, BlockedAddressError, BodyTooLargeError, HostNotFoundError, UnsupportedSchemeError } from '../net/errors';
import { fetchActivityDocument } from '../net/document-fetch';
import { cachedActorType, findActor, getOrFetchActor, getOrFetchAuthor, setActorHandle } from './actors';
import { authorOf, isAttributedTo, isShowableType } from './objects';
import { webfingerActorId } from './webfinger-client';
import { ACTOR_TYPES, httpUrl, isObject, str, typeOf, type Json } from './ap';
import { isLocalActorId, isLocalUrl, type LocalActor } from './identity';
import { MAX_STORED_OBJECT_CHARS, persistInboxObject } from './process/store';
import { sanitizeObjectHtml } from './sanitize';
import { readDocument } from './read-document';

export interface LookupDeps {
  db: DbOrTx;
  fed: FederationContext;
  clock: () => Date;
  local: LocalActor;
}

const HANDLE_RE = /^@?([^@\s/]+)@([^@\s/]+)$/;

/** `@user@host` or `user@host` → parts; null for anything else. */
export function parseHandle(query: string): { user: string; host: string; handle: string } | null {
  const m = HANDLE_RE.exec(query.trim());
  if (!m) return null;
  const host = m[2]!.toLowerCase();
  return { user: m[1]!, host, handle: `@${m[1]}@${host}` };
}

export { webfingerActorId } from './webfinger-client';

/** The cached actor with this handle, if any. */
export function findActorByHandle(db: DbOrTx, handle: string): Actor | undefined {
  const parsed = parseHandle(handle);
  if (!parsed) return undefined;
  return db.select().from(actorTable).where(eq(actorTable.handle, parsed.handle)).get();
}

/** An actor by handle: from the cache, else WebFinger and a fetch (then cached). */
export async function resolveHandle(deps: LookupDeps, handle: string): Promise<Actor> {
  const parsed = parseHandle(handle);
  if (!parsed) throw new BadInputError(`“${handle}” is not a handle like @user@host.`);
  const cached = findActorByHandle(deps.db, parsed.handle);
  if (cached) return cached;
  const actorId = await webfingerActorId(deps.fed, parsed.user, parsed.host);
  const row = await getOrFetchActor(deps, actorId);
  // The handle the person was asked for is confirmed by their own server's WebFinger.
  if (row.handle !== parsed.handle && !findActorByHandle(deps.db, parsed.handle)) {
    return setActorHandle(deps.db, row, parsed.handle);
  }
  return row;
}

/** The href of the first `<link rel=alternate>` to an ActivityPub type in an HTML page. */
export function alternateLink(html: string): string | null {
  // Only up to the last `>`: past it no tag ends, and the regex, tried at each `<link` there,
  // would scan to the end of the page before failing — quadratic, 4 s for 128 KiB of `<link<link…`
  // (the client reads up to 2 MiB), on the main thread.
  const tags = html.slice(0, html.lastIndexOf('>') + 1).match(/<link\b[^>]*>/gi) ?? [];
  for (const tag of tags) {
    if (!/rel=["']?alternate/i.test(tag) || !/type=["']?application\/(activity\+json|ld\+json)/i.test(tag)) continue;
    const href = /href=["']([^"']+)["']/i.exec(tag)?.[1];
    if (href) return href.replace(/&amp;/g, '&');
  }
  return null;
}

/** GETs an ActivityPub document: plainly first, signed as the local actor when refused with
 * 401/403; follows one HTML `alternate` link. The id must be the URL's (no impersonation). The
 * document comes back with its HTML sanitized (read-document.ts). */
export async function fetchApDocument(deps: Pick<LookupDeps, 'fed' | 'local'>, url: string, hops = 0): Promise<Json> {
  if (!httpUrl(url)) throw new BadInputError(`“${url}” is not an http(s) URL.`);
  let res: { status: number; type: string; text: string; finalUrl: string };
  try {
    // Plainly, then signed as the local actor when refused 401/403 (document-fetch.ts).
    const { response, text } = await fetchActivityDocument(deps.fed, url, { keyId: deps.local.keyId });
    res = { status: response.status, type: response.headers.get('content-type') ?? '', text, finalUrl: response.url || url };
  } catch (error) {
    if (error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError || error instanceof HostNotFoundError) {
      throw new NotFoundError((error as Error).message);
    }
    if (error instanceof BodyTooLargeError) throw new NotFoundError(`${url} is larger than an ActivityPub document may be (${error.limitBytes} bytes).`);
    if (error instanceof NetError) throw new UnavailableError(`Could not fetch ${url}: ${error.message}`);
    throw error;
  }
  if (res.status === 404 || res.status === 410) throw new NotFoundError(`${url} does not exist (HTTP ${res.status}).`);
  if (res.status >= 500 || res.status === 429) throw new UnavailableError(`${new URL(url).host} answered HTTP ${res.status} for ${url}.`);
  if (res.status >= 400) throw new NotFoundError(`${url} is not available (HTTP ${res.status}).`);
  if (/text\/html/i.test(res.type)) {
    const alternate = alternateLink(res.text);
    if (alternate && hops === 0) return fetchApDocument(deps, new URL(alternate, res.finalUrl).href, 1);
    throw new NotFoundError(`${url} is a web page without an ActivityPub version.`);
  }
  // Parsed and sanitized, on the page reader's worker when large (read-document.ts).
  const reading = await readDocument(res.text);
  if (!reading.ok) throw new NotFoundError(`${url} ${reading.reason}.`);
  const json = reading.doc;
  if (typeOf(json) === null || !str(json.id)) throw new NotFoundError(`${url} is not an ActivityPub object.`);
  const id = str(json.id)!;
  // A profile or post URL may answer with a document whose id differs (url vs id); it must at
  // least live on the same server, and the caller re-fetches the id when that matters.
  if (new URL(id).origin !== new URL(res.finalUrl).origin) throw new NotFoundError(`${url} answered with an object from elsewhere (${id}).`);
  return json;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

export type Found = { kind: 'actor'; actor: Actor } | { kind: 'object'; row: InboxObject } | { kind: 'own'; row: OutboxObject };

/** A remote object row, stored (hidden from the stream) with its author cached. One stored
 * already (received through a boost, say) is the same row, refreshed from this copy — just
 * fetched from its own server — when it still credits the same author. */
export async function storeRemoteObject(deps: LookupDeps, doc: Json): Promise<InboxObject> {
  const apId = str(doc.id)!;
  const existing = deps.db.select().from(inbox).where(eq(inbox.apId, apId)).get();
  if (existing) return refreshed(deps, existing, doc);
  const type = typeOf(doc);
  if (!isShowableType(type)) throw new NotFoundError(`${apId} is a ${type ?? 'thing without a type'}, not a post.`);
  const authorId = authorOf(doc, cachedActorType(deps.db));
  if (!authorId) throw new NotFoundError(`${apId} has no author.`);
  // A server speaks only for its own accounts: an object credited to an actor elsewhere is a forgery.
  const author = await getOrFetchAuthor(deps, doc, originOf(apId));
  if (!author) throw new NotFoundError(`${apId} claims an author on another server (${authorId}).`);
  // Another look-up may have stored it while we fetched the author.
  const again = deps.db.select().from(inbox).where(eq(inbox.apId, apId)).get();
  if (again) return again;
  return persistInboxObject(deps.db, { object: sanitizeObjectHtml(doc), apId, actor: author, now: deps.clock(), hidden: true });
}

function refreshed(deps: LookupDeps, row: InboxObject, doc: Json): InboxObject {
  if (row.isDeleted || !isShowableType(typeOf(doc)) || !isAttributedTo(doc, row.apActorId)) return row;
  const apObject = sanitizeObjectHtml(doc) as InboxObject['apObject'];
  // Grown past what is kept (store.ts MAX_STORED_OBJECT_CHARS): the stored copy stays.
  if (JSON.stringify(apObject).length > MAX_STORED_OBJECT_CHARS) return row;
  return deps.db.update(inbox).set({ apObject, updatedAt: deps.clock() }).where(eq(inbox.id, row.id)).returning().get() ?? row;
}

/** Finds an object or actor by URL, handle or id: ours, cached, or fetched and cached. */
export async function lookup(deps: LookupDeps, query: string): Promise<Found> {
  const q = query.trim();
  const handle = parseHandle(q);
  if (handle && !httpUrl(q)) return { kind: 'actor', actor: await resolveHandle(deps, handle.handle) };
  const url = httpUrl(q);
  if (!url) throw new BadInputError(`“${query}” is neither a handle (@user@host) nor a URL.`);
  if (isLocalActorId(url, deps.local)) throw new BadInputError('That is you.');
  if (isLocalUrl(url, deps.local)) {
    const own = deps.db.select().from(outbox).where(eq(outbox.apId, url)).get();
    if (own) return { kind: 'own', row: own };
    throw new NotFoundError(`${url} is not one of your posts.`);
  }
  const cachedActor = findActor(deps.db, url);
  if (cachedActor) return { kind: 'actor', actor: cachedActor };
  const cachedObject = deps.db.select().from(inbox).where(eq(inbox.apId, url)).get();
  if (cachedObject) return { kind: 'object', row: cachedObject };

  const doc = await fetchApDocument(deps, url);
  const id = str(doc.id)!;
  if (ACTOR_TYPES.has(typeOf(doc) ?? '')) {
    // Fetch by id so the stored document is the one its server serves under that id.
    return { kind: 'actor', actor: await getOrFetchActor(deps, id) };
  }
  let object = typeOf(doc) === 'Create' && isObject(doc.object) ? doc.object : doc;
  // An object embedded from another server is not believed: fetch it from its own id.
  const objectId = str(object.id);
  if (!objectId) throw new NotFoundError(`${url} holds an object without an id.`);
  if (originOf(objectId) !== originOf(id)) {
    object = await fetchApDocument(deps, objectId);
    if (str(object.id) !== objectId) throw new NotFoundError(`${objectId} answered with another object (${String(object.id)}).`);
  }
  return { kind: 'object', row: await storeRemoteObject(deps, object) };
}

/** An object to act on (like, boost, bookmark, reply): cached, else fetched when online. */
export async function findOrFetchObject(deps: LookupDeps & { isOnline: () => boolean }, apId: string): Promise<Found> {
  const own = deps.db.select().from(outbox).where(eq(outbox.apId, apId)).get();
  if (own) return { kind: 'own', row: own };
  const cached = deps.db.select().from(inbox).where(eq(inbox.apId, apId)).get();
  if (cached) return { kind: 'object', row: cached };
  if (!deps.isOnline()) throw new UnavailableError('Tern is offline and has not seen this post before; try again when online.');
  const found = await lookup(deps, apId);
  if (found.kind === 'actor') throw new BadInputError(`${apId} is an account, not a post.`);
  return found;
}
