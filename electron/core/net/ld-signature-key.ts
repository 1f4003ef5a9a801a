// Which published key an LD signature's `creator` names, when its text is not the key's id.
// Fedify looks the creator up by its URL as the URL parser writes it (host case and a default
// port do not matter) and takes only a key of exactly that id, or an actor's only key for an id
// without a fragment. So for an actor publishing `https://host/users/a#main-key`, a creator
// written `https://host/users/%61#main-key` (an escaped letter), `…/users/a/#main-key` (a
// trailing slash) or `…/users/a/main-key` found no key, nor did `<actor>#main-key` for a
// GoToSocial actor, whose key is `<actor>/main-key`; though the actor's document holds the key
// that signed. Every server that checks these signatures reads the creator loosely: Mastodon by
// the actor id up to the '#' (LinkedDataSignature#verify_actor!, TagManager#uri_to_actor; its
// spec signs with the bare actor id as creator), Pleroma also cutting a `/main-key` or
// `/publickey` suffix (Pleroma.Signature.key_id_to_actor_id). Here the creator is resolved to a
// key of the activity's own actor only — one the key cache holds for it already (from its HTTP
// signatures, say), else one its document publishes — owned by it and at its origin; nothing a
// third server says is believed.
import { CryptographicKey, isActor, Object as ASObject } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import type { TernKeyCache } from './key-cache';
import { withoutFragment, withoutTrailingSlashes } from '../trailing-slashes';

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** `text` with RFC 3986 §6.2.2.1–2 percent-encoding normalisation: an unreserved character
 * encoded (`%61`) is written plainly, any other escape in upper case (`%c3` → `%C3`). */
function normalizedEscapes(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * A key id (or an actor id) in the form two of them are compared in: parsed as a URL (scheme and
 * host in lower case, the default port dropped, dot segments resolved), escapes normalised as
 * RFC 3986 §6.2.2 says, and the path without trailing slashes (the actor-id rule of
 * normalizeActorId, interop-notes). Null for text that is not a URL.
 */
export function normalizeKeyId(id: string): string | null {
  let url: URL;
  try {
    url = new URL(id);
  } catch {
    return null;
  }
  url.pathname = withoutTrailingSlashes(normalizedEscapes(url.pathname));
  url.search = normalizedEscapes(url.search);
  url.hash = normalizedEscapes(url.hash);
  const href = url.href;
  // `https://host/` and `https://host` are one id; the URL parser always writes the slash.
  return url.pathname === '/' ? href.replace(/\/(?=[?#]|$)/, '') : href;
}

/** Suffixes a key id is written with after the actor id (Pleroma's @known_suffixes): GoToSocial
 * publishes `<actor>/main-key`, older Misskey and others `<actor>/publickey`. */
const KEY_PATH_SUFFIXES = ['/main-key', '/publickey'];

/**
 * Whether `creator` names the actor rather than one of its keys by id: the actor id itself, or it
 * with `#main-key`, or with one of KEY_PATH_SUFFIXES — the forms servers write for "this actor's
 * key" without looking at the id the actor publishes.
 */
export function creatorNamesActor(creator: URL, actorId: string): boolean {
  const actor = normalizeKeyId(actorId);
  if (actor === null || !(creator.hash === '' || creator.hash === '#main-key')) return false;
  const document = normalizeKeyId(withoutFragment(creator.href));
  if (document === null) return false;
  if (document === actor) return true;
  return creator.hash === '' && KEY_PATH_SUFFIXES.some((suffix) => document.endsWith(suffix) && document.slice(0, -suffix.length) === actor);
}

/**
 * A key already in the cache that `creator` names for `actorId`, so that no document is fetched:
 * the one under the creator's normalised id, or, when the creator names the actor, under an id
 * servers give an actor's key (`#main-key`, KEY_PATH_SUFFIXES). Taken only when the cache says
 * it is the actor's: at its origin, owned by it, and either inside its document or an owner the
 * cache confirmed (resolveOwner). A key since rotated fails to verify, and is then looked for in
 * the actor's document (publishedKeyFor).
 */
export async function cachedKeyFor(creator: URL, actorId: string, keyCache: TernKeyCache): Promise<CryptographicKey | null> {
  const actor = normalizeKeyId(actorId);
  const named = normalizeKeyId(creator.href);
  if (actor === null || named === null || creator.origin !== new URL(actorId).origin) return null;
  const candidates = new Set([named]);
  if (creatorNamesActor(creator, actorId)) for (const form of ['#main-key', ...KEY_PATH_SUFFIXES]) candidates.add(`${actor}${form}`);
  candidates.delete(creator.href); // what Fedify looked for already
  for (const candidate of candidates) {
    const key = await keyCache.peek(candidate);
    if (!(key instanceof CryptographicKey) || key.id === null || key.ownerId === null || key.id.origin !== creator.origin) continue;
    if (normalizeKeyId(key.ownerId.href) !== actor) continue;
    const confirmed = keyCache.confirmedOwner(key.id.href);
    const inActorDocument = normalizeKeyId(withoutFragment(key.id.href)) === actor;
    if (inActorDocument || (confirmed !== undefined && normalizeKeyId(confirmed) === actor)) return key;
  }
  return null;
}

/**
 * The key of `actorId`'s document that `creator` names, or null. The creator must be at the
 * actor's origin. A published key whose id normalises as the creator does (normalizeKeyId) is
 * it; else, when the creator names the actor (creatorNamesActor), the actor's one key owned by
 * it (with several, the creator does not say which, and none is taken). The key found is always
 * owned by the actor and at its origin. `documentLoader` should be the one the verification
 * used, so the actor's document is not fetched again.
 */
export async function publishedKeyFor(
  creator: URL,
  actorId: string,
  documentLoader: DocumentLoader,
  contextLoader: DocumentLoader,
): Promise<CryptographicKey | null> {
  const actorUrl = normalizeKeyId(actorId);
  const wanted = normalizeKeyId(creator.href);
  if (actorUrl === null || wanted === null || creator.origin !== new URL(actorId).origin) return null;
  let actor: ASObject;
  try {
    const { document } = await documentLoader(new URL(actorId).href);
    actor = await ASObject.fromJsonLd(document, { documentLoader, contextLoader });
  } catch {
    return null;
  }
  if (!isActor(actor) || actor.id === null || normalizeKeyId(actor.id.href) !== actorUrl) return null;
  const owned: CryptographicKey[] = [];
  try {
    for await (const key of actor.getPublicKeys({ documentLoader, contextLoader, suppressError: true })) {
      const id = key.id;
      const owner = key.ownerId;
      if (id === null || owner === null || key.publicKey === null) continue;
      if (id.origin !== creator.origin || normalizeKeyId(owner.href) !== actorUrl) continue;
      if (normalizeKeyId(id.href) === wanted) return key;
      owned.push(key);
    }
  } catch {
    return null;
  }
  return owned.length === 1 && creatorNamesActor(creator, actorId) ? owned[0]! : null;
}
