// Quote posts (FEP-044f) against an independent implementation: a real core (SQLite, listener on
// 127.0.0.1, inbox and delivery loops) and a Fedify peer. Fedify reads the quote policy our posts
// advertise (so its JSON-LD terms are right), sends a signed QuoteRequest, receives our Accept or
// Reject, and dereferences the QuoteAuthorization the Accept names — which goes away (410) once
// the quoting post is deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Delete, Note, PUBLIC_COLLECTION, QuoteAuthorization, QuoteRequest, Tombstone } from '@fedify/vocab';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { addFollower, addPost } from '../../listener/test-support';
import { openAuthorRig, type AuthorRig } from '../actions/test-rig';
import { saveOutboxObject } from '../outbox-store';
import { eq } from 'drizzle-orm';
import { inbox } from '../../../../db/schema';

let rig: AuthorRig;
let peer: Peer;

beforeAll(async () => {
  [rig, peer] = await Promise.all([openAuthorRig(), startPeer({ name: 'quoter' })]);
});

afterAll(async () => {
  await peer?.close();
  await rig?.close();
});

// Fedify writes our bare-origin actor id with a trailing slash (interop-notes).
const fromUs = (actorId: string | null) => actorId?.replace(/\/+$/, '') === rig.url;
const PUBLIC = PUBLIC_COLLECTION.href;

/** The peer quotes `postUrl`: a Note of its own, sent inside its QuoteRequest (as Mastodon 4.5 does). */
async function requestQuote(postUrl: string): Promise<{ requestId: string; noteId: string }> {
  const noteId = peer.newId('notes');
  const requestId = peer.newId('quote-requests');
  const note = new Note({ id: noteId, attribution: new URL(peer.actorId), content: '<p>A thought on this</p>', quote: new URL(postUrl), tos: [PUBLIC_COLLECTION] });
  await peer.send(new QuoteRequest({ id: requestId, actor: new URL(peer.actorId), object: new URL(postUrl), instrument: note }), [rig.url]);
  return { requestId: requestId.href, noteId: noteId.href };
}

describe('the quote policy our posts advertise', () => {
  it('a public post: anyone, approved automatically, as Fedify reads it', async () => {
    const post = addPost(rig.core, { visibility: 'PUBLIC' });
    const note = await peer.lookup(post.apId, { signed: false });
    expect(note).toBeInstanceOf(Note);
    expect((note as Note).interactionPolicy?.canQuote?.automaticApprovals.map((u) => u.href)).toEqual([PUBLIC]);
  });

  it('a followers-only post: its author alone (Mastodon’s "nobody"), read by a follower', async () => {
    addFollower(rig.core, peer.actorId, peer.inboxUrl, peer.sharedInboxUrl);
    const post = addPost(rig.core, { visibility: 'FOLLOWERS_ONLY' });
    const note = await peer.lookup(post.apId);
    expect((note as Note).interactionPolicy?.canQuote?.automaticApprovals.map((u) => u.href.replace(/\/+$/, ''))).toEqual([rig.url]);
  });

  it('a post stored with a context of its own (imported from microblog.pub) says it too', async () => {
    const local = rig.core.identity()!;
    const post = saveOutboxObject(rig.core.db, local, {
      apObject: { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Note', attributedTo: local.id, content: '<p>From before</p>', to: [PUBLIC], cc: [local.followers] },
      visibility: 'PUBLIC',
      now: new Date(),
    });
    const note = await peer.lookup(post.apId, { signed: false });
    expect((note as Note).interactionPolicy?.canQuote?.automaticApprovals.map((u) => u.href)).toEqual([PUBLIC]);
  });

  it('served as Mastodon 4.5 writes it, with the gts: terms in the context', async () => {
    const post = addPost(rig.core, { visibility: 'UNLISTED' });
    const json = (await (await fetch(post.apId, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    expect(json.interactionPolicy).toEqual({ canQuote: { automaticApproval: [PUBLIC] } });
    expect(JSON.stringify(json['@context'])).toContain('"canQuote":{"@id":"gts:canQuote","@type":"@id"}');
  });
});

describe('a QuoteRequest from a Fedify peer', () => {
  it('is accepted; the QuoteAuthorization is served to Fedify, and is gone once the quoting post is deleted', async () => {
    const post = addPost(rig.core, { visibility: 'PUBLIC' });
    const { requestId, noteId } = await requestQuote(post.apId);

    const accept = await peer.waitFor((x) => x.type === 'Accept' && fromUs(x.actorId), 10_000);
    expect(accept.signer.verifiedBy).toBe('http-signature');
    expect(accept.inbox).toBe('personal');
    const raw = accept.raw as { object: Record<string, unknown>; result: string };
    expect(raw.object).toMatchObject({ id: requestId, type: 'QuoteRequest', object: post.apId, instrument: noteId });
    expect(new URL(raw.result).host).toBe(new URL(rig.url).host);

    const res = await fetch(raw.result, { headers: { accept: 'application/activity+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/activity+json');
    const stamp = await peer.lookup(raw.result, { signed: false });
    expect(stamp).toBeInstanceOf(QuoteAuthorization);
    const auth = stamp as QuoteAuthorization;
    expect(auth.id?.href).toBe(raw.result);
    expect(auth.attributionId?.href.replace(/\/+$/, '')).toBe(rig.url);
    expect(auth.interactingObjectId?.href).toBe(noteId);
    expect(auth.interactionTargetId?.href).toBe(post.apId);

    await peer.send(new Delete({ id: peer.newId('deletes'), actor: new URL(peer.actorId), object: new Tombstone({ id: new URL(noteId) }), tos: [PUBLIC_COLLECTION] }), [rig.url]);
    await expect.poll(async () => (await fetch(raw.result, { headers: { accept: 'application/activity+json' } })).status, { timeout: 10_000 }).toBe(410);
    const gone = (await (await fetch(raw.result, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    expect(gone).toMatchObject({ id: raw.result, type: 'Tombstone' });
    expect((await fetch(`${post.apId}/authorization`)).status).toBe(404);
  });

  it('is revoked by the author: the QuoteAuthorization is gone (410) and Fedify receives a signed Delete of it', async () => {
    const post = addPost(rig.core, { visibility: 'PUBLIC' });
    const { requestId } = await requestQuote(post.apId);
    const accept = await peer.waitFor((x) => x.type === 'Accept' && fromUs(x.actorId) && (x.raw as { object: { id: string } }).object.id === requestId, 10_000);
    const stamp = (accept.raw as { result: string }).result;
    expect((await fetch(stamp, { headers: { accept: 'application/activity+json' } })).status).toBe(200);

    const asked = rig.core.db.select().from(inbox).where(eq(inbox.apId, requestId)).get()!;
    // The quoter's own inbox, and its shared one: it follows us (an earlier test) — our post's audience.
    expect(rig.author.revokeQuote(asked.id)).toEqual({ approval: 'revoked', queued: 2 });
    expect((await fetch(stamp, { headers: { accept: 'application/activity+json' } })).status).toBe(410);

    const del = await peer.waitFor((x) => x.type === 'Delete' && fromUs(x.actorId) && x.objectId === stamp && x.inbox === 'personal', 10_000);
    // HTTP-signed, and LD-signed as every public Delete of ours (Mastodon signs this one too):
    // Fedify checks the LD signature first.
    expect(del.signer.httpSignature).not.toBeNull();
    expect(del.signer.verifiedBy).toBe('ld-signature');
    expect(fromUs(del.signer.ownerId)).toBe(true);
    expect(del.raw).toMatchObject({ type: 'Delete', object: stamp, to: [PUBLIC], signature: { type: 'RsaSignature2017' } });
  });

  it('is gone once a relay says the quoting post was deleted and the post’s server confirms it (404)', async () => {
    const relay = await startPeer({ name: 'relay' });
    try {
      const post = addPost(rig.core, { visibility: 'PUBLIC' });
      const { requestId, noteId } = await requestQuote(post.apId);
      const accept = await peer.waitFor((x) => x.type === 'Accept' && fromUs(x.actorId) && (x.raw as { object: { id: string } }).object.id === requestId, 10_000);
      const stamp = (accept.raw as { result: string }).result;
      // The quoter's server does not serve it (404).
      expect((await fetch(noteId, { headers: { accept: 'application/activity+json' } })).status).toBe(404);
      await relay.send(new Delete({ id: relay.newId('deletes'), actor: new URL(relay.actorId), object: new URL(noteId), tos: [PUBLIC_COLLECTION] }), [rig.url]);
      await expect.poll(async () => (await fetch(stamp, { headers: { accept: 'application/activity+json' } })).status, { timeout: 10_000 }).toBe(410);
    } finally {
      await relay.close();
    }
  });

  it('for a direct post, is rejected', async () => {
    const post = addPost(rig.core, { visibility: 'DIRECT', to: [peer.actorId] });
    const { requestId } = await requestQuote(post.apId);
    const reject = await peer.waitFor((x) => x.type === 'Reject' && fromUs(x.actorId) && x.objectId === requestId, 10_000);
    expect(reject.raw).not.toHaveProperty('result');
  });
});
