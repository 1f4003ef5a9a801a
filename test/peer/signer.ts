// Reports how a received activity was authenticated. Fedify's inbox does not hand the verified
// key to listeners, so the peer re-runs Fedify's own verifiers on the same request, in the order
// Fedify's inbox tries them: Linked Data Signature, then Object Integrity Proof (FEP-8b32),
// then the HTTP signature. The HTTP signature is always checked, even when Fedify did not need
// it, because it is what most servers (and Tern) rely on.
import {
  detachSignature,
  hasProofLike,
  hasSignatureLike,
  verifyJsonLd,
  verifyObject,
  verifyRequestDetailed,
  type HttpMessageSignaturesSpec,
  type KeyCache,
} from '@fedify/fedify';
import { Activity, type CryptographicKey, type DocumentLoader, type Multikey } from '@fedify/vocab';

export type AuthMethod = 'ld-signature' | 'object-integrity-proof' | 'http-signature';

export interface HttpSignatureReport {
  /** Which spec the sender used: RFC 9421 if `Signature-Input` is present, else draft-cavage. */
  spec: HttpMessageSignaturesSpec;
  verified: boolean;
  keyId: string | null;
  ownerId: string | null;
  /** Fedify's reason when it did not verify: 'invalidSignature', 'keyFetchError', ... */
  failure: string | null;
  /** The key id as the request wrote it (Fedify's keyId above is a parsed URL). */
  keyIdAsSent: string | null;
}

export interface SignerReport {
  /** The first method that verifies, in Fedify's own order; null if none re-verified. */
  verifiedBy: AuthMethod | null;
  /** The key that authenticated the activity under `verifiedBy`. */
  keyId: string | null;
  /** The actor that owns (or controls) that key. */
  ownerId: string | null;
  /** The request's HTTP signature, or null if the request carried none. */
  httpSignature: HttpSignatureReport | null;
}

export interface Loaders {
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
}

/** A process-local key cache, so re-verifying does not fetch each key again. */
export function memoryKeyCache(): KeyCache {
  const keys = new Map<string, CryptographicKey | Multikey | null>();
  return {
    get: (keyId) => Promise.resolve(keys.has(keyId.href) ? keys.get(keyId.href) : undefined),
    set: (keyId, key) => {
      // An unavailable key is not remembered: a test may start the key's owner a moment later.
      if (key == null) keys.delete(keyId.href);
      else keys.set(keyId.href, key);
      return Promise.resolve();
    },
  };
}

export async function describeSigner(input: {
  request: Request | null;
  raw: unknown;
  actorId: string | null;
  loaders: Loaders;
  keyCache: KeyCache;
}): Promise<SignerReport> {
  const options = { ...input.loaders, keyCache: input.keyCache };
  const httpSignature = input.request == null ? null : await checkHttpSignature(input.request, options);

  if (hasSignatureLike(input.raw) && (await quietly(() => verifyJsonLd(input.raw, options)))) {
    return { verifiedBy: 'ld-signature', keyId: ldSignatureCreator(input.raw), ownerId: input.actorId, httpSignature };
  }
  const withoutLdSignature = detachSignature(input.raw);
  if (hasProofLike(withoutLdSignature)) {
    const verified = await quietly(() => verifyObject(Activity, withoutLdSignature, options));
    if (verified != null) {
      return { verifiedBy: 'object-integrity-proof', keyId: proofVerificationMethod(withoutLdSignature), ownerId: input.actorId, httpSignature };
    }
  }
  if (httpSignature?.verified === true) {
    return { verifiedBy: 'http-signature', keyId: httpSignature.keyId, ownerId: httpSignature.ownerId, httpSignature };
  }
  return { verifiedBy: null, keyId: null, ownerId: null, httpSignature };
}

async function checkHttpSignature(
  request: Request,
  options: Loaders & { keyCache: KeyCache },
): Promise<HttpSignatureReport | null> {
  const spec: HttpMessageSignaturesSpec | null = request.headers.has('signature-input')
    ? 'rfc9421'
    : request.headers.has('signature')
      ? 'draft-cavage-http-signatures-12'
      : null;
  if (spec == null) return null;
  const keyIdAsSent = /keyid="([^"]*)"/i.exec(request.headers.get(spec === 'rfc9421' ? 'signature-input' : 'signature') ?? '')?.[1] ?? null;
  try {
    const result = await verifyRequestDetailed(request, { ...options, spec });
    if (result.verified) {
      return { spec, verified: true, keyId: result.key.id?.href ?? null, ownerId: result.key.ownerId?.href ?? null, failure: null, keyIdAsSent };
    }
    const keyId = 'keyId' in result.reason ? (result.reason.keyId?.href ?? null) : null;
    return { spec, verified: false, keyId, ownerId: null, failure: result.reason.type, keyIdAsSent };
  } catch (error) {
    return { spec, verified: false, keyId: null, ownerId: null, failure: error instanceof Error ? error.message : String(error), keyIdAsSent };
  }
}

async function quietly<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch {
    return null; // a malformed signature or proof counts as "not verified by this method"
  }
}

function ldSignatureCreator(raw: unknown): string | null {
  const signature = field(raw, 'signature');
  const creator = field(signature, 'creator');
  return typeof creator === 'string' ? creator : null;
}

function proofVerificationMethod(raw: unknown): string | null {
  const proof = field(raw, 'proof');
  const first: unknown = Array.isArray(proof) ? proof[0] : proof;
  const method = field(first, 'verificationMethod');
  return typeof method === 'string' ? method : null;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value != null ? (value as Record<string, unknown>)[name] : undefined;
}
