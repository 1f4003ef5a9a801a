// The secrets of IndieAuth and OAuth: random codes, tokens and client secrets, the hashes Tern
// stores instead of them (the spec's columns are plain strings, so a copy of the database holds
// no usable credential), constant-time comparison, and the PKCE check the service behind the
// spec advertised and never made (microblogpub-behaviour §7).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: a code, an access token or a client secret. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a secret: its SHA-256, hex. Secrets are 256 random bits, so a
 * plain hash (no salt, no stretching) is enough, and it can be looked up through the index. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two strings in time that depends on their lengths only. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export function matchesHash(secret: string, storedHash: string): boolean {
  return constantTimeEqual(hashSecret(secret), storedHash);
}

/** RFC 7636 §4.1/4.2: verifiers and challenges are 43–128 unreserved characters; base64url of a
 * SHA-256 is exactly 43. Hex (as indieauth-helper sends, interop-notes) is refused by length. */
export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.6 with S256, the only method Tern accepts (IndieAuth requires it; `plain` would
 * give nothing against an attacker who sees the authorization request). */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!PKCE_VERIFIER.test(verifier)) return false;
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return constantTimeEqual(computed, challenge);
}
