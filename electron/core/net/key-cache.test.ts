import { CryptographicKey } from '@fedify/vocab';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKeyCache, type PersistentKeyStore } from './key-cache';

let publicKey: CryptoKey;

beforeAll(async () => {
  const pair = await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  publicKey = pair.publicKey;
});

const keyId = (n: number) => new URL(`https://peer.example/users/u${n}#main-key`);
const keyFor = (n: number) => new CryptographicKey({ id: keyId(n), owner: new URL(`https://peer.example/users/u${n}`), publicKey });

describe('createKeyCache', () => {
  it('answers undefined for an unknown key, so Fedify fetches it', async () => {
    const cache = createKeyCache();
    expect(await cache.get(keyId(1))).toBeUndefined();
    expect(cache.stats.misses).toBe(1);
  });

  it('keeps at most maxKeys, dropping the least recently used', async () => {
    const cache = createKeyCache({ maxKeys: 2 });
    await cache.set(keyId(1), keyFor(1));
    await cache.set(keyId(2), keyFor(2));
    await cache.get(keyId(1)); // 1 is now more recent than 2
    await cache.set(keyId(3), keyFor(3));
    expect(cache.size).toBe(2);
    expect(cache.stats.evictions).toBe(1);
    expect(await cache.get(keyId(2))).toBeUndefined();
    expect((await cache.get(keyId(1)))?.id?.href).toBe(keyId(1).href);
  });

  it('believes "unavailable" only for the TTL', async () => {
    let now = 1_000_000;
    const cache = createKeyCache({ unavailableTtlMs: 60_000, now: () => now });
    await cache.set(keyId(1), null);
    expect(await cache.get(keyId(1))).toBeNull();
    expect(cache.isUnavailable(keyId(1))).toBe(true);
    now += 61_000;
    expect(await cache.get(keyId(1))).toBeUndefined();
  });

  it('writes keys through to the persistent store and reads them back into a new cache', async () => {
    const rows = new Map<string, string>();
    const store: PersistentKeyStore = { get: async (k) => rows.get(k) ?? null, set: async (k, v) => void rows.set(k, v) };
    await createKeyCache({ store }).set(keyId(1), keyFor(1));
    expect(JSON.parse(rows.get(keyId(1).href) ?? '{}')).toMatchObject({ id: keyId(1).href, publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY') });
    const restored = await createKeyCache({ store }).get(keyId(1));
    expect(restored).toBeInstanceOf(CryptographicKey);
    expect((restored as CryptographicKey).ownerId?.href).toBe('https://peer.example/users/u1');
    expect((restored as CryptographicKey).publicKey?.algorithm.name).toBe('RSASSA-PKCS1-v1_5');
  });

  it('does not persist "unavailable", and evict forgets a key', async () => {
    const rows = new Map<string, string>();
    const store: PersistentKeyStore = { get: async (k) => rows.get(k) ?? null, set: async (k, v) => void rows.set(k, v) };
    const cache = createKeyCache({ store });
    await cache.set(keyId(1), null);
    expect(rows.size).toBe(0);
    await cache.set(keyId(2), keyFor(2));
    cache.evict(keyId(2));
    expect(cache.size).toBe(0);
  });

  it('evict forgets a key under the other ids it is kept under too (an LD signature creator in another form)', async () => {
    const cache = createKeyCache();
    for (const alias of ['https://peer.example/users/u2', 'https://peer.example/users/%752#main-key']) await cache.set(new URL(alias), keyFor(2));
    await cache.set(keyId(2), keyFor(2));
    await cache.set(keyId(3), keyFor(3));
    cache.evict(keyId(2));
    expect(await cache.peek('https://peer.example/users/u2')).toBeUndefined();
    expect(await cache.peek('https://peer.example/users/%752#main-key')).toBeUndefined();
    expect((await cache.peek(keyId(3)))?.id?.href).toBe(keyId(3).href);
    expect(cache.size).toBe(1);
  });
});
