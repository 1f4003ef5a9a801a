// WebCrypto's digest and verify, done on the calling thread, for a worker whose whole job is
// checking signatures (the inbox checks worker). Fedify verifies every inbound signature, and it
// calls crypto.subtle: each digest of a body and each RSA verify is then a job for libuv's thread
// pool, and its answer a wake-up of this thread. For a 1 KB body and an RSA-2048 key the job's
// round trip costs several times the work (measured on the bench's burst: digest and verify jobs
// were a quarter of the checks worker's samples, and the pool threads another 70–85 µs an
// activity; node:crypto's verify is 28 µs where WebCrypto's takes 105). On a thread of its own a
// 28 µs synchronous verify blocks nothing the author waits for.
//
// Fedify stays the verifier: it still parses, decides, fetches and checks the keys; only the two
// primitives it awaits are answered by node:crypto (OpenSSL, as WebCrypto is) instead of the pool.
// What this does not answer exactly as WebCrypto would (another algorithm, a key not for
// verifying, a name that does not match the key's, data that is no BufferSource) goes to the
// original, so its errors are WebCrypto's own. Never installed on the main thread.
import { createHash, KeyObject, verify as nodeVerify } from 'node:crypto';

const HASHES: Record<string, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** A BufferSource's bytes (a view on them, no copy), or null for anything else. */
function bytesOf(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

const nameOf = (algorithm: unknown): string | null => {
  const name = typeof algorithm === 'string' ? algorithm : typeof algorithm === 'object' && algorithm !== null ? (algorithm as { name?: unknown }).name : null;
  return typeof name === 'string' ? name.toUpperCase() : null;
};

/** Node's hash name for a digest algorithm WebCrypto would take (SHA-256, {name: 'sha-256'}…). */
function hashOf(algorithm: unknown): string | null {
  const name = nameOf(algorithm);
  return name === null ? null : (HASHES[name] ?? null);
}

export interface SyncSubtleStats {
  /** Answered here, synchronously. */
  digests: number;
  verifies: number;
  /** Handed to WebCrypto's own (an algorithm or input this does not answer). */
  passedOn: number;
}

const installed = new WeakMap<SubtleCrypto, SyncSubtleStats>();

/**
 * Makes `subtle` (by default this thread's crypto.subtle) answer digest and RSASSA-PKCS1-v1_5 /
 * Ed25519 verify on the calling thread. Installing twice changes nothing. Returns the counts of
 * what was answered here, for tests and the bench.
 */
export function useSynchronousSubtle(subtle: SubtleCrypto = globalThis.crypto.subtle): SyncSubtleStats {
  const existing = installed.get(subtle);
  if (existing) return existing;
  const stats: SyncSubtleStats = { digests: 0, verifies: 0, passedOn: 0 };
  const digest = subtle.digest.bind(subtle);
  const verify = subtle.verify.bind(subtle);
  // One KeyObject per CryptoKey (KeyObject.from exports the key's material each time).
  const keyObjects = new WeakMap<CryptoKey, KeyObject>();
  const keyObjectOf = (key: CryptoKey) => {
    let keyObject = keyObjects.get(key);
    if (keyObject === undefined) keyObjects.set(key, (keyObject = KeyObject.from(key)));
    return keyObject;
  };

  Object.defineProperty(subtle, 'digest', {
    configurable: true,
    writable: true,
    value: (algorithm: AlgorithmIdentifier, data: BufferSource): Promise<ArrayBuffer> => {
      const hash = hashOf(algorithm);
      const bytes = bytesOf(data);
      if (hash === null || bytes === null) {
        stats.passedOn++;
        return digest(algorithm, data);
      }
      stats.digests++;
      const out = createHash(hash).update(bytes).digest();
      // A fresh ArrayBuffer of exactly the digest (Buffer's may be a slice of a shared pool).
      return Promise.resolve(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer);
    },
  });

  Object.defineProperty(subtle, 'verify', {
    configurable: true,
    writable: true,
    value: (algorithm: AlgorithmIdentifier, key: CryptoKey, signature: BufferSource, data: BufferSource): Promise<boolean> => {
      const name = nameOf(algorithm);
      const signatureBytes = bytesOf(signature);
      const dataBytes = bytesOf(data);
      const usable =
        key instanceof CryptoKey &&
        key.type === 'public' &&
        key.usages.includes('verify') &&
        name !== null &&
        name === key.algorithm.name.toUpperCase() &&
        signatureBytes !== null &&
        dataBytes !== null;
      const hash = usable && name === 'RSASSA-PKCS1-V1_5' ? hashOf((key.algorithm as RsaHashedKeyAlgorithm).hash) : null;
      if (!usable || (name !== 'ED25519' && hash === null)) {
        stats.passedOn++;
        return verify(algorithm, key, signature, data);
      }
      try {
        const valid = nodeVerify(name === 'ED25519' ? null : hash, dataBytes, keyObjectOf(key), signatureBytes);
        stats.verifies++;
        return Promise.resolve(valid);
      } catch {
        // Whatever OpenSSL refused here, WebCrypto answers in its own way.
        stats.passedOn++;
        return verify(algorithm, key, signature, data);
      }
    },
  });
  installed.set(subtle, stats);
  return stats;
}
