// HTTP signatures for Tern, as thin wrappers over Fedify's signRequest / verifyRequestDetailed
// (no hand-written crypto): signing outgoing requests with spec negotiation ("double knock"),
// and verifying inbound ones down to the actor who owns the key. Also Linked Data signatures
// (RsaSignature2017, Mastodon's), over Fedify's createSignature / verifyJsonLd: what lets a
// server forward an activity it did not write, and lets us forward replies to our posts.
import {
  createSignature,
  getKeyOwner,
  hasProofLike,
  signRequest,
  verifyJsonLd,
  verifyObject,
  verifyRequestDetailed,
  type HttpMessageSignaturesSpec,
  type HttpMessageSignaturesSpecDeterminer,
  type KeyCache,
} from '@fedify/fedify';
import { Activity, CryptographicKey } from '@fedify/vocab';
import { preloadedContexts, type DocumentLoader } from '@fedify/vocab-runtime';
import { createHash } from 'node:crypto';
import { TooManyRedirectsError } from './errors';
import { headerRecord, type HttpClient } from './http-client';
import type { TernKeyCache } from './key-cache';
import { preloadedContextLoader } from './document-loader';
import { KeyDocumentRefusedError, keyVocabularyLoader } from './key-document';
import { precheckSignedRequest } from './signature-precheck';
import { noTracing } from './no-tracing';
import { withoutFragment, withoutTrailingSlashes } from '../trailing-slashes';
import { cachedKeyFor, publishedKeyFor } from './ld-signature-key';

export type SignatureSpec = HttpMessageSignaturesSpec;
export { createKeyCache, type KeyCacheOptions, type KeyCacheStats, type PersistentKeyStore, type TernKeyCache } from './key-cache';
export { exportPublicKeyPem, generateKeyPairFiles, loadKeyPair, type TernKeyPairs } from './key-files';
export { ACTIVITY_ACCEPT, createContextLoader, createDocumentLoader, preloadedContextLoader } from './document-loader';

// ---------------------------------------------------------------------------------------------
// Outgoing

/** Which spec each origin accepted last; Fedify's determiner interface, kept in memory.
 *
 * An origin not heard from yet is first sent draft-cavage, then RFC 9421 if it answers 400 or
 * 401. Fedify knocks the other way round, but draft-cavage is what every server in the wild
 * verifies (Mastodon, Misskey, Pleroma, GoToSocial, Lemmy, microblog.pub; Fedify-based servers
 * take both), so starting there spares most origins a second RSA sign and round trip per
 * session. It is also the lighter of Fedify's two signers (no structured fields, no Temporal,
 * one Request fewer): measured in the fan-out bench, −13% CPU per delivery. */
export interface SpecMemory extends HttpMessageSignaturesSpecDeterminer {
  determineSpec(origin: string): SignatureSpec;
  rememberSpec(origin: string, spec: SignatureSpec): void;
  known(origin: string): SignatureSpec | undefined;
}

/** The spec tried first with an origin not heard from yet. */
export const FIRST_KNOCK: SignatureSpec = 'draft-cavage-http-signatures-12';

export function createSpecMemory(maxOrigins = 10_000): SpecMemory {
  const specs = new Map<string, SignatureSpec>();
  return {
    determineSpec: (origin) => specs.get(origin) ?? FIRST_KNOCK,
    known: (origin) => specs.get(origin),
    rememberSpec(origin, spec) {
      specs.delete(origin);
      specs.set(origin, spec);
      if (specs.size > maxOrigins) specs.delete(specs.keys().next().value ?? '');
    },
  };
}

/** Shared by every signedFetch that does not bring its own. */
export const defaultSpecMemory = createSpecMemory();

export interface SignedFetchOptions {
  /** Our key id, e.g. https://example.com/#main-key, as Fedify signs with it (a URL). */
  keyId: URL;
  /** The key id as the actor document publishes it (publicKey.id), when its text is not the
   * URL's: `https://example.com#main-key` (the URL form adds a slash). A draft-cavage signature
   * names it so, as microblog.pub's do (reference §5): the keyId is not part of what that
   * signature covers, and Mastodon finds the signer's account by the keyId up to its '#'
   * (TagManager#uri_to_resource, an exact match with the actor id): `https://example.com/` never
   * matched the actor `https://example.com`, so Mastodon fetched Tern's actor back at every
   * signed request, and could verify none while Tern's listener was off. */
  publishedKeyId?: string;
  privateKey: CryptoKey;
  /** Spec to try first; default: what the origin accepted last, else FIRST_KNOCK (draft-cavage). */
  spec?: SignatureSpec;
  specMemory?: SpecMemory;
  /** The body to send, when the caller has its bytes: then `request` needs none (saves copies). */
  body?: ArrayBuffer | null;
  /** Aborts the request; default `request.signal` (a Request built without one saves a copy). */
  signal?: AbortSignal;
  /** Awaited after each signature is made and before its request goes out (the delivery loop
   * paces its work on the app's thread with it). */
  beforeSend?: () => Promise<void>;
  /** SHA-256 of `body`, base64, when the caller already has it (a fan-out sends one body to
   * many inboxes): it goes into Digest / Content-Digest as it is, so it must be right. */
  bodySha256?: string;
  /** The answer's body cap; default the client's. */
  maxBodyBytes?: number;
  /** Told when a request has left in full (NetRequestInit.onSent), for each knock and hop. */
  onSent?: () => void;
}

/** Digest / Content-Digest for a body, in Fedify's own format, computed once per signedFetch
 * (Fedify adds one only when the header is missing; it would hash again on every knock). */
function digestHeader(spec: SignatureSpec, sha256: string): [string, string] {
  return spec === 'rfc9421' ? ['content-digest', `sha-256=:${sha256}:`] : ['digest', `SHA-256=${sha256}`];
}

/** What Fedify's RFC 9421 signature covers for a request with a body (its defaults). */
const RFC9421_COMPONENTS_WITH_BODY = ['@method', '@target-uri', '@authority', 'host', 'date', 'content-digest'].map((value) => ({ value, params: {} }));

// Statuses that mean "I could not verify that signature". Fedify knocks again on any status
// >= 400; a 403 or 404 usually means something else (blocked, gone), so only these.
const RETRY_WITH_OTHER_SPEC = new Set([400, 401]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const otherSpec = (spec: SignatureSpec): SignatureSpec =>
  spec === 'rfc9421' ? 'draft-cavage-http-signatures-12' : 'rfc9421';

/** A request to sign given as its parts, for callers that would build a Request only to hand
 * it over (the delivery loop: Fedify builds its own Requests from these anyway). */
export interface OutgoingRequest {
  url: string | URL;
  method: string;
  headers?: HeadersInit;
  /** 'manual' returns redirects as they are; default: follow them, re-signed. */
  redirect?: RequestRedirect;
}

/**
 * Signs `request` (adding Digest or Content-Digest, Date and Host as Fedify does) and sends it
 * through `client`. If the peer answers 400/401, signs again with the other spec and retries
 * once; the spec that worked is remembered for the origin. Redirects are followed here, re-signed
 * for each new URL, so every hop still passes the client's SSRF guard.
 */
export async function signedFetch(client: HttpClient, request: Request | OutgoingRequest, options: SignedFetchOptions): Promise<Response> {
  const memory = options.specMemory ?? defaultSpecMemory;
  const isRequest = request instanceof Request;
  let body =
    options.body !== undefined ? options.body : !isRequest || request.body === null ? null : await request.clone().arrayBuffer();
  // A plain record by lower-case name (the client's own reading): each knock copies it into the Request that Fedify signs
  // (which checks names and values), with no Headers object built and read back in between.
  const headers = headerRecord(request.headers);
  headers['user-agent'] ??= client.userAgent;
  delete headers.host;
  let method = request.method;
  let url = new URL(request.url);
  const signal = options.signal ?? (isRequest ? request.signal : undefined);
  const redirect = request.redirect ?? 'follow';
  let sha256: string | null = options.body !== undefined && options.body !== null ? (options.bodySha256 ?? null) : null;

  for (let hop = 0; ; hop++) {
    if (body !== null) sha256 ??= createHash('sha256').update(new Uint8Array(body)).digest('base64');
    const send = async (spec: SignatureSpec) => {
      const signedHeaders: Record<string, string> = { ...headers };
      if (body !== null && sha256 !== null) {
        const [name, value] = digestHeader(spec, sha256);
        signedHeaders[name] ??= value;
      }
      // Date as Fedify would write it (an HTTP date, now), set here because Fedify formats its
      // own through a Temporal round trip that costs more than the rest of the headers.
      signedHeaders.date ??= new Date().toUTCString();
      // The body travels beside the request (rawBody): the client sends these bytes without
      // reading them back out of a stream. Only the signed headers are taken from Fedify's
      // Request: the client gets the URL, method and signal directly. Fedify is not given the
      // body either: its digest header is already here (so Fedify would not hash it again),
      // and with a body Fedify builds its returned Request around a copy of the bytes in a new
      // stream, unused. What the body changes is said outright instead: RFC 9421 covers
      // content-digest (Fedify's own components with a body), draft-cavage covers every header
      // present, Digest included.
      const unsigned = new Request(url, { method, headers: signedHeaders });
      const signed = await signRequest(unsigned, options.privateKey, options.keyId, {
        spec,
        body: null,
        tracerProvider: noTracing,
        ...(body !== null && spec === 'rfc9421' ? { rfc9421: { components: RFC9421_COMPONENTS_WITH_BODY } } : {}),
      });
      // Read once out of Fedify's Headers (the client takes them as they are, checked there).
      const sent = headerRecord(signed.headers);
      if (spec !== 'rfc9421') withPublishedKeyId(sent, options.keyId, options.publishedKeyId);
      if (options.beforeSend) await options.beforeSend();
      return client.fetch(url, {
        method,
        checkedHeaders: sent,
        ...(signal === undefined ? {} : { signal }),
        redirect: 'manual',
        rawBody: body === null ? null : new Uint8Array(body),
        ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
        ...(options.onSent === undefined ? {} : { onSent: options.onSent }),
      });
    };
    const first = hop === 0 && options.spec !== undefined ? options.spec : memory.determineSpec(url.origin);
    let spec = first;
    let response = await send(first);
    if (RETRY_WITH_OTHER_SPEC.has(response.status)) {
      await response.body?.cancel();
      spec = otherSpec(first);
      response = await send(spec);
    }
    if (response.status < 400) memory.rememberSpec(url.origin, spec);

    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null || redirect === 'manual') return response;
    await response.body?.cancel();
    if (hop >= client.maxRedirects) throw new TooManyRedirectsError(String(request.url), client.maxRedirects);
    const next = new URL(location, url);
    if (next.origin !== url.origin) for (const name of ['authorization', 'cookie']) delete headers[name];
    url = next;
    if (response.status === 303 && method !== 'GET' && method !== 'HEAD') {
      method = 'GET';
      body = null;
      for (const name of ['content-type', 'digest', 'content-digest']) delete headers[name];
    }
  }
}

/** Writes a draft-cavage Signature's keyId in `headers` (by lower-case name) as published
 * (SignedFetchOptions.publishedKeyId); nothing changes when there is nothing to rewrite. */
function withPublishedKeyId(headers: Record<string, string>, keyId: URL, published: string | undefined): void {
  if (published === undefined || published === keyId.href) return;
  const signature = headers.signature;
  const signedAs = `keyId="${keyId.href}"`;
  if (signature === undefined || !signature.includes(signedAs)) return;
  // A function, so that `$&` or `$1` in the published id are written as they are.
  headers.signature = signature.replace(signedAs, () => `keyId="${published}"`);
}

// ---------------------------------------------------------------------------------------------
// Incoming

export type VerifyFailureReason = 'unsigned' | 'bad_signature' | 'expired' | 'digest_mismatch' | 'digest_list' | 'query_not_covered' | 'key_unavailable' | 'too_many_keys';

export type VerifyInboundResult =
  | { ok: true; keyId: string; ownerActorId: string; spec: SignatureSpec }
  | { ok: false; reason: VerifyFailureReason; keyId?: string; keyFetchStatus?: number };

export interface VerifyInboundDeps {
  /** Loads key and actor documents (createDocumentLoader over the safe client). */
  documentLoader: DocumentLoader;
  /** Loads JSON-LD contexts; default documentLoader. */
  contextLoader?: DocumentLoader;
  keyCache: TernKeyCache;
  clock?: () => Date;
  /** Accepted clock skew either way for Date / created / expires. Default 3600. */
  timeWindowSeconds?: number;
}

/**
 * Verifies the HTTP signature of an inbound request (RFC 9421 or draft-cavage) and finds the
 * actor owning the key, for the caller to compare with the activity's `actor`
 * (keyBelongsToActor). `request.url` must be the URL the peer addressed (the public https URL
 * behind the tunnel, not the loopback one), since the signature covers it. `body`, when given,
 * is the request's body already read (the digest is checked on it without another copy).
 */
export async function verifyInbound(request: Request, deps: VerifyInboundDeps, body?: Uint8Array): Promise<VerifyInboundResult> {
  const now = (deps.clock ?? (() => new Date()))().getTime();
  const windowMs = (deps.timeWindowSeconds ?? 3600) * 1000;
  const pre = await precheckSignedRequest(request, now, windowMs, body);
  if (!pre.ok) return { ok: false, reason: pre.reason };

  const { keyCache } = deps;
  // Concurrent first requests of one actor fetch its key once: the others wait for that fetch.
  const flight = keyCache.singleFlight();
  try {
    return await verifyWithFedify(request, deps, pre.spec, flight);
  } finally {
    flight.release();
  }
}

/** deps.documentLoader, counting every fetch that is not a preloaded context as a key fetch
 * (the bench and tests read keyCache.stats.fetches); an actor that uses the key vocabulary
 * without declaring it gets it declared (key-document.ts). */
function countingLoader(deps: VerifyInboundDeps): DocumentLoader {
  return keyVocabularyLoader((url, options) => {
    if (!(url in preloadedContexts)) deps.keyCache.stats.fetches++;
    return deps.documentLoader(url, options);
  });
}

async function verifyWithFedify(
  request: Request,
  deps: VerifyInboundDeps,
  spec: SignatureSpec,
  flight: KeyCache,
): Promise<VerifyInboundResult> {
  const { keyCache } = deps;
  const contextLoader = deps.contextLoader ?? deps.documentLoader;
  const documentLoader = countingLoader(deps);
  let result: Awaited<ReturnType<typeof verifyRequestDetailed>>;
  try {
    result = await verifyRequestDetailed(request, {
      spec,
      documentLoader,
      contextLoader,
      keyCache: flight,
      tracerProvider: noTracing,
      // Dates were checked above against deps.clock; Fedify would use the wall clock.
      timeWindow: false,
    });
  } catch {
    // Fedify throws on some malformed input (e.g. a signature that is not base64): the
    // sender's fault, so a 401 for the listener rather than a 500.
    return { ok: false, reason: 'bad_signature' };
  }
  if (!result.verified) {
    const { reason } = result;
    if (reason.type === 'noSignature') return { ok: false, reason: 'unsigned' };
    const keyId = reason.keyId?.href;
    if (reason.type === 'keyFetchError') {
      if ('error' in reason.result && reason.result.error instanceof KeyDocumentRefusedError) return { ok: false, reason: 'too_many_keys', keyId };
      const status = 'status' in reason.result ? reason.result.status : undefined;
      return { ok: false, reason: 'key_unavailable', keyId, ...(status === undefined ? {} : { keyFetchStatus: status }) };
    }
    const unavailable = keyId !== undefined && keyCache.isUnavailable(keyId);
    return { ok: false, reason: unavailable ? 'key_unavailable' : 'bad_signature', keyId };
  }
  const keyId = result.key.id?.href;
  if (keyId === undefined) return { ok: false, reason: 'key_unavailable' };
  const ownerActorId = await resolveOwner(result.key, keyId, keyCache, documentLoader, contextLoader);
  if (ownerActorId === null) return { ok: false, reason: 'key_unavailable', keyId };
  return { ok: true, keyId, ownerActorId, spec };
}

/**
 * Who owns a verified key. A key's `owner` is a claim made by whoever serves the key document,
 * so it is believed without more work only when the key lives inside the owner's own document
 * (`https://host/users/a#main-key` owned by `https://host/users/a`). Otherwise the owner's
 * document is fetched and must list the key (Fedify's getKeyOwner); the answer is remembered.
 */
async function resolveOwner(
  key: CryptographicKey,
  keyId: string,
  keyCache: TernKeyCache,
  documentLoader: DocumentLoader,
  contextLoader: DocumentLoader,
): Promise<string | null> {
  const claimed = key.ownerId?.href;
  const keyDocument = keyId.replace(/#.*$/, '');
  if (claimed !== undefined && keyBelongsToActor(claimed, keyDocument)) return claimed;
  const confirmed = keyCache.confirmedOwner(keyId);
  if (confirmed !== undefined && (claimed === undefined || keyBelongsToActor(claimed, confirmed))) return confirmed;
  const owner = await getKeyOwner(claimed === undefined ? new URL(keyId) : key, { documentLoader, contextLoader }).catch(() => null);
  const ownerId = owner?.id?.href;
  if (ownerId === undefined) return null;
  if (claimed !== undefined ? !keyBelongsToActor(claimed, ownerId) : new URL(ownerId).origin !== new URL(keyId).origin) {
    return null;
  }
  keyCache.rememberOwner(keyId, ownerId);
  return ownerId;
}

/** An actor id in the form Tern compares: parsed, and without a trailing slash on the path. */
export function normalizeActorId(id: string): string | null {
  try {
    const url = new URL(id);
    url.pathname = withoutTrailingSlashes(url.pathname);
    return url.href.replace(/\/$/, '');
  } catch {
    return null;
  }
}

/**
 * Whether the key's owner is the activity's actor. `https://host` and `https://host/` are the
 * same actor (interop-notes: Fedify adds the slash to a bare-origin actor id).
 */
export function keyBelongsToActor(ownerActorId: string, activityActorId: string): boolean {
  const owner = normalizeActorId(ownerActorId);
  return owner !== null && owner === normalizeActorId(activityActorId);
}

// ---------------------------------------------------------------------------------------------
// Linked Data signatures (RsaSignature2017)

/** Whether a document carries an RsaSignature2017 (the only LD signature suite Fedify checks). */
export function hasLdSignature(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const signature = (json as Record<string, unknown>).signature;
  if (typeof signature !== 'object' || signature === null || Array.isArray(signature)) return false;
  const sig = signature as Record<string, unknown>;
  return sig.type === 'RsaSignature2017' && typeof sig.creator === 'string' && typeof sig.signatureValue === 'string';
}

export type LdVerifyFailureReason = 'unsigned' | 'bad_signature' | 'key_unavailable' | 'not_actor' | 'too_large';

/**
 * What an embedded signature (LD signature or integrity proof) is checked on at most. Both
 * canonicalize the document (URDNA2015), at about half a millisecond per statement on these
 * machines: a relayed Create of 16 KB listing 700 addresses took 270–450 ms, one of 1 MiB 30 s,
 * all of it on the inbox's threads. A Mastodon reply with mentions, hashtags and media holds
 * about 200 JSON values; a relayed activity past these bounds is not checked, so not believed.
 */
export const EMBEDDED_CHECK_LIMITS = { chars: 64 * 1024, values: 1_000 } as const;

/** Whether `json` is past EMBEDDED_CHECK_LIMITS (values counted until past the bound). */
function tooLargeToCheck(json: unknown): boolean {
  let values = 0;
  const over = (value: unknown): boolean => {
    if (++values > EMBEDDED_CHECK_LIMITS.values) return true;
    if (typeof value !== 'object' || value === null) return false;
    for (const item of Array.isArray(value) ? value : Object.values(value)) if (over(item)) return true;
    return false;
  };
  // Depth is bounded already (parseBoundedJson, 64 levels), so the walk cannot overflow.
  return over(json) || JSON.stringify(json).length > EMBEDDED_CHECK_LIMITS.chars;
}

export type VerifyLdResult = { ok: true; keyId: string; ownerActorId: string } | { ok: false; reason: LdVerifyFailureReason; keyId?: string };

/**
 * Verifies the LD signature of `json` (an activity as received) with Fedify's verifyJsonLd and
 * requires the signing key to belong to `actorId`: Fedify checks the key's claimed `owner`
 * against the activity's actor, and the claim itself is confirmed as for HTTP signatures (a key
 * inside the actor's own document, or listed by the owner's document). Keys come through the
 * key cache (single-flight), contexts through deps.contextLoader (preloaded, or fetched once).
 *
 * The creator must be at the actor's origin. When Fedify finds no key under the creator's exact
 * text, the actor's key it names in another form (ld-signature-key.ts) is looked for in the
 * cache (cachedKeyFor), then in the actor's document (publishedKeyFor), and is remembered under
 * the creator's text too, so the next activity signed so finds it at once. The keyId answered
 * is the id the actor publishes for the key.
 */
export async function verifyLdSignature(json: unknown, actorId: string, deps: VerifyInboundDeps): Promise<VerifyLdResult> {
  if (!hasLdSignature(json)) return { ok: false, reason: 'unsigned' };
  const creator = ((json as Record<string, unknown>).signature as Record<string, string>).creator!;
  let creatorUrl: URL;
  let actorOrigin: string;
  try {
    creatorUrl = new URL(creator);
    actorOrigin = new URL(actorId).origin;
  } catch {
    return { ok: false, reason: 'bad_signature' };
  }
  // A key served by another server than the actor's is never the actor's, whoever claims it.
  if (creatorUrl.origin !== actorOrigin) return { ok: false, reason: 'not_actor', keyId: creatorUrl.href };
  const { keyCache } = deps;
  const contextLoader = deps.contextLoader ?? deps.documentLoader;
  // One load of each document per verification: the actor's, read for its key by Fedify, is
  // what publishedKeyFor and resolveOwner read again.
  const documentLoader = loadingOnce(countingLoader(deps));
  const verify = async (cache: KeyCache): Promise<boolean> => {
    try {
      return await verifyJsonLd(json, { documentLoader, contextLoader, keyCache: cache });
    } catch {
      // Malformed JSON-LD (unsafe keywords, contexts that do not load): the sender's fault.
      return false;
    }
  };
  const flight = keyCache.singleFlight();
  let verified: boolean;
  let key: unknown;
  let other = false; // the key was found under another id than the creator's text
  // Found in no form a while ago (the unavailable answer is believed for minutes): the actor's
  // document is not read again for it, or each such activity would cost a fetch.
  const knownMissing = keyCache.isUnavailable(creatorUrl);
  try {
    // A creator not in the cache may name, in another form, a key the cache holds for the actor.
    const cached = (await keyCache.peek(creatorUrl)) === undefined ? await cachedKeyFor(creatorUrl, actorId, keyCache) : null;
    if (cached !== null && (await verify(keyedBy(creatorUrl, cached, flight)))) [key, verified, other] = [cached, true, true];
    else {
      verified = await verify(flight);
      // The key verifyJsonLd used is in the cache now (fetched once, or already there).
      key = keyCache.isUnavailable(creatorUrl) ? null : await keyCache.get(creatorUrl);
      if (!(key instanceof CryptographicKey) && !knownMissing) {
        // Fedify found none under the creator's text (so hashed nothing): the actor's document may
        // publish the key it names in another form.
        const published = await publishedKeyFor(creatorUrl, actorId, documentLoader, contextLoader);
        if (published !== null) [key, verified, other] = [published, await verify(keyedBy(creatorUrl, published, flight)), true];
      }
    }
    if (verified && other && key instanceof CryptographicKey) {
      await keyCache.set(creatorUrl, key);
      keyCache.rememberOwner(key.id!.href, actorId);
    }
  } finally {
    flight.release();
  }
  if (!(key instanceof CryptographicKey)) return { ok: false, reason: 'key_unavailable', keyId: creatorUrl.href };
  const keyId = key.id?.href ?? creatorUrl.href;
  const claimed = key.ownerId?.href;
  if (!verified) {
    // Fedify refuses a key whose owner is not the actor too; say so when that is the reason.
    const otherOwner = claimed !== undefined && !keyBelongsToActor(claimed, actorId);
    return { ok: false, reason: otherOwner ? 'not_actor' : 'bad_signature', keyId };
  }
  const ownerActorId = await resolveOwner(key, keyId, keyCache, documentLoader, contextLoader);
  if (ownerActorId === null) return { ok: false, reason: 'key_unavailable', keyId };
  if (!keyBelongsToActor(ownerActorId, actorId)) return { ok: false, reason: 'not_actor', keyId };
  return { ok: true, keyId, ownerActorId };
}

/** `loader` loading each document (up to its fragment) once; later asks share the first answer. */
function loadingOnce(loader: DocumentLoader): DocumentLoader {
  const loaded = new Map<string, ReturnType<DocumentLoader>>();
  return (url, options) => {
    const document = withoutFragment(url);
    let answer = loaded.get(document);
    if (answer === undefined) {
      answer = loader(url, options);
      loaded.set(document, answer);
    }
    return answer;
  };
}

/** A key cache answering `key` for `creator`, the rest from `cache`. Fedify's "the key changed,
 * fetch it again" for the creator is not let through: the creator's text finds no key by itself. */
function keyedBy(creator: URL, key: CryptographicKey, cache: KeyCache): KeyCache {
  return {
    get: (keyId) => (keyId.href === creator.href ? Promise.resolve(key) : cache.get(keyId)),
    set: (keyId, value) => (keyId.href === creator.href ? Promise.resolve() : cache.set(keyId, value)),
  };
}

/**
 * Verifies the Object Integrity Proofs (FEP-8b32, e.g. Fedify's Ed25519 DataIntegrityProof) of
 * an activity with Fedify's verifyObject: every proof must verify and the actor must control one
 * of their keys. The key's `controller` is believed only for a key in the actor's own document
 * (`<actor>#…`), as for LD signatures without a second fetch; anything else is refused.
 */
export async function verifyIntegrityProofs(json: unknown, actorId: string, deps: VerifyInboundDeps): Promise<VerifyLdResult> {
  if (!hasProofLike(json)) return { ok: false, reason: 'unsigned' };
  const { keyCache } = deps;
  const contextLoader = deps.contextLoader ?? deps.documentLoader;
  const documentLoader = countingLoader(deps);
  const flight = keyCache.singleFlight();
  try {
    const activity = await verifyObject(Activity, json, { documentLoader, contextLoader, keyCache: flight });
    if (activity === null) return { ok: false, reason: 'bad_signature' };
    const keyIds: string[] = [];
    for await (const proof of activity.getProofs({ documentLoader, contextLoader })) {
      const id = proof.verificationMethodId?.href;
      if (id !== undefined) keyIds.push(id);
    }
    const own = keyIds.find((id) => keyBelongsToActor(id.replace(/#.*$/, ''), actorId));
    return own === undefined ? { ok: false, reason: 'not_actor', keyId: keyIds[0] } : { ok: true, keyId: own, ownerActorId: actorId };
  } catch {
    return { ok: false, reason: 'bad_signature' };
  } finally {
    flight.release();
  }
}

export type EmbeddedSignatureResult = (VerifyLdResult & { ok: true; method: 'ld-signature' | 'integrity-proof' }) | (VerifyLdResult & { ok: false });

/**
 * What vouches for an activity relayed by someone else: its actor's LD signature, else its
 * actor's integrity proof. The first failure's reason is kept when neither verifies. A document
 * past EMBEDDED_CHECK_LIMITS is not checked ('too_large').
 */
export async function verifyEmbeddedSignature(json: unknown, actorId: string, deps: VerifyInboundDeps): Promise<EmbeddedSignatureResult> {
  if ((hasLdSignature(json) || hasProofLike(json)) && tooLargeToCheck(json)) return { ok: false, reason: 'too_large' };
  const ld = await verifyLdSignature(json, actorId, deps);
  if (ld.ok) return { ...ld, method: 'ld-signature' };
  if (!hasProofLike(json)) return ld;
  const proof = await verifyIntegrityProofs(json, actorId, deps);
  if (proof.ok) return { ...proof, method: 'integrity-proof' };
  return ld.reason === 'unsigned' ? proof : ld;
}

/**
 * `json` with an RsaSignature2017 by our key (Fedify's createSignature): the signature covers the
 * URDNA2015-normalised document, so the JSON may be re-serialised but not changed. `created`
 * is now. Contexts must resolve through `contextLoader` (Tern's own are all preloaded).
 */
export async function signLdDocument<T extends object>(
  json: T,
  signer: { keyId: URL; privateKey: CryptoKey },
  options: { contextLoader?: DocumentLoader } = {},
): Promise<T & { signature: unknown }> {
  const { signature: _old, ...unsigned } = json as T & { signature?: unknown };
  const signature = await createSignature(unsigned, signer.privateKey, signer.keyId, {
    contextLoader: options.contextLoader ?? preloadedContextLoader,
  });
  return { ...(unsigned as T), signature };
}
