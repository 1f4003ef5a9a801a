// Actor and key documents that use the security vocabulary without declaring it. Honk, Discourse
// and some Pleroma serve an actor whose `@context` is ActivityStreams alone next to a
// `publicKey {id, owner, publicKeyPem}`: to a JSON-LD processor (Fedify) those terms are
// undefined and dropped, so the key is "not found" and every activity of the actor is refused.
// Every server that reads such a document as plain JSON (Mastodon among them) takes the key, so
// Tern does the same in JSON-LD terms: the security context is added to the document's context
// before Fedify parses it. Nothing else changes — Fedify still finds the key by its id, verifies
// the signature with it, and the key's owner is still checked against the actor (signatures.ts).
import type { DocumentLoader, RemoteDocument } from '@fedify/vocab-runtime';

export const SECURITY_CONTEXT = 'https://w3id.org/security/v1';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a context (string, object or list) names a security vocabulary or defines `publicKey`. */
function declaresKeys(context: unknown): boolean {
  return [context].flat().some((c) => (typeof c === 'string' ? /^https:\/\/w3id\.org\/security\//.test(c) : isRecord(c) && 'publicKey' in c));
}

/** The document with the security context added when it carries a key (`publicKey`, or a key
 * document's `publicKeyPem`) in terms its own context does not define; else unchanged. The
 * security context goes right after ActivityStreams, so the document's own definitions still win. */
export function withKeyVocabulary(document: unknown): unknown {
  if (!isRecord(document) || !('publicKey' in document || 'publicKeyPem' in document)) return document;
  const context = document['@context'];
  if (context === undefined || declaresKeys(context)) return document;
  const list = [context].flat();
  const at = list.findIndex((c) => c === 'https://www.w3.org/ns/activitystreams');
  return { ...document, '@context': [...list.slice(0, at + 1), SECURITY_CONTEXT, ...list.slice(at + 1)] };
}

// What finding and checking a key reads of an actor or key document (Fedify's fetchKey and
// getKeyOwner, the LD signature's and the proof's key look-ups): the document's identity and
// its keys. The rest — a profile's attachments, tags, endpoints, or a hostile server's 30,000
// unknown terms — is not handed to Fedify for this: it expands the whole document as JSON-LD,
// and a 2 MiB actor took 0.5–5 s to read as a key. The full document still goes where the
// actor is stored (the loader under this one sees it whole).
const KEY_MEMBERS = ['@context', '@id', 'id', '@type', 'type', 'publicKey', 'assertionMethod', 'owner', 'controller', 'publicKeyPem', 'publicKeyMultibase'];

/** The members of `document` that finding its keys reads (KEY_MEMBERS); anything else as it is. */
export function keyMembersOnly(document: unknown): unknown {
  if (!isRecord(document)) return document;
  const kept: Record<string, unknown> = {};
  for (const name of KEY_MEMBERS) if (name in document) kept[name] = document[name];
  return kept;
}

/**
 * The most keys a key look-up reads from one document. Fedify walks an actor's keys until one
 * has the id asked for, importing each PEM on the way: an actor of 243 KB listing 680 keys, none
 * the one asked for, held the listener's thread 140–278 ms per signed GET (a fresh keyId each
 * time, so the key cache never helped), 4–14 ms once refused here (measured). Actors list one key
 * (Mastodon) or a few (Fedify: an RSA `publicKey` and its Ed25519 twin in `assertionMethod`).
 */
export const MAX_KEYS_PER_DOCUMENT = 16;

/** A key or actor document refused by the key look-up, with why. */
export class KeyDocumentRefusedError extends Error {
  override name = 'KeyDocumentRefusedError';
}

/** How many keys `value` (a publicKey / assertionMethod member) holds: each key, URL, or PEM or
 * multibase value of a key counts, and JSON-LD's @set / @list / @graph wrappers are looked into. */
function keysIn(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + keysIn(v), 0);
  if (!isRecord(value)) return value === undefined || value === null ? 0 : 1;
  for (const wrapper of ['@set', '@list', '@graph']) if (wrapper in value) return keysIn(value[wrapper]);
  return Math.max(1, keysIn(value.publicKeyPem) + keysIn(value.publicKeyMultibase));
}

/** How many keys a document holds, counted as keysIn counts them (a key document's own PEMs too). */
export function keyCountOf(document: unknown): number {
  if (!isRecord(document)) return 0;
  return keysIn(document.publicKey) + keysIn(document.assertionMethod) + keysIn(document.publicKeyPem) + keysIn(document.publicKeyMultibase);
}

/** A loader for key look-ups: each document reduced to its keys (keyMembersOnly), with the key
 * vocabulary it uses (withKeyVocabulary); one of more than MAX_KEYS_PER_DOCUMENT keys is refused
 * (KeyDocumentRefusedError) before Fedify reads it. */
export function keyVocabularyLoader(loader: DocumentLoader): DocumentLoader {
  return async (url, options): Promise<RemoteDocument> => {
    const remote = await loader(url, options);
    const keys = keyCountOf(remote.document);
    if (keys > MAX_KEYS_PER_DOCUMENT) {
      throw new KeyDocumentRefusedError(`${url} lists ${keys} keys; a key document may list at most ${MAX_KEYS_PER_DOCUMENT}`);
    }
    return { ...remote, document: withKeyVocabulary(keyMembersOnly(remote.document)) };
  };
}
