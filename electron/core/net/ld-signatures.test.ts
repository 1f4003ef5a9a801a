// LD signatures (RsaSignature2017) with real RSA keys: what signLdDocument makes, Fedify's
// verifyJsonLd accepts; verifyLdSignature refuses a tampered document, a key of another actor
// and an unsigned one, each for its reason, and fetches a key once (the key cache).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signObject, verifyJsonLd } from '@fedify/fedify';
import { Like, Multikey, Person } from '@fedify/vocab';
import { startServer, type LoopbackServer } from './test-server';
import { startMallory, type Mallory } from '../listener/test-support';
import { createHttpClient } from './http-client';
import {
  createContextLoader,
  createDocumentLoader,
  createKeyCache,
  hasLdSignature,
  signLdDocument,
  verifyIntegrityProofs,
  verifyLdSignature,
  type VerifyInboundDeps,
} from './signatures';

let mallory: Mallory;
let eve: Mallory;
let deps: VerifyInboundDeps;

beforeAll(async () => {
  [mallory, eve] = await Promise.all([startMallory(), startMallory()]);
  const client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true });
  const contextLoader = createContextLoader(client);
  deps = { documentLoader: createDocumentLoader(client), contextLoader, keyCache: createKeyCache({ contextLoader }) };
});

afterAll(async () => {
  await Promise.all([mallory?.server.close(), eve?.server.close()]);
});

/** A Delete as Mastodon sends it for a status (its context, a Tombstone, addressed to Public). */
const mastodonDelete = (actor: string) => ({
  '@context': ['https://www.w3.org/ns/activitystreams', { ostatus: 'http://ostatus.org#', atomUri: 'ostatus:atomUri' }],
  id: `${actor}/statuses/1#delete`,
  type: 'Delete',
  actor,
  to: ['https://www.w3.org/ns/activitystreams#Public'],
  object: { id: `${actor}/statuses/1`, type: 'Tombstone', atomUri: `${actor}/statuses/1` },
});

const signer = (m: Mallory) => ({ keyId: new URL(m.keyId), privateKey: m.keys.privateKey });

describe('LD signatures', () => {
  it('signLdDocument makes an RsaSignature2017 by our key that Fedify verifies, and verifyLdSignature names the owner', async () => {
    const signed = await signLdDocument(mastodonDelete(mallory.actorId), signer(mallory));
    expect(signed.signature).toMatchObject({ type: 'RsaSignature2017', creator: mallory.keyId });
    expect(hasLdSignature(signed)).toBe(true);
    expect(await verifyJsonLd(signed, { documentLoader: deps.documentLoader, contextLoader: deps.contextLoader })).toBe(true);
    expect(await verifyLdSignature(signed, mallory.actorId, deps)).toEqual({ ok: true, keyId: mallory.keyId, ownerActorId: mallory.actorId });
    // Re-serialised JSON (other whitespace) still verifies: the signature covers the normalised graph.
    expect((await verifyLdSignature(JSON.parse(JSON.stringify(signed, null, 2)), mallory.actorId, deps)).ok).toBe(true);
  });

  it('the key is fetched once: later verifications are answered by the key cache', async () => {
    const first = await signLdDocument(mastodonDelete(mallory.actorId), signer(mallory));
    await verifyLdSignature(first, mallory.actorId, deps);
    const fetches = deps.keyCache.stats.fetches;
    for (let i = 0; i < 3; i++) {
      const again = await signLdDocument({ ...mastodonDelete(mallory.actorId), id: `${mallory.actorId}/statuses/${i}#delete` }, signer(mallory));
      expect((await verifyLdSignature(again, mallory.actorId, deps)).ok).toBe(true);
    }
    expect(deps.keyCache.stats.fetches).toBe(fetches);
  });

  it('a tampered document does not verify (bad_signature)', async () => {
    const signed = await signLdDocument(mastodonDelete(mallory.actorId), signer(mallory));
    const tampered = { ...signed, object: { ...signed.object, id: `${mallory.actorId}/statuses/2` } };
    expect(await verifyLdSignature(tampered, mallory.actorId, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('a valid signature by the key of another actor is refused (not_actor)', async () => {
    // Eve signs an activity claiming to be Mallory's, with her own (valid, fetchable) key.
    const signed = await signLdDocument(mastodonDelete(mallory.actorId), signer(eve));
    expect(await verifyLdSignature(signed, mallory.actorId, deps)).toMatchObject({ ok: false, reason: 'not_actor', keyId: eve.keyId });
    // The same signature is fine for an activity of Eve's own.
    const hers = await signLdDocument(mastodonDelete(eve.actorId), signer(eve));
    expect((await verifyLdSignature(hers, eve.actorId, deps)).ok).toBe(true);
  });

  it('a key that cannot be fetched, or no signature at all, is said so', async () => {
    const ghost = await signLdDocument(mastodonDelete(mallory.ghostId), { keyId: new URL(mallory.ghostKeyId), privateKey: mallory.keys.privateKey });
    expect(await verifyLdSignature(ghost, mallory.ghostId, deps)).toMatchObject({ ok: false, reason: 'key_unavailable' });
    expect(await verifyLdSignature(mastodonDelete(mallory.actorId), mallory.actorId, deps)).toEqual({ ok: false, reason: 'unsigned' });
    expect(hasLdSignature({ signature: { type: 'Ed25519Signature2018', creator: 'x', signatureValue: 'y' } })).toBe(false);
  });
});

describe('Object Integrity Proofs (FEP-8b32)', () => {
  // ivy's document lists an Ed25519 key of hers; a second server hosts a key document that
  // claims ivy as its controller (anyone can write such a document).
  let server: LoopbackServer;
  let elsewhere: LoopbackServer;
  let ivy: string;
  let ownKey: CryptoKeyPair;
  let strayKey: CryptoKeyPair;
  const docs = new Map<string, unknown>();

  beforeAll(async () => {
    const serve = (origin: () => string) => (req: { url?: string }, res: import('node:http').ServerResponse) => {
      const doc = docs.get(`${origin()}${req.url ?? ''}`);
      if (doc === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
    };
    server = await startServer(serve(() => server.origin));
    elsewhere = await startServer(serve(() => elsewhere.origin));
    ivy = `${server.origin}/users/ivy`;
    [ownKey, strayKey] = (await Promise.all([
      crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']),
      crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']),
    ])) as [CryptoKeyPair, CryptoKeyPair];
    // Written by Fedify, as a Fedify server publishes its actors.
    const own = new Multikey({ id: new URL(`${ivy}#ed`), controller: new URL(ivy), publicKey: ownKey.publicKey });
    docs.set(ivy, await new Person({ id: new URL(ivy), inbox: new URL(`${ivy}/inbox`), assertionMethods: [own] }).toJsonLd({ format: 'compact' }));
    const stray = await new Multikey({ id: new URL(`${elsewhere.origin}/keys/ed`), controller: new URL(ivy), publicKey: strayKey.publicKey }).toJsonLd({ format: 'compact' });
    docs.set(`${elsewhere.origin}/keys/ed`, stray);
  });

  afterAll(async () => {
    await Promise.all([server?.close(), elsewhere?.close()]);
  });

  const like = (n: number) => new Like({ id: new URL(`${ivy}/likes/${n}`), actor: new URL(ivy), object: new URL('https://tern.example/o/1') });
  const proved = async (n: number, key: CryptoKeyPair, keyId: string) =>
    (await signObject(like(n), key.privateKey, new URL(keyId), { contextLoader: deps.contextLoader })).toJsonLd({ format: 'compact', contextLoader: deps.contextLoader });

  it('a proof by a key in the actor’s own document verifies', async () => {
    const json = await proved(1, ownKey, `${ivy}#ed`);
    expect(await verifyIntegrityProofs(json, ivy, deps)).toEqual({ ok: true, keyId: `${ivy}#ed`, ownerActorId: ivy });
  });

  it('tampered, it does not (bad_signature)', async () => {
    const json = (await proved(2, ownKey, `${ivy}#ed`)) as Record<string, unknown>;
    expect(await verifyIntegrityProofs({ ...json, object: 'https://tern.example/o/2' }, ivy, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('a key hosted elsewhere that merely claims the actor as controller is refused (not_actor), though Fedify accepts the proof', async () => {
    const json = await proved(3, strayKey, `${elsewhere.origin}/keys/ed`);
    expect(await verifyIntegrityProofs(json, ivy, deps)).toMatchObject({ ok: false, reason: 'not_actor' });
  });
});
