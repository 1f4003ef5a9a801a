// POST /inbox with signatures verified on worker threads (net/verify-pool.ts) answers exactly as
// with verification on the main thread: the same requests go to two listening cores, one with a
// worker and one with none, after each has the key in its cache (so the worker is asked), and
// both must answer the same status and reason and store the same rows. A rotated key still gets
// through with one refetch (the worker declines, the main thread fetches the new key), and the
// worker is then sent the new key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { exportPublicKeyPem } from '../net/signatures';
import { startServer, type LoopbackServer } from '../net/test-server';
import { startPeer, type Peer } from '../../test/peer/peer';
import { incomingCount, newRsaKeys, openListeningCore, send, type ListeningCore } from './test-support';

let workers: ListeningCore;
let inline: ListeningCore;
let peer: Peer;
let other: Peer;
let keyServer: LoopbackServer;
/** Actors on `keyServer` whose keys the test holds: sam keeps his, rita rotates hers. */
const pems = new Map<string, string>();
let samKeys: CryptoKeyPair;
let samActor = '';
let rotatingKeys: CryptoKeyPair;
let rotatingActor = '';

beforeAll(async () => {
  [workers, inline, peer, other] = await Promise.all([
    openListeningCore('alice', { verifyWorkers: 1 }),
    openListeningCore('alice', { verifyWorkers: 0 }),
    startPeer({ name: 'bob' }),
    startPeer({ name: 'carol' }),
  ]);
  [samKeys, rotatingKeys] = await Promise.all([newRsaKeys(), newRsaKeys()]);
  pems.set('sam', await exportPublicKeyPem(samKeys.publicKey));
  pems.set('rita', await exportPublicKeyPem(rotatingKeys.publicKey));
  keyServer = await startServer((req, res) => {
    const name = /^\/users\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
    const pem = pems.get(name);
    if (pem === undefined) return res.writeHead(404).end();
    const id = `http://${req.headers.host ?? ''}/users/${name}`;
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(
      JSON.stringify({
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id,
        type: 'Person',
        preferredUsername: name,
        inbox: `${id}/inbox`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem },
      }),
    );
  });
  // Verification stays inline while the worker loads; these tests want it loaded.
  expect(await workers.core.fed.verifier.ready()).toBe(true);
  samActor = `${keyServer.origin}/users/sam`;
  rotatingActor = `${keyServer.origin}/users/rita`;
});

afterAll(async () => {
  await Promise.all([peer?.close(), other?.close(), keyServer?.close()]);
  await Promise.all([workers?.close(), inline?.close()]);
});

const follow = (actor: string, object: string, extra: Record<string, unknown> = {}) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor}/follows/${crypto.randomUUID()}`,
  type: 'Follow',
  actor,
  object,
  ...extra,
});

type Answer = { status: number; error: string | null; stored: number };

/** Sends what `make` builds for each core (signed for that core's inbox) and collects the answers. */
async function both(make: (t: ListeningCore) => Promise<Response>): Promise<{ workers: Answer; inline: Answer }> {
  const answer = async (t: ListeningCore): Promise<Answer> => {
    const before = incomingCount(t.core);
    const res = await make(t);
    const text = await res.text();
    return { status: res.status, error: text === '' ? null : (JSON.parse(text) as { error: string }).error, stored: incomingCount(t.core) - before };
  };
  return { workers: await answer(workers), inline: await answer(inline) };
}

/** Both cores answer alike; returns the answer. */
async function alike(make: (t: ListeningCore) => Promise<Response>): Promise<Answer> {
  const answers = await both(make);
  expect(answers.workers).toEqual(answers.inline);
  return answers.workers;
}

const signAs = (keys: CryptoKeyPair | CryptoKey, keyId: string, url: string, body: string, spec: HttpMessageSignaturesSpec) =>
  signRequest(
    new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }),
    'privateKey' in keys ? keys.privateKey : keys,
    new URL(keyId),
    { spec },
  );

describe('POST /inbox with signatures verified on a worker thread', () => {
  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('accepts a %s activity once the key is cached, verified by the worker', async (spec) => {
    // The first request of an actor fetches its key on the main thread.
    expect(await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(peer.actorId, t.url), { spec }))).toEqual({ status: 202, error: null, stored: 1 });
    const before = workers.core.fed.verifier.stats.verified;
    const fetches = workers.core.fed.keyCache.stats.fetches;
    expect(await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(peer.actorId, t.url), { spec }))).toEqual({ status: 202, error: null, stored: 1 });
    expect(workers.core.fed.verifier.stats.verified).toBe(before + 1);
    expect(workers.core.fed.keyCache.stats.fetches).toBe(fetches);
  });

  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('refuses a %s signature made with another key than the cached one named', async (spec) => {
    const wrong = await newRsaKeys();
    const declined = workers.core.fed.verifier.stats.inline;
    const answer = await alike(async (t) => send(await signAs(wrong, peer.keyId, `${t.url}/inbox`, JSON.stringify(follow(peer.actorId, t.url)), spec)));
    expect(answer).toEqual({ status: 401, error: 'signature does not verify', stored: 0 });
    expect(workers.core.fed.verifier.stats.inline).toBe(declined + 1); // the worker was asked and said no
  });

  it('refuses a signature whose bytes were altered, a body swapped under its digest, a request signed for another host, and an old Date', async () => {
    const keyId = `${samActor}#main-key`;
    const body = (t: ListeningCore, object = t.url) => JSON.stringify(follow(samActor, object));
    const signed = (t: ListeningCore, url = `${t.url}/inbox`, spec: HttpMessageSignaturesSpec = 'rfc9421') => signAs(samKeys, keyId, url, body(t), spec);
    // sam's key in both caches
    expect(await alike(async (t) => send(await signed(t)))).toEqual({ status: 202, error: null, stored: 1 });

    for (const spec of ['rfc9421', 'draft-cavage-http-signatures-12'] as const) {
      const altered = await alike(async (t) => {
        const request = await signed(t, undefined, spec);
        const signature = request.headers.get('signature') ?? '';
        // One base64 character early in the signature bytes changed.
        const at = signature.search(/(=:|signature=")/) + 20;
        const flipped = signature.slice(0, at) + (signature[at] === 'A' ? 'B' : 'A') + signature.slice(at + 1);
        return send(request, { headers: { signature: flipped } });
      });
      expect(altered).toEqual({ status: 401, error: 'signature does not verify', stored: 0 });

      const swapped = await alike(async (t) => send(await signed(t, undefined, spec), { body: body(t, 'https://elsewhere.example/') }));
      expect(swapped).toEqual({ status: 401, error: 'digest mismatch', stored: 0 });
    }

    const elsewhere = await alike(async (t) => send(await signed(t, 'https://tern.example/inbox'), { url: `${t.url}/inbox` }));
    expect(elsewhere).toMatchObject({ status: 401, stored: 0 });

    const replayed = await both(async (t) => {
      const request = await signed(t);
      t.setClockOffset(2 * 3600_000);
      try {
        return await send(request);
      } finally {
        t.setClockOffset(0);
      }
    });
    expect(replayed.workers).toEqual(replayed.inline);
    expect(replayed.workers).toEqual({ status: 401, error: 'signature expired', stored: 0 });
  });

  it('refuses an activity signed with the key of another actor', async () => {
    await alike((t) => other.postSigned(`${t.url}/inbox`, follow(other.actorId, t.url)));
    const answer = await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(other.actorId, t.url)));
    expect(answer).toEqual({ status: 401, error: 'key does not belong to actor', stored: 0 });
  });

  it('refuses an unsigned request, and one over 1 MiB', async () => {
    const unsigned = await alike((t) =>
      fetch(`${t.url}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(follow(peer.actorId, t.url)) }),
    );
    expect(unsigned).toEqual({ status: 401, error: 'unsigned', stored: 0 });
    const big = await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(peer.actorId, t.url, { padding: 'x'.repeat(1024 * 1024) })));
    expect(big.status).toBe(413);
    expect(big.stored).toBe(0);
  });

  it('accepts a rotated key after one refetch, then verifies with it on the worker', async () => {
    const keyId = `${rotatingActor}#main-key`;
    const post = (keys: CryptoKeyPair) => (t: ListeningCore) =>
      signAs(keys, keyId, `${t.url}/inbox`, JSON.stringify(follow(rotatingActor, t.url)), 'rfc9421').then((r) => send(r));
    expect(await alike(post(rotatingKeys))).toEqual({ status: 202, error: null, stored: 1 });
    const fetches = workers.core.fed.keyCache.stats.fetches;

    rotatingKeys = await newRsaKeys();
    pems.set('rita', await exportPublicKeyPem(rotatingKeys.publicKey));
    const declined = workers.core.fed.verifier.stats.inline;
    expect(await alike(post(rotatingKeys))).toEqual({ status: 202, error: null, stored: 1 });
    expect(workers.core.fed.verifier.stats.inline).toBe(declined + 1);
    expect(workers.core.fed.keyCache.stats.fetches).toBe(fetches + 1);

    const verified = workers.core.fed.verifier.stats.verified;
    expect(await alike(post(rotatingKeys))).toEqual({ status: 202, error: null, stored: 1 });
    expect(workers.core.fed.verifier.stats.verified).toBe(verified + 1);
    expect(workers.core.fed.keyCache.stats.fetches).toBe(fetches + 1);
  });

  it('after the key is evicted (the actor sent an Update or Delete), the main thread fetches it again', async () => {
    expect(await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(peer.actorId, t.url)))).toMatchObject({ status: 202 });
    workers.core.fed.keyCache.evict(peer.keyId);
    const fetches = workers.core.fed.keyCache.stats.fetches;
    const verified = workers.core.fed.verifier.stats.verified;
    expect((await peer.postSigned(`${workers.url}/inbox`, follow(peer.actorId, workers.url))).status).toBe(202);
    expect(workers.core.fed.keyCache.stats.fetches).toBeGreaterThan(fetches);
    expect(workers.core.fed.verifier.stats.verified).toBe(verified);
  });

  it('answers 503 with Retry-After, storing nothing, when the workers’ queue is full', async () => {
    expect(await alike((t) => peer.postSigned(`${t.url}/inbox`, follow(peer.actorId, t.url)))).toMatchObject({ status: 202 });
    const real = workers.core.fed.verifier;
    workers.core.fed.verifier = { ...real, size: 1, verify: () => Promise.resolve('busy' as const) };
    try {
      const before = incomingCount(workers.core);
      const res = await peer.postSigned(`${workers.url}/inbox`, follow(peer.actorId, workers.url));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as { error: string }).error).toBe('too many activities being verified');
      expect(incomingCount(workers.core)).toBe(before);
    } finally {
      workers.core.fed.verifier = real;
    }
  });
});
