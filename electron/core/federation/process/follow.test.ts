import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { follower, following, outbox, outgoingActivity } from '../../../../db/schema';
import { acceptFollowRequest, listPendingFollowRequests, rejectFollowRequest } from '../follow-requests';
import { saveOutboxObject } from '../outbox-store';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const zoe = () => String(remotes.fixture('actors/gotosocial-zoe.json').id);
const followOf = (actor: string, id: string, object = 'https://tern.example') => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id,
  type: 'Follow',
  actor,
  object,
});

describe('incoming Follow', () => {
  it('is accepted at once: a follower row, our Accept saved and queued to their personal inbox, NEW_FOLLOWER', async () => {
    rig = await openRig();
    // Fedify addresses a bare-origin actor with a trailing slash (interop-notes).
    const row = await rig.receive(followOf(alice(), `${alice()}#follows/1`, 'https://tern.example/'));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null, tries: 1 });

    const follow = rig.inboxRow(`${alice()}#follows/1`)!;
    expect(follow).toMatchObject({ apType: 'Follow', isHiddenFromStream: true });
    const followers = rig.core.db.select().from(follower).all();
    expect(followers).toEqual([expect.objectContaining({ apActorId: alice(), inboxObjectId: follow.id })]);

    const accept = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Accept')).get()!;
    expect(accept.relatesToInboxObjectId).toBe(follow.id);
    expect(accept.apObject).toMatchObject({ type: 'Accept', actor: 'https://tern.example', object: { id: follow.apId, type: 'Follow' } });
    const deliveries = rig.core.db.select().from(outgoingActivity).all();
    // The personal inbox, not alice's shared inbox.
    expect(deliveries).toEqual([expect.objectContaining({ outboxObjectId: accept.id, recipient: `${alice()}/inbox`, isSent: false })]);

    expect(rig.notificationsOf('NEW_FOLLOWER')).toEqual([expect.objectContaining({ actorId: follow.actorId, isNew: true })]);
  });

  it('is idempotent: the same Follow twice is one row, one follower, one Accept, one notification', async () => {
    rig = await openRig();
    const first = await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    const second = await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    expect(first.error).toBeNull();
    expect(second).toMatchObject({ isProcessed: true, isErrored: false, tries: 1, error: 'duplicate: already processed' });
    expect(countRows(rig.core, 'inbox')).toBe(1);
    expect(countRows(rig.core, 'follower')).toBe(1);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(1);
    expect(rig.notificationsOf('NEW_FOLLOWER')).toHaveLength(1);
  });

  it('a second Follow from a follower updates the follower row and is answered again, without a second NEW_FOLLOWER', async () => {
    rig = await openRig();
    await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    const again = await rig.receive(followOf(alice(), `${alice()}#follows/2`));
    expect(again).toMatchObject({ isProcessed: true, error: null });
    const rows = rig.core.db.select().from(follower).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.inboxObjectId).toBe(rig.inboxRow(`${alice()}#follows/2`)!.id);
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Accept')).all()).toHaveLength(2);
    expect(rig.notificationsOf('NEW_FOLLOWER')).toHaveLength(1);
  });

  it('a Follow of someone else is dropped on purpose: stored nowhere, never retried', async () => {
    rig = await openRig();
    const row = await rig.receive(followOf(alice(), `${alice()}#follows/9`, 'https://elsewhere.example/users/bob'));
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, tries: 1, nextTry: null });
    expect(row.error).toMatch(/not of our actor/);
    expect(countRows(rig.core, 'inbox')).toBe(0);
    expect(countRows(rig.core, 'follower')).toBe(0);
  });

  it('Undo(Follow) removes the follower and notifies UNFOLLOW; an Undo by someone else is refused', async () => {
    rig = await openRig();
    const followJson = followOf(alice(), `${alice()}#follows/1`);
    await rig.receive(followJson);
    const forged = await rig.receive({ id: `${zoe()}#undo/1`, type: 'Undo', actor: zoe(), object: followJson });
    expect(forged.error).toMatch(/who did not send it/);
    expect(countRows(rig.core, 'follower')).toBe(1);

    const undo = await rig.receive({ id: `${alice()}#follows/1/undo`, type: 'Undo', actor: alice(), object: followJson });
    expect(undo).toMatchObject({ isProcessed: true, error: null });
    expect(countRows(rig.core, 'follower')).toBe(0);
    expect(rig.notificationsOf('UNFOLLOW')).toEqual([expect.objectContaining({ actorId: rig.inboxRow(followJson.id)!.actorId })]);
    expect(rig.inboxRow(followJson.id)).toMatchObject({ isDeleted: true, undoneByInboxObjectId: rig.inboxRow(undo.apId!)!.id });
  });
});

describe('follow requests approved by hand', () => {
  it('a Follow waits: stored, no follower, no notification, no Accept; listed as pending', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    expect(countRows(rig.core, 'follower')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    const pending = listPendingFollowRequests(rig.core.db);
    expect(pending).toEqual([
      expect.objectContaining({ followApId: `${alice()}#follows/1`, actor: expect.objectContaining({ apId: alice(), name: 'Alice :verified:' }) }),
    ]);
  });

  it('accepting makes a follower, queues our Accept, notifies NEW_FOLLOWER, and empties the list', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    const [request] = listPendingFollowRequests(rig.core.db);
    const deps = { db: rig.core.db, clock: rig.core.clock, identity: rig.local };
    const { acceptOutboxObjectId } = acceptFollowRequest(deps, request!.inboxObjectId);
    expect(rig.outboxRow(acceptOutboxObjectId)).toMatchObject({ apType: 'Accept', relatesToInboxObjectId: request!.inboxObjectId });
    expect(countRows(rig.core, 'follower')).toBe(1);
    expect(rig.notificationsOf('NEW_FOLLOWER')).toHaveLength(1);
    expect(listPendingFollowRequests(rig.core.db)).toEqual([]);
    expect(() => acceptFollowRequest(deps, request!.inboxObjectId)).toThrow(/already answered/);
  });

  it('rejecting queues our Reject to their inbox, makes no follower and empties the list', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    await rig.receive(followOf(zoe(), `${zoe()}/follow/1`));
    const [request] = listPendingFollowRequests(rig.core.db);
    const { rejectOutboxObjectId } = rejectFollowRequest({ db: rig.core.db, clock: rig.core.clock, identity: rig.local }, request!.inboxObjectId);
    expect(rig.outboxRow(rejectOutboxObjectId)).toMatchObject({ apType: 'Reject' });
    expect(rig.core.db.select().from(outgoingActivity).all()).toEqual([
      expect.objectContaining({ outboxObjectId: rejectOutboxObjectId, recipient: `${zoe()}/inbox` }),
    ]);
    expect(countRows(rig.core, 'follower')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
    expect(listPendingFollowRequests(rig.core.db)).toEqual([]);
  });

  it('a withdrawn request (Undo) is no longer pending, and cannot be accepted', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    const followJson = followOf(alice(), `${alice()}#follows/1`);
    await rig.receive(followJson);
    const [request] = listPendingFollowRequests(rig.core.db);
    await rig.receive({ id: `${alice()}#undo/1`, type: 'Undo', actor: alice(), object: followJson });
    expect(listPendingFollowRequests(rig.core.db)).toEqual([]);
    expect(rig.notificationsOf('UNFOLLOW')).toHaveLength(0);
    expect(() => acceptFollowRequest({ db: rig.core.db, clock: rig.core.clock, identity: rig.local }, request!.inboxObjectId)).toThrow(/withdrawn/);
  });

  it('one request per actor: the newest Follow', async () => {
    rig = await openRig({ manuallyApprovesFollowers: true });
    await rig.receive(followOf(alice(), `${alice()}#follows/1`));
    rig.advance(1000);
    await rig.receive(followOf(alice(), `${alice()}#follows/2`));
    await rig.receive(followOf(zoe(), `${zoe()}/follow/1`));
    const pending = listPendingFollowRequests(rig.core.db);
    expect(pending.map((p) => p.followApId).sort()).toEqual([`${alice()}#follows/2`, `${zoe()}/follow/1`].sort());
    // Rejecting the newest leaves no request from her, though her first Follow was never answered.
    const newest = pending.find((p) => p.followApId === `${alice()}#follows/2`)!;
    rejectFollowRequest({ db: rig.core.db, clock: rig.core.clock, identity: rig.local }, newest.inboxObjectId);
    expect(listPendingFollowRequests(rig.core.db).map((p) => p.followApId)).toEqual([`${zoe()}/follow/1`]);
  });
});

describe('Accept and Reject of our Follow', () => {
  async function ourFollowOf(actorId: string) {
    const { getOrFetchActor } = await import('../actors');
    const row = await getOrFetchActor({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock }, actorId);
    return saveOutboxObject(rig.core.db, rig.local, {
      apObject: { type: 'Follow', actor: rig.local.id, object: actorId },
      visibility: 'DIRECT',
      now: rig.now(),
      activityObjectApId: actorId,
      relatesToActorId: row.id,
    });
  }

  it('Accept creates the following row and FOLLOW_REQUEST_ACCEPTED pointing at the Accept', async () => {
    rig = await openRig();
    const ours = await ourFollowOf(alice());
    const row = await rig.receive({ id: `${alice()}#accepts/follows/1`, type: 'Accept', actor: alice(), object: { id: ours.apId, type: 'Follow', actor: rig.local.id, object: alice() } });
    expect(row.error).toBeNull();
    const accept = rig.inboxRow(`${alice()}#accepts/follows/1`)!;
    expect(accept.relatesToOutboxObjectId).toBe(ours.id);
    expect(rig.core.db.select().from(following).all()).toEqual([expect.objectContaining({ apActorId: alice(), outboxObjectId: ours.id })]);
    expect(rig.notificationsOf('FOLLOW_REQUEST_ACCEPTED')).toEqual([expect.objectContaining({ inboxObjectId: accept.id })]);
  });

  it('Reject removes the following row and notifies FOLLOW_REQUEST_REJECTED', async () => {
    rig = await openRig();
    const ours = await ourFollowOf(alice());
    await rig.receive({ id: `${alice()}#accepts/1`, type: 'Accept', actor: alice(), object: ours.apId });
    expect(countRows(rig.core, 'following')).toBe(1);
    await rig.receive({ id: `${alice()}#rejects/1`, type: 'Reject', actor: alice(), object: ours.apId });
    expect(countRows(rig.core, 'following')).toBe(0);
    expect(rig.notificationsOf('FOLLOW_REQUEST_REJECTED')).toHaveLength(1);
  });

  it('only the followed actor can accept our Follow', async () => {
    rig = await openRig();
    const ours = await ourFollowOf(alice());
    const row = await rig.receive({ id: `${zoe()}/accepts/1`, type: 'Accept', actor: zoe(), object: ours.apId });
    expect(row.error).toMatch(/addressed to/);
    expect(countRows(rig.core, 'following')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });
});

describe('Block of our actor', () => {
  it('ends the relationship both ways, quietly; a Block of someone else changes nothing', async () => {
    rig = await openRig();
    await rig.receive(followOf(alice(), `${alice()}#follows/1`, rig.local.id));
    await rig.receive(followOf(zoe(), `${zoe()}/follows/1`, rig.local.id));
    const { getOrFetchActor } = await import('../actors');
    const aliceRow = await getOrFetchActor({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock }, alice());
    const ours = saveOutboxObject(rig.core.db, rig.local, {
      apObject: { type: 'Follow', actor: rig.local.id, object: alice() },
      visibility: 'DIRECT',
      now: rig.now(),
      activityObjectApId: alice(),
      relatesToActorId: aliceRow.id,
    });
    await rig.receive({ id: `${alice()}#accepts/1`, type: 'Accept', actor: alice(), object: ours.apId });
    expect(countRows(rig.core, 'follower')).toBe(2);
    expect(countRows(rig.core, 'following')).toBe(1);
    const notificationsBefore = countRows(rig.core, 'notifications');

    // zoe blocking someone else is not ours to act on: dropped, nothing changes.
    const other = await rig.receive({ id: `${zoe()}/blocks/1`, type: 'Block', actor: zoe(), object: alice() });
    expect(other).toMatchObject({ isProcessed: true, isErrored: false, nextTry: null });
    expect(other.error).toMatch(/not of our actor/);
    expect(rig.inboxRow(`${zoe()}/blocks/1`)).toBeUndefined();
    expect(countRows(rig.core, 'follower')).toBe(2);

    const row = await rig.receive({ id: `${alice()}#blocks/1`, type: 'Block', actor: alice(), object: rig.local.id });
    expect(row.error).toBeNull();
    expect(rig.inboxRow(`${alice()}#blocks/1`)).toMatchObject({ apType: 'Block' });
    expect(rig.core.db.select().from(follower).all().map((f) => f.apActorId)).toEqual([zoe()]);
    expect(countRows(rig.core, 'following')).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(notificationsBefore);
  });
});

