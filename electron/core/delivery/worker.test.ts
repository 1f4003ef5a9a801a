// The delivery loop on its worker thread (core option deliveryWorker, as the apps run it): the
// real worker script (under tsx here), its own SQLite connection, keys and outbound client. A
// Fedify peer accepts what it signs; the main thread sees which rows are in flight; Work
// offline holds it; stopping lets answers in flight be written; a worker ended mid fan-out (as
// a crash would) loses nothing.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startPeer } from '../../../test/peer/peer';
import type { Core } from '../core';
import { addFollower, openListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';
import type { DeliveryWorkerHost } from './worker-host';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openWorkerCore(inboxWorker = false, trustedCa?: string, idleStopMs?: number): Promise<{ core: Core; url: string; host: DeliveryWorkerHost }> {
  const t = await openListeningCore('alice', {
    deliveryWorker: true,
    inboxWorker,
    ...(trustedCa === undefined ? {} : { trustedCa }),
    ...(idleStopMs === undefined ? {} : { deliveryIdleStopMs: idleStopMs }),
  });
  cleanups.push(async () => {
    await t.core.loops.delivery.stop({ graceMs: 0 });
    await t.core.loops.inbox.stop();
    await t.close();
  });
  return { core: t.core, url: t.url, host: t.core.loops.delivery as DeliveryWorkerHost };
}

/** A loopback inbox server answering 202, or holding each POST while `held` is set. */
async function startInbox(): Promise<LoopbackServer & { hold(): void; release(): void; posts(): number }> {
  let waiting: Array<() => void> = [];
  let holding = false;
  const server = await startServer(async (req, res) => {
    if (holding) await new Promise<void>((resolve) => waiting.push(resolve));
    res.writeHead(202).end();
  });
  const release = () => {
    holding = false;
    waiting.forEach((go) => go());
    waiting = [];
  };
  cleanups.push(() => {
    release();
    return server.close();
  });
  return Object.assign(server, {
    hold: () => (holding = true),
    release,
    posts: () => server.seen.filter((r) => r.method === 'POST').length,
  });
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const rows = (core: Core) =>
  core.sqlite.prepare<[], { id: number; recipient: string; is_sent: number; tries: number }>('SELECT id, recipient, is_sent, tries FROM outgoing_activity ORDER BY id').all();

describe('the delivery worker', { timeout: 60_000 }, () => {
  it('delivers from its own thread, signed so a Fedify peer accepts it, and writes what happened where the main thread reads it', async () => {
    // Both workers, as the apps run them: the inbox worker's "deliveries queued" reaches this one.
    const { core, url, host } = await openWorkerCore(true);
    const peer = await startPeer({ name: 'bob' });
    cleanups.push(() => peer.close());
    core.loops.inbox.start();
    core.loops.delivery.start();
    // Bob's Follow is processed on the inbox worker; its Accept goes out from the delivery worker.
    const followId = await peer.follow(url);
    const accept = await peer.waitFor((a) => a.type === 'Accept', 30_000);
    expect(JSON.stringify(accept.raw)).toContain(followId);
    const post = await core.services.author.createPost({ content: 'From the worker.', visibility: 'PUBLIC' });
    const create = await peer.waitFor((a) => a.type === 'Create', 30_000);
    expect(JSON.stringify(create.raw)).toContain('From the worker.');
    await core.loops.delivery.drain();
    expect(host.alive).toBe(true);
    const sent = core.sqlite.prepare<[number], { is_sent: number; last_status_code: number }>('SELECT is_sent, last_status_code FROM outgoing_activity WHERE outbox_object_id = ?').get(post.id);
    expect(sent).toMatchObject({ is_sent: 1 });
    expect(sent!.last_status_code).toBeGreaterThanOrEqual(200);
    expect(sent!.last_status_code).toBeLessThan(300);
  });

  it.each([
    ['trusted (the core was given its authority)', true],
    ['not trusted', false],
  ])('over HTTPS with its own client: a server whose certificate is %s', async (_, trusted) => {
    const tls = (name: string) => readFileSync(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url), 'utf8');
    const { core } = await openWorkerCore(false, trusted ? tls('localhost-cert.pem') : undefined);
    const seen: Array<{ path: string; signature: string | undefined }> = [];
    const server = createHttpsServer({ key: tls('localhost-key.pem'), cert: tls('localhost-cert.pem') }, (req, res) => {
      seen.push({ path: req.url ?? '', signature: req.headers.signature as string | undefined });
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    addFollower(core, `${origin}/users/f`);
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Over TLS.', visibility: 'PUBLIC' });
    if (trusted) {
      await until(() => rows(core)[0]?.is_sent === 1, 'the row to be sent');
      expect(seen).toMatchObject([{ path: '/users/f/inbox', signature: expect.stringContaining('keyId=') }]);
    } else {
      await until(() => (rows(core)[0]?.tries ?? 0) >= 1, 'the attempt to be recorded');
      const row = core.sqlite.prepare<[], { is_sent: number; error: string }>('SELECT is_sent, error FROM outgoing_activity').get();
      expect(row?.is_sent).toBe(0);
      expect(row?.error).toMatch(/certificate/i);
      expect(seen).toEqual([]);
    }
  });

  it('an app with nothing to send starts no worker; the first rows queued start it, and it stays', async () => {
    const { core, host } = await openWorkerCore();
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/f`);
    core.loops.delivery.start();
    await core.loops.delivery.drain();
    expect(core.loops.delivery.running).toBe(true);
    expect(host.alive).toBe(false);
    await core.services.author.createPost({ content: 'First of the session.', visibility: 'PUBLIC' });
    expect(host.alive).toBe(true);
    await core.loops.delivery.drain();
    expect(rows(core)).toMatchObject([{ is_sent: 1 }]);
    expect(host.alive).toBe(true);
  });

  it('with nothing left to send for a while it stops (its memory given back); the next post starts one again', async () => {
    const { core, host } = await openWorkerCore(false, undefined, 1_000);
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/f`);
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'One.', visibility: 'PUBLIC' });
    await until(() => rows(core)[0]?.is_sent === 1, 'the first row to be sent');
    await until(() => !host.alive, 'the idle worker to stop', 10_000);
    expect(core.loops.delivery.running).toBe(true);
    await core.services.author.createPost({ content: 'Two.', visibility: 'PUBLIC' });
    expect(host.alive).toBe(true);
    await until(() => rows(core)[1]?.is_sent === 1, 'the second row to be sent');
    expect(inbox.posts()).toBe(2);
  });

  it('a row waiting for its retry keeps the worker', async () => {
    const { core, host } = await openWorkerCore(false, undefined, 500);
    const down = await startServer((_req, res) => void res.writeHead(503).end());
    cleanups.push(() => down.close());
    addFollower(core, `${down.origin}/users/f`);
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Retry.', visibility: 'PUBLIC' });
    await until(() => (rows(core)[0]?.tries ?? 0) === 1, 'the first try');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(rows(core)[0]).toMatchObject({ is_sent: 0, tries: 1 });
    expect(host.alive).toBe(true);
  });

  it('started with rows waiting from the last session, it starts the worker at once', async () => {
    const { core, host } = await openWorkerCore();
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/f`);
    core.settings.update({ workOffline: true });
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Queued.', visibility: 'PUBLIC' });
    await core.loops.delivery.stop({ graceMs: 0 });
    expect(host.alive).toBe(false);
    core.settings.update({ workOffline: false });
    core.loops.delivery.start();
    expect(host.alive).toBe(true);
    await until(() => rows(core)[0]?.is_sent === 1, 'the row to be sent');
  });

  it('the main thread sees the rows in flight ("sending"), and none once they are answered', async () => {
    const { core } = await openWorkerCore();
    const inboxes = await Promise.all([startInbox(), startInbox(), startInbox()]);
    inboxes.forEach((inbox, i) => {
      inbox.hold();
      addFollower(core, `${inbox.origin}/users/f${i}`);
    });
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Held.', visibility: 'PUBLIC' });
    await until(() => core.loops.delivery.inFlight().size === 3, 'three rows in flight');
    expect([...core.loops.delivery.inFlight()].sort()).toEqual(rows(core).map((r) => r.id));
    inboxes.forEach((inbox) => inbox.release());
    await core.loops.delivery.drain();
    await until(() => core.loops.delivery.inFlight().size === 0, 'no row in flight');
    expect(rows(core).every((r) => r.is_sent === 1)).toBe(true);
  });

  it('the window is told of a delivery that began and ended between two of the worker’s reports (faster than 100 ms)', async () => {
    const { core } = await openWorkerCore();
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/quick`);
    const hints: string[] = [];
    core.changes.subscribe((kinds) => hints.push(...kinds));
    core.loops.delivery.start();
    // The first post starts the worker (slower than a report); the second goes out warm.
    await core.services.author.createPost({ content: 'First.', visibility: 'PUBLIC' });
    await core.loops.delivery.drain();
    await new Promise((resolve) => setTimeout(resolve, 500));
    hints.length = 0;
    await core.services.author.createPost({ content: 'Quick.', visibility: 'PUBLIC' });
    await core.loops.delivery.drain();
    expect(rows(core).every((r) => r.is_sent === 1)).toBe(true);
    // A loopback inbox answers in a few ms: the worker's report came after the row was done.
    await until(() => hints.includes('deliveries'), 'a deliveries hint', 5_000);
  });

  it('sends nothing while the author works offline, and everything once back online', async () => {
    const { core } = await openWorkerCore();
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/f`);
    core.loops.delivery.start();
    core.settings.update({ workOffline: true });
    await core.services.author.createPost({ content: 'Offline.', visibility: 'PUBLIC' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(inbox.posts()).toBe(0);
    expect(rows(core)).toMatchObject([{ is_sent: 0, tries: 0 }]);
    core.settings.update({ workOffline: false });
    await until(() => rows(core)[0]?.is_sent === 1, 'the row to be sent');
    expect(inbox.posts()).toBe(1);
  });

  it('stopping lets a request in flight finish and writes its answer before it returns', async () => {
    const { core, host } = await openWorkerCore();
    const inbox = await startInbox();
    inbox.hold();
    addFollower(core, `${inbox.origin}/users/f`);
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Quitting.', visibility: 'PUBLIC' });
    await until(() => inbox.posts() === 1, 'the POST to arrive');
    setTimeout(() => inbox.release(), 300);
    await core.loops.delivery.stop();
    expect(host.alive).toBe(false);
    expect(rows(core)).toMatchObject([{ is_sent: 1, tries: 1 }]);
  });

  it('started again while it stops: the new worker comes after the old one ended, and sends', async () => {
    const { core, host } = await openWorkerCore();
    const inbox = await startInbox();
    addFollower(core, `${inbox.origin}/users/f`);
    core.settings.update({ workOffline: true });
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Restarted.', visibility: 'PUBLIC' });
    await host.ready(); // a worker is up, its row waiting for the network
    const stopping = core.loops.delivery.stop();
    core.loops.delivery.start();
    await stopping;
    core.settings.update({ workOffline: false });
    await until(() => rows(core)[0]?.is_sent === 1, 'the row to be sent');
    expect(host.running).toBe(true);
    expect(host.alive).toBe(true);
    expect(inbox.posts()).toBe(1);
  });

  it('ended mid fan-out: after it starts again every row is sent; only the answers it had not written go twice', async () => {
    const { core, host } = await openWorkerCore();
    const quick = await Promise.all(Array.from({ length: 8 }, () => startInbox()));
    const slow = await startInbox();
    slow.hold();
    quick.forEach((inbox, i) => addFollower(core, `${inbox.origin}/users/q${i}`));
    addFollower(core, `${slow.origin}/users/s`);
    core.loops.delivery.start();
    const post = await core.services.author.createPost({ content: 'Crash.', visibility: 'PUBLIC' });
    const sentCount = () => rows(core).filter((r) => r.is_sent === 1).length;
    // The eight quick answers are written; the slow server has the ninth request, unanswered.
    await until(() => sentCount() === 8 && slow.posts() === 1, 'eight rows sent and the ninth in flight');

    // A drain waiting when the worker ends asks its successor (started at once) instead.
    let drained = false;
    const draining = core.loops.delivery.drain().then(() => (drained = true));
    await host.kill();
    expect(core.loops.delivery.inFlight().size).toBe(0);
    expect(drained).toBe(false);
    slow.release();
    await draining;
    expect(host.alive).toBe(true);
    expect(sentCount()).toBe(9);
    expect(quick.map((inbox) => inbox.posts())).toEqual(Array(8).fill(1));
    // Its answer was never written: the new worker sent it again.
    expect(slow.posts()).toBe(2);
    const again = core.sqlite.prepare<[number, string], { tries: number }>('SELECT tries FROM outgoing_activity WHERE outbox_object_id = ? AND recipient LIKE ?').get(post.id, `${slow.origin}%`);
    expect(again?.tries).toBe(1);
  });

  it('"Retry now" from the window while the worker’s request is out: that request failing does not push the retry back', async () => {
    const { core } = await openWorkerCore();
    let answered = 0;
    let first: (() => void) | null = null;
    const server = await startServer(async (_req, res) => {
      if (answered++ === 0) await new Promise<void>((resolve) => (first = resolve));
      res.writeHead(answered === 1 ? 500 : 202).end();
    });
    cleanups.push(() => {
      first?.();
      return server.close();
    });
    addFollower(core, `${server.origin}/users/f`);
    core.settings.update({ workOffline: true });
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Retried while out.', visibility: 'PUBLIC' });
    // Failing for a while already: the next failure would wait 2^5 s.
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 4').run();
    core.settings.update({ workOffline: false });
    await until(() => first !== null, 'the request to be out');
    const [row] = rows(core);
    expect(core.services.author.retryNow(row!.id)).toEqual({ retried: 1 });
    first!();
    await until(() => rows(core)[0]?.is_sent === 1, 'the row to be sent again at once', 5_000);
    expect(rows(core)[0]).toMatchObject({ is_sent: 1, tries: 1 });
    expect(server.seen).toHaveLength(2);
  });

  it('stopped before its request left (a TLS handshake that never ends): the row shows no last request, as if never tried', async () => {
    const { core } = await openWorkerCore();
    const sockets: Socket[] = [];
    const tcp = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      sockets.forEach((x) => x.destroy());
      return new Promise<void>((resolve) => tcp.close(() => resolve()));
    });
    addFollower(core, `https://127.0.0.1:${(tcp.address() as AddressInfo).port}/users/f`);
    core.loops.delivery.start();
    await core.services.author.createPost({ content: 'Never left.', visibility: 'PUBLIC' });
    const lastTry = () => core.sqlite.prepare<[], { last_try: string | null }>('SELECT last_try FROM outgoing_activity').get()?.last_try ?? null;
    // The worker put its try on record and is in the handshake.
    await until(() => lastTry() !== null && sockets.length === 1, 'the claim and the connection');
    await core.loops.delivery.stop({ graceMs: 0 });
    expect(rows(core)).toMatchObject([{ is_sent: 0, tries: 0 }]);
    expect(lastTry()).toBeNull();
    const view = core.services.author.deliveries({ limit: 10, state: 'all' });
    expect(view.items).toMatchObject([{ state: 'queued', tries: 0, lastTry: null }]);
  });
});
