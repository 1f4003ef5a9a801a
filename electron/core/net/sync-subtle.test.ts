import { describe, expect, it } from 'vitest';
import { useSynchronousSubtle } from './sync-subtle';

// The prototype's methods stay WebCrypto's own: the install puts its answers on the instance.
const webcrypto = {
  digest: (algorithm: AlgorithmIdentifier, data: BufferSource) => SubtleCrypto.prototype.digest.call(crypto.subtle, algorithm, data),
  verify: (algorithm: AlgorithmIdentifier, key: CryptoKey, signature: BufferSource, data: BufferSource) =>
    SubtleCrypto.prototype.verify.call(crypto.subtle, algorithm, key, signature, data),
};
const stats = useSynchronousSubtle();
const subtle = crypto.subtle;

const rsa = (await subtle.generateKey(
  { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  true,
  ['sign', 'verify'],
)) as CryptoKeyPair;
const rsa512 = (await subtle.generateKey(
  { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-512' },
  true,
  ['sign', 'verify'],
)) as CryptoKeyPair;
const ed = (await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
const data = new TextEncoder().encode('(request-target): post /inbox\nhost: tern.example');

/** The outcome of a call as data: its value, or the error's name. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await call();
    return value instanceof ArrayBuffer ? { bytes: [...new Uint8Array(value)] } : { value };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

describe('digest answered on the thread', () => {
  const inputs: Array<[string, BufferSource]> = [
    ['an ArrayBuffer', data.buffer.slice(0)],
    ['a Uint8Array', data],
    ['a view into a larger buffer', new Uint8Array(new Uint8Array([9, 9, ...data, 9]).buffer, 2, data.byteLength)],
    ['a DataView', new DataView(data.buffer.slice(0))],
    ['nothing', new Uint8Array(0)],
  ];
  for (const algorithm of ['SHA-256', 'SHA-512', 'sha-256', { name: 'SHA-384' }, 'SHA-1'] as const) {
    for (const [label, input] of inputs) {
      it(`${JSON.stringify(algorithm)} of ${label} is WebCrypto's digest`, async () => {
        const before = stats.digests;
        const answer = await subtle.digest(algorithm, input);
        expect(answer).toBeInstanceOf(ArrayBuffer);
        expect(await outcome(async () => answer)).toEqual(await outcome(() => webcrypto.digest(algorithm, input)));
        expect(stats.digests).toBe(before + 1);
      });
    }
  }

  it('returns a buffer of the digest alone, which the caller may keep and change', async () => {
    const first = new Uint8Array(await subtle.digest('SHA-256', data));
    expect(first.buffer.byteLength).toBe(32);
    first.fill(0);
    expect(new Uint8Array(await subtle.digest('SHA-256', data))).not.toEqual(first);
  });

  it('passes what it does not answer to WebCrypto, whose errors the caller gets', async () => {
    const before = stats.passedOn;
    for (const [algorithm, input] of [
      ['MD5', data],
      ['SHA-256', 'text' as unknown as BufferSource],
      [{}, data],
    ] as const) {
      const mine = await outcome(() => subtle.digest(algorithm as AlgorithmIdentifier, input));
      expect(mine).toHaveProperty('error');
      expect(mine).toEqual(await outcome(() => webcrypto.digest(algorithm as AlgorithmIdentifier, input)));
    }
    expect(stats.passedOn).toBe(before + 3);
  });
});

describe('verify answered on the thread', () => {
  const cases = async () => {
    const rsaSig = new Uint8Array(await subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, data));
    const rsa512Sig = new Uint8Array(await subtle.sign('RSASSA-PKCS1-v1_5', rsa512.privateKey, data));
    const edSig = new Uint8Array(await subtle.sign('Ed25519', ed.privateKey, data));
    const flipped = (sig: Uint8Array) => sig.map((b, i) => (i === 10 ? b ^ 1 : b));
    const other = new TextEncoder().encode('(request-target): post /other');
    return [
      ['an RSA signature', 'RSASSA-PKCS1-v1_5', rsa.publicKey, rsaSig, data, true],
      ['an RSA signature by name in lower case', 'rsassa-pkcs1-v1_5', rsa.publicKey, rsaSig, data, true],
      ['an RSA SHA-512 signature', { name: 'RSASSA-PKCS1-v1_5' }, rsa512.publicKey, rsa512Sig, data, true],
      ['an RSA signature of other data', 'RSASSA-PKCS1-v1_5', rsa.publicKey, rsaSig, other, false],
      ['a changed RSA signature', 'RSASSA-PKCS1-v1_5', rsa.publicKey, flipped(rsaSig), data, false],
      ['a short RSA signature', 'RSASSA-PKCS1-v1_5', rsa.publicKey, rsaSig.slice(0, 100), data, false],
      ['an empty RSA signature', 'RSASSA-PKCS1-v1_5', rsa.publicKey, new Uint8Array(0), data, false],
      ['an RSA signature under the SHA-512 key', 'RSASSA-PKCS1-v1_5', rsa512.publicKey, rsaSig, data, false],
      ['an Ed25519 signature', 'Ed25519', ed.publicKey, edSig, data, true],
      ['a changed Ed25519 signature', 'Ed25519', ed.publicKey, flipped(edSig), data, false],
      ['a short Ed25519 signature', 'Ed25519', ed.publicKey, edSig.slice(0, 10), data, false],
    ] as const;
  };

  it('gives WebCrypto’s answer for good and bad signatures, RSA and Ed25519', async () => {
    for (const [label, algorithm, key, signature, input, expected] of await cases()) {
      const before = stats.verifies + stats.passedOn;
      const mine = await outcome(() => subtle.verify(algorithm, key, signature, input));
      expect(mine, label).toEqual({ value: expected });
      expect(mine, label).toEqual(await outcome(() => webcrypto.verify(algorithm, key, signature, input)));
      expect(stats.verifies + stats.passedOn, label).toBe(before + 1);
    }
  });

  it('answers a good signature without WebCrypto', async () => {
    const signature = await subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, data);
    const before = { ...stats };
    await expect(subtle.verify('RSASSA-PKCS1-v1_5', rsa.publicKey, signature, data)).resolves.toBe(true);
    expect(stats.verifies).toBe(before.verifies + 1);
    expect(stats.passedOn).toBe(before.passedOn);
  });

  it('leaves to WebCrypto, with its errors, a private key, a name that is not the key’s, other algorithms, a key not for verifying, and data that is no BufferSource', async () => {
    const signature = new Uint8Array(await subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, data));
    const signOnly = await subtle.importKey('jwk', await subtle.exportKey('jwk', rsa.publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, []);
    const ecdsa = (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const ecdsaSig = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, ecdsa.privateKey, data);
    const calls: Array<[string, AlgorithmIdentifier | EcdsaParams, CryptoKey, BufferSource, BufferSource]> = [
      ['private key', 'RSASSA-PKCS1-v1_5', rsa.privateKey, signature, data],
      ['name of another algorithm', 'Ed25519', rsa.publicKey, signature, data],
      ['ECDSA', { name: 'ECDSA', hash: 'SHA-256' }, ecdsa.publicKey, ecdsaSig, data],
      ['no verify usage', 'RSASSA-PKCS1-v1_5', signOnly, signature, data],
      ['text data', 'RSASSA-PKCS1-v1_5', rsa.publicKey, signature, 'text' as unknown as BufferSource],
      ['no key', 'RSASSA-PKCS1-v1_5', {} as CryptoKey, signature, data],
    ];
    const before = stats.passedOn;
    for (const [label, algorithm, key, sig, input] of calls) {
      const mine = await outcome(() => subtle.verify(algorithm, key, sig, input));
      expect(mine, label).toEqual(await outcome(() => webcrypto.verify(algorithm, key, sig, input)));
    }
    expect(stats.passedOn).toBe(before + calls.length);
    // ECDSA is verified, by WebCrypto: passed on is not refused.
    await expect(subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, ecdsa.publicKey, ecdsaSig, data)).resolves.toBe(true);
  });

  it('installs once', () => {
    expect(useSynchronousSubtle()).toBe(stats);
  });
});
