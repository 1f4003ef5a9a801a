// Actors that use the security vocabulary without declaring it (Honk, Discourse, some Pleroma:
// `@context` ActivityStreams alone): their key is read, and still only as theirs — Fedify
// verifies, the key is found by its id, and its owner must be the actor.
import { signRequest } from '@fedify/fedify';
import { isActor, Object as ASObject } from '@fedify/vocab';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from './http-client';
import { createContextLoader, createDocumentLoader, preloadedContextLoader } from './document-loader';
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

  it('reduces each key to what Fedify reads of a key, an owner to its id, and long lists of types or owners to their first ones', () => {
    const key = { id: 'https://a.example/u#key', type: 'Key', owner: 'https://a.example/u', publicKeyPem: 'PEM' };
    const junk = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, 'v']));
    expect(keyMembersOnly({ '@context': AS, publicKey: { ...key, ...junk } })).toEqual({ '@context': AS, publicKey: key });
    expect(keyMembersOnly({ publicKey: [{ ...key, owner: { id: 'https://a.example/u', type: 'Person', name: 'A', ...junk } }, 'https://a.example/u#k2'] })).toEqual({
      publicKey: [{ ...key, owner: { id: 'https://a.example/u' } }, 'https://a.example/u#k2'],
    });
    const multikey = { id: 'https://a.example/u#ed', type: 'Multikey', controller: 'https://a.example/u', publicKeyMultibase: 'z6Mk' };
    expect(keyMembersOnly({ assertionMethod: { '@set': [{ ...multikey, ...junk }] } })).toEqual({ assertionMethod: { '@set': [multikey] } });
    const types = Array.from({ length: 20_000 }, (_, i) => `T${i}`);
    const reduced = keyMembersOnly({ type: ['Person', ...types], publicKey: { ...key, owner: Array(20_000).fill('https://a.example/u') } }) as { type: string[]; publicKey: { owner: string[] } };
    expect(reduced.type).toEqual(['Person', ...types.slice(0, 7)]);
    expect(reduced.publicKey.owner).toHaveLength(8);
  });

  const SEC = SECURITY_CONTEXT;
  const contextOf = (context: unknown, fields: Record<string, unknown> = {}) =>
    (keyMembersOnly({ '@context': context, id: 'https://a.example/u', type: 'Person', publicKey: { id: 'https://a.example/u#k', type: 'Key', owner: 'https://a.example/u', publicKeyPem: 'PEM' }, ...fields }) as Record<string, unknown>)['@context'];

  it('keeps of an inline context the definitions of the terms the document uses and the prefixes they are written with; nothing of a context that defines none', () => {
    // Misskey's: `Key` is its key's type; the rest is for notes and profiles.
    const misskey = { Key: 'sec:Key', manuallyApprovesFollowers: 'as:manuallyApprovesFollowers', misskey: 'https://misskey-hub.net/ns#', _misskey_summary: 'misskey:_misskey_summary', isCat: 'misskey:isCat' };
    expect(contextOf([AS, SEC, misskey])).toEqual([AS, SEC, { Key: 'sec:Key' }]);
    // A prefix the document's own context defines, in this inline context or another one.
    expect(contextOf([AS, SEC, { k: 'https://k.example/ns#', toot: 'http://joinmastodon.org/ns#', Key: { '@id': 'k:Key', '@protected': true, '@context': [{ a: 'b' }] } }])).toEqual([AS, SEC, { k: 'https://k.example/ns#', Key: { '@id': 'k:Key' } }]);
    expect(contextOf([AS, { k: 'https://k.example/ns#' }, SEC, { Key: 'k:Key' }])).toEqual([AS, { k: 'https://k.example/ns#' }, SEC, { Key: 'k:Key' }]);
    expect(contextOf([AS, SEC, { '@language': 'und', '@import': 'https://x.example/c', '@protected': true, toot: 'http://joinmastodon.org/ns#' }])).toEqual([AS, SEC, { '@language': 'und' }]);
    expect(contextOf([AS, SEC, { toot: 'http://joinmastodon.org/ns#' }])).toEqual([AS, SEC]);
  });

  it('keeps of a list of 3,000 inline contexts the definitions it uses, joined into one', () => {
    const unused = Array.from({ length: 3000 }, (_, i) => ({ [`t${i}`]: `https://x.example/ns#t${i}` }));
    expect(contextOf([AS, SEC, ...unused])).toEqual([AS, SEC]);
    const defining = Array.from({ length: 3000 }, (_, i) => ({ publicKey: { '@id': 'sec:publicKey', '@type': '@id' }, [`t${i}`]: 'x' }));
    expect(contextOf([AS, ...defining, SEC, ...defining])).toEqual([AS, { publicKey: { '@id': 'sec:publicKey', '@type': '@id' } }, SEC, { publicKey: { '@id': 'sec:publicKey', '@type': '@id' } }]);
    // A key's own context the same way: Fedify reads such a key as a document of its own, so
    // the security context is declared in it too (withKeyVocabulary).
    const publicKey = { '@context': [...unused, { Key: 'sec:Key' }], id: 'https://a.example/u#k', type: 'Key', owner: 'https://a.example/u', publicKeyPem: 'PEM' };
    expect(keyMembersOnly({ '@context': [AS, SEC], publicKey })).toEqual({ '@context': [AS, SEC], publicKey: { ...publicKey, '@context': [SEC, { Key: 'sec:Key' }] } });
  });

  it('keeps the shipped contexts a key is read with, once each; any other is not fetched, the document read as ActivityStreams', () => {
    const hollo = [AS, SEC, 'https://w3id.org/security/data-integrity/v1', 'https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1', 'https://gotosocial.org/ns'];
    expect(contextOf(hollo)).toEqual(hollo.slice(0, 5));
    expect(contextOf([AS, SEC, AS, SEC, 'http://schema.org/', 'http://joinmastodon.org/ns'])).toEqual([AS, SEC]);
    // Lemmy's names the security context itself.
    expect(contextOf(['https://join-lemmy.org/context.json', AS])).toEqual(['https://join-lemmy.org/context.json', AS]);
    // Pleroma's litepub context; Mbin's, the only one it names.
    expect(contextOf([AS, 'https://pleroma.example/schemas/litepub-0.1.jsonld', { '@language': 'und' }])).toEqual([AS, { '@language': 'und' }]);
    expect(contextOf('https://mbin.example/contexts')).toEqual(AS);
    expect(withKeyVocabulary(keyMembersOnly({ '@context': 'https://mbin.example/contexts', publicKey: { id: 'https://mbin.example/u#k' } }))).toMatchObject({ '@context': [AS, SEC] });
    expect(contextOf(['https://x.example/c', SEC])).toEqual([AS, SEC]);
    expect(contextOf(AS)).toBe(AS);
  });
});

// The actors of the fixtures (servers' documents as they serve them), each read as a key look-up
// reads it: with only the contexts Fedify ships (nothing fetched), the keys its plain JSON lists.
type Json = Record<string, unknown>;
function fixtureActors(): { file: string; actor: Json }[] {
  const root = join(__dirname, '../../../test/fixtures');
  const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith('.json') ? [join(dir, name)] : []));
  const found: { file: string; actor: Json }[] = [];
  const visit = (value: unknown, file: string): void => {
    if (Array.isArray(value)) return value.forEach((v) => visit(v, file));
    if (typeof value !== 'object' || value === null) return;
    const doc = value as Json;
    if ('@context' in doc && typeof doc.id === 'string' && ('publicKey' in doc || 'assertionMethod' in doc)) found.push({ file: file.slice(root.length + 1), actor: doc });
    Object.values(doc).forEach((v) => visit(v, file));
  };
  for (const file of files(root)) {
    try {
      visit(JSON.parse(readFileSync(file, 'utf8')), file);
    } catch {
      // not JSON: not an actor
    }
  }
  return found;
}

const listedKeys = (value: unknown): Json[] => [value].flat().filter((k): k is Json => typeof k === 'object' && k !== null);

describe('the actors of real servers (fixtures), read for their keys', () => {
  const actors = fixtureActors();

  it('are there: Mastodon, GoToSocial, Misskey, Pleroma, Akkoma, Hollo (Multikeys), Lemmy, Mbin…', () => {
    expect(actors.length).toBeGreaterThan(40);
    for (const server of ['mastodon', 'gotosocial', 'misskey', 'pleroma', 'akkoma', 'hollo', 'lemmy', 'mbin', 'hubzilla', 'peertube']) {
      expect(actors.some((a) => a.file.includes(server)), server).toBe(true);
    }
  });

  it('give Fedify every key their JSON lists, with its owner or controller, from the shipped contexts alone', async () => {
    // A key given by its URL (Funkwhale), or embedded with an id at another origin than the
    // actor's (a few fixtures, their hosts renamed one by one), Fedify fetches: here refused.
    const options = { documentLoader: preloadedContextLoader, contextLoader: preloadedContextLoader, suppressError: true };
    const read = [];
    const wanted = [];
    for (const { file, actor } of actors) {
      const object = await ASObject.fromJsonLd(withKeyVocabulary(keyMembersOnly(actor)), options);
      const keys: unknown[] = [];
      if (isActor(object)) {
        for await (const key of object.getPublicKeys(options)) keys.push({ id: key.id?.href, owner: key.ownerId?.href, imported: key.publicKey?.type });
        for await (const key of object.getAssertionMethods(options)) keys.push({ id: key.id?.href, controller: key.controllerId?.href, imported: key.publicKey?.type });
      }
      read.push({ file, actor: isActor(object), keys });
      const embedded = (keys: unknown) => listedKeys(keys).filter((k) => typeof k.id === 'string' && new URL(k.id).origin === new URL(actor.id as string).origin);
      const url = (id: unknown) => new URL(id as string).href; // as Fedify writes it: `https://host/`
      const listed = [...embedded(actor.publicKey).map((k) => ({ id: url(k.id), owner: url(k.owner) })), ...embedded(actor.assertionMethod).map((k) => ({ id: url(k.id), controller: url(k.controller) }))];
      wanted.push({ file, actor: true, keys: listed.map((k) => ({ ...k, imported: 'public' })) });
    }
    expect(read).toEqual(wanted);
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

describe('verifying with keys of documents shaped to be slow to read, and of real servers’ actors', () => {
  let server: LoopbackServer;
  let client: HttpClient;
  let pair: CryptoKeyPair;
  let pem: string;
  const docs = new Map<string, string>();
  beforeAll(async () => {
    pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    pem = await exportPublicKeyPem(pair.publicKey);
    client = createHttpClient({ userAgent: 'Tern-test/1.0', allowPrivateAddresses: true });
    server = await startServer((req, res) => {
      const doc = docs.get(req.url ?? '');
      if (doc === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(doc);
    });
  });
  afterAll(async () => {
    await server.close();
    await client.close();
  });

  const verify = async (keyId: string) => {
    const request = new Request('https://tern.example/o/1', { headers: { accept: 'application/activity+json' } });
    const signed = await signRequest(request, pair.privateKey, new URL(keyId), { spec: 'draft-cavage-http-signatures-12' });
    return verifyInbound(signed, { documentLoader: createDocumentLoader(client), contextLoader: createContextLoader(client), keyCache: createKeyCache() });
  };
  const inline = (n: number) => Array.from({ length: n }, (_, i) => ({ [`t${i}`]: `https://x.example/ns#t${i}` }));
  const junk = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

  it('verifies a key of 12,000 members, one owned by an object of 12,000, one read with 1,000 inline contexts, in the document, the key or a context at the signer’s server, none of which is fetched', async () => {
    docs.set('/context', JSON.stringify({ '@context': inline(1000) }));
    const shapes: Record<string, (id: string) => Json> = {
      wide: (id) => ({ publicKey: { id: `${id}#key`, owner: id, publicKeyPem: pem, ...junk(12_000) } }),
      owner: (id) => ({ publicKey: { id: `${id}#key`, owner: { id, ...junk(12_000) }, publicKeyPem: pem } }),
      contexts: () => ({ '@context': [AS, SECURITY_CONTEXT, ...inline(1000)] }),
      remote: () => ({ '@context': [AS, SECURITY_CONTEXT, `${server.origin}/context`] }),
      keyContext: (id) => ({ publicKey: { '@context': inline(1000), id: `${id}#key`, owner: id, publicKeyPem: pem } }),
    };
    for (const [name, shape] of Object.entries(shapes)) {
      const id = `${server.origin}/u/${name}`;
      docs.set(`/u/${name}`, JSON.stringify({ '@context': [AS, SECURITY_CONTEXT], id, type: 'Person', inbox: `${id}/inbox`, publicKey: { id: `${id}#key`, owner: id, publicKeyPem: pem }, ...shape(id) }));
      expect(await verify(`${id}#key`), name).toMatchObject({ ok: true, keyId: `${id}#key`, ownerActorId: id });
    }
    expect(server.seen.filter((r) => r.path === '/context')).toEqual([]);
  });

  it('verifies with the key of each real server’s actor (its own key put in), fetching no context, its litepub, Lemmy, Mbin or Hubzilla one included', async () => {
    const served = new Set<string>();
    const results = [];
    for (const [i, { file, actor }] of fixtureActors().entries()) {
      const keys = listedKeys(actor.publicKey);
      const key = keys[0];
      if (typeof key?.id !== 'string' || new URL(key.id).origin !== new URL(actor.id as string).origin) continue;
      // The actor served here under a path of its own: its origin (in ids and contexts) replaced.
      const origin = new URL(actor.id as string).origin;
      const text = JSON.stringify({ ...actor, publicKey: keys.map((k) => ({ ...k, publicKeyPem: pem })) }).replaceAll(origin, `${server.origin}/f${i}`);
      const doc = JSON.parse(text) as Json;
      const { id: keyId, owner } = (doc.publicKey as Json[])[0] as { id: string; owner: string };
      for (const url of new Set([doc.id as string, keyId.replace(/#.*$/, '')])) docs.set(new URL(url).pathname, text);
      served.add(file);
      const result = await verify(keyId);
      results.push({ file, ok: result.ok, owner: result.ok ? keyBelongsToActor(result.ownerActorId, owner) : result.reason });
    }
    expect(results).toEqual(results.map(({ file }) => ({ file, ok: true, owner: true })));
    expect(served.size).toBeGreaterThan(40);
    expect(server.seen.filter((r) => !docs.has(r.path) || r.path === '/context').map((r) => r.path)).toEqual([]);
  });
});
