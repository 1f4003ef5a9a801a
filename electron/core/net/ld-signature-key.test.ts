// LD signatures whose `creator` is not the text of the key id the actor publishes: the forms
// servers write it in find the actor's own key (and only a key the actor owns, at its origin),
// once; refusals keep their reasons. A loopback server routes paths as Rails or Phoenix do
// (escapes decoded), and serves actor documents in the shapes named beside each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignature } from '@fedify/fedify';
import { startServer, type LoopbackServer } from './test-server';
import { newRsaKeys } from '../listener/test-support';
import { createHttpClient } from './http-client';
import { creatorNamesActor, normalizeKeyId } from './ld-signature-key';
import { createContextLoader, createDocumentLoader, createKeyCache, exportPublicKeyPem, verifyLdSignature, type VerifyInboundDeps } from './signatures';

let server: LoopbackServer;
let origin: string;
let keys: CryptoKeyPair;
let otherKeys: CryptoKeyPair;
let client: ReturnType<typeof createHttpClient>;
const docs = new Map<string, unknown>();

const context = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'];
/** An actor as Mastodon and Pleroma publish it: one key, `<actor>#main-key`. */
const mastodonActor = (id: string, pem: string) => ({ '@context': context, id, type: 'Person', inbox: `${id}/inbox`, publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem } });
/** GoToSocial's actor: its key id is `<actor>/main-key` (docs/federation, "Quirks"). */
const gotosocialActor = (id: string, pem: string) => ({ '@context': context, id, type: 'Person', inbox: `${id}/inbox`, publicKey: { id: `${id}/main-key`, owner: id, publicKeyPem: pem } });

beforeAll(async () => {
  server = await startServer((req, res) => {
    const doc = docs.get(decodeURIComponent(new URL(req.url ?? '/', origin).pathname));
    if (doc === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
  });
  origin = server.origin;
  client = createHttpClient({ userAgent: 'Tern-test', allowPrivateAddresses: true });
  [keys, otherKeys] = await Promise.all([newRsaKeys(), newRsaKeys()]);
  const [pem, otherPem] = await Promise.all([exportPublicKeyPem(keys.publicKey), exportPublicKeyPem(otherKeys.publicKey)]);
  docs.set('/users/alice', mastodonActor(`${origin}/users/alice`, pem));
  docs.set('/users/zoë', mastodonActor(`${origin}/users/zo%C3%AB`, pem));
  docs.set('/users/gts', gotosocialActor(`${origin}/users/gts`, pem));
  docs.set('/users/gts/main-key', { '@context': context, ...gotosocialActor(`${origin}/users/gts`, pem).publicKey });
  docs.set('/users/eve', mastodonActor(`${origin}/users/eve`, otherPem));
  // Two keys: a creator naming only the actor does not say which signed.
  docs.set('/users/twokeys', {
    ...mastodonActor(`${origin}/users/twokeys`, pem),
    publicKey: [
      { id: `${origin}/users/twokeys#main-key`, owner: `${origin}/users/twokeys`, publicKeyPem: otherPem },
      { id: `${origin}/users/twokeys#other-key`, owner: `${origin}/users/twokeys`, publicKeyPem: pem },
    ],
  });
  // A key listed by the actor but owned by another actor of the same server.
  docs.set('/users/lent', { ...mastodonActor(`${origin}/users/lent`, pem), publicKey: { id: `${origin}/users/lent#main-key`, owner: `${origin}/users/eve`, publicKeyPem: pem } });
});

afterAll(async () => {
  await server?.close();
});

const freshDeps = (): VerifyInboundDeps => {
  const contextLoader = createContextLoader(client);
  return { documentLoader: createDocumentLoader(client), contextLoader, keyCache: createKeyCache({ contextLoader }) };
};

/** A Delete signed with `creator` written exactly so (Fedify's signer writes a URL's href; a
 * server writes the creator as its own text, and that text is what the signature covers). */
async function signedDelete(actor: string, creator: string, privateKey = keys.privateKey) {
  const doc = { '@context': context, id: `${actor}/statuses/1#delete`, type: 'Delete', actor, object: `${actor}/statuses/1` };
  const signature = await createSignature(doc, privateKey, { href: creator } as unknown as URL, { contextLoader: createContextLoader(client) });
  return { ...doc, signature };
}

describe('the creator of an LD signature, in the forms servers write it', () => {
  const published = (path: string) => `${origin}${path}`;

  it.each([
    // Mastodon's own spec signs with the bare actor id (spec/lib/activitypub/linked_data_signature_spec.rb).
    ['the actor id (Mastodon spec)', '/users/alice', '/users/alice', '/users/alice#main-key'],
    // The actor id written with an escaped unreserved letter: RFC 3986 §6.2.2.2 says it is the same URI.
    ['an escaped unreserved letter', '/users/alice', '/users/%61lice#main-key', '/users/alice#main-key'],
    // A non-ASCII name escaped in lower-case hex, the actor publishing upper case (RFC 3986 §6.2.2.1).
    ['lower-case escapes', '/users/zo%C3%AB', '/users/zo%c3%ab#main-key', '/users/zo%C3%AB#main-key'],
    // A trailing slash on the actor's path (interop-notes: ids with and without it name one actor).
    ['a trailing slash before the fragment', '/users/alice', '/users/alice/#main-key', '/users/alice#main-key'],
    // `<actor>/main-key` for a Mastodon-shaped actor: Pleroma cuts that suffix (key_id_to_actor_id).
    ['the /main-key suffix', '/users/alice', '/users/alice/main-key', '/users/alice#main-key'],
    // `<actor>#main-key` for a GoToSocial actor, whose key is `<actor>/main-key`.
    ['#main-key for a GoToSocial actor', '/users/gts', '/users/gts#main-key', '/users/gts/main-key'],
  ])('%s: verifies with the key the actor publishes, named by its published id', async (_, actorPath, creatorPath, keyPath) => {
    const actor = published(actorPath);
    const result = await verifyLdSignature(await signedDelete(actor, published(creatorPath)), actor, freshDeps());
    expect(result).toEqual({ ok: true, keyId: published(keyPath), ownerActorId: actor });
  });

  it('the key found for a creator is remembered under its text: the next activity signed so costs no fetch', async () => {
    const deps = freshDeps();
    const actor = published('/users/alice');
    expect((await verifyLdSignature(await signedDelete(actor, published('/users/%61lice#main-key')), actor, deps)).ok).toBe(true);
    const fetches = deps.keyCache.stats.fetches;
    expect((await verifyLdSignature(await signedDelete(actor, published('/users/%61lice#main-key')), actor, deps)).ok).toBe(true);
    expect(deps.keyCache.stats.fetches).toBe(fetches);
  });

  it('a key the cache holds under its published id (from an HTTP signature, say) is matched to a creator in another form without a fetch', async () => {
    const deps = freshDeps();
    for (const [actorPath, exact, others] of [
      ['/users/alice', '/users/alice#main-key', ['/users/%61lice#main-key', '/users/alice', '/users/alice/main-key']],
      // GoToSocial's key lives outside the actor document: its owner is confirmed once, then cached.
      ['/users/gts', '/users/gts/main-key', ['/users/gts#main-key', '/users/gts']],
    ] as const) {
      const actor = published(actorPath);
      expect((await verifyLdSignature(await signedDelete(actor, published(exact)), actor, deps)).ok).toBe(true);
      const fetches = deps.keyCache.stats.fetches;
      for (const other of others) {
        expect(await verifyLdSignature(await signedDelete(actor, published(other)), actor, deps), other).toEqual({ ok: true, keyId: published(exact), ownerActorId: actor });
      }
      expect(deps.keyCache.stats.fetches).toBe(fetches);
    }
    // Eve's key, cached too, is not taken for an activity of Alice's, however its creator is written.
    const eve = published('/users/eve');
    expect((await verifyLdSignature(await signedDelete(eve, `${eve}#main-key`, otherKeys.privateKey), eve, deps)).ok).toBe(true);
    const alice = published('/users/alice');
    expect(await verifyLdSignature(await signedDelete(alice, published('/users/%65ve#main-key'), otherKeys.privateKey), alice, deps)).toMatchObject({ ok: false });
    expect(await verifyLdSignature(await signedDelete(alice, published('/users/%61lice'), otherKeys.privateKey), alice, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('another key than the actor’s is refused, however the creator is written', async () => {
    const actor = published('/users/alice');
    const forged = await signedDelete(actor, published('/users/%61lice#main-key'), otherKeys.privateKey);
    expect(await verifyLdSignature(forged, actor, freshDeps())).toMatchObject({ ok: false, reason: 'bad_signature', keyId: published('/users/alice#main-key') });
    const byEve = (creator: string) => signedDelete(actor, published(creator), otherKeys.privateKey);
    expect(await verifyLdSignature(await byEve('/users/eve#main-key'), actor, freshDeps())).toMatchObject({ ok: false, reason: 'not_actor' });
    // Escaped, Eve's key id names no key Eve publishes, and none of the actor's.
    expect(await verifyLdSignature(await byEve('/users/%65ve#main-key'), actor, freshDeps())).toMatchObject({ ok: false, reason: 'key_unavailable' });
    // Listed in the actor's own document, but owned by Eve: not the actor's key.
    const lent = published('/users/lent');
    expect(await verifyLdSignature(await signedDelete(lent, lent), lent, freshDeps())).toMatchObject({ ok: false, reason: 'not_actor' });
  });

  it('of an actor with two keys, a creator naming the actor takes none; one naming a key loosely takes that key', async () => {
    const actor = published('/users/twokeys');
    expect(await verifyLdSignature(await signedDelete(actor, actor), actor, freshDeps())).toMatchObject({ ok: false, reason: 'key_unavailable' });
    const loosely = await signedDelete(actor, published('/users/twokeys/#other-key'));
    expect(await verifyLdSignature(loosely, actor, freshDeps())).toEqual({ ok: true, keyId: published('/users/twokeys#other-key'), ownerActorId: actor });
  });

  it('a creator the actor publishes in no form is looked for once, not again for each activity signed so', async () => {
    const deps = freshDeps();
    const actor = published('/users/alice');
    const reads = () => server.seen.filter((r) => r.path === '/users/alice').length;
    const before = reads();
    for (let i = 0; i < 3; i++) {
      expect(await verifyLdSignature(await signedDelete(actor, published('/users/alice#no-such-key')), actor, deps)).toMatchObject({ ok: false, reason: 'key_unavailable' });
    }
    expect(reads() - before).toBe(1);
  });

  it('a creator at another origin than the actor is refused before any fetch', async () => {
    const actor = published('/users/alice');
    const deps = freshDeps();
    const elsewhere = `http://localhost:${server.port}/users/alice#main-key`;
    expect(await verifyLdSignature(await signedDelete(actor, elsewhere), actor, deps)).toEqual({ ok: false, reason: 'not_actor', keyId: elsewhere });
    expect(deps.keyCache.stats.fetches).toBe(0);
  });
});

describe('normalizeKeyId and creatorNamesActor', () => {
  it('compare ids as RFC 3986 §6.2.2 and the URL parser do', () => {
    expect(normalizeKeyId('https://Example.COM:443/users/%61/#main-key')).toBe('https://example.com/users/a#main-key');
    expect(normalizeKeyId('https://example.com/users/zo%c3%ab')).toBe('https://example.com/users/zo%C3%AB');
    expect(normalizeKeyId('https://example.com/#main-key')).toBe(normalizeKeyId('https://example.com#main-key'));
    // Escapes of reserved characters are kept: `%2F` is not a path separator.
    expect(normalizeKeyId('https://example.com/users/a%2fb')).toBe('https://example.com/users/a%2Fb');
    expect(normalizeKeyId('not a url')).toBeNull();
  });

  it('name the actor for its id, #main-key, /main-key and /publickey only', () => {
    const actor = 'https://example.com/users/a';
    for (const creator of [actor, `${actor}#main-key`, `${actor}/main-key`, `${actor}/publickey`, 'https://EXAMPLE.com/users/%61/']) {
      expect(creatorNamesActor(new URL(creator), actor)).toBe(true);
    }
    for (const creator of [`${actor}#other-key`, `${actor}/main-key#main-key`, `${actor}/keys/1`, 'https://example.com/users/b#main-key', 'https://other.example/users/a']) {
      expect(creatorNamesActor(new URL(creator), actor)).toBe(false);
    }
  });
});
