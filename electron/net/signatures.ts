// HTTP signatures for Tern, as thin wrappers over Fedify's signRequest / verifyRequestDetailed
// (no hand-written crypto): signing outgoing requests with spec negotiation ("double knock"),
// and verifying inbound ones down to the actor who owns the key.
import {
  getKeyOwner,
  signRequest,
  verifyRequestDetailed,
  type HttpMessageSignaturesSpec,
  type HttpMessageSignaturesSpecDeterminer,
  type KeyCache,
} from '@fedify/fedify';
import type { CryptographicKey } from '@fedify/vocab';
import { preloadedContexts, type DocumentLoader } from '@fedify/vocab-runtime';
import { createHash } from 'node:crypto';
import { TooManyRedirectsError } from './errors';
import type { HttpClient } from './http-client';
import type { TernKeyCache } from './key-cache';
import { precheckSignedRequest } from './signature-precheck';

export type SignatureSpec = HttpMessageSignaturesSpec;
export { createKeyCache, type KeyCacheOptions, type KeyCacheStats, type PersistentKeyStore, type TernKeyCache } from './key-cache';
export { exportPublicKeyPem, generateKeyPairFiles, loadKeyPair, type TernKeyPairs } from './key-files';
export { ACTIVITY_ACCEPT, createContextLoader, createDocumentLoader, preloadedContextLoader } from './document-loader';

// ---------------------------------------------------------------------------------------------
// Outgoing

/** Which spec each origin accepted last; Fedify's determiner interface, kept in memory. */
export interface SpecMemory extends HttpMessageSignaturesSpecDeterminer {
  determineSpec(origin: string): SignatureSpec;
  rememberSpec(origin: string, spec: SignatureSpec): void;
  known(origin: string): SignatureSpec | undefined;
}

export function createSpecMemory(maxOrigins = 10_000): SpecMemory {
  const specs = new Map<string, SignatureSpec>();
  return {
    determineSpec: (origin) => specs.get(origin) ?? 'rfc9421',
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
  /** Our key id, e.g. https://example.com/#main-key; must match the actor's publicKey.id. */
  keyId: URL;
  privateKey: CryptoKey;
  /** Spec to try first; default: what the origin accepted last, else RFC 9421. */
  spec?: SignatureSpec;
  specMemory?: SpecMemory;
  /** The body to send, when the caller has its bytes: then `request` needs none (saves copies). */
  body?: ArrayBuffer | null;
  /** Aborts the request; default `request.signal` (a Request built without one saves a copy). */
  signal?: AbortSignal;
  /** SHA-256 of `body`, base64, when the caller already has it (a fan-out sends one body to
   * many inboxes): it goes into Digest / Content-Digest as it is, so it must be right. */
  bodySha256?: string;
}

/** Digest / Content-Digest for a body, in Fedify's own format, computed once per signedFetch
 * (Fedify adds one only when the header is missing; it would hash again on every knock). */
function digestHeader(spec: SignatureSpec, sha256: string): [string, string] {
  return spec === 'rfc9421' ? ['content-digest', `sha-256=:${sha256}:`] : ['digest', `SHA-256=${sha256}`];
}

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
  const headers = new Headers(request.headers);
  if (!headers.has('user-agent')) headers.set('user-agent', client.userAgent);
  headers.delete('host');
  let method = request.method;
  let url = new URL(request.url);
  const signal = options.signal ?? (isRequest ? request.signal : undefined);
  const redirect = request.redirect ?? 'follow';
  let sha256: string | null = options.body !== undefined && options.body !== null ? (options.bodySha256 ?? null) : null;

  for (let hop = 0; ; hop++) {
    if (body !== null) sha256 ??= createHash('sha256').update(new Uint8Array(body)).digest('base64');
    const send = async (spec: SignatureSpec) => {
      // A plain record (names already lower case from `headers`): the Request below checks and
      // copies it once, where a Headers object would be checked and copied twice.
      const signedHeaders: Record<string, string> = {};
      headers.forEach((value, name) => (signedHeaders[name] = value));
      if (body !== null && sha256 !== null) {
        const [name, value] = digestHeader(spec, sha256);
        signedHeaders[name] ??= value;
      }
      // Date as Fedify would write it (an HTTP date, now), set here because Fedify formats its
      // own through a Temporal round trip that costs more than the rest of the headers.
      signedHeaders.date ??= new Date().toUTCString();
      // The body travels beside the request (rawBody): Fedify signs over `body`, and the
      // client sends these bytes without reading them back out of a stream. Only the signed
      // headers are taken from Fedify's Request: the client gets the URL, method and signal
      // directly, not another copy of a Request with a body stream and a signal to follow.
      const unsigned = new Request(url, { method, headers: signedHeaders });
      const signed = await signRequest(unsigned, options.privateKey, options.keyId, { spec, body });
      return client.fetch(url, {
        method,
        headers: signed.headers,
        ...(signal === undefined ? {} : { signal }),
        redirect: 'manual',
        rawBody: body === null ? null : new Uint8Array(body),
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
    if (next.origin !== url.origin) for (const name of ['authorization', 'cookie']) headers.delete(name);
    url = next;
    if (response.status === 303 && method !== 'GET' && method !== 'HEAD') {
      method = 'GET';
      body = null;
      for (const name of ['content-type', 'digest', 'content-digest']) headers.delete(name);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Incoming

export type VerifyFailureReason = 'unsigned' | 'bad_signature' | 'expired' | 'digest_mismatch' | 'key_unavailable';

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

async function verifyWithFedify(
  request: Request,
  deps: VerifyInboundDeps,
  spec: SignatureSpec,
  flight: KeyCache,
): Promise<VerifyInboundResult> {
  const { keyCache } = deps;
  const contextLoader = deps.contextLoader ?? deps.documentLoader;
  const documentLoader: DocumentLoader = (url, options) => {
    if (!(url in preloadedContexts)) keyCache.stats.fetches++;
    return deps.documentLoader(url, options);
  };
  let result: Awaited<ReturnType<typeof verifyRequestDetailed>>;
  try {
    result = await verifyRequestDetailed(request, {
      spec,
      documentLoader,
      contextLoader,
      keyCache: flight,
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
    url.pathname = url.pathname.replace(/\/+$/, '');
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
