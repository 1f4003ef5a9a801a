// What a peer receives when the author changes their mind while deliveries wait (offline, or a
// server down): a post edited then deleted, an undone Follow or Like revived by "Retry now", a
// follower removed before a followers-only post went out; and what the ids of a deleted post's
// edits answer. Real Fedify peers, the author's own delivery loop.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '../../../../db/schema';
import { startPeer, type Peer } from '../../../../test/peer/peer';
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
