// After a delivery answered 410 Gone, the actors behind that inbox are looked up at their own
// address: one that is 404, 410 or a Tombstone there leaves the followers and the following; one
// still there stays, and is not asked again for a day. A shared inbox's 410 says nothing of any
// one actor. Real core, real SQLite, the app's delivery loop, a loopback server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actor, follower, following, outbox, outgoingActivity } from '../../../../db/schema';
import { manualSource, type ManualSource } from '../../connectivity/watch';
import { openCore, type Core } from '../../core';
import { startServer, type LoopbackServer } from '../../net/test-server';
import { persistInboxObject } from '../process/store';
import { saveOutboxObject } from '../outbox-store';

let dir: string;
let core: Core;
let net: ManualSource;
let server: LoopbackServer;
/** What each path answers: a status, a JSON document (200), or a text (200). */
let routes: Record<string, number | string | Record<string, unknown>>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-gone-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  net = manualSource(false);
  core.connectivity.setSource(net);
  routes = {};
  server = await startServer((req, res) => {
    const answer = routes[(req.url ?? '/').split('?')[0]!] ?? 404;
    if (typeof answer === 'number') return res.writeHead(answer).end();
    if (typeof answer === 'string') return res.writeHead(200, { 'content-type': 'application/activity+json' }).end(answer);
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(answer));
  });
});

afterEach(async () => {
  await core.loops.delivery.stop({ graceMs: 0 });
  await server.close();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (path: string) => `${server.origin}${path}`;
const gets = (path: string) => server.seen.filter((r) => r.method === 'GET' && r.path === path).length;
const posts = (path: string) => server.seen.filter((r) => r.method === 'POST' && r.path === path).length;
const followerIds = () => core.db.select().from(follower).all().map((f) => f.apActorId);

/** An actor who follows the author (and whom the author follows, when `followed`). */
function follows(name: string, options: { sharedInbox?: string; followed?: boolean } = {}) {
  const doc = { id: url(`/users/${name}`), type: 'Person', inbox: url(`/users/${name}/inbox`), ...(options.sharedInbox ? { endpoints: { sharedInbox: options.sharedInbox } } : {}) };
  const now = new Date();
  const row = core.db.insert(actor).values({ apId: doc.id, apActor: doc as never, apType: 'Person', handle: null, createdAt: now, updatedAt: now }).returning().get();
  const follow = persistInboxObject(core.db, { object: { id: `${doc.id}/follows/1`, type: 'Follow' }, apId: `${doc.id}/follows/1`, actor: row, now });
  core.db.insert(follower).values({ actorId: row.id, inboxObjectId: follow.id, apActorId: row.apId, createdAt: now, updatedAt: now }).run();
  if (options.followed) {
    const ours = saveOutboxObject(core.db, core.identity()!, { apObject: { type: 'Follow', actor: core.identity()!.id, object: doc.id }, visibility: 'DIRECT', now, activityObjectApId: doc.id, relatesToActorId: row.id });
    core.db.insert(following).values({ actorId: row.id, outboxObjectId: ours.id, apActorId: row.apId, createdAt: now, updatedAt: now }).run();
  }
  return doc;
}

async function postAndDeliver(content: string): Promise<void> {
  await core.services.author.createPost({ content, visibility: 'PUBLIC' });
  core.loops.delivery.start();
  net.set(true);
  await core.loops.delivery.drain();
}

describe('a delivery answered 410 Gone', () => {
  it('an actor whose profile is 410 too leaves the followers and the following; our Follow of it is withdrawn', async () => {
    const dead = follows('dead', { followed: true });
    follows('alive');
    routes = { '/users/dead/inbox': 410, '/users/dead': 410, '/users/alive/inbox': 202 };
    await postAndDeliver('hello');
    expect(followerIds()).toEqual([url('/users/alive')]);
    expect(core.db.select().from(following).all()).toEqual([]);
    const ourFollow = core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).get()!;
    expect([ourFollow.activityObjectApId, ourFollow.isDeleted]).toEqual([dead.id, true]);
    expect(gets('/users/dead')).toBe(1);
    expect(gets('/users/alive')).toBe(0); // a 202 says nothing to look into
    // Its stored document no longer stands (its keys are not believed from it).
    expect(core.db.select().from(actor).where(eq(actor.apId, dead.id)).get()!.updatedAt).toEqual(new Date(0));
    expect(core.db.select().from(actor).where(eq(actor.apId, url('/users/alive'))).get()!.updatedAt.getTime()).toBeGreaterThan(0);
    // The row itself was given up as before, with the 410 recorded.
    const rows = core.db.select().from(outgoingActivity).where(eq(outgoingActivity.recipient, dead.inbox)).all();
    expect(rows.map((r) => [r.isErrored, r.lastStatusCode])).toEqual([[true, 410]]);
  });

  it.each([
    ['404', 404],
    ['a Tombstone', { id: 'x', type: 'Tombstone', formerType: 'Person' }],
  ])('an actor whose profile is %s is gone as well', async (_name, profile) => {
    const dead = follows('dead');
    routes = { '/users/dead/inbox': 410, '/users/dead': profile };
    if (typeof profile === 'object') routes['/users/dead'] = { ...profile, id: dead.id };
    await postAndDeliver('hello');
    expect(followerIds()).toEqual([]);
  });

  it('an actor still at its address stays, and is not asked again on the next 410 within a day', async () => {
    const doc = follows('moved');
    routes = { '/users/moved/inbox': 410, '/users/moved': doc };
    await postAndDeliver('one');
    await postAndDeliver('two');
    expect(followerIds()).toEqual([doc.id]);
    expect(posts('/users/moved/inbox')).toBe(2);
    expect(gets('/users/moved')).toBe(1);
  });

  it('nothing certain (the profile answers 500, or is no JSON) changes nothing', async () => {
    const a = follows('flaky');
    const b = follows('garbled');
    routes = { '/users/flaky/inbox': 410, '/users/flaky': 500, '/users/garbled/inbox': 410, '/users/garbled': '<html>not json' };
    await postAndDeliver('hello');
    expect(followerIds().sort()).toEqual([a.id, b.id].sort());
    expect([gets('/users/flaky'), gets('/users/garbled')]).toEqual([1, 1]);
  });

  it('a shared inbox’s 410 is not any one actor’s: nobody is looked up or removed', async () => {
    const shared = url('/inbox');
    const one = follows('one', { sharedInbox: shared });
    const two = follows('two', { sharedInbox: shared });
    routes = { '/inbox': 410 };
    await postAndDeliver('hello');
    expect(posts('/inbox')).toBe(1);
    expect(followerIds().sort()).toEqual([one.id, two.id].sort());
    expect(gets('/users/one') + gets('/users/two')).toBe(0);
  });
});
