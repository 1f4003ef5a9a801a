// The network as it really fails, against the real delivery loop, outbound client and listener:
// a fault-injecting peer (fault-peer.ts) resets, hangs, trickles, bursts 5xx, asks to wait,
// redirects for ever, never ends its body, or answers HTML. Each is handled as the delivery
// policy says (delivery/policy.ts), and one bad server never holds up the others: a fan-out to
// 500 servers of which 50 are dead or never answer reaches every healthy one long before the
// first slow one times out.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outgoingActivity } from '../../db/schema';
import { manualSource } from '../../electron/core/connectivity/watch';
import { openCore, type Core } from '../../electron/core/core';
import { createDeliveryLoop, type DeliveryLoop, type DeliveryLoopOptions } from '../../electron/core/delivery/loop';
import { enqueueDeliveries } from '../../electron/core/delivery/queue';
import { saveOutboxObject } from '../../electron/core/federation/outbox-store';
import { startFaultPeer, type Fault, type FaultPeer } from './fault-peer';

let dir: string;
let core: Core;
let now: number;
let peers: FaultPeer[];
let loops: DeliveryLoop[];
let postId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-faults-'));
  now = Date.parse('2030-01-01T00:00:00Z');
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, clock: () => new Date(now) });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  core.connectivity.setSource(manualSource(true));
  peers = [];
  loops = [];
  postId = saveOutboxObject(core.db, core.identity()!, { apObject: { type: 'Note', content: 'hi' }, visibility: 'PUBLIC', now: new Date(now) }).id;
});

afterEach(async () => {
  await Promise.all(loops.map((l) => l.stop({ graceMs: 0 })));
  await Promise.all(peers.map((p) => p.close()));
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

async function peer(fault: Fault): Promise<FaultPeer> {
  const p = await startFaultPeer(fault);
  peers.push(p);
  return p;
}

function loop(options: DeliveryLoopOptions = {}): DeliveryLoop {
  const l = createDeliveryLoop({
    sqlite: core.sqlite,
    clock: () => new Date(now),
    client: core.fed.client,
    connectivity: core.connectivity,
    signer: () => ({ keyId: new URL('http://127.0.0.1:9/#main-key'), privateKey: core.fed.keys.rsa.privateKey }),
    payload: (row) => ({ kind: 'send', body: JSON.stringify({ id: `urn:row:${row.id}`, type: 'Like' }) }),
    resolve: async () => ({ kind: 'retry', reason: 'no resolver' }),
    options: { random: () => 0.5, ...options },
  });
  loops.push(l);
  l.start();
  return l;
}

function enqueue(recipients: string[]): number[] {
  enqueueDeliveries(core.db, { outboxObjectId: postId, recipients, now: new Date(now) });
  return core.db.select({ id: outgoingActivity.id }).from(outgoingActivity).all().map((r) => r.id).slice(-recipients.length);
}
const rowOf = (id: number) => core.db.select().from(outgoingActivity).where(eq(outgoingActivity.id, id)).get()!;

/** One delivery to a peer with this fault; returns the row after the loop settled. */
async function deliverTo(fault: Fault, options: DeliveryLoopOptions = {}) {
  const p = await peer(fault);
  const [id] = enqueue([`${p.origin}/inbox`]);
  const l = loop(options);
  await l.drain();
  return { row: rowOf(id!), peer: p, loop: l, id: id! };
}

describe('each fault, as the delivery policy says', () => {
  it('a connection reset is retried later with backoff; one try spent, the reason kept', async () => {
    const { row, peer } = await deliverTo({ kind: 'reset' });
    expect(peer.hits).toBe(1);
    expect(row).toMatchObject({ isSent: false, isErrored: false, tries: 1, lastStatusCode: null });
    expect(row.nextTry!.getTime()).toBe(now + 2_000);
    expect(row.error).toMatch(/Next try at/);
  });

  it('a server that never answers is given up on after the time limit and retried later', async () => {
    const { row } = await deliverTo({ kind: 'hang' }, { requestTimeoutMs: 800 });
    expect(row).toMatchObject({ isSent: false, isErrored: false, tries: 1 });
    expect(row.error).toMatch(/did not answer in time/);
  });

  it('headers trickled byte by byte past the time limit: a timeout, retried (no half-read answer taken as sent)', async () => {
    const { row } = await deliverTo({ kind: 'trickle-head', everyMs: 100 }, { requestTimeoutMs: 1_000 });
    expect(row).toMatchObject({ isSent: false, tries: 1 });
    expect(row.error).toMatch(/did not answer in time/);
  });

  it('a 202 whose body trickles for ever is sent: the status decides, the body is read for 2 s at most', async () => {
    const { row } = await deliverTo({ kind: 'trickle-body', everyMs: 50 });
    expect(row).toMatchObject({ isSent: true, tries: 1, lastStatusCode: 202 });
    expect(row.lastResponse!.length).toBeLessThanOrEqual(500);
  });

  it('a burst of 503s is retried with growing waits until the server takes it', async () => {
    const p = await peer({ kind: 'burst', status: 503, count: 3 });
    const [id] = enqueue([`${p.origin}/inbox`]);
    const l = loop();
    await l.drain();
    const waits: number[] = [];
    for (let i = 0; i < 3 && !rowOf(id!).isSent; i++) {
      const next = rowOf(id!).nextTry!.getTime();
      waits.push(next - now);
      now = next;
      await l.drain();
    }
    expect(waits).toEqual([2_000, 4_000, 8_000]);
    expect(rowOf(id!)).toMatchObject({ isSent: true, tries: 4, lastStatusCode: 202 });
    expect(p.hits).toBe(4);
  });

  it('429 with Retry-After is retried exactly then, not before', async () => {
    const { row, peer, loop: l, id } = await deliverTo({ kind: 'retry-after', seconds: 120 });
    expect(row.nextTry!.getTime()).toBe(now + 120_000);
    now += 119_000;
    await l.drain();
    expect(peer.hits).toBe(1);
    now += 1_000;
    await l.drain();
    expect(peer.hits).toBe(2);
    expect(rowOf(id).tries).toBe(2);
  });

  it('a redirect loop is given up for good with the reason (no retry can fix it)', async () => {
    const { row, peer } = await deliverTo({ kind: 'redirect-loop' });
    expect(row).toMatchObject({ isSent: false, isErrored: true });
    expect(row.error).toMatch(/cannot use/);
    expect(peer.hits).toBeLessThanOrEqual(6);
  });

  it('a 200 with an endless body is sent; what is kept of the answer is trimmed', async () => {
    const { row } = await deliverTo({ kind: 'endless' });
    expect(row).toMatchObject({ isSent: true, lastStatusCode: 200 });
    expect(row.lastResponse!.length).toBeLessThanOrEqual(500);
  });

  it('fetching an actor from a server that answers HTML, or an endless body, fails with a clear error and keeps nothing', async () => {
    const html = await peer({ kind: 'wrong-type' });
    await expect(core.fed.client.fetchJson(`${html.origin}/users/x`)).rejects.toThrow(/JSON|content/i);
    const endless = await peer({ kind: 'endless' });
    await expect(core.fed.client.fetchJson(`${endless.origin}/users/x`)).rejects.toThrow(/too large|bytes/i);
  });
});

describe('one bad server never holds up the others', () => {
  it('a fan-out to 500 servers, 50 of them dead or never answering: every healthy one receives before the first slow one times out', async () => {
    const healthy = await Promise.all(Array.from({ length: 450 }, () => peer({ kind: 'ok' })));
    const hanging = await Promise.all(Array.from({ length: 40 }, () => peer({ kind: 'hang' })));
    const dead = await Promise.all(Array.from({ length: 10 }, () => peer({ kind: 'reset' })));
    // The bad ones first in the queue: the worst order for the healthy ones.
    const bad = [...hanging, ...dead];
    const ids = enqueue([...bad, ...healthy].map((p) => `${p.origin}/inbox`));
    const started = performance.now();
    const l = loop({ concurrency: 32, requestTimeoutMs: 20_000 });
    l.wake();
    await expect.poll(() => healthy.every((p) => p.hits === 1), { timeout: 15_000, interval: 50 }).toBe(true);
    const elapsed = performance.now() - started;
    console.log(`fan-out to 450 healthy of 500 servers (40 never answering, 10 resetting): all healthy received in ${Math.round(elapsed)} ms`);
    // Nothing has timed out yet: the hanging servers still hold their requests.
    const hangingRows = ids.slice(0, 40).map(rowOf);
    expect(hangingRows.every((r) => r.tries === 0 && !r.isSent)).toBe(true);
    expect(hanging.every((p) => p.hits === 1)).toBe(true);
    // A peer counts its hit when the request arrives; the row is written once its answer is back
    // (answers are written together, a turn later): still well before any timeout.
    await expect.poll(() => ids.slice(50).map(rowOf).every((r) => r.isSent), { timeout: 2_000, interval: 20 }).toBe(true);
    expect(ids.slice(0, 40).map(rowOf).every((r) => r.tries === 0 && !r.isSent)).toBe(true);
  });
});

describe('the listener, facing slow or endless senders', () => {
  it('a sender trickling a body byte by byte holds only its own connection; others are answered at once', async () => {
    const address = await core.listener.start({ host: '127.0.0.1', port: 0 });
    const origin = `http://${address.host}:${address.port}`;
    const slow = net.connect(address.port, address.host);
    await new Promise<void>((resolve) => slow.on('connect', () => resolve()));
    slow.write(`POST /inbox HTTP/1.1\r\nhost: ${address.host}\r\ncontent-type: application/activity+json\r\ncontent-length: 100000\r\n\r\n`);
    const trickle = setInterval(() => slow.write('{'), 20);
    try {
      const t0 = performance.now();
      const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${origin}/.well-known/nodeinfo`)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(performance.now() - t0).toBeLessThan(5_000);
    } finally {
      clearInterval(trickle);
      slow.destroy();
    }
  });

  it('an endless body to /inbox is cut at the size cap (413, or the connection closed), and nothing is stored', async () => {
    const address = await core.listener.start({ host: '127.0.0.1', port: 0 });
    const socket = net.connect(address.port, address.host);
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    let answer = '';
    let closed = false;
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => (closed = true));
    socket.write(`POST /inbox HTTP/1.1\r\nhost: ${address.host}\r\ncontent-type: application/activity+json\r\ntransfer-encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    while (written < 4 * 1024 * 1024 && !socket.destroyed && answer === '') {
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write('\r\n');
      written += chunk.length;
      // At the pace of a fast network, not faster than the loop can read (an RST would then
      // throw away the answer before this side reads it, as it would on a real network).
      await new Promise((r) => setTimeout(r, 2));
    }
    // The 413 is written before the connection closes; a sender still pushing bytes may see the
    // close (a reset) before it reads the answer — either way the listener stopped reading.
    await expect.poll(() => answer !== '' || closed, { timeout: 15_000 }).toBe(true);
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(written).toBeLessThan(4 * 1024 * 1024);
    socket.destroy();
    expect(core.sqlite.prepare('SELECT count(*) AS n FROM incoming_activity').get()).toEqual({ n: 0 });
  });
});
