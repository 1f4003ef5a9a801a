import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { PUBLIC, type Json } from '../ap';
import { BOOST_DEDUP_MS } from './announce';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let peer: Peer;
let rig: Rig;
beforeAll(async () => {
  [remotes, peer] = await Promise.all([startRemotes(), startPeer({ name: 'poster' })]);
});
afterAll(() => Promise.all([remotes.close(), peer.close()]));
afterEach(() => rig?.close());

const aliceId = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const zoeId = () => String(remotes.fixture('actors/gotosocial-zoe.json').id);
const OUR_POST = 'https://tern.example/o/5b8a1c2d3e4f';
const like = (actor: string, id: string, object = OUR_POST): Json => ({ id, type: 'Like', actor, object });
const undo = (actor: string, id: string, object: Json): Json => ({ id, type: 'Undo', actor, object });

describe('Like', () => {
  it('Mastodon, GoToSocial and Misskey likes of our post: likes_count from the rows, one LIKE each', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    for (const name of ['mastodon-like.json', 'gotosocial-like.json', 'misskey-like.json']) {
      const row = await rig.receive(remotes.fixture(name));
      expect(row).toMatchObject({ isProcessed: true, error: null });
    }
    expect(rig.outboxRow(post.id).likesCount).toBe(3);
    const likes = rig.notificationsOf('LIKE');
    expect(likes).toHaveLength(3);
    const mastodonLike = rig.inboxRow(String(remotes.fixture('mastodon-like.json').id))!;
    expect(likes[0]).toMatchObject({ outboxObjectId: post.id, inboxObjectId: mastodonLike.id, actorId: mastodonLike.actorId });
    expect(mastodonLike).toMatchObject({ relatesToOutboxObjectId: post.id, visibility: 'DIRECT', isHiddenFromStream: true });
    // Misskey's Like carries its reaction (a custom emoji): listed with it; the others are likes.
    const listed = rig.core.services.notifications.list().items;
    const misskeyLike = rig.inboxRow(String(remotes.fixture('misskey-like.json').id))!;
    expect(listed.find((item) => item.inboxObject?.id === misskeyLike.id)?.reaction).toEqual({
      emoji: ':blobcat_hug:',
      custom: { shortcode: 'blobcat_hug', url: expect.any(String), src: expect.stringMatching(/^\/media\/proxy\//) },
    });
    expect(listed.filter((item) => item.reaction)).toHaveLength(1);
  });

  it('like, undo, like again → 1; the same Like twice changes nothing', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const first = like(aliceId(), `${aliceId()}#likes/1`);
    await rig.receive(first);
    await rig.receive(first);
    expect(rig.outboxRow(post.id).likesCount).toBe(1);
    expect(rig.notificationsOf('LIKE')).toHaveLength(1);

    await rig.receive(undo(aliceId(), `${aliceId()}#likes/1/undo`, first));
    expect(rig.outboxRow(post.id).likesCount).toBe(0);
    const undone = rig.notificationsOf('UNDO_LIKE');
    expect(undone).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: rig.inboxRow(String(first.id))!.id })]);

    await rig.receive(like(aliceId(), `${aliceId()}#likes/2`));
    expect(rig.outboxRow(post.id).likesCount).toBe(1);
    // Two Likes by one actor still count once.
    await rig.receive(like(aliceId(), `${aliceId()}#likes/3`));
    expect(rig.outboxRow(post.id).likesCount).toBe(1);
  });

  it("a Like of someone else's object is stored with no count and no notification", async () => {
    rig = await openRig();
    const row = await rig.receive(like(aliceId(), `${aliceId()}#likes/9`, `${zoeId()}/statuses/1`));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    expect(rig.inboxRow(`${aliceId()}#likes/9`)).toMatchObject({ apType: 'Like', relatesToOutboxObjectId: null });
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });
});

describe('Announce', () => {
  it('Mastodon boost of our post: announces_count and ANNOUNCE; Undo → 0 and UNDO_ANNOUNCE', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const boost = remotes.fixture('mastodon-announce.json');
    expect((await rig.receive(boost)).error).toBeNull();
    expect(rig.outboxRow(post.id).announcesCount).toBe(1);
    const row = rig.inboxRow(String(boost.id))!;
    expect(rig.notificationsOf('ANNOUNCE')).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: row.id })]);

    await rig.receive(undo(String(boost.actor), `${String(boost.id)}/undo`, boost));
    expect(rig.outboxRow(post.id).announcesCount).toBe(0);
    expect(rig.notificationsOf('UNDO_ANNOUNCE')).toEqual([expect.objectContaining({ inboxObjectId: row.id })]);
  });

  it('a boost of a remote post by someone followed: the post is fetched from its (Fedify) server and stored hidden, the boost shows', async () => {
    rig = await openRig();
    // Only followers would get it; nobody follows the peer, so the note is just served.
    const { noteId } = await peer.createNote({ content: '<p>from the peer <img src=x onerror=alert(1)></p>', to: 'followers' });
    await rig.follow(aliceId());
    const boost = { id: `${aliceId()}/statuses/b1/activity`, type: 'Announce', actor: aliceId(), to: [PUBLIC], object: noteId };
    const row = await rig.receive(boost);
    expect(row.error).toBeNull();
    const original = rig.inboxRow(noteId)!;
    expect(original).toMatchObject({ apType: 'Note', isHiddenFromStream: true, apActorId: peer.actorId });
    expect(original.apObject.content).toBe('<p>from the peer </p>');
    expect(rig.inboxRow(String(boost.id))).toMatchObject({ isHiddenFromStream: false, relatesToInboxObjectId: original.id });
  });

  it('another boost of the same post within the hour stays hidden; after an hour it shows', async () => {
    rig = await openRig();
    const { noteId } = await peer.createNote({ content: '<p>popular</p>', to: 'followers' });
    await rig.follow(aliceId());
    await rig.follow(zoeId());
    await rig.receive({ id: `${aliceId()}/b/1`, type: 'Announce', actor: aliceId(), to: [PUBLIC], object: noteId });
    rig.advance(10 * 60_000);
    await rig.receive({ id: `${zoeId()}/b/2`, type: 'Announce', actor: zoeId(), to: [PUBLIC], object: noteId });
    expect(rig.inboxRow(`${zoeId()}/b/2`)!.isHiddenFromStream).toBe(true);
    rig.advance(BOOST_DEDUP_MS);
    await rig.receive({ id: `${zoeId()}/b/3`, type: 'Announce', actor: zoeId(), to: [PUBLIC], object: noteId });
    expect(rig.inboxRow(`${zoeId()}/b/3`)!.isHiddenFromStream).toBe(false);
  });

  it('a boost by someone not followed is stored hidden and fetches nothing', async () => {
    rig = await openRig();
    const { noteId } = await peer.createNote({ content: '<p>unseen</p>', to: 'followers' });
    const row = await rig.receive({ id: `${aliceId()}/b/9`, type: 'Announce', actor: aliceId(), to: [PUBLIC], object: noteId });
    expect(row.error).toBeNull();
    expect(rig.inboxRow(`${aliceId()}/b/9`)!.isHiddenFromStream).toBe(true);
    expect(rig.inboxRow(noteId)).toBeUndefined();
  });

  it('a boosted post that answers with another id is not stored; the boost is kept hidden', async () => {
    rig = await openRig();
    await rig.follow(aliceId());
    const url = `${zoeId()}/statuses/liar`;
    remotes.servers['gts.example'].put(url, { id: `${zoeId()}/statuses/other`, type: 'Note', attributedTo: zoeId(), content: 'x' });
    const row = await rig.receive({ id: `${aliceId()}/b/2`, type: 'Announce', actor: aliceId(), to: [PUBLIC], object: url });
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(url)).toBeUndefined();
    expect(rig.inboxRow(`${zoeId()}/statuses/other`)).toBeUndefined();
    expect(rig.inboxRow(`${aliceId()}/b/2`)!.isHiddenFromStream).toBe(true);
  });

  it('a boost whose post cannot be fetched right now (HTTP 503) is retried later', async () => {
    rig = await openRig();
    await rig.follow(aliceId());
    const url = `${zoeId()}/statuses/flaky`;
    remotes.servers['gts.example'].put(url, 503);
    const row = await rig.receive({ id: `${aliceId()}/b/3`, type: 'Announce', actor: aliceId(), to: [PUBLIC], object: url });
    expect(row).toMatchObject({ isProcessed: false, isErrored: false, tries: 1 });
    expect(row.error).toMatch(/503/);
    expect(rig.inboxRow(`${aliceId()}/b/3`)).toBeUndefined();

    remotes.servers['gts.example'].put(url, { id: url, type: 'Note', attributedTo: zoeId(), content: '<p>back</p>', to: [PUBLIC] });
    rig.setNow(row.nextTry!);
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(row.id)).toMatchObject({ isProcessed: true, tries: 2, error: null });
    expect(rig.inboxRow(url)!.apObject.content).toBe('<p>back</p>');
  });
});

describe('other activities', () => {
  it('Pleroma EmojiReact (an unknown type) is stored, linked to our post, processed without error', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const react = remotes.fixture('pleroma-emojireact.json');
    const row = await rig.receive(react);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    expect(rig.inboxRow(String(react.id))).toMatchObject({ apType: 'EmojiReact', relatesToOutboxObjectId: post.id });
    expect(rig.outboxRow(post.id).likesCount).toBe(0);
  });

  it('a Pleroma EmojiReact of our post notifies LIKE pointing at the reaction (the spec has no reaction type); its Undo, UNDO_LIKE', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const react = remotes.fixture('pleroma-emojireact.json');
    await rig.receive(react);
    const row = rig.inboxRow(String(react.id))!;
    expect(rig.notificationsOf('LIKE')).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: row.id, actorId: row.actorId })]);
    // Shown with the emoji it was (the notification's excerpt is the reaction's content).
    const [shown] = rig.core.services.notifications.list().items;
    expect(shown).toMatchObject({ type: 'LIKE', inboxObject: { apType: 'EmojiReact', excerpt: '🔥' }, outboxObject: { id: post.id } });
    // Not a favourite: Pleroma users like and react separately, and Mastodon does not count it.
    expect(rig.outboxRow(post.id).likesCount).toBe(0);

    expect(shown?.reaction).toEqual({ emoji: '🔥', custom: null });

    await rig.receive(undo(String(react.actor), `${String(react.id)}/undo`, react));
    expect(rig.notificationsOf('UNDO_LIKE')).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: row.id, actorId: row.actorId })]);
    // Both still say which emoji (the reaction, undone, has no excerpt any more).
    const listed = rig.core.services.notifications.list().items;
    expect(listed.map((item) => [item.type, item.inboxObject?.excerpt, item.reaction?.emoji])).toEqual([
      ['UNDO_LIKE', null, '🔥'],
      ['LIKE', null, '🔥'],
    ]);
  });

  it('an EmojiReact with a custom emoji notifies; one without an emoji (Pleroma refuses "~"), or of someone else’s post, does not', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const lain = String(remotes.fixture('pleroma-emojireact.json').actor);
    const react = (n: number, extra: Json, object = OUR_POST): Json => ({ id: `${lain}/reactions/${n}`, type: 'EmojiReact', actor: lain, object, ...extra });
    // Akkoma names the Emoji without colons; Misskey's shortcodes may hold a dot.
    const shellTag = { type: 'Emoji', id: null, name: 'shell.v2', icon: { type: 'Image', url: 'https://pleroma.example/emoji/shell.png' } };
    await rig.receive(react(1, { content: ':shell.v2:', tag: [shellTag] }));
    await rig.receive(react(2, { content: '~' }));
    await rig.receive(react(3, { content: '<b>not</b> an emoji at all' }));
    await rig.receive(react(4, { content: ':nosuchtag:' }));
    await rig.receive(react(5, { content: '👍' }, `${aliceId()}/statuses/1`));
    expect(rig.notificationsOf('LIKE')).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: rig.inboxRow(`${lain}/reactions/1`)!.id })]);
    for (const n of [2, 3, 4]) expect(rig.inboxRow(`${lain}/reactions/${n}`)).toMatchObject({ apType: 'EmojiReact', relatesToOutboxObjectId: post.id });
    // An Undo of a reaction that never notified takes back nothing.
    await rig.receive(undo(lain, `${lain}/reactions/2/undo`, react(2, { content: '~' })));
    expect(rig.notificationsOf('UNDO_LIKE')).toEqual([]);
  });

  it('a made-up type is stored as an inbox row and processed', async () => {
    rig = await openRig();
    const row = await rig.receive({ id: `${aliceId()}/x/1`, type: 'Wave', actor: aliceId(), object: 'https://tern.example' });
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    expect(rig.inboxRow(`${aliceId()}/x/1`)!.apType).toBe('Wave');
  });
});
