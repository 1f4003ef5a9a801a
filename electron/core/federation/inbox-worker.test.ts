// The inbox processor and the inbox checks on their worker threads (core option inboxWorker, as
// the apps run them): the real worker script (under tsx here), its own SQLite connection and
// outbound client. A worker ended mid-batch or mid-burst (as a crash would) leaves nothing lost
// and nothing done twice; what the workers signal (rows done, deliveries queued, answers) is
// heard on the main thread.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { onDeliveriesQueued } from '../delivery/queue';
import { startServer, type LoopbackServer } from '../net/test-server';
import { createSettingsService } from '../settings-service';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { ChecksUnavailableError, type InboxWorkerHost } from './inbox-worker-host';
import { WORKER_NICE } from '../worker-side';
import type { RowResult } from './inbox-loop';

const LOCAL = 'https://tern.example';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openWorkerCore(): Promise<Core> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-inbox-worker-'));
  const core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, inboxWorker: true });
  core.settings.update({ baseUrl: LOCAL, username: 'alice' });
  cleanups.push(async () => {
    await core.loops.inbox.stop();
    core.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return core;
}

/** A core listening on loopback with both inbox workers started and set up, and a Fedify peer. */
async function listeningWorkerCore(startChecks = true, checksIdleStopMs?: number): Promise<{ core: Core; peer: Peer; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-inbox-worker-'));
  const idle = checksIdleStopMs === undefined ? {} : { inboxChecksIdleStopMs: checksIdleStopMs };
  const core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, inboxWorker: true, listen: { host: '127.0.0.1', port: 0 }, ...idle });
  const peer = await startPeer({ name: 'bob' });
  cleanups.push(async () => {
    await peer.close();
    await core.listener.stop();
    await core.loops.inbox.stop();
    await core.loops.delivery.stop({ graceMs: 0 });
    core.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = core.listener.status().url ?? '';
  await createSettingsService(core).update({ baseUrl: url, username: 'alice' });
  core.loops.inbox.start();
  core.loops.delivery.start();
  const workers = core.loops.inbox as InboxWorkerHost;
  if (startChecks) workers.startChecks();
  await workers.ready();
  return { core, peer, url };
}

/** Actors at /users/<name> on a loopback server; `hold` names one whose fetch waits for release(). */
async function startActors(hold?: string): Promise<{ server: LoopbackServer; id(name: string): string; held: Promise<void>; release(): void }> {
  let reached = () => {};
  const held = new Promise<void>((resolve) => (reached = resolve));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await startServer((req, res) => {
    const name = /^\/users\/([a-z0-9-]+)$/.exec(req.url ?? '')?.[1];
    if (!name) return void res.writeHead(404).end();
    const id = `http://${req.headers.host ?? ''}/users/${name}`;
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(
        JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Person', preferredUsername: name, inbox: `${id}/inbox` }),
      );
    if (name === hold) {
      reached();
      void released.then(answer);
    } else answer();
  });
  cleanups.push(() => {
    release();
    return server.close();
  });
  return { server, id: (name) => `${server.origin}/users/${name}`, held, release };
}

/** Queues a Follow of the local actor as the listener stores one. */
function queueFollow(core: Core, actorId: string, n: number): void {
  const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actorId}/follows/${n}`, type: 'Follow', actor: actorId, object: LOCAL };
  core.sqlite
    .prepare('INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES (?, ?, ?, ?, 0, ?, 0, 0)')
    .run('2026-01-01T00:00:00.000Z', actorId, activity.id, JSON.stringify(activity), '2026-01-01T00:00:00.000Z');
}

const count = (core: Core, query: string) => core.sqlite.prepare<[], { n: number }>(query).get()!.n;

/** `n` Likes the peer will send (ids made now), and how many rows each activity id has. */
function likeBurst(peer: Peer, url: string, n: number) {
  const ids = Array.from({ length: n }, () => peer.newId('likes').href);
  const like = (id: string) => ({ '@context': 'https://www.w3.org/ns/activitystreams', id, type: 'Like', actor: peer.actorId, object: `${url}/o/nothing` });
  return { ids, like };
}
const storedRows = (core: Core) =>
  core.sqlite.prepare<[], { ap_id: string; n: number }>('SELECT ap_id, count(*) AS n FROM incoming_activity GROUP BY ap_id').all();

describe('the inbox worker', { timeout: 60_000 }, () => {
  it('end to end through the listener: a Fedify peer follows, the worker processes it, the main thread delivers the Accept', async () => {
    // As the app starts: the checks worker comes with the first POST.
    const { core, peer, url } = await listeningWorkerCore(false);
    const done: RowResult[] = [];
    core.onInboxRowsDone((results) => done.push(...results));
    const followId = await peer.follow(url);
    const accept = await peer.waitFor((a) => a.type === 'Accept', 30_000);
    expect(JSON.stringify(accept.raw)).toContain(followId);
    const row = core.sqlite.prepare<[string], { id: number; is_processed: number; error: string | null }>('SELECT id, is_processed, error FROM incoming_activity WHERE ap_id = ?').get(followId)!;
    expect(row).toMatchObject({ is_processed: 1, error: null });
    expect(done).toContainEqual({ id: row.id, outcome: 'processed' });
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(1);
  }, 60_000);

  it("checks the listener's inbox POSTs on the checks worker: the main thread reads bytes and answers", async () => {
    const { core, peer, url } = await listeningWorkerCore();
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: peer.newId('follows').href, type: 'Follow', actor: peer.actorId, object: url };
    const accepted = await peer.postSigned(`${url}/inbox`, follow);
    expect(accepted.status).toBe(202);
    // Signed by the peer, naming another actor: refused there, with the reason, nothing stored.
    const forged = { ...follow, id: peer.newId('follows').href, actor: 'http://127.0.0.1:9/users/mallory' };
    const refused = await peer.postSigned(`${url}/inbox`, forged);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'key does not belong to actor (forwarded activity: no LD signature)' });
    const unsigned = await fetch(`${url}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(follow) });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: 'unsigned' });
    // The peer's key was fetched by the checks worker's cache; this thread's never looked.
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    expect((await core.inboxKeyStats()).fetches).toBe(1);
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity')).toBe(1);
    // The processor was woken by the stored row: the follow is processed and answered.
    await peer.waitFor((a) => a.type === 'Accept', 30_000);
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(1);
    // The actor's document, fetched by the checks with its key, went to the processor with the
    // row (through the main thread): it was fetched once in all.
    const actorPath = new URL(peer.actorId).pathname;
    expect(peer.served.filter((line) => line === `GET ${actorPath}`)).toHaveLength(1);
    // The block list reaches the checks worker with the settings.
    core.settings.update({ blockedServers: [new URL(peer.actorId).host] });
    const blocked = await peer.postSigned(`${url}/inbox`, { ...follow, id: peer.newId('follows').href });
    expect(blocked.status).toBe(403);
    expect(await blocked.json()).toEqual({ error: 'server is blocked' });
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity')).toBe(1);
  });

  it('starts the checks worker with the first POST, which waits for it: nothing is checked on the main thread', async () => {
    const { core, peer, url } = await listeningWorkerCore(false);
    const like = () => ({ '@context': 'https://www.w3.org/ns/activitystreams', id: peer.newId('likes').href, type: 'Like', actor: peer.actorId, object: `${url}/o/nothing` });
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    expect(await core.inboxKeyStats()).toMatchObject({ fetches: 1, hits: 1 });
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity')).toBe(2);
  });

  // Linux gives each thread a nice value of its own (worker-side.ts lowerPriority).
  it.runIf(process.platform === 'linux')("runs the checks at the main thread's priority and the processor below it", async () => {
    await listeningWorkerCore(true);
    const niceOf = new Map<string, Set<number>>();
    for (const tid of readdirSync('/proc/self/task')) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // a thread that ended meanwhile
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      niceOf.set(name, (niceOf.get(name) ?? new Set()).add(nice));
    }
    const main = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);
    expect(niceOf.get('tern-inbox-chec')).toEqual(new Set([main]));
    expect(niceOf.get('tern-inbox-work')).toEqual(new Set([Math.min(19, main + WORKER_NICE)]));
    expect(WORKER_NICE).toBeGreaterThan(0);
  });

  it('stops the checks worker after a while without a POST; the next POST starts it again and waits for it', async () => {
    const { core, peer, url } = await listeningWorkerCore(true, 500);
    const workers = core.loops.inbox as InboxWorkerHost;
    const like = () => ({ '@context': 'https://www.w3.org/ns/activitystreams', id: peer.newId('likes').href, type: 'Like', actor: peer.actorId, object: `${url}/o/nothing` });
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    const deadline = Date.now() + 10_000;
    while (workers.checksAlive && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workers.checksAlive).toBe(false);
    // The first Like processed, its actor is stored: the new worker reads the key from there.
    await core.loops.inbox.drain();
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    expect(workers.checksAlive).toBe(true);
    // Both checked on a worker (the first fetched the key; the second, in a fresh cache, read it
    // from the actor's stored document), none here.
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    expect(await core.inboxKeyStats()).toMatchObject({ fetches: 0, hits: 1, misses: 0 });
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity')).toBe(2);
  });

  it("an actor's Delete of itself, processed on the processor's thread, drops its key from the checks worker's cache too", async () => {
    const { core, peer, url } = await listeningWorkerCore();
    const like = () => ({ '@context': 'https://www.w3.org/ns/activitystreams', id: peer.newId('likes').href, type: 'Like', actor: peer.actorId, object: `${url}/o/nothing` });
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    await core.loops.inbox.drain();
    expect((await core.inboxKeyStats()).fetches).toBe(1);
    const del = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.actorId}#delete`, type: 'Delete', actor: peer.actorId, object: peer.actorId, to: ['https://www.w3.org/ns/activitystreams#Public'] };
    expect((await peer.postSigned(`${url}/inbox`, del)).status).toBe(202);
    await core.loops.inbox.drain();
    expect(count(core, `SELECT count(*) AS n FROM inbox WHERE ap_type = 'Delete'`)).toBe(1);
    // The eviction reaches the checks worker by message: the next request is checked by a fetch
    // of the key (its stored document no longer counts either), not by the cached one.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await peer.postSigned(`${url}/inbox`, like())).status).toBe(202);
    expect((await core.inboxKeyStats()).fetches).toBe(2);
  });

  it('checks worker ended mid-burst: every activity answered 202 is stored exactly once', async () => {
    const { core, peer, url } = await listeningWorkerCore();
    const workers = core.loops.inbox as InboxWorkerHost;
    const { ids, like } = likeBurst(peer, url, 40);
    // The first answer shows the worker at work; it is ended with the rest of the burst in flight.
    const first = await peer.postSigned(`${url}/inbox`, like(ids[0]!));
    expect(first.status).toBe(202);
    const rest = ids.slice(1).map((id) => peer.postSigned(`${url}/inbox`, like(id)));
    await workers.killChecks();
    const statuses = await Promise.all(rest.map(async (r) => (await r).status));
    expect(statuses).toEqual(ids.slice(1).map(() => 202));
    const rows = storedRows(core);
    expect(rows.map((r) => r.ap_id).sort()).toEqual([...ids].sort());
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // Those in the ended worker were checked again by the next one, none here.
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    await workers.ready();
    expect((await peer.postSigned(`${url}/inbox`, like(peer.newId('likes').href))).status).toBe(202);
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    await core.loops.inbox.drain();
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 1')).toBe(41);
  });

  it("a hand-over to the processor that fails, before or after its commit: no POST is answered 202 unless stored, none stored twice", async () => {
    const { core, peer, url } = await listeningWorkerCore();
    const host = core.loops.inbox as InboxWorkerHost;
    const { ids, like } = likeBurst(peer, url, 40);
    expect((await peer.postSigned(`${url}/inbox`, like(ids[0]!))).status).toBe(202);
    // As a processor dying would: the first batch of rows handed over committed but its answer
    // lost, the second never stored.
    const insert = host.insert;
    let inserts = 0;
    host.insert = (rows) => {
      inserts++;
      if (inserts === 1) return insert(rows)!.then(() => Promise.reject(new Error('the inbox worker stopped')));
      if (inserts === 2) return Promise.reject(new Error('the inbox worker stopped'));
      return insert(rows);
    };
    // In three waves of 13: each wave's rows are handed over in one batch or more.
    const statuses: number[] = [];
    for (let wave = 0; wave < 3; wave++) {
      const sent = ids.slice(1 + wave * 13, 14 + wave * 13).map(async (id) => (await peer.postSigned(`${url}/inbox`, like(id))).status);
      statuses.push(...(await Promise.all(sent)));
    }
    host.insert = insert;
    expect(inserts).toBeGreaterThanOrEqual(3);
    // Answered 202 (stored) or refused with a 500 (a peer sends again).
    expect(statuses.every((status) => status === 202 || status === 500)).toBe(true);
    expect(statuses.filter((status) => status === 500).length).toBeGreaterThanOrEqual(2);
    const stored = () => storedRows(core);
    const acked = ids.filter((_, i) => i === 0 || statuses[i - 1] === 202);
    expect(acked.every((id) => stored().some((r) => r.ap_id === id))).toBe(true);
    expect(stored().length).toBeLessThan(ids.length);
    // The refused ones sent again, as a peer would: each stored once (the rows committed without
    // an answer are found, not stored again).
    for (const [i, id] of ids.slice(1).entries()) {
      if (statuses[i] !== 202) expect((await peer.postSigned(`${url}/inbox`, like(id))).status).toBe(202);
    }
    expect(stored().map((r) => r.ap_id).sort()).toEqual([...ids].sort());
    expect(stored().every((r) => r.n === 1)).toBe(true);
    await core.loops.inbox.drain();
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 1')).toBe(40);
  });

  it('a POST the checks worker cannot take in time is answered 503 with Retry-After, not checked on the main thread', async () => {
    const { core, peer, url } = await listeningWorkerCore();
    const { ids, like } = likeBurst(peer, url, 1);
    // As when the worker keeps failing to start for CHECKS_WAIT_MS.
    const accept = core.inboxAccept;
    core.inboxAccept = () => Promise.reject(new ChecksUnavailableError());
    try {
      const refused = await peer.postSigned(`${url}/inbox`, like(ids[0]!));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(await refused.json()).toEqual({ error: 'the inbox checks are not running; try again shortly' });
    } finally {
      core.inboxAccept = accept;
    }
    expect(core.fed.keyCache.stats).toMatchObject({ hits: 0, misses: 0, fetches: 0 });
    expect(storedRows(core)).toEqual([]);
    // The peer sends again once the worker is up: stored.
    expect((await peer.postSigned(`${url}/inbox`, like(ids[0]!))).status).toBe(202);
    expect(storedRows(core)).toEqual([{ ap_id: ids[0], n: 1 }]);
  });

  it('processes queued rows on its own thread and tells the main thread what it did', async () => {
    const core = await openWorkerCore();
    const actors = await startActors();
    const done: RowResult[] = [];
    core.onInboxRowsDone((results) => done.push(...results));
    let deliveriesSignalled = 0;
    // Only a message from the worker can reach this listener: its own enqueue runs in its own module instance.
    cleanups.push(onDeliveriesQueued(() => deliveriesSignalled++));
    for (let i = 0; i < 3; i++) queueFollow(core, actors.id(`user${i}`), i);
    const summary = await core.loops.inbox.drain();
    expect(summary).toEqual({ processed: 3, dropped: 0, retried: 0, errored: 0 });
    expect(done.map((r) => r.outcome)).toEqual(['processed', 'processed', 'processed']);
    expect(deliveriesSignalled).toBeGreaterThan(0);
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(3);
    expect(count(core, "SELECT count(*) AS n FROM notifications WHERE notification_type = 'NEW_FOLLOWER'")).toBe(3);
    expect(count(core, 'SELECT count(*) AS n FROM outgoing_activity')).toBe(3);
  });

  it('reads the settings sent after they change (approval by hand)', async () => {
    const core = await openWorkerCore();
    const actors = await startActors();
    await core.loops.inbox.drain(); // the worker is up with the old settings
    core.settings.update({ manuallyApprovesFollowers: true });
    queueFollow(core, actors.id('asker'), 1);
    expect(await core.loops.inbox.drain()).toMatchObject({ processed: 1 });
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(0);
    expect(count(core, 'SELECT count(*) AS n FROM outgoing_activity')).toBe(0);
  });

  it('ended mid-batch: after it starts again every row is processed exactly once', async () => {
    const core = await openWorkerCore();
    // The fifth row's actor answers only when told: the worker is then inside a batch of ten,
    // four rows done (their own transactions committed) and their outcomes not yet written.
    const actors = await startActors('user4');
    for (let i = 0; i < 12; i++) queueFollow(core, actors.id(`user${i}`), i);
    core.loops.inbox.start();
    await actors.held;
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(4);
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 1')).toBe(0);
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity WHERE tries = 1')).toBe(10);

    await (core.loops.inbox as unknown as { kill(): Promise<void> }).kill();
    actors.release();
    // The started loop starts a new worker; drain() waits for it to have done everything due.
    await core.loops.inbox.drain();
    expect(count(core, 'SELECT count(*) AS n FROM incoming_activity WHERE is_processed = 1 AND is_errored = 0')).toBe(12);
    expect(count(core, 'SELECT count(*) AS n FROM follower')).toBe(12);
    expect(count(core, "SELECT count(*) AS n FROM inbox WHERE ap_type = 'Follow'")).toBe(12);
    expect(count(core, "SELECT count(*) AS n FROM notifications WHERE notification_type = 'NEW_FOLLOWER'")).toBe(12);
    // One Accept each: the rows taken again were recognised as done.
    expect(count(core, 'SELECT count(*) AS n FROM outgoing_activity')).toBe(12);
    expect(count(core, "SELECT count(*) AS n FROM incoming_activity WHERE error LIKE 'duplicate%'")).toBe(4);
  });
});
