// Keys of known actors survive a restart: the key cache (net/key-cache.ts) reads a key it does
// not hold from the actor's document as stored in the `actor` table, instead of fetching it.
// Without this, every sender's first activity after Tern starts waited for a fetch of its key:
// the laptop that comes back online is exactly when a backlog arrives from many servers at once.
//
// Trust is that of a fresh fetch. A stored document is one that was fetched from the actor's own
// server and checked (actors.ts checkActorDocument), or that the actor itself sent in a signed
// Update: a document can only be stored under its own id, so a key is taken only from the
// document of the actor that owns it, never from another's. A key that has since been rotated
// fails the signature, and Fedify then fetches it again once, bypassing the cache. Documents not
// refreshed for STORED_KEY_MAX_AGE_MS are not used — among them those Tern does not vouch for,
// dated UNCHECKED_ACTOR_DATE (brought from microblog.pub, or whose actor was found gone) — nor are
// those of an actor that sent the Delete of itself (its key would be gone from its server): their
// keys are fetched as before.
import { prepared, type DbOrTx } from '../../../db/client';
import type { PersistentKeyStore, StoredKey } from '../net/key-cache';
import { SECURITY_CONTEXT } from '../net/key-document';
import { keyBelongsToActor } from '../net/signatures';
import { isObject, str, type Json } from './ap';
import { findActor } from './actors';

/** How old a stored actor document may be for its keys to be used without a fetch. */
export const STORED_KEY_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1';

/**
 * The ids under which the owner of `keyId` may be stored, most likely first:
 * `https://host/users/a#main-key` (Mastodon, Misskey, Pleroma, Lemmy, Fedify) → the document
 * without its fragment; `https://host/users/a/main-key` (GoToSocial) → the path without its last
 * segment; and the key id itself (an actor whose one key is named by the actor's id).
 */
export function ownerCandidates(keyId: string): string[] {
  let url: URL;
  try {
    url = new URL(keyId);
  } catch {
    return [];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [];
  const candidates: string[] = [];
  if (url.hash !== '') {
    url.hash = '';
    candidates.push(url.href);
  } else {
    const cut = url.pathname.replace(/\/+$/, '').lastIndexOf('/');
    if (cut > 0 && url.search === '') candidates.push(`${url.origin}${url.pathname.slice(0, cut)}`);
  }
  candidates.push(keyId);
  return [...new Set(candidates)];
}

const listed = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Whether a key id a document lists is `keyId` as a URL: a bare-origin actor publishes
 * `https://host#main-key`, which Fedify asks for as `https://host/#main-key`. */
function sameKeyId(listedId: string | null, keyId: string): boolean {
  if (listedId === null) return false;
  if (listedId === keyId) return true;
  try {
    return new URL(listedId).href === new URL(keyId).href;
  } catch {
    return false;
  }
}

/** The key `keyId` as the document `doc` (of actor `actorId`) lists it, as JSON-LD the key cache
 * parses, or null when the document does not list it as its own. */
export function keyInDocument(doc: Json, actorId: string, keyId: string): string | null {
  for (const entry of listed(doc.publicKey)) {
    if (!isObject(entry) || !sameKeyId(str(entry.id), keyId)) continue;
    const pem = str(entry.publicKeyPem);
    const owner = str(entry.owner) ?? actorId;
    if (pem === null || !keyBelongsToActor(owner, actorId)) continue;
    return JSON.stringify({ '@context': SECURITY_CONTEXT, id: keyId, type: 'CryptographicKey', owner: actorId, publicKeyPem: pem });
  }
  for (const entry of listed(doc.assertionMethod)) {
    if (!isObject(entry) || !sameKeyId(str(entry.id), keyId) || str(entry.type) !== 'Multikey') continue;
    const multibase = str(entry.publicKeyMultibase);
    const controller = str(entry.controller) ?? actorId;
    if (multibase === null || !keyBelongsToActor(controller, actorId)) continue;
    return JSON.stringify({ '@context': MULTIKEY_CONTEXT, id: keyId, type: 'Multikey', controller: actorId, publicKeyMultibase: multibase });
  }
  return null;
}

/** Whether the actor's Delete of itself is stored (process/delete.ts onActorDeleted). */
function deletedItself(db: DbOrTx, actorRowId: number, apId: string): boolean {
  const found = prepared<[string, number], { one: number }>(
    db,
    "SELECT 1 AS one FROM inbox WHERE activity_object_ap_id = ? AND actor_id = ? AND ap_type = 'Delete' LIMIT 1",
  ).get(apId, actorRowId);
  return found !== undefined;
}

/** A read-only store over the `actor` table (the inbox checks worker never writes the database;
 * keys fetched are kept in memory, and the actor's document is stored by the processor). */
export function storedActorKeys(db: DbOrTx, clock: () => Date, maxAgeMs = STORED_KEY_MAX_AGE_MS): PersistentKeyStore {
  return {
    get(keyId: string): Promise<StoredKey | null> {
      for (const candidate of ownerCandidates(keyId)) {
        const row = findActor(db, candidate);
        if (row === undefined) continue;
        if (clock().getTime() - row.updatedAt.getTime() > maxAgeMs || deletedItself(db, row.id, row.apId)) return Promise.resolve(null);
        const doc = row.apActor as Json;
        const json = isObject(doc) ? keyInDocument(doc, row.apId, keyId) : null;
        if (json !== null) return Promise.resolve({ json, owner: row.apId });
      }
      return Promise.resolve(null);
    },
  };
}
