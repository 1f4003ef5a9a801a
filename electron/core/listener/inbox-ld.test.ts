// POST /inbox and forwarded activities with LD signatures, over real HTTP: a Fedify peer ("bob",
// the forwarder) HTTP-signs activities written and LD-signed (RsaSignature2017, real keys) by
// "mallory", a loopback actor whose key the test holds — as Mastodon forwards a reply's Delete
// or Update to the followers of the post it answered. Valid: 202, one row, the forwarder as
// signer, the body stored as received. Tampered, or signed with another actor's key: 401 and no
// row, unless the old rule for a refetchable Create applies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { PUBLIC } from '../federation/ap';
import { takeVerdict } from '../federation/embedded-verdicts';
import { signLdDocument } from '../net/signatures';
import { createServer } from 'node:http';
import { createListenerApp } from './app';
import { inboxRequestListener } from './inbox-route';
import { incomingCount, refused, openListeningCore, send, startMallory, type ListeningCore, type Mallory } from './test-support';

let t: ListeningCore;
let bob: Peer;
let mallory: Mallory;
let eve: Mallory;
let inboxUrl: string;

beforeAll(async () => {
  [t, bob, mallory, eve] = await Promise.all([openListeningCore(), startPeer({ name: 'bob' }), startMallory(), startMallory()]);
  inboxUrl = `${t.url}/inbox`;
});

afterAll(async () => {
  await Promise.all([bob?.close(), mallory?.server.close(), eve?.server.close()]);
  await t?.close();
});

const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  { ostatus: 'http://ostatus.org#', atomUri: 'ostatus:atomUri', inReplyToAtomUri: 'ostatus:inReplyToAtomUri', conversation: 'ostatus:conversation', sensitive: 'as:sensitive', toot: 'http://joinmastodon.org/ns#' },
];

/** Mallory's status as Mastodon shapes it, a reply to one of ours. */
const status = (n: number) => ({
  id: `${mallory.actorId}/statuses/${n}`,
  type: 'Note',
  attributedTo: mallory.actorId,
  inReplyTo: `${t.url}/o/ours`,
  content: '<p>a reply</p>',
  to: [PUBLIC],
  cc: [`${mallory.actorId}/followers`],
  published: '2026-11-22T09:00:00Z',
});

const activities = {
  Delete: (n: number) => ({
    '@context': MASTODON_CONTEXT,
    id: `${mallory.actorId}/statuses/${n}#delete`,
    type: 'Delete',
    actor: mallory.actorId,
    to: [PUBLIC],
    object: { id: `${mallory.actorId}/statuses/${n}`, type: 'Tombstone', atomUri: `${mallory.actorId}/statuses/${n}` },
  }),
  Update: (n: number) => ({
    '@context': MASTODON_CONTEXT,
    id: `${mallory.actorId}/statuses/${n}#updates/1`,
    type: 'Update',
    actor: mallory.actorId,
    to: [PUBLIC],
    object: { ...status(n), content: '<p>edited</p>', updated: '2026-11-22T09:05:00Z' },
  }),
  Like: (n: number) => ({
    '@context': MASTODON_CONTEXT,
    id: `${mallory.actorId}#likes/${n}`,
    type: 'Like',
    actor: mallory.actorId,
    object: `${t.url}/o/ours`,
  }),
};

const signedBy = (m: Mallory) => ({ keyId: new URL(m.keyId), privateKey: m.keys.privateKey });

function storedText(apId: string): string | undefined {
  return (t.core.sqlite.prepare('SELECT ap_object FROM incoming_activity WHERE ap_id = ?').get(apId) as { ap_object: string } | undefined)?.ap_object;
}

describe('POST /inbox, forwarded with an LD signature by the actor', () => {
  it.each(['Delete', 'Update', 'Like'] as const)('a Mastodon-shaped %s forwarded by another server: 202, the forwarder as signer, the bytes kept', async (type) => {
    const activity = await signLdDocument(activities[type](10), signedBy(mallory));
    // Indented, as some servers send: the stored text must be these very bytes.
    const body = JSON.stringify(activity, null, 1);
    const res = await bob.postSigned(inboxUrl, body);
    expect(res.status).toBe(202);
    expect(storedText(activity.id)).toBe(body);
    const row = t.core.sqlite.prepare('SELECT id, sent_by_ap_actor_id AS sentBy FROM incoming_activity WHERE ap_id = ?').get(activity.id) as { id: number; sentBy: string };
    expect(row.sentBy).toBe(bob.actorId);
    // The verdict is handed to the processor, which need not check the same bytes again.
    expect(takeVerdict(t.core.db, row.id)).toMatchObject({ ok: true, method: 'ld-signature', ownerActorId: mallory.actorId });
  });

  it('past the checks allowed at once, a forwarded activity gets 503 with Retry-After through either door, and nothing is stored', async () => {
    const activity = await signLdDocument(activities.Delete(20), signedBy(mallory));
    const body = JSON.stringify(activity);
    // The Hono door…
    const app = createListenerApp(t.core, { embeddedChecksAtOnce: 0 });
    const before = incomingCount(t.core);
    const signed = await eve.sign(inboxUrl, body);
    const viaApp = await app.fetch(new Request(signed.url, { method: 'POST', headers: signed.headers, body }));
    // …and the node:http door (it rebuilds the public URL, so the signature still covers it).
    const server = createServer(inboxRequestListener(t.core, { embeddedChecksAtOnce: 0 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const overHttp = await send(await eve.sign(inboxUrl, body), { url: `http://127.0.0.1:${port}/inbox` });
    server.close();
    for (const res of [viaApp, overHttp]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect(await res.json()).toEqual({ error: 'busy checking forwarded activities; retry later' });
    }
    expect(incomingCount(t.core)).toBe(before);
    // With a free slot (the running listener's default), the same activity is taken.
    expect((await send(await eve.sign(inboxUrl, body))).status).toBe(202);
  });

  it('a tampered body (the signature no longer covers it): 401, nothing stored', async () => {
    const activity = await signLdDocument(activities.Update(11), signedBy(mallory));
    const tampered = { ...activity, object: { ...activity.object, content: '<p>not what mallory wrote</p>' } };
    expect(await refused(t.core, bob.postSigned(inboxUrl, tampered))).toEqual({
      status: 401,
      error: 'key does not belong to actor (forwarded activity: its LD signature does not verify)',
    });
  });

  it('a validly LD-signed activity past the bounds of what is checked (1,200 addresses) is not checked: 401 with the reason, nothing stored', async () => {
    // Canonicalizing it would cost the inbox's thread about half a second (30 s at 1 MiB).
    const many = Array.from({ length: 1_200 }, (_, i) => `https://elsewhere.example/users/u${i}`);
    const update = await signLdDocument({ ...activities.Update(14), cc: many }, signedBy(mallory));
    expect(JSON.stringify(update).length).toBeLessThan(64 * 1024); // refused for its count of values
    expect(await refused(t.core, bob.postSigned(inboxUrl, update))).toEqual({
      status: 401,
      error: 'key does not belong to actor (forwarded activity: too large to check its LD signature)',
    });
    // The same activity within the bounds is checked and taken.
    const small = await signLdDocument({ ...activities.Update(15), cc: many.slice(0, 50) }, signedBy(mallory));
    expect((await bob.postSigned(inboxUrl, small)).status).toBe(202);
  });

  it('an LD signature by the key of another actor: 401, nothing stored', async () => {
    const forged = await signLdDocument(activities.Delete(12), signedBy(eve));
    expect(await refused(t.core, bob.postSigned(inboxUrl, forged))).toEqual({
      status: 401,
      error: 'key does not belong to actor (forwarded activity: its LD signature is by a key that does not belong to the actor)',
    });
  });

  it('a Create of an object on the actor’s server is let in by the refetch rule whatever its LD signature (202)', async () => {
    const create = await signLdDocument(
      { '@context': MASTODON_CONTEXT, id: `${mallory.actorId}/statuses/13/activity`, type: 'Create', actor: mallory.actorId, to: [PUBLIC], object: status(13) },
      signedBy(eve),
    );
    const res = await bob.postSigned(inboxUrl, create);
    expect(res.status).toBe(202);
    expect(storedText(create.id)).toBeDefined();
  });
});
