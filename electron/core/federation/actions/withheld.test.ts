// What a peer receives when the author changes their mind while deliveries wait (offline, or a
// server down): a post edited then deleted, an undone Follow or Like revived by "Retry now", a
// follower removed before a followers-only post went out; and what the ids of a deleted post's
// edits answer; and a post deleted while its Create or edit was out to a server whose answer
// never came. Real Fedify peers (a loopback server where an answer must be held), the author's
// own delivery loop.
import type { ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, outgoingActivity } from '../../../../db/schema';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { enqueueDeliveries } from '../../delivery/queue';
import { startServer } from '../../net/test-server';
import { openAuthorRig, type AuthorRig } from './test-rig';

let rig: AuthorRig;
let fan: Peer;
const drain = () => rig.core.loops.delivery.drain();

beforeAll(async () => {
  [rig, fan] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' })]);
  await fan.follow(rig.url);
  await fan.waitFor((x) => x.type === 'Accept');
});
afterAll(async () => {
  await fan?.close();
  await rig?.close();
});

const editsOf = (postId: number) =>
  rig.core.db.select().from(outbox).where(and(eq(outbox.relatesToOutboxObjectId, postId), eq(outbox.apType, 'Update'))).all();
const deleteOf = (postId: number) =>
  rig.core.db.select().from(outbox).where(and(eq(outbox.relatesToOutboxObjectId, postId), eq(outbox.apType, 'Delete'))).get()!;

/** Publishes a public post and waits until `peer` has it: everything queued to the peer before
 * it has been delivered (or not) by then, as each recipient's rows go out in order. */
async function settled(peer: Peer): Promise<void> {
  const marker = await rig.author.createPost({ content: 'marker', visibility: 'PUBLIC' });
  await drain();
  await peer.waitFor((x) => x.type === 'Create' && x.objectId === marker.apId);
}

const about = (peer: Peer, apId: string) =>
  peer.received.filter((x) => x.objectId === apId || (x.raw as { object?: { id?: string } })?.object?.id === apId);

describe('a post deleted before it went out', () => {
  it('written offline, edited and deleted: the follower receives nothing of it, not the edit nor a Delete', async () => {
    rig.net.set(false);
    const post = await rig.author.createPost({ content: 'SECRET first draft', visibility: 'PUBLIC' });
    await rig.author.editPost({ apId: post.apId, content: 'SECRET edited draft' });
    rig.author.deletePost(post.apId);
    rig.net.set(true);
    await drain();
    await settled(fan);
    expect(about(fan, post.apId)).toEqual([]);
    expect(fan.received.some((x) => JSON.stringify(x.raw).includes('SECRET'))).toBe(false);
    // The author sees why each waiting delivery was dropped.
    const [edit] = editsOf(post.id);
    expect(rig.rowsOf(edit!.id).map((r) => [r.isSent, r.error])).toEqual([[false, expect.stringMatching(/deleted before this edit reached/)]]);
    expect(rig.rowsOf(deleteOf(post.id).id).map((r) => [r.isSent, r.error])).toEqual([[false, expect.stringMatching(/never received the post; no Delete needed/)]]);
  });

  it('sent, then edited and deleted offline: the follower gets the Create and the Delete, never the edit', async () => {
    const post = await rig.author.createPost({ content: 'first', visibility: 'PUBLIC' });
    await drain();
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    rig.net.set(false);
    await rig.author.editPost({ apId: post.apId, content: 'SECOND THOUGHTS' });
    rig.author.deletePost(post.apId);
    rig.net.set(true);
    await drain();
    await fan.waitFor((x) => x.type === 'Delete' && x.objectId === post.apId);
    expect(about(fan, post.apId).map((x) => x.type)).toEqual(['Create', 'Delete']);
  });

  it("a follower's signed GET of a deleted followers-only post's Update id answers 410 with a Tombstone", async () => {
    const post = await rig.author.createPost({ content: 'MARKER original', visibility: 'FOLLOWERS_ONLY' });
    await drain();
    await rig.author.editPost({ apId: post.apId, content: 'MARKER edited text' });
    await drain();
    const update = await fan.waitFor((x) => x.type === 'Update' && x.objectId === post.apId);
    rig.author.deletePost(post.apId);
    await drain();
    const res = await fan.fetchMedia(update.id!, { signed: true });
    expect(res.status).toBe(410);
    expect(await res.text()).not.toContain('MARKER');
    expect(editsOf(post.id).map((e) => e.isDeleted)).toEqual([true]);
  });

  it('an Update of a post deleted before its edits were marked deleted answers 410 too', async () => {
    const post = await rig.author.createPost({ content: 'OLD ROW original', visibility: 'PUBLIC' });
    await rig.author.editPost({ apId: post.apId, content: 'OLD ROW edited' });
    rig.author.deletePost(post.apId);
    const [edit] = editsOf(post.id);
    // As a database written by an earlier Tern holds it: the post deleted, its Update not.
    rig.core.db.update(outbox).set({ isDeleted: false }).where(eq(outbox.id, edit!.id)).run();
    const res = await fetch(edit!.apId, { headers: { accept: 'application/activity+json' } });
    expect(res.status).toBe(410);
    expect(await res.text()).not.toContain('OLD ROW');
    await drain();
  });
});

describe('an undone Follow or Like', () => {
  it('"Retry now" does not send a Follow the author undid after its Undo; the peer does not list us as follower', async () => {
    const carl = await startPeer({ name: 'carl' });
    try {
      await rig.author.follow(carl.actorId);
      await carl.waitFor((x) => x.type === 'Follow');
      rig.author.unfollow(carl.actorId);
      await carl.waitFor((x) => x.type === 'Undo');
      rig.net.set(false);
      await rig.author.follow(carl.actorId);
      rig.author.unfollow(carl.actorId);
      const follow = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).all().at(-1)!;
      const [row] = rig.rowsOf(follow.id);
      // The Follow failed for good while carl's server was down (16 tries of 502).
      rig.core.db.update(outgoingActivity).set({ isErrored: true, tries: 16, error: 'HTTP 502' }).where(eq(outgoingActivity.id, row!.id)).run();
      rig.net.set(true);
      await drain();
      expect(() => rig.author.retryNow(row!.id)).toThrow(/undone since/);
      rig.author.retryNow();
      await drain();
      await settledFor(carl);
      expect(carl.received.map((x) => x.type).filter((t) => t === 'Follow' || t === 'Undo')).toEqual(['Follow', 'Undo', 'Undo']);
      expect(carl.followers()).toEqual([]);
      // Not revived: the row still shows why it failed.
      expect(rig.rowsOf(follow.id)[0]).toMatchObject({ isSent: false, isErrored: true, error: 'HTTP 502' });
    } finally {
      await carl.close();
    }
  });

  it('a Like undone while offline is never sent (only its Undo), even when its row is set due again', async () => {
    const eve = await startPeer({ name: 'eve' });
    try {
      const noteId = (await eve.createNote({ content: '<p>Eve writes</p>' })).noteId;
      await rig.author.like(noteId);
      const first = await eve.waitFor((x) => x.type === 'Like');
      rig.author.unlike(noteId);
      await eve.waitFor((x) => x.type === 'Undo' && x.objectId === first.id);
      rig.net.set(false);
      await rig.author.like(noteId);
      rig.author.unlike(noteId);
      const like = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Like')).all().at(-1)!;
      // As a revived row would be: pending and due, its Like undone.
      rig.core.db.update(outgoingActivity).set({ isErrored: false, tries: 0 }).where(eq(outgoingActivity.outboxObjectId, like.id)).run();
      rig.net.set(true);
      await drain();
      await eve.waitFor((x) => x.type === 'Undo' && x.objectId === like.apId);
      expect(eve.received.map((x) => x.type)).toEqual(['Like', 'Undo', 'Undo']);
      expect(rig.rowsOf(like.id).map((r) => r.error)).toEqual([expect.stringMatching(/Like was undone before it reached/)]);
    } finally {
      await eve.close();
    }
  });
});

/** Like settled(), for a peer that follows no one here: a direct post to it. */
async function settledFor(peer: Peer): Promise<void> {
  const marker = await rig.author.createPost({ content: `marker ${peer.handle}`, visibility: 'DIRECT' });
  await drain();
  await peer.waitFor((x) => x.type === 'Create' && x.objectId === marker.apId);
}

describe('a follower removed while a followers-only post waits', () => {
  it('the removed follower gets the Reject and never the post; the one who still follows gets it', async () => {
    const dora = await startPeer({ name: 'dora' });
    try {
      await dora.follow(rig.url);
      await dora.waitFor((x) => x.type === 'Accept');
      rig.net.set(false);
      const post = await rig.author.createPost({ content: 'FOR FOLLOWERS ONLY', visibility: 'FOLLOWERS_ONLY' });
      rig.author.removeFollower(dora.actorId);
      rig.net.set(true);
      await drain();
      await dora.waitFor((x) => x.type === 'Reject');
      await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
      expect(about(dora, post.apId)).toEqual([]);
      expect(dora.received.some((x) => JSON.stringify(x.raw).includes('FOR FOLLOWERS ONLY'))).toBe(false);
      const dropped = rig.rowsOf(post.id).filter((r) => !r.isSent);
      expect(dropped.map((r) => r.error)).toEqual([expect.stringMatching(/no longer follow you/)]);
    } finally {
      await dora.close();
    }
  });

  it('a follower who unfollows while the post waits never gets it', async () => {
    const gus = await startPeer({ name: 'gus' });
    try {
      await gus.follow(rig.url);
      await gus.waitFor((x) => x.type === 'Accept');
      rig.net.set(false);
      const post = await rig.author.createPost({ content: 'AFTER GUS LEFT', visibility: 'FOLLOWERS_ONLY' });
      await gus.unfollow(rig.url);
      await rig.core.loops.inbox.drain();
      rig.net.set(true);
      await drain();
      await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
      expect(about(gus, post.apId)).toEqual([]);
      expect(rig.rowsOf(post.id).filter((r) => !r.isSent).map((r) => r.error)).toEqual([expect.stringMatching(/no longer follow you/)]);
    } finally {
      await gus.close();
    }
  });
});

describe('a post deleted while its delivery was out and its answer never came', () => {
  /** A server on loopback whose first request gets no answer: the connection is cut once the
   * machine is offline (Wi-Fi gone mid-request). Every later request is answered 202. */
  async function cutMidRequest() {
    const held: ServerResponse[] = [];
    const s = await startServer((_req, res) => {
      if (held.length === 0) held.push(res);
      else res.writeHead(202).end();
    });
    return {
      s,
      inbox: `${s.origin}/users/zed/inbox`,
      types: () => s.seen.map((r) => (JSON.parse(r.body) as { type: string }).type),
      /** Waits for the request, then drops the network and the connection under it. */
      async cut(rowId: number) {
        await expect.poll(() => held.length).toBe(1);
        rig.net.set(false);
        held[0]!.destroy();
        await expect.poll(() => rig.core.loops.delivery.inFlight().has(rowId)).toBe(false);
      },
    };
  }

  it('the Create may have arrived: after the delete, that server gets the Delete', async () => {
    const peer = await cutMidRequest();
    try {
      const post = await rig.author.createPost({ content: 'sent into a dropping Wi-Fi', visibility: 'PUBLIC' });
      enqueueDeliveries(rig.core.db, { outboxObjectId: post.id, recipients: [peer.inbox], now: new Date() });
      rig.core.loops.delivery.wake();
      await peer.cut(rig.rowsOf(post.id).find((r) => r.recipient === peer.inbox)!.id);
      rig.author.deletePost(post.apId);
      rig.net.set(true);
      await drain();
      expect(peer.types()).toEqual(['Create', 'Delete']);
      const [del] = rig.rowsOf(deleteOf(post.id).id).filter((r) => r.recipient === peer.inbox);
      expect(del).toMatchObject({ isSent: true, error: null });
    } finally {
      rig.net.set(true);
      await peer.s.close();
    }
  });

  it('an edit that may have arrived (the only thing sent there): after the delete, that server gets the Delete', async () => {
    const peer = await cutMidRequest();
    try {
      const post = await rig.author.createPost({ content: 'first', visibility: 'PUBLIC' });
      await drain();
      await rig.author.editPost({ apId: post.apId, content: 'edited' });
      // As for someone the edit newly mentions: the Update is all that server was sent
      // (Mastodon makes an unknown status's Update a Create).
      const [edit] = editsOf(post.id);
      enqueueDeliveries(rig.core.db, { outboxObjectId: edit!.id, recipients: [peer.inbox], now: new Date() });
      rig.core.loops.delivery.wake();
      await peer.cut(rig.rowsOf(edit!.id).find((r) => r.recipient === peer.inbox)!.id);
      rig.author.deletePost(post.apId);
      rig.net.set(true);
      await drain();
      expect(peer.types()).toEqual(['Update', 'Delete']);
    } finally {
      rig.net.set(true);
      await peer.s.close();
    }
  });
});

describe('a post deleted after its Create was tried where it never left, or may have', () => {
  const inboxAt = (origin: string) => `${origin}/users/zed/inbox`;
  /** Queues the post's Create to `inbox` (as for someone it mentions) and lets the loop try it. */
  function sendTo(postId: number, inbox: string): number {
    enqueueDeliveries(rig.core.db, { outboxObjectId: postId, recipients: [inbox], now: new Date() });
    rig.core.loops.delivery.wake();
    return rig.rowsOf(postId).find((r) => r.recipient === inbox)!.id;
  }
  /** The row's retry time has come. */
  function dueNow(rowId: number): void {
    rig.core.db.update(outgoingActivity).set({ nextTry: new Date() }).where(eq(outgoingActivity.id, rowId)).run();
    rig.core.loops.delivery.wake();
  }
  const rowById = (id: number) => rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.id, id)).get()!;
  const deleteRowTo = (postId: number, inbox: string) => rig.rowsOf(deleteOf(postId).id).find((r) => r.recipient === inbox)!;
  const types = (seen: { body: string }[]) => seen.map((r) => (JSON.parse(r.body) as { type: string }).type);

  it('the server refused the connection (nothing left): no Delete goes there, even once it is back', async () => {
    const down = await startServer((_req, res) => res.writeHead(202).end());
    const { origin, port } = down;
    await down.close();
    const inbox = inboxAt(origin);
    const post = await rig.author.createPost({ content: 'into a refused connection', visibility: 'PUBLIC' });
    const create = sendTo(post.id, inbox);
    await drain();
    expect(rowById(create)).toMatchObject({ isSent: false, tries: 1, lastTry: null });
    rig.author.deletePost(post.apId);
    const back = await startServer((_req, res) => res.writeHead(202).end(), '127.0.0.1', port);
    try {
      dueNow(create);
      await drain();
      expect(back.seen).toEqual([]);
      expect(rowById(create).error).toMatch(/deleted before it reached/);
      expect(deleteRowTo(post.id, inbox)).toMatchObject({ isSent: false, isErrored: true, error: expect.stringMatching(/never received the post; no Delete needed/) });
    } finally {
      await back.close();
    }
  });

  it('Tern stopped after putting the try on record, before its request left (a TLS handshake not done): no Delete goes there', async () => {
    // A server that takes the connection and never answers the handshake.
    const sockets: Socket[] = [];
    const tcp = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const inbox = inboxAt(`https://127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    try {
      const post = await rig.author.createPost({ content: 'stopped during the handshake', visibility: 'PUBLIC' });
      const create = sendTo(post.id, inbox);
      await expect.poll(() => [sockets.length, rowById(create).lastTry !== null]).toEqual([1, true]);
      await rig.core.loops.delivery.stop({ graceMs: 0 });
      expect(rowById(create)).toMatchObject({ isSent: false, tries: 0, lastTry: null });
      rig.author.deletePost(post.apId);
      rig.core.loops.delivery.start();
      await drain();
      expect(sockets).toHaveLength(1); // nothing more was sent there
      expect(rowById(create).error).toMatch(/deleted before it reached/);
      expect(deleteRowTo(post.id, inbox)).toMatchObject({ isSent: false, isErrored: true, error: expect.stringMatching(/never received the post/) });
    } finally {
      rig.core.loops.delivery.start();
      sockets.forEach((x) => x.destroy());
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it('an earlier try was answered (503) and a later one refused: the server may have the post, so it gets the Delete', async () => {
    const busy = await startServer((_req, res) => res.writeHead(503).end());
    const { origin, port } = busy;
    const inbox = inboxAt(origin);
    const post = await rig.author.createPost({ content: 'answered, then refused', visibility: 'PUBLIC' });
    const create = sendTo(post.id, inbox);
    await drain();
    const answered = rowById(create);
    expect(answered).toMatchObject({ tries: 1, lastStatusCode: 503 });
    await busy.close();
    dueNow(create);
    await drain();
    // The refused try is counted; the last request that left is still the answered one.
    expect(rowById(create)).toMatchObject({ tries: 2, lastTry: answered.lastTry });
    rig.author.deletePost(post.apId);
    const back = await startServer((_req, res) => res.writeHead(202).end(), '127.0.0.1', port);
    try {
      dueNow(create);
      await drain();
      expect(types(back.seen)).toEqual(['Delete']);
    } finally {
      await back.close();
    }
  });

  it('Tern ended abruptly after putting the try on record (its request may have left): the server gets the Delete', async () => {
    const s = await startServer((_req, res) => res.writeHead(202).end());
    const inbox = inboxAt(s.origin);
    try {
      rig.net.set(false);
      const post = await rig.author.createPost({ content: 'a crash mid-send', visibility: 'PUBLIC' });
      const create = sendTo(post.id, inbox);
      // As a crash after the claim leaves the row: last_try written, nothing after it.
      rig.core.db.update(outgoingActivity).set({ lastTry: new Date() }).where(eq(outgoingActivity.id, create)).run();
      rig.author.deletePost(post.apId);
      rig.net.set(true);
      await drain();
      expect(types(s.seen)).toEqual(['Delete']);
    } finally {
      rig.net.set(true);
      await s.close();
    }
  });
});
