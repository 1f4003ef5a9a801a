// Move and Flag against an independent implementation: a real core (SQLite, listener on
// 127.0.0.1, inbox and delivery loops) and Fedify peers. An account the author follows moves to
// another peer that lists it in alsoKnownAs: the old peer receives our Undo of the Follow, the new
// one our Follow (which it accepts), and the author a notification. A report posted the way
// Mastodon forwards one — no id, `object` a list — is accepted by the listener and notified.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import { Move } from '@fedify/vocab';
import { following, inbox, notifications } from '../../../../db/schema';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { openAuthorRig, type AuthorRig } from '../actions/test-rig';

let rig: AuthorRig;
let oldp: Peer;
let newp: Peer;

beforeAll(async () => {
  [rig, oldp, newp] = await Promise.all([openAuthorRig(), startPeer({ name: 'oldp' }), startPeer({ name: 'newp' })]);
});

afterAll(async () => {
  await Promise.all([oldp?.close(), newp?.close()]);
  await rig?.close();
});

const followed = () => rig.core.db.select().from(following).all().map((f) => f.apActorId);
// Fedify writes our bare-origin actor id with a trailing slash (interop-notes).
const fromUs = (actorId: string | null) => actorId?.replace(/\/+$/, '') === rig.url;
const typeless = () => rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all();

describe('a followed peer moves to another peer', () => {
  it('Tern unfollows the old account, follows the new one (which accepts), and notifies the author', async () => {
    await rig.author.follow(oldp.actorId);
    await vi.waitFor(() => expect(followed()).toEqual([oldp.actorId]), { timeout: 10_000 });
    newp.setAliases([oldp.actorId]);

    const moveId = oldp.newId('moves');
    await oldp.send(new Move({ id: moveId, actor: new URL(oldp.actorId), object: new URL(oldp.actorId), target: new URL(newp.actorId) }), [rig.url]);

    const undo = await oldp.waitFor((x) => x.type === 'Undo' && fromUs(x.actorId), 10_000);
    expect(undo.signer.verifiedBy).toBe('http-signature');
    expect((undo.raw as { object: { type: string; object: string } }).object).toMatchObject({ type: 'Follow', object: oldp.actorId });
    await expect.poll(() => oldp.followers(), { timeout: 10_000 }).toEqual([]);

    const follow = await newp.waitFor((x) => x.type === 'Follow' && fromUs(x.actorId), 10_000);
    expect(follow.objectId).toBe(newp.actorId);
    await vi.waitFor(() => expect(followed()).toEqual([newp.actorId]), { timeout: 10_000 });
    expect(newp.followers().map((id) => id.replace(/\/+$/, ''))).toEqual([rig.url]);

    const move = rig.core.db.select().from(inbox).where(eq(inbox.apId, moveId.href)).get()!;
    const [notification] = typeless();
    expect(notification).toMatchObject({ inboxObjectId: move.id });
    const [item] = rig.core.services.notifications.list().items.filter((n) => n.type === null);
    expect(item).toMatchObject({ actor: { apId: newp.actorId }, detail: { kind: 'moved', from: { apId: oldp.actorId } } });
  });
});

describe('a report forwarded the way Mastodon sends it', () => {
  it('a signed Flag without an id is accepted by the listener, stored, and notified', async () => {
    const before = typeless().length;
    const res = await oldp.postSigned(`${rig.url}/inbox`, {
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Flag',
      actor: oldp.actorId,
      content: 'Please look at this account',
      object: [rig.url],
    });
    expect(res.status).toBeLessThan(300);
    await vi.waitFor(() => expect(typeless()).toHaveLength(before + 1), { timeout: 10_000 });
    const [report] = rig.core.services.notifications.list().items.filter((n) => n.detail?.kind === 'report');
    expect(report).toMatchObject({
      actor: { apId: oldp.actorId },
      inboxObject: { apType: 'Flag' },
      detail: { kind: 'report', server: new URL(oldp.origin).host, comment: 'Please look at this account', posts: [] },
    });
  });
});
