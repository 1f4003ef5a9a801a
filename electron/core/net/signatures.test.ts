import { createHash } from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from './http-client';
import { createDocumentLoader } from './document-loader';
import { createKeyCache, type PersistentKeyStore, type TernKeyCache } from './key-cache';
import { exportPublicKeyPem } from './key-files';
import {
  createSpecMemory,
  FIRST_KNOCK,
  keyBelongsToActor,
  signedFetch,
  verifyInbound,
  type SignatureSpec,
  type VerifyInboundDeps,
  type VerifyInboundResult,
} from './signatures';
import { startServer, toWebRequest, type LoopbackServer } from './test-server';

const CAVAGE: SignatureSpec = 'draft-cavage-http-signatures-12';
const SPECS: SignatureSpec[] = ['rfc9421', CAVAGE];
const HOUR = 3600_000;

const newRsaKey = () =>
  crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );

/** A remote server publishing actors and keys, counting how often each path is fetched. */
interface Peer {
  server: LoopbackServer;
  pems: Map<string, string>;
  actor(name: string): string;
  key(name: string): string;
  hits(path: string): number;
}

async function startPeer(pairs: Record<string, CryptoKeyPair>): Promise<Peer> {
  const pems = new Map<string, string>();
  for (const [name, pair] of Object.entries(pairs)) pems.set(name, await exportPublicKeyPem(pair.publicKey));
  const json = (res: import('node:http').ServerResponse, doc: unknown) =>
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
  const server = await startServer((req, res) => {
    const origin = `http://${req.headers.host ?? ''}`;
    const path = req.url ?? '';
    const ctx = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'];
    const carolKey = `${origin}/users/carol/main-key`;
    if (path === '/users/carol/main-key') {
      return json(res, { '@context': 'https://w3id.org/security/v1', id: carolKey, type: 'CryptographicKey', owner: `${origin}/users/carol`, publicKeyPem: pems.get('carol') });
    }
    if (path === '/keys/evil') {
      // Claims to be alice's key; alice's document does not list it.
      return json(res, { '@context': 'https://w3id.org/security/v1', id: `${origin}/keys/evil`, type: 'CryptographicKey', owner: `${origin}/users/alice`, publicKeyPem: pems.get('evil') });
    }
    const name = /^\/users\/(\w+)$/.exec(path)?.[1];
    const pem = name === undefined ? undefined : pems.get(name);
    if (name === undefined || pem === undefined || name === 'evil') return res.writeHead(404).end();
    const id = `${origin}/users/${name}`;
    const keyId = name === 'carol' ? carolKey : `${id}#main-key`;
    return json(res, { '@context': ctx, id, type: 'Person', preferredUsername: name, inbox: `${id}/inbox`, publicKey: { id: keyId, owner: id, publicKeyPem: pem } });
  });
  return {
    server,
    pems,
    actor: (name) => `${server.origin}/users/${name}`,
    key: (name) => (name === 'carol' ? `${server.origin}/users/carol/main-key` : name === 'evil' ? `${server.origin}/keys/evil` : `${server.origin}/users/${name}#main-key`),
    hits: (path) => server.seen.filter((r) => r.path === path).length,
  };
}

let keys: Record<'alice' | 'bob' | 'carol' | 'evil' | 'alice2', CryptoKeyPair>;
let peer: Peer;
let client: HttpClient;
let keyCache: TernKeyCache;
let deps: VerifyInboundDeps;
const closeLater: LoopbackServer[] = [];

beforeAll(async () => {
  const [alice, bob, carol, evil, alice2] = await Promise.all([newRsaKey(), newRsaKey(), newRsaKey(), newRsaKey(), newRsaKey()]);
  keys = { alice, bob, carol, evil, alice2 };
  client = createHttpClient({ userAgent: 'Tern-test/1.0', allowPrivateAddresses: true });
});

beforeEach(async () => {
  peer = await startPeer({ alice: keys.alice, bob: keys.bob, carol: keys.carol, evil: keys.evil });
  keyCache = createKeyCache();
  deps = { documentLoader: createDocumentLoader(client), keyCache };
});

afterEach(async () => {
  await Promise.all([peer.server, ...closeLater.splice(0)].map((s) => s.close()));
});

afterAll(() => client.close());

const INBOX = 'https://tern.example/inbox';
const activity = (actor: string) => JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', type: 'Follow', actor, object: 'https://tern.example/' });

/** Signs a POST to our inbox the way signedFetch does (Fedify's signRequest), without sending it. */
async function signed(name: keyof typeof keys, spec: SignatureSpec, body = activity(peer.actor(name)), url = INBOX): Promise<Request> {
  const request = new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
  return signRequest(request, keys[name].privateKey, new URL(peer.key(name)), { spec });
}

/** The same signed headers over a different body or URL: what a tamperer would send. */
function tampered(request: Request, changes: { body?: string; url?: string }): Request {
  return new Request(changes.url ?? request.url, { method: 'POST', headers: request.headers, body: changes.body ?? null });
}

function expectOk(result: VerifyInboundResult): asserts result is Extract<VerifyInboundResult, { ok: true }> {
  expect(result).toMatchObject({ ok: true });
}

describe('verifyInbound', () => {
  it.each(SPECS)('verifies a request signed with %s and names the key and its owner', async (spec) => {
    const result = await verifyInbound(await signed('alice', spec), deps);
    expectOk(result);
    expect(result).toEqual({ ok: true, keyId: peer.key('alice'), ownerActorId: peer.actor('alice'), spec });
  });

  it.each(SPECS)('%s: a tampered body is digest_mismatch', async (spec) => {
    const request = tampered(await signed('alice', spec), { body: activity(peer.actor('bob')) });
    expect(await verifyInbound(request, deps)).toMatchObject({ ok: false, reason: 'digest_mismatch' });
  });

  it.each(SPECS)('%s: the same signature on another URL is bad_signature', async (spec) => {
    const original = await signed('alice', spec);
    const body = await original.clone().text();
    const request = tampered(original, { url: 'https://tern.example/users/other/inbox', body });
    expect(await verifyInbound(request, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('refuses an RFC 9421 signature that does not cover the body (Fedify alone would accept it)', async () => {
    const body = activity(peer.actor('alice'));
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))).toString('base64');
    const request = new Request(INBOX, { method: 'POST', headers: { 'content-digest': `sha-256=:${digest}:` }, body });
    // body: null makes Fedify leave content-digest out of the covered components.
    const uncovered = await signRequest(request, keys.alice.privateKey, new URL(peer.key('alice')), { spec: 'rfc9421', body: null });
    expect(uncovered.headers.get('signature-input')).not.toContain('content-digest');
    expect(await verifyInbound(uncovered, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a draft-cavage signature that does not cover Host (replayable to another server)', async () => {
    const body = activity(peer.actor('alice'));
    const digest = `SHA-256=${Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))).toString('base64')}`;
    const date = new Date().toUTCString();
    const handSigned = async (names: string[]) => {
      const values: Record<string, string> = { '(request-target)': 'post /inbox', host: 'tern.example', date, digest };
      const text = names.map((n) => `${n}: ${values[n] ?? ''}`).join('\n');
      const sig = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', keys.alice.privateKey, new TextEncoder().encode(text));
      const signature = `keyId="${peer.key('alice')}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${Buffer.from(sig).toString('base64')}"`;
      return new Request(INBOX, { method: 'POST', headers: { host: 'tern.example', date, digest, signature }, body });
    };
    expectOk(await verifyInbound(await handSigned(['(request-target)', 'host', 'date', 'digest']), deps));
    expect(await verifyInbound(await handSigned(['(request-target)', 'date', 'digest']), deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  // microblog.pub's verifier (microblogpub-behaviour §13.4) takes a POST whose signature leaves
  // out the digest (the body and its Digest can then be swapped together) and refuses one
  // without an `algorithm` parameter (optional in draft-cavage; hs2019 senders leave it out).
  it('draft-cavage: a POST whose signature does not cover Digest is refused; one without `algorithm` is verified', async () => {
    const body = activity(peer.actor('alice'));
    const digest = `SHA-256=${Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))).toString('base64')}`;
    const date = new Date().toUTCString();
    const handSigned = async (names: string[], algorithm: string | null) => {
      const values: Record<string, string> = { '(request-target)': 'post /inbox', host: 'tern.example', date, digest };
      const text = names.map((n) => `${n}: ${values[n] ?? ''}`).join('\n');
      const sig = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', keys.alice.privateKey, new TextEncoder().encode(text));
      const params = [`keyId="${peer.key('alice')}"`, ...(algorithm === null ? [] : [`algorithm="${algorithm}"`]), `headers="${names.join(' ')}"`, `signature="${Buffer.from(sig).toString('base64')}"`];
      return new Request(INBOX, { method: 'POST', headers: { host: 'tern.example', date, digest, signature: params.join(',') }, body });
    };
    expect(await verifyInbound(await handSigned(['(request-target)', 'host', 'date'], 'rsa-sha256'), deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expectOk(await verifyInbound(await handSigned(['(request-target)', 'host', 'date', 'digest'], null), deps));
    expectOk(await verifyInbound(await handSigned(['(request-target)', 'host', 'date', 'digest'], 'hs2019'), deps));
  });

  it.each(SPECS)('%s: a Date older than the window is expired', async (spec) => {
    const request = await signed('alice', spec);
    const result = await verifyInbound(request, { ...deps, clock: () => new Date(Date.now() + 2 * HOUR) });
    expect(result).toMatchObject({ ok: false, reason: 'expired' });
  });

  it.each(SPECS)('%s: a Date further in the future than the window is expired', async (spec) => {
    const request = await signed('alice', spec);
    const result = await verifyInbound(request, { ...deps, clock: () => new Date(Date.now() - 2 * HOUR) });
    expect(result).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('accepts skew inside the window and honours timeWindowSeconds', async () => {
    const skewed = { ...deps, clock: () => new Date(Date.now() + 30 * 60_000) };
    expectOk(await verifyInbound(await signed('alice', 'rfc9421'), skewed));
    expectOk(await verifyInbound(await signed('alice', CAVAGE), skewed));
    const tight = { ...skewed, timeWindowSeconds: 60 };
    expect(await verifyInbound(await signed('alice', CAVAGE), tight)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('a malformed signature is bad_signature, not an exception', async () => {
    const original = await signed('alice', CAVAGE);
    const headers = new Headers(original.headers);
    headers.set('signature', (headers.get('signature') ?? '').replace(/signature="[^"]*"/, 'signature="%%%not base64%%%"'));
    const request = new Request(INBOX, { method: 'POST', headers, body: await original.text() });
    expect(await verifyInbound(request, deps)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('an unsigned request is unsigned, and fetches nothing', async () => {
    const request = new Request(INBOX, { method: 'POST', body: activity(peer.actor('alice')) });
    expect(await verifyInbound(request, deps)).toEqual({ ok: false, reason: 'unsigned' });
    expect(peer.server.seen).toHaveLength(0);
  });

  it("a key of another actor verifies, but keyBelongsToActor says it is not the activity's actor", async () => {
    const request = await signed('bob', 'rfc9421', activity(peer.actor('alice')));
    const result = await verifyInbound(request, deps);
    expectOk(result);
    expect(result.ownerActorId).toBe(peer.actor('bob'));
    expect(keyBelongsToActor(result.ownerActorId, peer.actor('alice'))).toBe(false);
    expect(keyBelongsToActor(result.ownerActorId, peer.actor('bob'))).toBe(true);
  });

  it('does not believe a key document that names an owner who does not list the key', async () => {
    const result = await verifyInbound(await signed('evil', CAVAGE, activity(peer.actor('alice'))), deps);
    expect(result).toMatchObject({ ok: false, reason: 'key_unavailable', keyId: peer.key('evil') });
  });

  it('confirms a key kept outside its actor document against the owner, once', async () => {
    expectOk(await verifyInbound(await signed('carol', 'rfc9421'), deps));
    const second = await verifyInbound(await signed('carol', 'rfc9421'), deps);
    expectOk(second);
    expect(second.ownerActorId).toBe(peer.actor('carol'));
    expect(peer.hits('/users/carol/main-key')).toBe(1);
    expect(peer.hits('/users/carol')).toBe(1);
    expect(keyCache.stats.fetches).toBe(2);
  });

  it('a key that cannot be fetched is key_unavailable, and the failure is not refetched at once', async () => {
    const request = new Request(INBOX, { method: 'POST', body: '{}' });
    const missing = await signRequest(request, keys.alice.privateKey, new URL(`${peer.server.origin}/users/nobody#main-key`), { spec: CAVAGE });
    expect(await verifyInbound(missing.clone(), deps)).toMatchObject({ ok: false, reason: 'key_unavailable', keyFetchStatus: 404 });
    expect(await verifyInbound(missing, deps)).toMatchObject({ ok: false, reason: 'key_unavailable' });
    expect(peer.hits('/users/nobody')).toBe(1);
  });

  it('refetches a rotated key once when the cached key fails, then keeps using the new one', async () => {
    expectOk(await verifyInbound(await signed('alice', 'rfc9421'), deps));
    peer.pems.set('alice', await exportPublicKeyPem(keys.alice2.publicKey));
    keys = { ...keys, alice: keys.alice2 };
    expectOk(await verifyInbound(await signed('alice', 'rfc9421'), deps));
    expectOk(await verifyInbound(await signed('alice', CAVAGE), deps));
    expect(keyCache.stats.fetches).toBe(2);
    expect(peer.hits('/users/alice')).toBe(2);
  });

  it('verifies 100 activities of one actor with exactly 1 key fetch', async () => {
    const template = await signed('alice', 'rfc9421');
    const body = await template.clone().text();
    expectOk(await verifyInbound(tampered(template, { body }), deps)); // warm: the one fetch
    const started = performance.now();
    for (let i = 0; i < 99; i++) expectOk(await verifyInbound(tampered(template, { body }), deps));
    const perVerifyUs = ((performance.now() - started) / 99) * 1000;
    expect(peer.hits('/users/alice')).toBe(1);
    expect(keyCache.stats.fetches).toBe(1);
    console.info(`verifyInbound with a cached RSA-2048 key: ${perVerifyUs.toFixed(0)} µs per request`);
  });

  it('20 concurrent first requests of a new actor fetch its key once (single-flight)', async () => {
    const requests = await Promise.all(Array.from({ length: 20 }, (_, i) => signed('alice', SPECS[i % 2]!)));
    const results = await Promise.all(requests.map((r) => verifyInbound(r, deps)));
    for (const result of results) expectOk(result);
    expect(peer.hits('/users/alice')).toBe(1);
    expect(keyCache.stats.fetches).toBe(1);
    expect(keyCache.stats.misses).toBe(1);
  });

  it('concurrent requests signed with an unavailable key fetch it once and all fail the same way', async () => {
    const request = new Request(INBOX, { method: 'POST', body: '{}' });
    const missing = await signRequest(request, keys.alice.privateKey, new URL(`${peer.server.origin}/users/nobody#main-key`), { spec: CAVAGE });
    const results = await Promise.all(Array.from({ length: 10 }, () => verifyInbound(missing.clone(), deps)));
    for (const result of results) expect(result).toMatchObject({ ok: false, reason: 'key_unavailable', keyFetchStatus: 404 });
    expect(peer.hits('/users/nobody')).toBe(1);
  });

  it('keys survive in the persistent store: a new cache verifies without fetching', async () => {
    const rows = new Map<string, string>();
    const store: PersistentKeyStore = { get: async (k) => rows.get(k) ?? null, set: async (k, v) => void rows.set(k, v) };
    expectOk(await verifyInbound(await signed('alice', CAVAGE), { ...deps, keyCache: createKeyCache({ store }) }));
    expect([...rows.keys()]).toEqual([peer.key('alice')]);
    const fresh = createKeyCache({ store });
    expectOk(await verifyInbound(await signed('alice', 'rfc9421'), { ...deps, keyCache: fresh }));
    expect(peer.hits('/users/alice')).toBe(1);
    expect(fresh.stats.fetches).toBe(0);
  });
});

describe('keyBelongsToActor', () => {
  it.each([
    ['https://host', 'https://host/', true],
    ['https://host/users/a/', 'https://host/users/a', true],
    ['https://HOST/users/a', 'https://host/users/a', true],
    ['https://host/users/a', 'https://host/users/b', false],
    ['https://host/users/a', 'http://host/users/a', false],
    ['https://host/users/a', 'https://other/users/a', false],
    ['not a url', 'not a url', false],
  ])('%s vs %s → %s', (owner, actor, expected) => {
    expect(keyBelongsToActor(owner, actor)).toBe(expected);
  });
});

describe('signedFetch', () => {
  /** An inbox that verifies with verifyInbound; `refuse` plays a server that knows only the other spec. */
  async function inbox(refuse: SignatureSpec | false): Promise<{ server: LoopbackServer; results: VerifyInboundResult[] }> {
    const results: VerifyInboundResult[] = [];
    const server = await startServer(async (req, res, body) => {
      const spec: SignatureSpec = req.headers['signature-input'] !== undefined ? 'rfc9421' : CAVAGE;
      if (refuse === spec) return res.writeHead(401).end();
      const result = await verifyInbound(toWebRequest(req, body, `http://${req.headers.host ?? ''}`), deps);
      results.push(result);
      res.writeHead(result.ok ? 202 : 401).end();
    });
    closeLater.push(server);
    return { server, results };
  }
  const post = (url: string) =>
    new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: activity(peer.actor('alice')) });
  const identity = () => ({ keyId: new URL(peer.key('alice')), privateKey: keys.alice.privateKey });

  it.each(SPECS)('delivers a request signed with %s that the peer verifies', async (spec) => {
    const { server, results } = await inbox(false);
    const response = await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), spec, specMemory: createSpecMemory() });
    expect(response.status).toBe(202);
    expect(results).toEqual([{ ok: true, keyId: peer.key('alice'), ownerActorId: peer.actor('alice'), spec }]);
    expect(server.seen[0]?.headers['user-agent']).toBe('Tern-test/1.0');
  });

  it('writes the published key id into a draft-cavage Signature as it is, $ patterns included', async () => {
    const { server } = await inbox(false);
    const published = 'https://a.example/$&$1#main-key';
    await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), publishedKeyId: published, specMemory: createSpecMemory() });
    expect(server.seen[0]?.headers.signature).toContain(`keyId="${published}"`);
  });

  it('knocks first with draft-cavage, what every server verifies: one request, and the origin remembered', async () => {
    const { server, results } = await inbox(false);
    const memory = createSpecMemory();
    expect(FIRST_KNOCK).toBe(CAVAGE);
    expect((await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), specMemory: memory })).status).toBe(202);
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]?.headers['signature-input']).toBeUndefined();
    expect(server.seen[0]?.headers.signature).toMatch(/keyId="[^"]+",algorithm="rsa-sha256"/);
    expect(server.seen[0]?.headers.digest).toMatch(/^SHA-256=/);
    expect(results[0]).toMatchObject({ ok: true, spec: CAVAGE });
    expect(memory.known(server.origin)).toBe(CAVAGE);
  });

  it('double-knocks: draft-cavage refused with 401, retried with RFC 9421, and the origin remembered', async () => {
    const { server, results } = await inbox(CAVAGE);
    const memory = createSpecMemory();
    const response = await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), specMemory: memory });
    expect(response.status).toBe(202);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0]?.headers['signature-input']).toBeUndefined();
    expect(server.seen[1]?.headers['signature-input']).toMatch(/^sig1=\(/);
    expect(server.seen[1]?.headers['content-digest']).toMatch(/^sha-256=:/);
    expect(results[0]).toMatchObject({ ok: true, spec: 'rfc9421' });
    expect(memory.known(server.origin)).toBe('rfc9421');

    // The next delivery to that origin starts with what worked: one request.
    expect((await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), specMemory: memory })).status).toBe(202);
    expect(server.seen).toHaveLength(3);
    expect(server.seen[2]?.headers['signature-input']).toBeDefined();
  });

  it('awaits beforeSend after each signature and before its request goes out (each knock)', async () => {
    const { server } = await inbox(CAVAGE);
    let calls = 0;
    let go: () => void = () => {};
    const beforeSend = () => {
      calls++;
      return new Promise<void>((resolve) => (go = resolve));
    };
    const sent = signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), specMemory: createSpecMemory(), beforeSend });
    await expect.poll(() => calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.seen).toHaveLength(0); // held until beforeSend resolves
    go();
    await expect.poll(() => calls).toBe(2); // the second knock (RFC 9421) waits too
    expect(server.seen).toHaveLength(1);
    go();
    expect((await sent).status).toBe(202);
    expect(server.seen).toHaveLength(2);
  });

  it('an origin remembered as RFC 9421 that starts refusing it is knocked again with draft-cavage, and remembered so', async () => {
    const { server, results } = await inbox('rfc9421');
    const memory = createSpecMemory();
    memory.rememberSpec(server.origin, 'rfc9421');
    expect((await signedFetch(client, post(`${server.origin}/inbox`), { ...identity(), specMemory: memory })).status).toBe(202);
    expect(server.seen.map((r) => (r.headers['signature-input'] === undefined ? CAVAGE : 'rfc9421'))).toEqual(['rfc9421', CAVAGE]);
    expect(results[0]).toMatchObject({ ok: true, spec: CAVAGE });
    expect(memory.known(server.origin)).toBe(CAVAGE);
  });

  it.each(SPECS)('signs a request given as its parts (URL, method, headers) with the body beside it, %s, Date covered', async (spec) => {
    const { server, results } = await inbox(false);
    const body = new TextEncoder().encode(activity(peer.actor('alice')));
    const parts = { url: `${server.origin}/inbox`, method: 'POST', headers: { 'content-type': 'application/activity+json' } };
    const before = Date.now();
    const response = await signedFetch(client, parts, { ...identity(), spec, specMemory: createSpecMemory(), body: body.buffer });
    expect(response.status).toBe(202);
    expect(results).toEqual([{ ok: true, keyId: peer.key('alice'), ownerActorId: peer.actor('alice'), spec }]);
    const seen = server.seen[0]!;
    expect(seen.body).toBe(new TextDecoder().decode(body));
    // The Date header is an HTTP date of now, and one of the signed components.
    const date = Date.parse(seen.headers.date ?? '');
    expect(date).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(date).toBeLessThanOrEqual(Date.now());
    const covered = spec === 'rfc9421' ? (seen.headers['signature-input'] ?? '') : (seen.headers.signature ?? '');
    expect(covered).toMatch(spec === 'rfc9421' ? /"date"/ : /headers="[^"]*\bdate\b/);
    // The body's digest is covered: Fedify's own components for a request with a body.
    if (spec === 'rfc9421') expect(covered).toMatch(/^sig1=\("@method" "@target-uri" "@authority" "host" "date" "content-digest"\);/);
    else expect(covered).toMatch(/headers="[^"]*\bdigest\b/);
  });

  it('takes headers in any case and form: a stale Host is dropped, the User-Agent added, names given twice joined', async () => {
    const { server, results } = await inbox(false);
    const body = new TextEncoder().encode(activity(peer.actor('alice')));
    const parts = {
      url: `${server.origin}/inbox`,
      method: 'POST',
      headers: [
        ['Content-Type', 'application/activity+json'],
        ['Host', 'elsewhere.example'],
        ['X-Trace', 'a'],
        ['x-trace', 'b'],
      ] as [string, string][],
    };
    const response = await signedFetch(client, parts, { ...identity(), specMemory: createSpecMemory(), body: body.buffer });
    expect(response.status).toBe(202);
    expect(results).toEqual([expect.objectContaining({ ok: true })]);
    const seen = server.seen[0]!.headers;
    expect(seen.host).toBe(new URL(server.origin).host);
    expect(seen['content-type']).toBe('application/activity+json');
    expect(seen['x-trace']).toBe('a, b');
    expect(seen['user-agent']).toBe(client.userAgent);
  });

  it('uses the body digest the caller gives (one body, many inboxes): right, it verifies; wrong, the peer refuses', async () => {
    const { server, results } = await inbox(false);
    const body = new TextEncoder().encode(activity(peer.actor('alice')));
    const sha256 = createHash('sha256').update(body).digest('base64');
    const parts = { url: `${server.origin}/inbox`, method: 'POST', headers: { 'content-type': 'application/activity+json' } };
    const right = await signedFetch(client, parts, { ...identity(), specMemory: createSpecMemory(), body: body.buffer, bodySha256: sha256 });
    expect(right.status).toBe(202);
    expect(server.seen[0]?.headers.digest).toBe(`SHA-256=${sha256}`);
    const right9421 = await signedFetch(client, parts, { ...identity(), spec: 'rfc9421', specMemory: createSpecMemory(), body: body.buffer, bodySha256: sha256 });
    expect(right9421.status).toBe(202);
    expect(server.seen[1]?.headers['content-digest']).toBe(`sha-256=:${sha256}:`);
    const wrong = createHash('sha256').update('something else').digest('base64');
    const refused = await signedFetch(client, parts, { ...identity(), specMemory: createSpecMemory(), body: body.buffer, bodySha256: wrong });
    expect(refused.status).toBe(401);
    expect(results.slice(0, 2)).toMatchObject([{ ok: true }, { ok: true }]);
    expect(results.length).toBeGreaterThan(2);
    expect(results.slice(2).every((r) => !r.ok)).toBe(true);
  });

  it('re-signs for the new URL when the inbox redirects', async () => {
    const { server, results } = await inbox(false);
    const redirector = await startServer((_req, res) => res.writeHead(308, { location: `${server.origin}/inbox` }).end());
    closeLater.push(redirector);
    const response = await signedFetch(client, post(`${redirector.origin}/old-inbox`), { ...identity(), specMemory: createSpecMemory() });
    expect(response.status).toBe(202);
    expect(results[0]).toMatchObject({ ok: true });
  });
});
