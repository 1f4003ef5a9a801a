import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { follower } from '../../../../db/schema';
import { listPendingFollowRequests } from '../follow-requests';
import { PUBLIC, type Json } from '../ap';
import { startSoftwareServer, type SoftwareServer } from './software-servers';
import { openRig, type Rig } from './test-rig';

// Lemmy undoes a vote or a follow by embedding a NEW Vote or Follow, with a new id, in its Undo
// (LemmyNet/lemmy crates/apub activities/voting/mod.rs, "undo a previous vote";
// activities/following/undo_follow.rs); Wildebeest's unfollow does the same.
let lemmy: SoftwareServer;
let rig: Rig;
beforeAll(async () => {
  lemmy = await startSoftwareServer();
});
afterAll(() => lemmy.server.close());
afterEach(() => rig?.close());

const OUR_POST = 'https://tern.example/o/p1';
const activity = (type: string, actor: string, n: number, object: unknown, extra: Json = {}): Json => ({
  id: `${lemmy.origin}/activities/${type.toLowerCase()}/${n}`,
  type,
  actor,
  object,
  ...extra,
});
const followers = () => rig.core.db.select().from(follower).all();

describe('an Undo whose embedded activity has a new id (Lemmy)', () => {
  it('Undo{Like}: the like no longer counts, and UNDO_LIKE points at the Like it undid', async () => {
    rig = await openRig();
    const post = rig.ourPost('p1');
    const pond = lemmy.actor('/u/pond', 'Person', 'pond');
    await rig.receive(activity('Like', pond, 1, OUR_POST));
    expect(rig.outboxRow(post.id).likesCount).toBe(1);

    const undo = await rig.receive(activity('Undo', pond, 2, activity('Like', pond, 3, OUR_POST)));
    expect(undo).toMatchObject({ isProcessed: true, error: null });
    expect(rig.outboxRow(post.id).likesCount).toBe(0);
    const like = rig.inboxRow(`${lemmy.origin}/activities/like/1`)!;
    expect(like).toMatchObject({ isDeleted: true, undoneByInboxObjectId: rig.inboxRow(undo.apId!)!.id });
    expect(rig.notificationsOf('UNDO_LIKE')).toEqual([expect.objectContaining({ outboxObjectId: post.id, inboxObjectId: like.id })]);
  });

  it("Undo{Like} by one actor never undoes another's like, even when its Like names the other", async () => {
    rig = await openRig();
    const post = rig.ourPost('p1');
    const pond = lemmy.actor('/u/pond', 'Person', 'pond');
    const mallory = lemmy.actor('/u/mallory', 'Person', 'mallory');
    await rig.receive(activity('Like', pond, 1, OUR_POST));
    const forged = await rig.receive(activity('Undo', mallory, 2, activity('Like', pond, 3, OUR_POST)));
    expect(forged.error).toMatch(/Undo by .*mallory of a Like by .*pond/);
    const ownShape = await rig.receive(activity('Undo', mallory, 4, activity('Like', mallory, 5, OUR_POST)));
    expect(ownShape).toMatchObject({ isProcessed: true, error: null });
    expect(rig.outboxRow(post.id).likesCount).toBe(1);
    expect(rig.notificationsOf('UNDO_LIKE')).toEqual([]);
  });

  it('Undo{Announce}: the boost no longer counts, UNDO_ANNOUNCE', async () => {
    rig = await openRig();
    const post = rig.ourPost('p1');
    const pond = lemmy.actor('/u/pond', 'Person', 'pond');
    await rig.receive(activity('Announce', pond, 1, OUR_POST, { to: [PUBLIC] }));
    expect(rig.outboxRow(post.id).announcesCount).toBe(1);
    await rig.receive(activity('Undo', pond, 2, activity('Announce', pond, 3, OUR_POST, { to: [PUBLIC] })));
    expect(rig.outboxRow(post.id).announcesCount).toBe(0);
    expect(rig.notificationsOf('UNDO_ANNOUNCE')).toEqual([expect.objectContaining({ outboxObjectId: post.id })]);
  });

  it('Undo{EmojiReact} takes back the reaction with that emoji, not another one', async () => {
    rig = await openRig();
    rig.ourPost('p1');
    const pond = lemmy.actor('/u/pond', 'Person', 'pond');
    await rig.receive(activity('EmojiReact', pond, 1, OUR_POST, { content: '👍' }));
    await rig.receive(activity('EmojiReact', pond, 2, OUR_POST, { content: '🎉' }));
    await rig.receive(activity('Undo', pond, 3, activity('EmojiReact', pond, 4, OUR_POST, { content: '👍' })));
    expect(rig.inboxRow(`${lemmy.origin}/activities/emojireact/1`)!.isDeleted).toBe(true);
    expect(rig.inboxRow(`${lemmy.origin}/activities/emojireact/2`)!.isDeleted).toBe(false);
  });

  it('Undo{Follow}: the follower goes and UNFOLLOW is notified', async () => {
    rig = await openRig();
    const fern = lemmy.actor('/u/fern', 'Person', 'fern');
    await rig.receive(activity('Follow', fern, 1, 'https://tern.example'));
    expect(followers()).toHaveLength(1);
    const undo = await rig.receive(activity('Undo', fern, 2, activity('Follow', fern, 3, 'https://tern.example/')));
    expect(undo).toMatchObject({ isProcessed: true, error: null });
    expect(followers()).toEqual([]);
    expect(rig.notificationsOf('UNFOLLOW')).toHaveLength(1);
    expect(rig.inboxRow(`${lemmy.origin}/activities/follow/1`)!.undoneByInboxObjectId).toBe(rig.inboxRow(undo.apId!)!.id);
  });

  it('Undo{Follow} withdraws a request waiting for approval', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    const fern = lemmy.actor('/u/fern', 'Person', 'fern');
    await rig.receive(activity('Follow', fern, 1, 'https://tern.example'));
    expect(listPendingFollowRequests(rig.core.db)).toHaveLength(1);
    await rig.receive(activity('Undo', fern, 2, activity('Follow', fern, 3, 'https://tern.example')));
    expect(listPendingFollowRequests(rig.core.db)).toEqual([]);
  });

  it("an Undo{Follow} of someone else's actor leaves our follower alone", async () => {
    rig = await openRig();
    const fern = lemmy.actor('/u/fern', 'Person', 'fern');
    await rig.receive(activity('Follow', fern, 1, 'https://tern.example'));
    await rig.receive(activity('Undo', fern, 2, activity('Follow', fern, 3, `${lemmy.origin}/c/somewhere`)));
    expect(followers()).toHaveLength(1);
    expect(rig.notificationsOf('UNFOLLOW')).toEqual([]);
  });
});
