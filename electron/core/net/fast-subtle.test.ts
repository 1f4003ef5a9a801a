import { signRequest, verifyRequest, type DocumentLoader } from '@fedify/fedify';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportPublicKeyPem } from './key-files';
import { createContextLoader } from './document-loader';
import { createHttpClient } from './http-client';
import { fastDigest, fastSign, fastSubtle, fastVerify, installFastSubtle } from './fast-subtle';

const original = globalThis.crypto.subtle; // before any install below
const rsa = (hash: string) =>
  original.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash }, true, ['sign', 'verify']);

/** The original SubtleCrypto, counting the calls that reach it. */
function counting() {
  const calls = { digest: 0, sign: 0, verify: 0 };
  const subtle = new Proxy(original, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'digest' || property === 'sign' || property === 'verify') calls[property] += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { subtle, calls };
}

/** What a promise settles to, as a comparable value. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value: value instanceof ArrayBuffer ? Buffer.from(value).toString('hex') : value }),
    (error: unknown) => ({ error: (error as Error).name }),
  );

describe('fastDigest', () => {
  const body = new Uint8Array(Buffer.from('{"type":"Create","object":{"content":"<p>héllo</p>"}}'));
  it('gives WebCrypto’s digest for each SHA and each kind of buffer, without calling WebCrypto', async () => {
    const { subtle, calls } = counting();
    const padded = new Uint8Array(body.length + 7);
    padded.set(body, 3);
    const inputs = [body.buffer.slice(body.byteOffset, body.byteOffset + body.length), padded.subarray(3, 3 + body.length), new DataView(padded.buffer, 3, body.length), new Uint8Array(0)];
    for (const name of ['SHA-1', 'SHA-256', 'sha-384', 'Sha-512']) {
      for (const data of inputs) {
        const fast = await fastDigest(subtle, name, data);
        expect(fast).toBeInstanceOf(ArrayBuffer);
        expect(Buffer.from(fast).toString('hex')).toBe(Buffer.from(await original.digest(name, data)).toString('hex'));
      }
    }
    expect(await outcome(fastDigest(subtle, { name: 'SHA-256' }, body))).toEqual(await outcome(original.digest({ name: 'SHA-256' }, body)));
    expect(calls.digest).toBe(0);
  });

  it('leaves other algorithms and inputs to WebCrypto, which refuses them as before', async () => {
    const { subtle, calls } = counting();
    expect(await outcome(fastDigest(subtle, 'MD5', body))).toEqual({ error: 'NotSupportedError' });
    expect(await outcome(fastDigest(subtle, 'SHA-256', 'text' as unknown as BufferSource))).toEqual(await outcome(original.digest('SHA-256', 'text' as unknown as BufferSource)));
    expect(calls.digest).toBe(2);
  });

  it('resolves to a buffer of its own (writing into it changes nothing else)', async () => {
    const a = await fastDigest(original, 'SHA-256', body);
    const b = await fastDigest(original, 'SHA-256', body);
    new Uint8Array(a).fill(0);
    expect(Buffer.from(b).toString('hex')).toBe(Buffer.from(await original.digest('SHA-256', body)).toString('hex'));
    expect(a.byteLength).toBe(32);
  });
});

describe('fastVerify', () => {
  let pair: CryptoKeyPair;
  let other: CryptoKeyPair;
  let sha512: CryptoKeyPair;
  const data = new TextEncoder().encode('(request-target): post /inbox\nhost: tern.example\ndate: Tue, 24 Nov 2026 10:00:00 GMT');
  let signature: ArrayBuffer;
  beforeAll(async () => {
    [pair, other, sha512] = await Promise.all([rsa('SHA-256'), rsa('SHA-256'), rsa('SHA-512')]);
    signature = await original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data);
  });

  it('answers as WebCrypto does for good, tampered, foreign and truncated signatures, on this thread', async () => {
    const { subtle, calls } = counting();
    const tampered = new Uint8Array(signature.slice(0));
    tampered[10] = tampered[10]! ^ 1;
    const changed = new Uint8Array(data);
    changed[0] = changed[0]! ^ 1;
    const cases: [CryptoKey, BufferSource, BufferSource][] = [
      [pair.publicKey, signature, data],
      [pair.publicKey, tampered, data],
      [pair.publicKey, signature, changed],
      [other.publicKey, signature, data],
    ];
    const answers = [];
    for (const [key, sig, bytes] of cases) {
      const fast = await fastVerify(subtle, 'RSASSA-PKCS1-v1_5', key, sig, bytes);
      expect(fast).toBe(await original.verify('RSASSA-PKCS1-v1_5', key, sig, bytes));
      answers.push(fast);
    }
    expect(answers).toEqual([true, false, false, false]);
    expect(calls.verify).toBe(0);
    // A signature of the wrong length: whatever node:crypto makes of it, the answer is WebCrypto's.
    const short = new Uint8Array(signature).subarray(0, 100);
    expect(await outcome(fastVerify(subtle, { name: 'RSASSA-PKCS1-v1_5' }, pair.publicKey, short, data))).toEqual(
      await outcome(original.verify({ name: 'RSASSA-PKCS1-v1_5' }, pair.publicKey, short, data)),
    );
  });

  it('uses the hash the key was made for, as WebCrypto does', async () => {
    const sig = await original.sign('RSASSA-PKCS1-v1_5', sha512.privateKey, data);
    expect(await fastVerify(original, 'RSASSA-PKCS1-v1_5', sha512.publicKey, sig, data)).toBe(true);
    expect(await fastVerify(original, 'RSASSA-PKCS1-v1_5', sha512.publicKey, signature, data)).toBe(false);
  });

  it('leaves keys it does not take to WebCrypto: a private key, a key not for verifying, another algorithm', async () => {
    const { subtle, calls } = counting();
    const refused = await outcome(fastVerify(subtle, 'RSASSA-PKCS1-v1_5', pair.privateKey, signature, data));
    expect(refused).toHaveProperty('error');
    expect(refused).toEqual(await outcome(original.verify('RSASSA-PKCS1-v1_5', pair.privateKey, signature, data)));
    const signOnly = await original.importKey('spki', await original.exportKey('spki', pair.publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, []);
    expect(await outcome(fastVerify(subtle, 'RSASSA-PKCS1-v1_5', signOnly, signature, data))).toEqual(
      await outcome(original.verify('RSASSA-PKCS1-v1_5', signOnly, signature, data)),
    );
    const ed = (await original.generateKey('Ed25519', true, ['sign', 'verify'])) as CryptoKeyPair;
    const edSig = await original.sign('Ed25519', ed.privateKey, data);
    expect(await fastVerify(subtle, 'Ed25519', ed.publicKey, edSig, data)).toBe(true);
    // An RSA key named with another algorithm: WebCrypto's refusal.
    expect(await outcome(fastVerify(subtle, 'RSA-PSS', pair.publicKey, signature, data))).toEqual(await outcome(original.verify('RSA-PSS', pair.publicKey, signature, data)));
    expect(calls.verify).toBe(4); // the four above; the direct calls do not count
  });
});

describe('fastSign', () => {
  const data = new TextEncoder().encode('(request-target): post /users/alice/inbox\nhost: peer.example\ndate: Tue, 24 Nov 2026 10:00:00 GMT\ndigest: SHA-256=abc');
  const hex = (buffer: ArrayBuffer) => Buffer.from(buffer).toString('hex');

  it('makes the signature WebCrypto makes (PKCS#1 v1.5 is deterministic), with the key’s hash, for each kind of buffer, without calling WebCrypto', async () => {
    const { subtle, calls } = counting();
    const pairs = (await Promise.all(['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'].map(rsa))) as CryptoKeyPair[];
    const [sha256, sha512] = [pairs[1]!, pairs[3]!];
    const padded = new Uint8Array(data.length + 5);
    padded.set(data, 2);
    const inputs = [data, data.buffer.slice(data.byteOffset, data.byteOffset + data.length), padded.subarray(2, 2 + data.length), new DataView(padded.buffer, 2, data.length)];
    for (const pair of pairs) {
      const expected = hex(await original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data));
      for (const bytes of inputs) {
        const signature = await fastSign(subtle, { name: 'RSASSA-PKCS1-v1_5' }, pair.privateKey, bytes);
        expect(signature).toBeInstanceOf(ArrayBuffer);
        expect(hex(signature)).toBe(expected);
      }
      expect(await original.verify('RSASSA-PKCS1-v1_5', pair.publicKey, await fastSign(subtle, 'rsassa-pkcs1-v1_5', pair.privateKey, data), data)).toBe(true);
    }
    expect(hex(await fastSign(subtle, 'RSASSA-PKCS1-v1_5', sha256.privateKey, data))).not.toBe(hex(await fastSign(subtle, 'RSASSA-PKCS1-v1_5', sha512.privateKey, data)));
    expect(calls.sign).toBe(0);
  });

  it('signs and verifies by what a key was made with, though its algorithm was changed before its first use, as WebCrypto does', async () => {
    const [pair, pss] = (await Promise.all([
      rsa('SHA-256'),
      original.generateKey({ name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']),
    ])) as CryptoKeyPair[];
    const shown = (key: CryptoKey) => key.algorithm as unknown as { name: string; hash: { name: string } };
    shown(pair!.privateKey).hash.name = 'SHA-512';
    shown(pair!.publicKey).hash.name = 'SHA-1';
    const signature = await fastSign(original, 'RSASSA-PKCS1-v1_5', pair!.privateKey, data);
    expect(hex(signature)).toBe(hex(await original.sign('RSASSA-PKCS1-v1_5', pair!.privateKey, data)));
    expect(await fastVerify(original, 'RSASSA-PKCS1-v1_5', pair!.publicKey, signature, data)).toBe(true);
    // An RSA-PSS key shown as RSASSA-PKCS1-v1_5: refused, as WebCrypto refuses it.
    shown(pss!.privateKey).name = 'RSASSA-PKCS1-v1_5';
    shown(pss!.publicKey).name = 'RSASSA-PKCS1-v1_5';
    const refused = await outcome(fastSign(original, 'RSASSA-PKCS1-v1_5', pss!.privateKey, data));
    expect(refused).toHaveProperty('error');
    expect(refused).toEqual(await outcome(original.sign('RSASSA-PKCS1-v1_5', pss!.privateKey, data)));
    const verified = await outcome(fastVerify(original, 'RSASSA-PKCS1-v1_5', pss!.publicKey, signature, data));
    expect(verified).toEqual(await outcome(original.verify('RSASSA-PKCS1-v1_5', pss!.publicKey, signature, data)));
  });

  it('signs the bytes as they were when it was called, though the caller reuses its buffer at once', async () => {
    const pair = (await rsa('SHA-256')) as CryptoKeyPair;
    const bytes = new Uint8Array(data);
    const signing = fastSign(original, 'RSASSA-PKCS1-v1_5', pair.privateKey, bytes);
    bytes.fill(0);
    expect(await original.verify('RSASSA-PKCS1-v1_5', pair.publicKey, await signing, data)).toBe(true);
  });

  it('leaves to WebCrypto what it does not take: a public key, a key it may not export, another algorithm, a detached buffer', async () => {
    const { subtle, calls } = counting();
    const pair = (await rsa('SHA-256')) as CryptoKeyPair;
    const pkcs8 = await original.exportKey('pkcs8', pair.privateKey);
    const hidden = await original.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const refused = await outcome(fastSign(subtle, 'RSASSA-PKCS1-v1_5', pair.publicKey, data));
      expect(refused).toHaveProperty('error');
      expect(refused).toEqual(await outcome(original.sign('RSASSA-PKCS1-v1_5', pair.publicKey, data)));
      // Not extractable: WebCrypto signs it (node:crypto would need the deprecated KeyObject.from).
      expect(hex(await fastSign(subtle, 'RSASSA-PKCS1-v1_5', hidden, data))).toBe(hex(await original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data)));
      const ed = (await original.generateKey('Ed25519', true, ['sign', 'verify'])) as CryptoKeyPair;
      expect(await original.verify('Ed25519', ed.publicKey, await fastSign(subtle, 'Ed25519', ed.privateKey, data), data)).toBe(true);
      expect(await outcome(fastSign(subtle, 'RSA-PSS', pair.privateKey, data))).toEqual(await outcome(original.sign('RSA-PSS', pair.privateKey, data)));
      const detached = new ArrayBuffer(16);
      structuredClone(detached, { transfer: [detached] });
      let signing: Promise<ArrayBuffer> | undefined;
      expect(() => (signing = fastSign(subtle, 'RSASSA-PKCS1-v1_5', pair.privateKey, detached))).not.toThrow();
      expect(await outcome(signing!)).toEqual(await outcome(original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, detached)));
    } finally {
      process.off('warning', onWarning);
    }
    expect(calls.sign).toBe(5);
    expect(warnings.filter((message) => message.includes('KeyObject.from'))).toEqual([]);
  });
});

describe('what fastVerify leaves to WebCrypto', () => {
  const data = new TextEncoder().encode('date: Tue, 24 Nov 2026 10:00:00 GMT');
  // A 4,608-bit RSA public key (made with openssl for this test): above the fast path's 4,096.
  const BIG_KEY_PEM = `-----BEGIN PUBLIC KEY-----\nMIICYjANBgkqhkiG9w0BAQEFAAOCAk8AMIICSgKCAkEA2fmhG6aLNeTbkDzTPaLV\nzC5QqgWL0slT/np2Mi1dWEaZ+1zjjdN6wxKoFV8aHV/P6ZfBajeA3DjKM4wgoWGY\nxW+7f36n6hmVgHPD28BZRgh9kN8Y3YP8jwZgUz6TquhGDDygO0qBmEqvfmq6FfdL\npXgQmkYx1iMSiIv/mG9zApCOcsEPJIWDGyIOsHHLS2Kdm9+qhA/WrzSmDaShtKV+\nYZyzZMxUFLXlltN0sB88UwZjk5KgpMI4TuVY3vZJPofZj3qx4JRKysjnYs4VJ5ZF\nQOJXRE4pc5YWpM1+sL43oP2vy2zZFu3wqEGff/Md4BOlfX+mCmQYPlyYaJfzh9cv\n2qu60p6hLaVH5Z8p1+InZRdDkCJsFobGPOL8HxtpJdm1VvZwT4lqeASicf4rDIWi\nACtcQ9B+ElTgO80WhWmJgD3wpIEBwuOK1WWxZrEufGlRXiOe2sBIxaKRwiflCjms\nIXpoN/ujGVkys4mXyLRneKPTZaTLt9tzgrqfRHUxEmWq1NJFgBqc3ONxFnbyIz2r\nWeDIqKVthK9t4KD3Y0VvQpgG5ZFdUizqAXKWc8i0qc8e0Mdy4Tp4yZX77lcZBOZ2\nB9FhPcChV4H5OhAyMFHxtplA1A2zBHKuxxkQAL4MW/irsBhu2JU05LpgfX3kDkYW\nInVIhxL+pZ8OLWMgFskt9arNVuZXMqn0GtBm+6vB6ONv39BghSLTEraJbDo+Dp1H\nj4bbPxmgh3sCkEk2m1fF9e59MGBmVLlqrmPJIMzpfJHNAgMBAAE=\n-----END PUBLIC KEY-----`;
  const spkiOf = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

  it('an RSA-PSS key named as RSASSA-PKCS1-v1_5: WebCrypto’s refusal, not a verify', async () => {
    const { subtle, calls } = counting();
    const pss = (await original.generateKey({ name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const pkcs1 = (await rsa('SHA-256')) as CryptoKeyPair;
    const signature = await original.sign('RSASSA-PKCS1-v1_5', pkcs1.privateKey, data);
    // The same modulus under either name would verify a PKCS#1 v1.5 signature in node:crypto.
    const samePss = await original.importKey('spki', await original.exportKey('spki', pkcs1.publicKey), { name: 'RSA-PSS', hash: 'SHA-256' }, true, ['verify']);
    for (const key of [pss.publicKey, samePss]) {
      const answer = await outcome(fastVerify(subtle, 'RSASSA-PKCS1-v1_5', key, signature, data));
      expect(answer).toHaveProperty('error');
      expect(answer).toEqual(await outcome(original.verify('RSASSA-PKCS1-v1_5', key, signature, data)));
    }
    expect(calls.verify).toBe(2);
  });

  it('reads a key’s usages and hash once: changing them afterwards changes nothing, as in WebCrypto', async () => {
    const pair = (await rsa('SHA-256')) as CryptoKeyPair;
    const sha256 = await original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data);
    const sha1Pair = (await rsa('SHA-1')) as CryptoKeyPair;
    expect(await fastVerify(original, 'RSASSA-PKCS1-v1_5', pair.publicKey, sha256, data)).toBe(true);
    (pair.publicKey.algorithm as unknown as { hash: { name: string } }).hash.name = 'SHA-1';
    expect(await fastVerify(original, 'RSASSA-PKCS1-v1_5', pair.publicKey, sha256, data)).toBe(true);
    const noUsages = await original.importKey('spki', await original.exportKey('spki', sha1Pair.publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-1' }, true, []);
    const sha1 = await original.sign('RSASSA-PKCS1-v1_5', sha1Pair.privateKey, data);
    const before = await outcome(fastVerify(original, 'RSASSA-PKCS1-v1_5', noUsages, sha1, data));
    (noUsages.usages as string[]).push('verify');
    const after = await outcome(fastVerify(original, 'RSASSA-PKCS1-v1_5', noUsages, sha1, data));
    expect(before).toHaveProperty('error');
    expect(after).toEqual(before);
    expect(after).toEqual(await outcome(original.verify('RSASSA-PKCS1-v1_5', noUsages, sha1, data)));
  });

  it('keys above 4,096 bits or with an exponent other than 65537 (milliseconds each on this thread)', async () => {
    const { subtle, calls } = counting();
    const big = await original.importKey('spki', spkiOf(BIG_KEY_PEM), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']);
    const three = (await original.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([3]), hash: 'SHA-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const signature = await original.sign('RSASSA-PKCS1-v1_5', three.privateKey, data);
    expect(await fastVerify(subtle, 'RSASSA-PKCS1-v1_5', three.publicKey, signature, data)).toBe(true);
    expect(await fastVerify(subtle, 'RSASSA-PKCS1-v1_5', big, new Uint8Array(576), data)).toBe(false);
    expect(calls.verify).toBe(2);
  });

  it('a detached buffer gets WebCrypto’s answer, never a synchronous throw', async () => {
    const pair = (await rsa('SHA-256')) as CryptoKeyPair;
    const detached = () => {
      const buffer = new ArrayBuffer(16);
      structuredClone(buffer, { transfer: [buffer] });
      return buffer;
    };
    const signature = await original.sign('RSASSA-PKCS1-v1_5', pair.privateKey, data);
    let digest: Promise<ArrayBuffer> | undefined;
    expect(() => (digest = fastDigest(original, 'SHA-256', detached()))).not.toThrow();
    expect(await outcome(digest!)).toEqual(await outcome(original.digest('SHA-256', detached())));
    let verified: Promise<boolean> | undefined;
    expect(() => (verified = fastVerify(original, 'RSASSA-PKCS1-v1_5', pair.publicKey, signature, detached()))).not.toThrow();
    expect(await outcome(verified!)).toEqual(await outcome(original.verify('RSASSA-PKCS1-v1_5', pair.publicKey, signature, detached())));
  });
});

describe('installFastSubtle', () => {
  it('replaces the global crypto.subtle once; the rest of SubtleCrypto still works on it', async () => {
    const before = globalThis.crypto.subtle;
    installFastSubtle();
    const after = globalThis.crypto.subtle;
    expect(after).not.toBe(before);
    installFastSubtle();
    expect(globalThis.crypto.subtle).toBe(after);
    expect(after).toBeInstanceOf(SubtleCrypto);
    const pair = await rsa('SHA-256');
    const spki = await after.exportKey('spki', pair.publicKey);
    expect(spki.byteLength).toBeGreaterThan(250);
    const sig = await after.sign('RSASSA-PKCS1-v1_5', pair.privateKey, new Uint8Array([1, 2, 3]));
    expect(await after.verify('RSASSA-PKCS1-v1_5', pair.publicKey, sig, new Uint8Array([1, 2, 3]))).toBe(true);
    expect(await after.verify('RSASSA-PKCS1-v1_5', pair.publicKey, sig, new Uint8Array([1, 2, 4]))).toBe(false);
  });

  it('Fedify still accepts a request signed either way and refuses one whose body or headers changed', async () => {
    installFastSubtle();
    const pair = await rsa('SHA-256');
    const keyId = 'https://peer.example/users/alice#main-key';
    const pem = await exportPublicKeyPem(pair.publicKey);
    const actor = { '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: 'https://peer.example/users/alice', type: 'Person', inbox: 'https://peer.example/users/alice/inbox', publicKey: { id: keyId, owner: 'https://peer.example/users/alice', publicKeyPem: pem } };
    const documentLoader: DocumentLoader = (url) => {
      if (url.startsWith('https://peer.example/users/alice')) return Promise.resolve({ contextUrl: null, documentUrl: url, document: actor });
      return Promise.reject(new Error(`no document at ${url}`));
    };
    // The contexts are preloaded: nothing is fetched.
    const contextLoader = createContextLoader(createHttpClient({ userAgent: 'test' }));
    const body = JSON.stringify({ type: 'Like', actor: actor.id, object: 'https://tern.example/o/1' });
    for (const spec of ['rfc9421', 'draft-cavage-http-signatures-12'] as const) {
      const request = new Request('https://tern.example/inbox', { method: 'POST', body, headers: { 'content-type': 'application/activity+json' } });
      const signed = await signRequest(request, pair.privateKey, new URL(keyId), { spec });
      const verify = (r: Request) => verifyRequest(r, { documentLoader, contextLoader });
      expect(await verify(signed.clone()), spec).not.toBeNull();
      const otherBody = new Request(signed.url, { method: 'POST', headers: signed.headers, body: body.replace('Like', 'Announce') });
      expect(await verify(otherBody), spec).toBeNull();
      const headers = new Headers(signed.headers);
      headers.set('host', 'elsewhere.example');
      expect(await verify(new Request('https://elsewhere.example/inbox', { method: 'POST', headers, body })), spec).toBeNull();
    }
  });
});

it('fastSubtle passes properties that are not methods through', () => {
  const subtle = fastSubtle(original);
  expect(Object.prototype.toString.call(subtle)).toBe(Object.prototype.toString.call(original));
});
