// WebCrypto's SHA digests and RSASSA-PKCS1-v1_5 verifies, done by node:crypto on the calling
// thread, and its RSASSA-PKCS1-v1_5 signs, done by node:crypto on the thread pool, for the Fedify
// code that calls the global `crypto.subtle` (its HTTP signature checks: a body digest and a
// signature verify per inbound activity; LD signature checks; the signature of every delivery).
//
// Why: node's WebCrypto wraps each of these in a thread-pool job with WebIDL conversions around
// it. Measured here (Node 24, RSA-2048, 1 KB body): subtle.digest 35–41 µs of CPU against 2.3 µs
// for createHash; subtle.verify 60–64 µs against 21 µs for a synchronous verify. That is about
// 80 µs of each inbound activity's ≈ 950 µs, spent on the thread that checks it (the inbox
// checks worker) and the pool. Fedify still does all of the signature work (which headers, which
// key, the signature base, the digest comparison); only where the two primitives run changes.
//
// A sign stays on the thread pool (an RSA-2048 signature is ≈ 300 µs of CPU), through node:crypto's
// sign with a callback instead of WebCrypto's job: measured here (Node 24, RSA-2048, 300 bytes,
// 8 at once) 8–10 µs against 11–21 µs on the calling thread, and 281–385 µs against 335–444 µs
// of the process's CPU per signature. The calling thread is the delivery worker's, which a
// fan-out keeps busy (a signature per delivery).
//
// Everything else goes to the original SubtleCrypto unchanged: importKey, other algorithms,
// verifies with keys above 4,096 bits or with an exponent other than 65537, signs with a key
// node:crypto may not export (not extractable: KeyObject.from is deprecated for those), input
// these functions do not take as their own, and any call node:crypto throws on or fails; the
// answer (false, or the DOMException) is then WebCrypto's own. Installed per thread (each
// worker's federation context installs its own).
import { createHash, KeyObject, sign as signBytes, verify as verifyBytes } from 'node:crypto';

type Subtle = SubtleCrypto;
type Key = CryptoKey;
type Algorithm = string | { name?: unknown };
type Bytes = ArrayBuffer | ArrayBufferView;

const HASHES: Readonly<Record<string, string>> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
const RSA = 'RSASSA-PKCS1-V1_5';
const installed = Symbol.for('tern.fastSubtle');

/** The algorithm's name, upper-cased as WebCrypto compares it; null when it has none. */
function nameOf(algorithm: Algorithm): string | null {
  const name = typeof algorithm === 'string' ? algorithm : algorithm?.name;
  return typeof name === 'string' ? name.toUpperCase() : null;
}

/** The bytes of a BufferSource, without copying; null for anything else (left to WebCrypto). */
function bytesOf(data: unknown): Buffer | null {
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

/** A fresh ArrayBuffer holding exactly the buffer's bytes (what subtle.digest resolves to). */
function ownArrayBuffer(buffer: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(copy).set(buffer);
  return copy;
}

export function fastDigest(original: Subtle, algorithm: Algorithm, data: Bytes): Promise<ArrayBuffer> {
  try {
    const hash = HASHES[nameOf(algorithm) ?? ''];
    const bytes = hash === undefined ? null : bytesOf(data);
    if (hash !== undefined && bytes !== null) return Promise.resolve(ownArrayBuffer(createHash(hash).update(bytes).digest()));
  } catch {
    // A detached buffer and the like: WebCrypto's answer, as before.
  }
  return original.digest(algorithm as AlgorithmIdentifier, data as BufferSource);
}

/** What a key allows the fast path, read once, when it is first seen. null: the key is left to
 * WebCrypto. */
interface RsaKey {
  keyObject: KeyObject;
  hash: string;
}

/** Moduli above this, or exponents other than 65537, are left to WebCrypto (its thread pool):
 * verifying with a 16,384-bit key, or one with a huge exponent, costs milliseconds, and here it
 * would hold up every other inbound check on this thread. Real actors' keys are 2,048 or 4,096
 * bits with exponent 65537. */
const MAX_MODULUS_BITS = 4096;
const EXPONENT = 65537n;

/** What `read` makes of `key`, once per key (a WeakMap each); null for anything not a CryptoKey. */
function readOnce(cache: WeakMap<Key, RsaKey | null>, key: unknown, read: (key: CryptoKey) => RsaKey | null): RsaKey | null {
  if (!(key instanceof CryptoKey)) return null;
  let known = cache.get(key);
  if (known === undefined) {
    known = read(key);
    cache.set(key, known);
  }
  return known;
}

/** A key's algorithm, its hash (node:crypto's name) and usages as WebCrypto holds them. The
 * `algorithm` and `usages` a CryptoKey shows are plain objects that code can change, before its
 * first use or after, and WebCrypto ignores such changes: it signs and verifies by what the key
 * was made with. A clone of the key is built from those (its internal slots), not from the
 * objects shown. */
function slotsOf(key: CryptoKey): { name: string; hash: string | undefined; usages: readonly string[] } {
  const clone = structuredClone(key);
  const algorithm = clone.algorithm as { name: string; hash?: { name?: string } };
  return { name: algorithm.name.toUpperCase(), hash: HASHES[algorithm.hash?.name?.toUpperCase() ?? ''], usages: clone.usages };
}

const verifyKeys = new WeakMap<Key, RsaKey | null>();
const rsaVerifyKey = (key: unknown) => readOnce(verifyKeys, key, readRsaVerifyKey);

function readRsaVerifyKey(key: CryptoKey): RsaKey | null {
  if (key.type !== 'public') return null;
  const { name, hash, usages } = slotsOf(key);
  if (name !== RSA || hash === undefined || !usages.includes('verify')) return null;
  const keyObject = KeyObject.from(key);
  const details = keyObject.asymmetricKeyDetails;
  if ((details?.modulusLength ?? Infinity) > MAX_MODULUS_BITS || details?.publicExponent !== EXPONENT) return null;
  return { keyObject, hash };
}

export function fastVerify(original: Subtle, algorithm: Algorithm, key: Key, signature: Bytes, data: Bytes): Promise<boolean> {
  try {
    const rsa = nameOf(algorithm) === RSA ? rsaVerifyKey(key) : null;
    const signatureBytes = rsa ? bytesOf(signature) : null;
    const dataBytes = signatureBytes ? bytesOf(data) : null;
    if (rsa && signatureBytes && dataBytes) return Promise.resolve(verifyBytes(rsa.hash, dataBytes, rsa.keyObject, signatureBytes));
  } catch {
    // Input node:crypto will not take (a detached buffer, a key it cannot read): WebCrypto
    // decides what it gets (false, or its DOMException), as before.
  }
  return original.verify(algorithm as AlgorithmIdentifier, key, signature as BufferSource, data as BufferSource);
}

/** A private RSASSA-PKCS1-v1_5 key node:crypto may sign with (not extractable: KeyObject.from
 * is deprecated for those), read once. */
const signKeys = new WeakMap<Key, RsaKey | null>();
const rsaSignKey = (key: unknown) => readOnce(signKeys, key, readRsaSignKey);

function readRsaSignKey(key: CryptoKey): RsaKey | null {
  if (key.type !== 'private' || !key.extractable) return null;
  const { name, hash, usages } = slotsOf(key);
  if (name !== RSA || hash === undefined || !usages.includes('sign')) return null;
  return { keyObject: KeyObject.from(key), hash };
}

export function fastSign(original: Subtle, algorithm: Algorithm, key: Key, data: Bytes): Promise<ArrayBuffer> {
  const fallback = () => original.sign(algorithm as AlgorithmIdentifier, key, data as BufferSource);
  let signing: Promise<ArrayBuffer> | null = null;
  try {
    const rsa = nameOf(algorithm) === RSA ? rsaSignKey(key) : null;
    const bytes = rsa ? bytesOf(data) : null;
    if (rsa && bytes) {
      // node:crypto copies the bytes before its job goes to the pool (as WebCrypto does): the
      // caller may reuse its buffer at once (fast-subtle.test.ts).
      signing = new Promise<ArrayBuffer>((resolve, reject) =>
        signBytes(rsa.hash, bytes, rsa.keyObject, (error, signature) => (error ? reject(error) : resolve(ownArrayBuffer(signature)))),
      );
    }
  } catch {
    // Input node:crypto will not take: WebCrypto's answer, as for verify.
  }
  // A sign node:crypto failed at (it should not): WebCrypto's own answer, its DOMException included.
  return signing ? signing.catch(fallback) : fallback();
}

/** A SubtleCrypto whose digest, sign and verify are the ones above, everything else the original's. */
export function fastSubtle(original: Subtle): Subtle {
  const bound = new Map<PropertyKey, unknown>();
  const digest = (algorithm: Algorithm, data: Bytes) => fastDigest(original, algorithm, data);
  const sign = (algorithm: Algorithm, key: Key, data: Bytes) => fastSign(original, algorithm, key, data);
  const verify = (algorithm: Algorithm, key: Key, signature: Bytes, data: Bytes) => fastVerify(original, algorithm, key, signature, data);
  return new Proxy(original, {
    get(target, property) {
      if (property === 'digest') return digest;
      if (property === 'sign') return sign;
      if (property === 'verify') return verify;
      if (property === installed) return true;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // SubtleCrypto's methods check their receiver: call them on the original.
      let method = bound.get(property);
      if (!method) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(property, method);
      }
      return method;
    },
  });
}

/** Puts fastSubtle in place of this thread's global `crypto.subtle` (once; later calls do nothing). */
export function installFastSubtle(): void {
  const crypto = globalThis.crypto as Crypto & { subtle: Subtle & { [installed]?: boolean } };
  if (crypto.subtle[installed]) return;
  Object.defineProperty(crypto, 'subtle', { value: fastSubtle(crypto.subtle), configurable: true, enumerable: true });
}
