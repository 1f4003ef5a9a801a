// Proves the Fedify test peer is a trustworthy stand-in for a remote server: two peers on
// loopback follow, post, like, boost, undo, edit, delete and vote, and every delivery is checked
// on the receiving side, signature included. The tests run in order and share the three peers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Create, Question, PUBLIC_COLLECTION, Person } from '@fedify/vocab';
import { startPeer, type Peer, type ReceivedActivity } from './peer';

let a: Peer;
let b: Peer;
let c: Peer; // follows are approved by hand

beforeAll(async () => {
  // In parallel: RSA key generation dominates start-up.
  [a, b, c] = await Promise.all([
    startPeer({ name: 'alice' }),
    startPeer({ name: 'bob' }),
    startPeer({ name: 'carol', autoAcceptFollows: false }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), c?.close()]);
});

const from = (peer: Peer, type: string) => (x: ReceivedActivity) => x.type === type && x.actorId === peer.actorId;
const objectOf = (x: ReceivedActivity): Record<string, unknown> => x.json.object as Record<string, unknown>;

describe('Fedify test peer', () => {
  let noteId = '';

  it('serves an actor with an RSA key, an Ed25519 assertion method and a shared inbox', async () => {
    const actor = await a.lookup(b.actorId, { signed: false });
    expect(actor).toBeInstanceOf(Person);
    const person = actor as Person;
    expect(person.id?.href).toBe(b.actorId);
    expect(person.inboxId?.href).toBe(b.inboxUrl);
    expect(person.endpoints?.sharedInbox?.href).toBe(b.sharedInboxUrl);
    expect(person.manuallyApprovesFollowers).toBe(false);
    expect(person.publicKeyId?.href).toBe(b.keyId);
    expect(person.assertionMethodIds).toHaveLength(2);
  });

  it('answers WebFinger for its handle with its actor URL', async () => {
    const url = new URL('/.well-known/webfinger', b.origin);
    url.searchParams.set('resource', `acct:${b.handle.slice(1)}`);
    const jrd = (await (await fetch(url)).json()) as { links: { rel: string; href?: string }[] };
    expect(jrd.links.find((link) => link.rel === 'self')?.href).toBe(b.actorId);
  });

  it('follows: B accepts on its own and A receives an Accept naming its Follow', async () => {
    const followId = await a.follow(b.actorId);
    const follow = await b.waitFor(from(a, 'Follow'));
    expect(follow.id).toBe(followId);
    expect(follow.inbox).toBe('personal');
    const accept = await a.waitFor(from(b, 'Accept'));
    expect(accept.objectId).toBe(followId);
    expect(a.following()).toEqual([b.actorId]);
    expect(b.followers()).toEqual([a.actorId]);
  });

  it('delivers a public Note to followers, through the shared inbox, with a verified signature', async () => {
    const sent = await b.createNote({ content: '<p>Hello from bob</p>', tags: ['tern'] });
    noteId = sent.noteId;
    const create = await a.waitFor((x) => x.type === 'Create' && x.id === sent.createId);
    expect(create.inbox).toBe('shared');
    expect(create.objectId).toBe(noteId);
    expect(objectOf(create).content).toBe('<p>Hello from bob</p>');
    expect(create.json.to).toBe('as:Public');
    expect(create.signer.verifiedBy).not.toBeNull();
    expect(create.signer.ownerId).toBe(b.actorId);
    // Fedify signs the request too, RFC 9421 first; Fedify on the other side accepts that.
    expect(create.signer.httpSignature).toMatchObject({ spec: 'rfc9421', verified: true, ownerId: b.actorId });
    expect(await b.signatureSpecFor(a.inboxUrl)).toBe('rfc9421');
  });

  it('serves its outbox with the Create and its followers collection with the follower', async () => {
    const get = async (url: string) =>
      (await (await fetch(url, { headers: { accept: 'application/activity+json' } })).json()) as Record<string, unknown>;
    const person = (await get(b.actorId)) as { outbox: string; followers: string };
    const outbox = await get(person.outbox);
    expect(JSON.stringify(outbox.orderedItems)).toContain(noteId);
    const followers = await get(person.followers);
    expect(followers.totalItems).toBe(1);
    expect(JSON.stringify(followers.orderedItems ?? followers.items)).toContain(a.actorId);
  });

  it('serves its notes for look-up', async () => {
    const note = await a.lookup(noteId);
    expect(note?.id?.href).toBe(noteId);
    expect(note?.content?.toString()).toBe('<p>Hello from bob</p>');
  });

  it('likes and unlikes a Note', async () => {
    const likeId = await a.like(noteId, b.actorId);
    const like = await b.waitFor((x) => x.type === 'Like' && x.id === likeId);
    expect(like.objectId).toBe(noteId);
    expect(like.signer.ownerId).toBe(a.actorId);
    const undoId = await a.unlike(noteId, b.actorId);
    const undo = await b.waitFor((x) => x.type === 'Undo' && x.id === undoId);
    expect(undo.objectId).toBe(likeId);
  });

  it('announces and undoes the Announce', async () => {
    const announceId = await a.announce(noteId, b.actorId);
    const announce = await b.waitFor((x) => x.type === 'Announce' && x.id === announceId);
    expect(announce.objectId).toBe(noteId);
    const undoId = await a.undoAnnounce(noteId, b.actorId);
    const undo = await b.waitFor((x) => x.type === 'Undo' && x.id === undoId);
    expect(undo.objectId).toBe(announceId);
  });

  it('edits a Note: followers receive Update and a fresh look-up shows the new text', async () => {
    const updateId = await b.updateNote(noteId, '<p>Edited</p>');
    const update = await a.waitFor((x) => x.type === 'Update' && x.id === updateId);
    expect(objectOf(update).content).toBe('<p>Edited</p>');
    expect(objectOf(update).updated).toEqual(expect.any(String));
    expect((await a.lookup(noteId))?.content?.toString()).toBe('<p>Edited</p>');
  });

  it('mentions with a Mention tag and sends a DM only to the addressed actor', async () => {
    const sent = await b.createNote({ content: '<p>psst</p>', to: [a.actorId] });
    const create = await a.waitFor((x) => x.type === 'Create' && x.id === sent.createId);
    expect(create.json.to).toBe(a.actorId);
    expect(create.json.cc).toBeUndefined();
    expect(objectOf(create).tag).toMatchObject({ type: 'Mention', href: a.actorId, name: a.handle });
  });

  it('deletes a Note: followers receive Delete with a Tombstone and the Note is gone', async () => {
    const deleteId = await b.deleteNote(noteId);
    const del = await a.waitFor((x) => x.type === 'Delete' && x.id === deleteId);
    expect(objectOf(del)).toMatchObject({ type: 'Tombstone', id: noteId });
    expect(await a.lookup(noteId)).toBeNull();
  });

  it('votes in a poll with a named Note in reply to the Question, sent to its author', async () => {
    const questionId = b.newId('questions');
    const question = new Question({
      id: questionId,
      attribution: new URL(b.actorId),
      content: 'Tea or coffee?',
      to: PUBLIC_COLLECTION,
    });
    await b.send(new Create({ id: b.newId('creates'), actor: new URL(b.actorId), object: question, to: PUBLIC_COLLECTION }), [a.actorId]);
    const received = await a.waitFor((x) => x.type === 'Create' && x.objectId === questionId.href);
    expect(objectOf(received).type).toBe('Question');

    const vote = await a.vote(questionId.href, b.actorId, 'Tea');
    const create = await b.waitFor((x) => x.type === 'Create' && x.id === vote.createId);
    expect(objectOf(create)).toMatchObject({ type: 'Note', name: 'Tea', inReplyTo: questionId.href, to: b.actorId });
  });

  it('updates its profile and followers receive Update{Person}', async () => {
    const updateId = await b.updateProfile({ name: 'Bob Renamed' });
    const update = await a.waitFor((x) => x.type === 'Update' && x.id === updateId);
    expect(objectOf(update)).toMatchObject({ type: 'Person', id: b.actorId, name: 'Bob Renamed' });
  });

  it('refuses an unsigned activity with 401 and records nothing', async () => {
    const before = b.received.length;
    const response = await fetch(b.inboxUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${a.actorId}/forged/1`,
        type: 'Like',
        actor: a.actorId,
        object: `${b.actorId}/notes/x`,
      }),
    });
    expect(response.status).toBe(401);
    const garbage = await fetch(b.inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{' });
    expect(garbage.status).toBe(400);
    expect(b.received.length).toBe(before);
  });

  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)(
    'accepts an activity signed only by an HTTP signature (%s) and reports that spec',
    async (spec) => {
      const id = `${a.actorId}/likes/http-only-${spec}`;
      const like = { '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Like', actor: a.actorId, object: `${b.actorId}/notes/x` };
      const response = await a.postSigned(b.inboxUrl, like, { spec });
      expect(response.status).toBe(202);
      const received = await b.waitFor((x) => x.id === id);
      expect(received.signer).toMatchObject({
        verifiedBy: 'http-signature',
        keyId: a.keyId,
        ownerId: a.actorId,
        httpSignature: { spec, verified: true },
      });
    },
  );

  it('refuses with 401 an activity whose actor is not the signer', async () => {
    const id = `${b.actorId}/likes/forged-by-a`;
    const forged = { '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Like', actor: b.actorId, object: `${a.actorId}/x` };
    const response = await a.postSigned(a.inboxUrl, forged);
    expect(response.status).toBe(401);
    expect(a.received.some((x) => x.id === id)).toBe(false);
  });

  it('double-knocks: after a 401 to RFC 9421 it retries with draft-cavage and remembers that', async () => {
    // A stand-in for an older server: it refuses RFC 9421 signatures outright.
    const seen: string[] = [];
    const legacy = createServer((req, res) => {
      const origin = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`;
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.end(JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${origin}/actor`, type: 'Person', inbox: `${origin}/inbox` }));
        return;
      }
      const spec = req.headers['signature-input'] != null ? 'rfc9421' : req.headers.signature != null ? 'draft-cavage' : 'none';
      seen.push(spec);
      req.resume();
      res.writeHead(spec === 'draft-cavage' ? 202 : 401).end();
    });
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
    try {
      const actor = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}/actor`;
      await a.like(`${actor}/notes/1`, actor);
      expect(seen).toEqual(['rfc9421', 'draft-cavage']);
      expect(await a.signatureSpecFor(actor)).toBe('draft-cavage-http-signatures-12');
      await a.unlike(`${actor}/notes/1`, actor);
      expect(seen).toEqual(['rfc9421', 'draft-cavage', 'draft-cavage']);
    } finally {
      legacy.closeAllConnections();
      await new Promise((resolve) => legacy.close(resolve));
    }
  });

  it('unfollows: B receives Undo{Follow} and drops A from its followers', async () => {
    const undoId = await a.unfollow(b.actorId);
    await b.waitFor((x) => x.type === 'Undo' && x.id === undoId);
    expect(b.followers()).toEqual([]);
    expect(a.following()).toEqual([]);
  });

  it('in manual mode keeps the Follow pending and can reject it', async () => {
    expect(((await a.lookup(c.actorId)) as Person).manuallyApprovesFollowers).toBe(true);
    const followId = await a.follow(c.actorId);
    await c.waitFor((x) => x.type === 'Follow' && x.id === followId);
    expect(c.pendingFollowRequests()).toEqual([a.actorId]);
    expect(c.followers()).toEqual([]);
    expect(a.received.some(from(c, 'Accept'))).toBe(false);
    await c.rejectFollow(a.actorId);
    const reject = await a.waitFor(from(c, 'Reject'));
    expect(reject.objectId).toBe(followId);
    expect(a.following()).toEqual([]);
  });

  it('in manual mode accepts on acceptFollow()', async () => {
    const followId = await b.follow(c.actorId);
    await c.waitFor((x) => x.type === 'Follow' && x.id === followId);
    await c.acceptFollow(b.actorId);
    const accept = await b.waitFor(from(c, 'Accept'));
    expect(accept.objectId).toBe(followId);
    expect(c.followers()).toEqual([b.actorId]);
    expect(b.following()).toEqual([c.actorId]);
  });

  it('times out waitFor with a list of what did arrive', async () => {
    await expect(a.waitFor((x) => x.type === 'Block', 50)).rejects.toThrow(/no matching activity within 50 ms; received: \[Accept/);
  });
});
