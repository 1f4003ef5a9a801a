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

/** A loader for key look-ups: each document reduced to its keys (keyMembersOnly), with the key
 * vocabulary it uses (withKeyVocabulary). */
export function keyVocabularyLoader(loader: DocumentLoader): DocumentLoader {
  return async (url, options): Promise<RemoteDocument> => {
    const remote = await loader(url, options);
    return { ...remote, document: withKeyVocabulary(keyMembersOnly(remote.document)) };
  };
}
