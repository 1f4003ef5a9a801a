// The author's actions end to end: a real core (SQLite, listener on 127.0.0.1, inbox and
// delivery loops) against Fedify test peers, an independent implementation that verifies OUR
// HTTP signatures before recording anything. Tests in a describe share its peers and run in order.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { follower, following, inbox, outbox, outgoingActivity, storedValue, taggedOutboxObject } from '../../../../db/schema';
import { startPeer, type Peer, type ReceivedActivity } from '../../../../test/peer/peer';
import { createHandlers, dispatch } from '../../ipc/handlers';
import { addFollower } from '../../listener/test-support';
import { startServer, type LoopbackServer } from '../../net/test-server';
import { PUBLIC } from '../ap';
import { openAuthorRig, type AuthorRig } from './test-rig';

let rig: AuthorRig;
let fan: Peer; // follows us
let bob: Peer; // we follow him
let carol: Peer; // approves followers by hand; never cached before the test that meets her

const drain = () => rig.core.loops.delivery.drain();
const ours = (id: string | null | undefined) => id?.replace(/\/$/, '') === rig.url;
// Our HTTP signature verifies; Fedify believes a public post's activities on their LD signature
// (also ours) first, everything else on the HTTP one (ld-outbound.test.ts checks which is which).
const verifiedByUs = (x: ReceivedActivity) =>
  (x.signer.verifiedBy === 'http-signature' || x.signer.verifiedBy === 'ld-signature') &&
  ours(x.signer.ownerId) &&
  x.signer.httpSignature?.verified === true &&
  ours(x.signer.httpSignature.ownerId);
const objectOf = (x: ReceivedActivity) => x.raw as { object: Record<string, unknown> };

beforeAll(async () => {
  [rig, fan, bob, carol] = await Promise.all([
    openAuthorRig(),
    startPeer({ name: 'fan' }),
    startPeer({ name: 'bob' }),
    startPeer({ name: 'carol', autoAcceptFollows: false }),
  ]);
});

afterAll(async () => {
  await Promise.all([fan?.close(), bob?.close(), carol?.close()]);
  await rig?.close();
});

describe('followers and posting', () => {
  it('a peer that follows us gets our Accept, signed by us; it becomes a follower', async () => {
    const followId = await fan.follow(rig.url);
    const accept = await fan.waitFor((x) => x.type === 'Accept');
    expect(accept.objectId).toBe(followId);
    expect(verifiedByUs(accept)).toBe(true);
    expect(fan.following()).toHaveLength(1);
    expect(rig.core.db.select().from(follower).all().map((f) => f.apActorId)).toEqual([fan.actorId]);
  });

  it('a public post reaches the follower’s shared inbox as a Create whose signature Fedify verifies', async () => {
    const post = await rig.author.createPost({ content: 'Hello **fediverse** #Tern https://example.org', visibility: 'PUBLIC' });
    expect(post.delivery).toMatchObject({ state: 'queued', total: 1, pending: 1 });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    expect(verifiedByUs(create)).toBe(true);
    expect(create.signer.httpSignature?.spec).toBe('draft-cavage-http-signatures-12');
    expect(create.inbox).toBe('shared');
    const note = objectOf(create).object;
    expect(note.content).toBe(rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject.content);
    expect(note.content).toContain('<strong>fediverse</strong>');
    expect(note.content).toContain('<a href="https://example.org" rel="nofollow noopener noreferrer">https://example.org</a>');
    expect(note.source).toEqual({ content: 'Hello **fediverse** #Tern https://example.org', mediaType: 'text/markdown' });
    expect(note.tag).toEqual([{ type: 'Hashtag', href: `${rig.url}/t/tern`, name: '#Tern' }]); // the link lower-cased, the name as written
    expect(create.json.to).toBe('as:Public');
    expect(rig.core.db.select().from(taggedOutboxObject).where(eq(taggedOutboxObject.outboxObjectId, post.id)).all().map((t) => t.tag)).toEqual(['tern']);
    await drain();
    const page = rig.author.profile({});
    expect(page.items[0]).toMatchObject({ apId: post.apId, delivery: { state: 'sent', sent: 1, total: 1, failed: 0 } });
  });

  it('three followers on one server share one delivery to its shared inbox', async () => {
    const server = await startServer((_req, res) => res.writeHead(202).end());
    try {
      for (const name of ['a', 'b', 'c']) addFollower(rig.core, `${server.origin}/users/${name}`, `${server.origin}/users/${name}/inbox`, `${server.origin}/inbox`);
      const post = await rig.author.createPost({ content: 'to everyone', visibility: 'PUBLIC' });
      expect(rig.rowsOf(post.id).map((r) => r.recipient).sort()).toEqual([`${server.origin}/inbox`, fan.sharedInboxUrl].sort());
      await drain();
      expect(server.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      rig.core.db.delete(follower).where(eq(follower.apActorId, `${server.origin}/users/a`)).run();
      for (const name of ['b', 'c']) rig.core.db.delete(follower).where(eq(follower.apActorId, `${server.origin}/users/${name}`)).run();
      await server.close();
    }
  });

  it.each([
    ['PUBLIC', [PUBLIC], ['followers', 'bob']],
    ['UNLISTED', ['followers'], [PUBLIC, 'bob']],
    ['FOLLOWERS_ONLY', ['followers'], ['bob']],
    ['DIRECT', ['bob'], []],
  ] as const)('addresses a %s post as the reference does, and delivers it to whom it should', async (visibility, to, cc) => {
    const expand = (xs: readonly string[]) => xs.map((x) => (x === 'followers' ? `${rig.url}/followers` : x === 'bob' ? bob.actorId : x));
    const post = await rig.author.createPost({ content: `a ${visibility} post`, visibility, mentions: [bob.actorId] });
    const object = rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject;
    expect(object.to).toEqual(expand(to));
    expect(object.cc).toEqual(expand(cc));
    const atBob = await bob.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    expect(verifiedByUs(atBob)).toBe(true);
    await drain();
    const atFan = fan.received.some((x) => x.type === 'Create' && x.objectId === post.apId);
    expect(atFan).toBe(visibility !== 'DIRECT');
  });

  it('links a mention written as @user@host, found by WebFinger, and delivers to that person', async () => {
    const post = await rig.author.createPost({ content: `Hi ${bob.handle}!`, visibility: 'PUBLIC' });
    expect(post.contentHtml).toContain(`<a href="${bob.actorId}" class="u-url mention"`);
    expect(post.tags).toContainEqual({ type: 'Mention', href: bob.actorId, name: bob.handle });
    const create = await bob.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    expect(objectOf(create).object.tag).toEqual([{ type: 'Mention', href: bob.actorId, name: bob.handle }]);
  });

  it('rejects bad input at the IPC edge and a direct message to nobody in the service', async () => {
    const handlers = createHandlers(rig.core);
    const bad = await dispatch(handlers, 'posts.create', { content: 'x', visibility: 'SECRET' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    const nobody = await dispatch(handlers, 'posts.create', { content: 'psst', visibility: 'DIRECT' });
    expect(nobody).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/needs someone/) } });
  });
});

describe('following and interacting', () => {
  let noteId = '';

  beforeAll(async () => {
    await rig.author.follow(bob.actorId);
    await vi.waitFor(() => expect(rig.core.db.select().from(following).where(eq(following.apActorId, bob.actorId)).get()).toBeTruthy(), { timeout: 10_000 });
    noteId = (await bob.createNote({ content: '<p>Bob writes</p>', tags: ['tern'] })).noteId;
    // Bob's Create reaches our listener; the inbox processor stores the note.
    await vi.waitFor(() => expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, noteId)).get()).toBeTruthy(), { timeout: 10_000 });
  });

  it('follow: Bob received a signed Follow and his Accept made him followed', async () => {
    const follow = await bob.waitFor((x) => x.type === 'Follow');
    expect(verifiedByUs(follow)).toBe(true);
    expect(follow.objectId).toBe(bob.actorId);
    expect(rig.author.people().following.map((p) => p.actor.apId)).toEqual([bob.actorId]);
    expect(rig.author.stream({}).items.some((p) => p.apId === noteId)).toBe(true);
  });

  it('like and unlike: the Like goes to the author’s own inbox, then its Undo', async () => {
    const liked = await rig.author.like(noteId);
    expect(liked.mine.liked).toBe(true);
    const like = await bob.waitFor((x) => x.type === 'Like' && x.objectId === noteId);
    expect(like.inbox).toBe('personal');
    expect(verifiedByUs(like)).toBe(true);
    expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, noteId)).get()!.likedViaOutboxObjectApId).toBe(like.id);
    const unliked = rig.author.unlike(noteId);
    expect(unliked.mine.liked).toBe(false);
    const undo = await bob.waitFor((x) => x.type === 'Undo' && x.objectId === like.id);
    expect(verifiedByUs(undo)).toBe(true);
  });

  it('boost and unboost: Announce to our followers and the author, then Undo to the same', async () => {
    await rig.author.boost(noteId);
    const atBob = await bob.waitFor((x) => x.type === 'Announce' && x.objectId === noteId);
    const atFan = await fan.waitFor((x) => x.type === 'Announce' && x.objectId === noteId);
    expect(atFan.id).toBe(atBob.id);
    expect(verifiedByUs(atFan)).toBe(true);
    expect(rig.author.stream({}).items.find((p) => p.boostedBy?.apId === atBob.id)).toMatchObject({ apId: noteId, boostedBy: { actor: { apId: rig.url } } });
    rig.author.unboost(noteId);
    await bob.waitFor((x) => x.type === 'Undo' && x.objectId === atBob.id);
    await fan.waitFor((x) => x.type === 'Undo' && x.objectId === atBob.id);
  });

  it('bookmark is private: set and cleared on the stored post, nothing sent', async () => {
    const before = bob.received.length;
    expect((await rig.author.bookmark(noteId, true)).mine.bookmarked).toBe(true);
    expect((await rig.author.bookmark(noteId, false)).mine.bookmarked).toBe(false);
    await drain();
    expect(bob.received.length).toBe(before);
  });

  it('a reply addresses the parent’s author, copies the thread, and shows in the thread view', async () => {
    const reply = await rig.author.createPost({ content: 'Nice one', visibility: 'PUBLIC', inReplyTo: noteId });
    const create = await bob.waitFor((x) => x.type === 'Create' && x.objectId === reply.apId);
    const object = objectOf(create).object;
    expect(object.inReplyTo).toBe(noteId);
    expect(object.cc).toContain(bob.actorId);
    expect(object.tag).toMatchObject([{ type: 'Mention', href: bob.actorId }]);
    const thread = await rig.author.thread(reply.apId);
    expect(thread.ancestors.map((p) => p.apId)).toEqual([noteId]);
    const fromTop = await rig.author.thread(noteId);
    expect(fromTop.replies).toMatchObject([{ apId: reply.apId, depth: 1 }]);
  });

  it('edit: an Update reaches followers; every earlier version is kept in revisions', async () => {
    const post = await rig.author.createPost({ content: 'first #one', visibility: 'PUBLIC' });
    await rig.author.editPost({ apId: post.apId, content: 'second #two' });
    const edited = await rig.author.editPost({ apId: post.apId, content: 'third' });
    expect(edited.markdown).toBe('third');
    const update = await fan.waitFor((x) => x.type === 'Update' && objectOf(x).object.content === '<p>third</p>');
    expect(verifiedByUs(update)).toBe(true);
    expect(objectOf(update).object.updated).toEqual(expect.any(String));
    const row = rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!;
    expect((storedValue(row.revisions) as { source: string }[]).map((r) => r.source)).toEqual(['first #one', 'second #two']);
    expect(rig.core.db.select().from(taggedOutboxObject).where(eq(taggedOutboxObject.outboxObjectId, post.id)).all()).toEqual([]);
  });

  it('delete: a Delete with a Tombstone reaches followers; the row stays, marked deleted', async () => {
    const post = await rig.author.createPost({ content: 'oops', visibility: 'PUBLIC' });
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    rig.author.deletePost(post.apId);
    const del = await fan.waitFor((x) => x.type === 'Delete' && x.objectId === post.apId);
    expect(verifiedByUs(del)).toBe(true);
    expect(objectOf(del).object).toMatchObject({ type: 'Tombstone', id: post.apId });
    expect(rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.isDeleted).toBe(true);
    expect(rig.author.profile({}).items.some((p) => p.apId === post.apId)).toBe(false);
  });

  it('unfollow: Undo{Follow} reaches Bob and the following row is gone at once', async () => {
    rig.author.unfollow(bob.actorId);
    expect(rig.core.db.select().from(following).all()).toEqual([]);
    const undo = await bob.waitFor((x) => x.type === 'Undo' && (objectOf(x).object as { type?: string }).type === 'Follow');
    expect(verifiedByUs(undo)).toBe(true);
    await expect.poll(() => bob.followers()).toEqual([]);
  });

  it('a follow by handle to someone who approves by hand stays pending', async () => {
    const result = await rig.author.follow(carol.handle);
    expect(result).toMatchObject({ state: 'requested', actor: { apId: carol.actorId } });
    await carol.waitFor((x) => x.type === 'Follow');
    expect(rig.author.people().pendingFollows.map((p) => p.actor.apId)).toEqual([carol.actorId]);
    await expect(rig.author.follow(carol.actorId)).rejects.toThrow(/already asked/);
  });

  it('remove a follower: they get a Reject of their Follow and are no longer a follower', async () => {
    rig.author.removeFollower(fan.actorId);
    const reject = await fan.waitFor((x) => x.type === 'Reject');
    expect(verifiedByUs(reject)).toBe(true);
    expect(rig.core.db.select().from(follower).where(eq(follower.apActorId, fan.actorId)).all()).toEqual([]);
    await expect.poll(() => fan.following()).toEqual([]);
  });
});

describe('offline', () => {
  let dave: Peer;
  let dead: LoopbackServer;

  beforeAll(async () => {
    dave = await startPeer({ name: 'dave' });
    dead = await startServer((_req, res) => res.writeHead(503).end());
    await fan.follow(rig.url);
    await vi.waitFor(() => expect(rig.core.db.select().from(follower).where(eq(follower.apActorId, fan.actorId)).get()).toBeTruthy(), { timeout: 10_000 });
  });
  afterAll(async () => {
    await dave?.close();
    await dead?.close();
  });

  it('"Work offline": a post is saved and queued, nothing is tried, and it goes out when back online', async () => {
    const handlers = createHandlers(rig.core);
    expect(await dispatch(handlers, 'connectivity.setWorkOffline', { workOffline: true })).toMatchObject({ ok: true, value: { online: false, workOffline: true } });
    const created = await dispatch(handlers, 'posts.create', { content: 'written on a train', visibility: 'PUBLIC' });
    expect(created).toMatchObject({ ok: true, value: { delivery: { state: 'queued', pending: 1 } } });
    const post = (created as { value: { id: number; apId: string } }).value;
    await drain();
    expect(rig.rowsOf(post.id)).toMatchObject([{ tries: 0, isSent: false, isErrored: false, lastTry: null }]);
    expect(fan.received.some((x) => x.objectId === post.apId)).toBe(false);
    await dispatch(handlers, 'connectivity.setWorkOffline', { workOffline: false });
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    await drain();
    expect(rig.rowsOf(post.id)).toMatchObject([{ tries: 1, isSent: true }]);
  });

  it('a mention of someone not known yet is queued by handle and linked once online', async () => {
    rig.net.set(false);
    const post = await rig.author.createPost({ content: `Welcome ${dave.handle}`, visibility: 'PUBLIC' });
    expect(post.contentHtml).toBe(`<p>Welcome ${dave.handle}</p>`);
    expect(rig.rowsOf(post.id).map((r) => r.recipient).sort()).toEqual([`acct:${dave.handle.slice(1)}`, fan.sharedInboxUrl].sort());
    rig.net.set(true);
    const atDave = await dave.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    const atFan = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId);
    // Everyone got the post as meant: the mention linked, tagged and addressed.
    for (const received of [atDave, atFan]) {
      expect(objectOf(received).object.tag).toEqual([{ type: 'Mention', href: dave.actorId, name: dave.handle }]);
      expect(objectOf(received).object.content).toContain(`href="${dave.actorId}"`);
    }
    expect(atDave.inbox).toBe('personal');
    await drain();
    expect(rig.rowsOf(post.id).map((r) => r.isSent)).toEqual([true, true]);
  });

  it('a reply to a post that cannot be fetched is still posted, with inReplyTo', async () => {
    rig.net.set(false);
    const parent = `${dead.origin}/notes/1`;
    const reply = await rig.author.createPost({ content: 'replying from the plane', visibility: 'PUBLIC', inReplyTo: parent });
    expect(reply).toMatchObject({ inReplyTo: parent, delivery: { state: 'queued' } });
    expect(rig.rowsOf(reply.id).map((r) => r.recipient)).toEqual([fan.sharedInboxUrl]);
    rig.net.set(true);
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === reply.apId);
  });

  it('lists the queue with per-row state and retries failed rows on request', async () => {
    const post = await rig.author.createPost({ content: 'to a broken server', visibility: 'DIRECT', mentions: [carol.actorId] });
    const row = rig.rowsOf(post.id)[0]!;
    rig.core.db.update(outgoingActivity).set({ recipient: `${dead.origin}/inbox` }).where(eq(outgoingActivity.id, row.id)).run();
    await drain();
    const list = rig.author.deliveries({ state: 'pending' });
    expect(list.items.find((i) => i.id === row.id)).toMatchObject({ state: 'retrying', host: new URL(dead.origin).host, tries: 1, lastStatus: 503 });
    rig.core.db.update(outgoingActivity).set({ isErrored: true, nextTry: null }).where(eq(outgoingActivity.id, row.id)).run();
    expect(rig.author.deliveries({ state: 'failed' }).counts.failed).toBeGreaterThanOrEqual(1);
    expect(rig.author.retryNow(row.id)).toEqual({ retried: 1 });
    await drain();
    expect(rig.core.db.select().from(outgoingActivity).where(and(eq(outgoingActivity.id, row.id))).get()).toMatchObject({ isErrored: false, tries: 1 });
  });
});

describe('look-up', () => {
  it('finds a person by handle and by URL, with whether we follow them', async () => {
    const byHandle = await rig.author.lookup(carol.handle);
    expect(byHandle).toMatchObject({ kind: 'actor', actor: { apId: carol.actorId }, followState: 'requested' });
    const byUrl = await rig.author.lookup(bob.actorId);
    expect(byUrl).toMatchObject({ kind: 'actor', followState: 'none' });
  });

  it('finds a post by URL and stores it, hidden from the stream', async () => {
    const { noteId } = await carol.createNote({ content: '<p>Carol only to her followers</p>', to: 'public' });
    const found = await rig.author.lookup(noteId);
    expect(found).toMatchObject({ kind: 'post', post: { apId: noteId, contentHtml: '<p>Carol only to her followers</p>', author: { apId: carol.actorId } } });
    expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, noteId)).get()).toMatchObject({ isHiddenFromStream: true });
  });
});
