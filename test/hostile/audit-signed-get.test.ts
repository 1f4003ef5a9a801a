// Audit: a signed GET of a followers-only object (anyone may send one, signed with a key of a
// server of their own) makes the main thread read the signer's key document: at most 256 KiB
// (SIGNED_GET_KEY_MAX_BYTES), reduced to its key members (key-document.ts keyMembersOnly), then
// expanded by Fedify as JSON-LD. What was kept was still unbounded in shape: an `@context` list of
// thousands of inline contexts (jsonld processes each against a copy of the active context: the
// cost grows as the square of the list), the same list in a context of the signer's server that
// the actor names, or in the key's own `@context`, and a `publicKey`, or its `owner`, of thousands
// of members of their own. Before the key look-up kept only what a key needs (key-document.ts),
// these held the main thread (measured): 1,000 inline contexts 0.84–1.55 s (3,000: 2.8–11 s),
// the same list at a URL 1.4–1.75 s or in the key 2.1–2.5 s, a publicKey of 12,000 members
// 0.48–1.8 s, an owner of 12,000 members 0.17–0.97 s; after, 5–37 ms each. That these keys still
// verify (the 404 here says only that the signer is no follower) is key-document.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '@fedify/fedify';
import { addPost, openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { exportPublicKeyPem } from '../../electron/core/net/signatures';
import { longestStall } from '../longest-stall';
import { startHostilePeer, type HostilePeer } from './peers';
import { STALL_LIMIT_MS } from './rig';

let t: ListeningCore;
let peer: HostilePeer;
let pem: string;
let objectUrl: string;
let n = 0;

beforeAll(async () => {
  [t, peer] = await Promise.all([openListeningCore('alice'), startHostilePeer()]);
  pem = await exportPublicKeyPem(peer.keys.publicKey);
  peer.serve('/context', JSON.stringify({ '@context': inlineContexts() }), 'application/ld+json');
  objectUrl = addPost(t.core, { visibility: 'FOLLOWERS_ONLY', content: '<p>Only for followers</p>' }).apId;
  objectUrl = `${t.url}/o/${new URL(objectUrl).pathname.split('/').pop()}`;
  // Warm-up, not measured: a plain actor's signed GET loads what every later one reuses.
  await (await signedGet(`${peer.actor('plain')}#main-key`)).text();
});
afterAll(async () => {
  await peer?.close();
  await t?.close();
});

async function signedGet(keyId: string): Promise<Response> {
  const request = new Request(objectUrl, { method: 'GET', headers: { accept: 'application/activity+json' } });
  const signed = await signRequest(request, peer.keys.privateKey, new URL(keyId), { spec: 'draft-cavage-http-signatures-12' });
  return fetch(objectUrl, { headers: signed.headers });
}

const many = (count: number, make: (i: number) => [string, unknown]) => Object.fromEntries(Array.from({ length: count }, (_, i) => make(i)));
// 1,000 inline contexts: enough to fail on the old code by 5–10 times the limit, in a second or so.
const inlineContexts = () => Array.from({ length: 1000 }, (_, i) => ({ [`t${i}`]: `https://x.example/ns#t${i}` }));
const AS_AND_SECURITY = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'];
const shapes: [string, (id: string) => Record<string, unknown>][] = [
  ['a publicKey with 12,000 unknown members', (id) => ({ publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem, ...many(12_000, (i) => [`k${i}`, 'v']) } })],
  ['an @context list of 1,000 inline contexts', () => ({ '@context': [...AS_AND_SECURITY, ...inlineContexts()] })],
  ['an @context naming a context of the signer’s server made of 1,000 inline contexts', () => ({ '@context': [...AS_AND_SECURITY, `${peer.origin}/context`] })],
  ['a key with an @context of its own of 1,000 inline contexts', (id) => ({ publicKey: { '@context': inlineContexts(), id: `${id}#main-key`, owner: id, publicKeyPem: pem } })],
  ['a key whose owner is an object of 12,000 members', (id) => ({ publicKey: { id: `${id}#main-key`, owner: { id, ...many(12_000, (i) => [`k${i}`, 'v']) }, publicKeyPem: pem } })],
];

describe('a signed GET whose key document is costly to read', () => {
  it.each(shapes)('%s: the main thread free', async (name, fields) => {
    const name2 = `a${n++}`;
    const id = peer.actor(name2, fields(`${peer.origin}/users/${name2}`));
    const { result, stallMs } = await longestStall(async () => {
      const res = await signedGet(`${id}#main-key`);
      return { status: res.status, text: await res.text() };
    });
    if (result instanceof Error) throw result;
    expect(result.status, 'not a follower: not shown').toBe(404);
    expect(stallMs, name).toBeLessThan(STALL_LIMIT_MS);
  });
});
