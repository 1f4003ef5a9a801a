// A mention that resolves late (deferred.ts linkMention) against the delivery loop: the post is
// changed only while no version of it may have reached anyone. Real SQLite, the author's own
// delivery loop, a loopback server whose answer is held.
import type { ServerResponse } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor, outbox } from '../../../../db/schema';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { enqueueDeliveries } from '../../delivery/queue';
import { startServer } from '../../net/test-server';
import { linkMention } from './deferred';
import { openAuthorRig, type AuthorRig } from './test-rig';

let rig: AuthorRig;
let zed: Peer;

beforeAll(async () => {
  [rig, zed] = await Promise.all([openAuthorRig(), startPeer({ name: 'zed' })]);
  // zed's actor cached, as the lookup of the handle would leave it (we follow zed; zed does not
  // follow us: a post goes nowhere by itself).
  await rig.author.follow(zed.actorId);
  await zed.waitFor((x) => x.type === 'Follow');
});
afterAll(async () => {
  await zed?.close();
  await rig?.close();
});

describe('a mention resolved late', () => {
  it('is not linked into a post whose Create is already out to a server (answer not back yet)', async () => {
    const held: ServerResponse[] = [];
    const s = await startServer((_req, res) => void held.push(res));
    try {
      // No followers: the Create to that server is the only delivery of the post.
      const post = await rig.author.createPost({ content: 'hello', visibility: 'PUBLIC' });
      enqueueDeliveries(rig.core.db, { outboxObjectId: post.id, recipients: [`${s.origin}/inbox`], now: new Date() });
      rig.core.loops.delivery.wake();
      await expect.poll(() => held.length).toBe(1); // the Create is at that server, unanswered
      const person = rig.core.db.select().from(actor).where(eq(actor.apId, zed.actorId)).get()!;
      const before = rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject;
      expect(linkMention(rig.core.db, rig.core.identity()!, post.id, zed.handle, person)).toBe(false);
      expect(rig.core.db.select().from(outbox).where(eq(outbox.id, post.id)).get()!.apObject).toEqual(before);
    } finally {
      held.forEach((r) => r.destroy());
      await s.close();
    }
  });
});
