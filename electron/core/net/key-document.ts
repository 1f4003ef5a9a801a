// Actor and key documents that use the security vocabulary without declaring it. Honk, Discourse
// and some Pleroma serve an actor whose `@context` is ActivityStreams alone next to a
// `publicKey {id, owner, publicKeyPem}`: to a JSON-LD processor (Fedify) those terms are
// undefined and dropped, so the key is "not found" and every activity of the actor is refused.
// Every server that reads such a document as plain JSON (Mastodon among them) takes the key, so
// Tern does the same in JSON-LD terms: the security context is added to the document's context
// before Fedify parses it. Nothing else changes — Fedify still finds the key by its id, verifies
// the signature with it, and the key's owner is still checked against the actor (signatures.ts).
import { preloadedContexts, type DocumentLoader, type RemoteDocument } from '@fedify/vocab-runtime';

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
const ACTIVITYSTREAMS = 'https://www.w3.org/ns/activitystreams';

const KEY_MEMBERS = ['@context', '@id', 'id', '@type', 'type', 'publicKey', 'assertionMethod', 'owner', 'controller', 'publicKeyPem', 'publicKeyMultibase'];

// What Fedify reads of one key: CryptographicKey (id, owner, publicKeyPem) and Multikey (id,
// controller, publicKeyMultibase), and the type that says which. A key kept whole was as costly
// as a document kept whole: a `publicKey` of 12,000 members of its own held the thread 0.4–1.8 s,
// an `owner` object of 12,000 members 0.17–0.97 s (measured, signed GETs).
const KEY_OBJECT_MEMBERS = ['@context', '@id', 'id', '@type', 'type', 'owner', 'controller', 'publicKeyPem', 'publicKeyMultibase'];

/** The most types, owners or controllers kept of one document or key (real ones name one). */
const MAX_LISTED = 8;

// The members of a term definition (JSON-LD 1.1 §9.15.1) kept. Not `@context`: a term's scoped
// context is a context of its own, as costly as the document's. Nor `@protected`, here or in a
// context (CONTEXT_SETTINGS): it only makes a later definition of the term an error, and inline
// contexts are joined (keyContext).
const TERM_DEFINITION_MEMBERS = ['@id', '@type', '@container', '@reverse', '@language', '@direction', '@prefix', '@nest', '@index'];

// The keywords of a context kept when a plain value: they cost nothing to process. Not `@import`
// (a context to fetch), `@propagate` or `@protected`.
const CONTEXT_SETTINGS = ['@vocab', '@base', '@language', '@direction', '@version'];

// Terms whose definition a key needs, beyond ActivityStreams' `id`, `type` and actor types.
const KEY_TERMS = new Set(['publicKey', 'assertionMethod', 'owner', 'controller', 'publicKeyPem', 'publicKeyMultibase', 'CryptographicKey', 'Key', 'Multikey']);

/** Whether a context defines a KEY_TERMS term (in a scoped context too), or names a shipped one that does. */
function definesKeyTerms(context: unknown, seen = new Set<string>()): boolean {
  if (typeof context === 'string') {
    if (!(context in preloadedContexts) || seen.has(context)) return false;
    seen.add(context);
    return definesKeyTerms((preloadedContexts[context] as Record<string, unknown>)['@context'], seen);
  }
  if (Array.isArray(context)) return context.some((c) => definesKeyTerms(c, seen));
  if (!isRecord(context)) return false;
  return Object.entries(context).some(([name, value]) => KEY_TERMS.has(name) || (isRecord(value) && '@context' in value && definesKeyTerms(value['@context'], seen)));
}

// The contexts Fedify ships (preloadedContexts, read from memory) that a key is read with:
// ActivityStreams, and those defining KEY_TERMS (security v1, identity v1, data integrity,
// DID, CID, Multikey, Lemmy's, which names security v1). The others (schema.org, GoToSocial's,
// Mastodon's, FEPs…) define nothing a key reads, and are left out like any other context:
// processing schema.org's 2,926 terms the first time held the listener's thread 280 ms
// (measured; the nine kept, in an order never seen before: 35 ms).
const KEY_CONTEXTS = new Set([ACTIVITYSTREAMS, ...Object.keys(preloadedContexts).filter((url) => definesKeyTerms(url))]);

/** The shipped context a key is read with (KEY_CONTEXTS) that `iri` names, or null. */
function keyContextNamed(iri: string): string | null {
  try {
    const href = new URL(iri).href;
    return KEY_CONTEXTS.has(href) ? href : null;
  } catch {
    return null;
  }
}

/** The first MAX_LISTED values of a list (a single value as it is), each made by `make`. */
function listed(value: unknown, make: (v: unknown) => unknown = (v) => v): unknown {
  return Array.isArray(value) ? value.slice(0, MAX_LISTED).map(make) : make(value);
}

/** An owner or controller as the id Fedify reads of it: an embedded actor is not parsed. */
function idOnly(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const name of ['@id', 'id']) if (name in value) kept[name] = value[name];
  return kept;
}

/** A member of a document or key, as finding its keys reads it (KEY_MEMBERS, KEY_OBJECT_MEMBERS). */
function keyMember(name: string, value: unknown): unknown {
  switch (name) {
    case 'publicKey':
    case 'assertionMethod':
      return keysOnly(value);
    case 'type':
    case '@type':
      return listed(value);
    case 'owner':
    case 'controller':
      return listed(value, idOnly);
    default:
      return value;
  }
}

/** The keys of a publicKey / assertionMethod member, each reduced to KEY_OBJECT_MEMBERS; URLs as they
 * are, and JSON-LD's @set / @list / @graph wrappers looked into (as keysIn counts them). */
function keysOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keysOnly);
  if (!isRecord(value)) return value;
  for (const wrapper of ['@set', '@list', '@graph']) if (wrapper in value) return { [wrapper]: keysOnly(value[wrapper]) };
  const kept: Record<string, unknown> = {};
  for (const name of KEY_OBJECT_MEMBERS) if (name in value) kept[name] = keyMember(name, value[name]);
  return kept;
}

/** The terms a reduced document uses: its members' names and its type names, in keys too. */
function termsUsedIn(value: unknown, terms: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) termsUsedIn(v, terms);
  } else if (isRecord(value)) {
    for (const [name, v] of Object.entries(value)) {
      if (name === '@context') continue;
      terms.add(name);
      if (name === 'type' || name === '@type') for (const t of [v].flat()) if (typeof t === 'string') terms.add(t);
      termsUsedIn(v, terms);
    }
  }
  return terms;
}

/** The definitions of one inline context of the terms in `terms` (each reduced to
 * TERM_DEFINITION_MEMBERS), and its plain settings (CONTEXT_SETTINGS); null if none. */
function definitionsUsed(context: Record<string, unknown>, terms: Set<string>): Record<string, unknown> | null {
  const kept: Record<string, unknown> = {};
  for (const setting of CONTEXT_SETTINGS) if (setting in context && !isRecord(context[setting]) && !Array.isArray(context[setting])) kept[setting] = context[setting];
  for (const term of terms) {
    if (term.startsWith('@') || !Object.hasOwn(context, term)) continue;
    const definition = context[term];
    if (!isRecord(definition)) kept[term] = definition;
    else {
      const members: Record<string, unknown> = {};
      for (const name of TERM_DEFINITION_MEMBERS) if (name in definition) members[name] = definition[name];
      kept[term] = members;
    }
  }
  return Object.keys(kept).length === 0 ? null : kept;
}

/** The prefixes the definitions are written with: `"Key": "sec:Key"` uses `sec`. */
function prefixesIn(definitions: Record<string, unknown> | null, into: Set<string>): void {
  for (const definition of Object.values(definitions ?? {})) {
    for (const iri of isRecord(definition) ? [definition['@id'], definition['@type']] : [definition]) {
      const prefix = typeof iri === 'string' ? /^([^:/@]+):/.exec(iri)?.[1] : undefined;
      if (prefix !== undefined) into.add(prefix);
    }
  }
}

/**
 * The `@context` a reduced document needs. jsonld processes a context list entry by entry, each
 * against a copy of the context so far, so the cost grows as the square of the list: 3,000
 * inline contexts (115 KB, well under the 256 KiB a signed GET reads) held the listener's thread
 * 2.8–11 s, 1,000 of them 0.8–1.6 s (measured). Kept: the shipped contexts a key is read with
 * (KEY_CONTEXTS, once each), and of the inline ones the definitions of the terms the document
 * uses (`terms`) and of the prefixes those are written with, neighbouring ones joined into one
 * (a later definition wins, as it would). A context at any other URL is not fetched for a key:
 * what it holds is as unbounded (the same 1,000 contexts served there held the thread 1.4–1.75 s),
 * and for the members kept it says what the shipped ones do (Pleroma's litepub context is
 * ActivityStreams and the security vocabulary, which withKeyVocabulary declares when missing):
 * in its place the document is read as ActivityStreams.
 */
function keyContext(context: unknown, terms: Set<string>): unknown {
  const entries = [context].flat();
  const wanted = new Set(terms);
  for (const entry of entries) if (isRecord(entry)) prefixesIn(definitionsUsed(entry, terms), wanted);
  const kept: unknown[] = [];
  let dropped = false;
  for (const entry of entries) {
    const named = typeof entry === 'string' ? keyContextNamed(entry) : null;
    if (named !== null) {
      if (!kept.includes(named)) kept.push(named);
    } else if (isRecord(entry)) {
      const definitions = definitionsUsed(entry, wanted);
      const last = kept.at(-1);
      if (definitions === null) continue;
      if (isRecord(last)) Object.assign(last, definitions);
      else kept.push(definitions);
    } else {
      dropped = true;
    }
  }
  if (dropped && !kept.includes(ACTIVITYSTREAMS)) kept.unshift(ACTIVITYSTREAMS);
  return !Array.isArray(context) && kept.length === 1 ? kept[0] : kept;
}

/** A reduced publicKey / assertionMethod value with each key's own `@context` reduced as its
 * document's is (keyContext, withKeyVocabulary): Fedify reads a key that has one as a document of
 * its own, not in its actor's context. */
function keyContexts(value: unknown, terms: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => keyContexts(v, terms));
  if (!isRecord(value)) return value;
  for (const wrapper of ['@set', '@list', '@graph']) if (wrapper in value) return { [wrapper]: keyContexts(value[wrapper], terms) };
  return '@context' in value ? withKeyVocabulary({ ...value, '@context': keyContext(value['@context'], terms) }) : value;
}

/** The members of `document` that finding its keys reads (KEY_MEMBERS, each key reduced to
 * KEY_OBJECT_MEMBERS), with the part of its `@context` they need (keyContext); a value that is not
 * an object as it is. */
export function keyMembersOnly(document: unknown): unknown {
  if (!isRecord(document)) return document;
  const kept: Record<string, unknown> = {};
  for (const name of KEY_MEMBERS) if (name in document) kept[name] = keyMember(name, document[name]);
  const terms = termsUsedIn(kept, new Set());
  if ('@context' in kept) kept['@context'] = keyContext(kept['@context'], terms);
  for (const name of ['publicKey', 'assertionMethod']) if (name in kept) kept[name] = keyContexts(kept[name], terms);
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
