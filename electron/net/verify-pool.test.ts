// The signature worker pool on its own: Fedify's verification on a worker thread with the key it
// is given, answering 'verified' only for a signature that key made over these exact bytes, and
// 'inline' (verify on the main thread) for anything else; 'busy' past its queue bound.
import { afterEach, describe, expect, it } from 'vitest';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { createVerifyPool, type VerifyParts, type VerifyPool } from './verify-pool';

const rsa = () =>
  crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );

const KEY_ID = 'https://remote.example/users/a#main-key';
const BODY = JSON.stringify({ type: 'Follow', actor: 'https://remote.example/users/a', object: 'https://tern.example/' });

async function parts(keys: CryptoKeyPair, spec: HttpMessageSignaturesSpec, body = BODY, verifyWith = keys.publicKey): Promise<VerifyParts> {
  const request = new Request('https://tern.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
  const signed = await signRequest(request, keys.privateKey, new URL(KEY_ID), { spec });
  return {
    url: signed.url,
    method: signed.method,
    headers: signed.headers,
    body: new Uint8Array(await signed.arrayBuffer()),
    spec,
    keyId: KEY_ID,
    key: verifyWith,
  };
}

let pool: VerifyPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('the signature worker pool', () => {
  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('verifies a %s signature with the key given, and nothing else', async (spec) => {
    pool = createVerifyPool({ size: 1 });
    expect(await pool.ready()).toBe(true);
    const keys = await rsa();
    expect(await pool.verify(await parts(keys, spec))).toBe('verified');
    // Another key under the same keyId (rotated, or a forgery): the main thread decides.
    const other = await rsa();
    expect(await pool.verify(await parts(keys, spec, BODY, other.publicKey))).toBe('inline');
    // Signed over other bytes than those sent.
    const swapped = { ...(await parts(keys, spec)), body: new TextEncoder().encode(BODY.replace('Follow', 'Like')) };
    expect(await pool.verify(swapped)).toBe('inline');
    // A keyId other than the one the signature names.
    expect(await pool.verify({ ...(await parts(keys, spec)), keyId: 'https://remote.example/users/b#main-key' })).toBe('inline');
    // And the first key again, sent anew after the other one replaced it.
    expect(await pool.verify(await parts(keys, spec))).toBe('verified');
    expect(pool.stats).toEqual({ verified: 2, inline: 3, busy: 0 });
  });

  it("answers 'busy' past its queue bound, and 'inline' with no workers or once closed", async () => {
    pool = createVerifyPool({ size: 1, maxQueued: 1 });
    expect(await pool.ready()).toBe(true);
    const keys = await rsa();
    const job = await parts(keys, 'rfc9421');
    expect(await Promise.all([pool.verify(job), pool.verify(job)])).toEqual(['verified', 'busy']);
    await pool.close();
    expect(await pool.verify(job)).toBe('inline');

    pool = createVerifyPool({ size: 0 });
    expect(await pool.ready()).toBe(false);
    expect(await pool.verify(job)).toBe('inline');
  });
});
