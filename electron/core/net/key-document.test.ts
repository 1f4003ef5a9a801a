// Actors that use the security vocabulary without declaring it (Honk, Discourse, some Pleroma:
// `@context` ActivityStreams alone): their key is read, and still only as theirs — Fedify
// verifies, the key is found by its id, and its owner must be the actor.
import { signRequest } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from './http-client';
import { createDocumentLoader } from './document-loader';
import { createKeyCache } from './key-cache';
import { exportPublicKeyPem } from './key-files';
import { KeyDocumentRefusedError, MAX_KEYS_PER_DOCUMENT, SECURITY_CONTEXT, keyCountOf, keyMembersOnly, keyVocabularyLoader, withKeyVocabulary } from './key-document';
import { keyBelongsToActor, verifyInbound } from './signatures';
import { startServer, type LoopbackServer } from './test-server';

const AS = 'https://www.w3.org/ns/activitystreams';

describe('withKeyVocabulary', () => {
  const key = { id: 'https://h.example/u/a#key', owner: 'https://h.example/u/a', publicKeyPem: 'PEM' };
  it('adds the security context after ActivityStreams to a document with a key it does not declare', () => {
    expect(withKeyVocabulary({ '@context': AS, publicKey: key })).toEqual({ '@context': [AS, SECURITY_CONTEXT], publicKey: key });
    const inline = { toot: 'http://joinmastodon.org/ns#' };
    expect(withKeyVocabulary({ '@context': [AS, inline], publicKey: key })).toMatchObject({ '@context': [AS, SECURITY_CONTEXT, inline] });
    expect(withKeyVocabulary({ '@context': AS, type: 'Key', publicKeyPem: 'PEM' })).toMatchObject({ '@context': [AS, SECURITY_CONTEXT] });
  });

  it('leaves alone a document that declares its keys, has none, or has no context at all', () => {
    for (const doc of [
      { '@context': [AS, SECURITY_CONTEXT], publicKey: key },
      { '@context': [AS, 'https://w3id.org/security/v2'], publicKey: key },
      { '@context': [AS, { publicKey: 'sec:publicKey' }], publicKey: key },
      { '@context': AS, type: 'Note' },
      { publicKey: key },
    ]) {
      expect(withKeyVocabulary(doc)).toBe(doc);
    }
  });
});

describe('keyMembersOnly', () => {
  it("keeps a document's identity and keys, and nothing else", () => {
    const key = { id: 'https://a.example/u#key', owner: 'https://a.example/u', publicKeyPem: 'PEM' };
    const multikey = [{ id: 'https://a.example/u#ed', type: 'Multikey', controller: 'https://a.example/u', publicKeyMultibase: 'z6Mk' }];
    const actor = { '@context': [AS], id: 'https://a.example/u', type: 'Person', name: 'A', tag: [{ type: 'Hashtag' }], zz: 1, publicKey: key, assertionMethod: multikey };
    expect(keyMembersOnly(actor)).toEqual({ '@context': [AS], id: 'https://a.example/u', type: 'Person', publicKey: key, assertionMethod: multikey });
    // A key document of its own (GoToSocial serves one) keeps what makes it a key.
    expect(keyMembersOnly({ '@context': AS, type: 'CryptographicKey', ...key, extra: 'x' })).toEqual({ '@context': AS, type: 'CryptographicKey', ...key });
    expect(keyMembersOnly('https://a.example/u')).toBe('https://a.example/u');
  });
});

describe('verifying with the key of an actor whose context is ActivityStreams alone', () => {
  let server: LoopbackServer;
  let client: HttpClient;
  let pair: CryptoKeyPair;
  let other: CryptoKeyPair;
  beforeAll(async () => {
    const generate = () => crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    [pair, other] = await Promise.all([generate(), generate()]);
    const pem = await exportPublicKeyPem(pair.publicKey);
    client = createHttpClient({ userAgent: 'Tern-test/1.0', allowPrivateAddresses: true });
    server = await startServer((req, res) => {
      const origin = `http://${req.headers.host ?? ''}`;
      const id = `${origin}${req.url ?? ''}`;
      // Honk's actor: /u/honker. A forger's: /u/forger lists a key owned by someone else.
      const owner = req.url === '/u/forger' ? `${origin}/u/honker` : id;
      // /u/many: 680 keys, none the one asked for (a fresh keyId each time: the cache never helps);
      // /u/few: three, the right one last.
      const listed = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `${id}#k${i}`, owner: id, publicKeyPem: pem }));
      if (req.url === '/u/many' || req.url === '/u/few') {
        const publicKey = req.url === '/u/many' ? listed(680) : [...listed(2), { id: `${id}#key`, owner: id, publicKeyPem: pem }];
        return res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify({ '@context': [AS, SECURITY_CONTEXT], id, type: 'Person', inbox: `${id}/inbox`, publicKey }));
      }
      if (req.url !== '/u/honker' && req.url !== '/u/forger' && req.url !== '/u/big') return res.writeHead(404).end();
      // /u/big: an actor of about 900 KB, nearly all of it terms no context defines.
      const junk = req.url === '/u/big' ? { junk: Array.from({ length: 30_000 }, (_, i) => ({ [`zz${i}`]: i })), attachment: [{ type: 'PropertyValue', name: 'site', value: 'x' }] } : {};
      const doc = { '@context': AS, id, type: 'Person', inbox: `${id}/inbox`, preferredUsername: 'h', publicKey: { id: `${id}#key`, owner, publicKeyPem: pem }, ...junk };
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
    });
  });
  afterAll(async () => {
    await server.close();
    await client.close();
  });

  const deps = () => ({ documentLoader: createDocumentLoader(client), keyCache: createKeyCache() });
  const signed = async (actor: string, keyId: string, key: CryptoKey) => {
    const body = JSON.stringify({ '@context': AS, type: 'Follow', actor, object: 'https://tern.example/' });
    const request = new Request('https://tern.example/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    return signRequest(request, key, new URL(keyId), { spec: 'draft-cavage-http-signatures-12' });
  };

  it('verifies, the key owned by the actor', async () => {
    const actor = `${server.origin}/u/honker`;
    const result = await verifyInbound(await signed(actor, `${actor}#key`, pair.privateKey), deps());
    expect(result).toMatchObject({ ok: true, keyId: `${actor}#key`, ownerActorId: actor });
  });

  it('reads only the keys of a large actor (900 KB, mostly unknown terms): it verifies, its other members are not expanded', async () => {
    const actor = `${server.origin}/u/big`;
    const result = await verifyInbound(await signed(actor, `${actor}#key`, pair.privateKey), deps());
    expect(result).toMatchObject({ ok: true, keyId: `${actor}#key`, ownerActorId: actor });
  });

  it('still refuses a signature by another key, a key id the document does not list, and a key owned by someone else', async () => {
    const actor = `${server.origin}/u/honker`;
    expect(await verifyInbound(await signed(actor, `${actor}#key`, other.privateKey), deps())).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(await verifyInbound(await signed(actor, `${actor}#other-key`, pair.privateKey), deps())).toMatchObject({ ok: false, reason: 'key_unavailable' });
    const forger = `${server.origin}/u/forger`;
    const forged = await verifyInbound(await signed(forger, `${forger}#key`, pair.privateKey), deps());
    expect(forged.ok && keyBelongsToActor(forged.ownerActorId, forger)).toBe(false);
  });

  it(`refuses an actor listing more than ${MAX_KEYS_PER_DOCUMENT} keys before Fedify walks them, and says so; one listing three still verifies`, async () => {
    const many = `${server.origin}/u/many`;
    expect(await verifyInbound(await signed(many, `${many}#fresh-1`, pair.privateKey), deps())).toMatchObject({ ok: false, reason: 'too_many_keys' });
    const loader = keyVocabularyLoader(createDocumentLoader(client));
    await expect(loader(many)).rejects.toThrow(new KeyDocumentRefusedError(`${many} lists 680 keys; a key document may list at most ${MAX_KEYS_PER_DOCUMENT}`));
    const few = `${server.origin}/u/few`;
    expect(await verifyInbound(await signed(few, `${few}#key`, pair.privateKey), deps())).toMatchObject({ ok: true, keyId: `${few}#key`, ownerActorId: few });
  });
});

describe('keyCountOf', () => {
  it('counts keys, key URLs and the PEMs or multibases inside a key, through JSON-LD wrappers', () => {
    const key = { id: 'https://a.example/u#k', publicKeyPem: 'PEM' };
    expect(keyCountOf({ publicKey: key })).toBe(1);
    expect(keyCountOf({ publicKey: [key, 'https://a.example/u#k2'], assertionMethod: [{ id: 'x', publicKeyMultibase: 'z6Mk' }] })).toBe(3);
    expect(keyCountOf({ publicKey: { ...key, publicKeyPem: Array(30).fill('PEM') } })).toBe(30);
    expect(keyCountOf({ publicKey: { '@set': Array(30).fill(key) } })).toBe(30);
    expect(keyCountOf({ type: 'CryptographicKey', publicKeyPem: Array(30).fill('PEM') })).toBe(30);
    expect(keyCountOf('https://a.example/u')).toBe(0);
  });
});
