// The delivery loop against real loopback servers and a real SQLite queue: what each answer
// does to a row (sent, retry with backoff, Retry-After, give up), ordering and concurrency
// limits, a dead server beside a live one, offline, and stopping mid-delivery.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outgoingActivity, type OutgoingActivity } from '../../../db/schema';
import { manualSource, type ManualSource } from '../connectivity/watch';
import { openCore, type Core } from '../core';
import { saveOutboxObject } from '../federation/outbox-store';
import { startServer, type LoopbackServer } from '../net/test-server';
import { createDeliveryLoop, type DeliveryLoop, type DeliveryLoopDeps, type DeliveryLoopOptions, type ResolveOutcome } from './loop';
import { enqueueDeliveries } from './queue';
import { openSqlite } from '../../../db/client';
import { listDeliveries, retryNow } from './status';
import { createDeliveryStore, ORPHANED_CLAIM_ERROR } from './store';

let dir: string;
let core: Core;
let now: number;
let net: ManualSource;
let loops: DeliveryLoop[];
let servers: LoopbackServer[];
let postId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-delivery-'));
  now = Date.parse('2030-01-01T00:00:00Z');
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, clock: () => new Date(now) });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  net = manualSource(true);
  core.connectivity.setSource(net);
  loops = [];
  servers = [];
  postId = saveOutboxObject(core.db, core.identity()!, { apObject: { type: 'Note', content: 'hi' }, visibility: 'PUBLIC', now: new Date(now) }).id;
});

afterEach(async () => {
  await Promise.all(loops.map((l) => l.stop({ graceMs: 0 })));
  await Promise.all(servers.map((s) => s.close()));
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A started loop on the test's core; `deps` replaces any of its parts (the payload, the log). */
function loop(options: DeliveryLoopOptions = {}, resolve?: (row: OutgoingActivity) => Promise<ResolveOutcome>, deps: Partial<DeliveryLoopDeps> = {}): DeliveryLoop {
  const l = createDeliveryLoop({
    sqlite: core.sqlite,
    clock: () => new Date(now),
    client: core.fed.client,
    connectivity: core.connectivity,
    signer: () => ({ keyId: new URL('http://127.0.0.1:9/#main-key'), privateKey: core.fed.keys.rsa.privateKey }),
    payload: (row) => ({ kind: 'send', body: JSON.stringify({ id: `urn:row:${row.id}`, type: 'Like' }) }),
    resolve: resolve ?? (async () => ({ kind: 'retry', reason: 'no resolver' })),
    options: { random: () => 0.5, ...options },
    ...deps,
  });
  loops.push(l);
  l.start();
  return l;
}

async function server(handler: (res: ServerResponse, body: string, path: string) => unknown): Promise<LoopbackServer> {
  const s = await startServer((req, res, body) => handler(res, body, req.url ?? ''));
  servers.push(s);
  return s;
}

function enqueue(...recipients: string[]): number[] {
  const before = core.db.select({ id: outgoingActivity.id }).from(outgoingActivity).all().length;
  for (const r of recipients) enqueueDeliveries(core.db, { outboxObjectId: postId, recipients: [r], now: new Date(now) });
  return core.db.select({ id: outgoingActivity.id }).from(outgoingActivity).all().slice(before).map((r) => r.id);
}

const rowOf = (id: number) => core.db.select().from(outgoingActivity).where(eq(outgoingActivity.id, id)).get()!;
/** Moves the fake clock past a row's next try and lets the loop run. */
async function advanceTo(l: DeliveryLoop, id: number) {
  now = rowOf(id).nextTry!.getTime();
  await l.drain();
}

describe('one function per outcome', () => {
  it('a 2xx marks the row sent in one write: tries, last try, status, trimmed response, no error', async () => {
    const s = await server((res) => res.writeHead(202).end('x'.repeat(2000)));
    const [id] = enqueue(`${s.origin}/inbox`);
    await loop().drain();
    const row = rowOf(id!);
    expect(row).toMatchObject({ isSent: true, isErrored: false, tries: 1, lastStatusCode: 202, nextTry: null, error: null });
    expect(row.lastTry?.getTime()).toBe(now);
    expect(row.lastResponse!.length).toBeLessThanOrEqual(500);
    // Signed with draft-cavage first (FIRST_KNOCK), the body digested.
    expect(s.seen[0]?.headers['signature-input']).toBeUndefined();
    expect(s.seen[0]?.headers.signature).toMatch(/headers="[^"]*\bdigest\b/);
    expect(s.seen[0]?.headers.digest).toMatch(/^SHA-256=/);
    expect(JSON.parse(s.seen[0]!.body)).toEqual({ id: `urn:row:${id}`, type: 'Like' });
  });

  it('a 500 is retried with exponential backoff until it succeeds', async () => {
    let calls = 0;
    const s = await server((res) => res.writeHead(++calls < 3 ? 500 : 200).end('oops'));
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await l.drain();
    let row = rowOf(id!);
    expect(row).toMatchObject({ isSent: false, isErrored: false, tries: 1, lastStatusCode: 500, lastResponse: 'oops' });
    expect(row.nextTry!.getTime() - now).toBe(2_000); // 2^1 s (jitter centred by random = 0.5)
    expect(row.error).toMatch(/server error \(HTTP 500/);
    await l.drain();
    expect(calls).toBe(1); // not due yet: nothing is tried early
    await advanceTo(l, id!);
    row = rowOf(id!);
    expect(row).toMatchObject({ tries: 2, isSent: false });
    expect(row.nextTry!.getTime() - now).toBe(4_000);
    await advanceTo(l, id!);
    expect(rowOf(id!)).toMatchObject({ tries: 3, isSent: true, lastStatusCode: 200, error: null });
  });

  it('a 410 gives up at once with a reason a person can read, and is never tried again', async () => {
    const s = await server((res) => res.writeHead(410).end('gone'));
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ isErrored: true, isSent: false, tries: 1, lastStatusCode: 410, nextTry: null });
    expect(rowOf(id!).error).toMatch(/says this inbox is gone \(HTTP 410 Gone\)/);
    now += 24 * 3600_000;
    await l.drain();
    expect(s.seen).toHaveLength(1);
  });

  it('another 4xx (404) gives up at once too', async () => {
    const s = await server((res) => res.writeHead(404).end());
    const [id] = enqueue(`${s.origin}/inbox`);
    await loop().drain();
    expect(rowOf(id!)).toMatchObject({ isErrored: true, tries: 1, lastStatusCode: 404 });
    expect(rowOf(id!).error).toMatch(/refused the delivery \(HTTP 404 Not Found\)/);
  });

  it.each([
    ['seconds', '120', 120_000],
    ['an HTTP date', new Date(Date.parse('2030-01-01T00:00:00Z') + 90_000).toUTCString(), 90_000],
  ])('a 429 with Retry-After in %s is retried exactly then', async (_kind, header, waitMs) => {
    const s = await server((res) => res.writeHead(429, { 'retry-after': header }).end());
    const [id] = enqueue(`${s.origin}/inbox`);
    await loop().drain();
    const row = rowOf(id!);
    expect(row).toMatchObject({ tries: 1, isErrored: false, lastStatusCode: 429 });
    expect(row.nextTry!.getTime() - now).toBe(waitMs);
  });

  it('a 401 is retried (after knocking again with the other signature spec)', async () => {
    const s = await server((res) => res.writeHead(401).end());
    const [id] = enqueue(`${s.origin}/inbox`);
    await loop().drain();
    expect(rowOf(id!)).toMatchObject({ tries: 1, isErrored: false, lastStatusCode: 401 });
    expect(s.seen.map((r) => (r.headers['signature-input'] ? 'rfc9421' : 'cavage'))).toEqual(['cavage', 'rfc9421']);
  });

  it('a refused connection is retried; after the last try the row is errored', async () => {
    const s = await server((res) => res.end());
    const dead = `${s.origin}/inbox`;
    await s.close();
    const [id] = enqueue(dead);
    const l = loop({ maxTries: 3 });
    await l.drain();
    expect(rowOf(id!).error).toMatch(/refused the connection/);
    await advanceTo(l, id!);
    await advanceTo(l, id!);
    const row = rowOf(id!);
    expect(row).toMatchObject({ tries: 3, isErrored: true, isSent: false, nextTry: null });
    expect(row.error).toMatch(/gave up after 3 tries/);
  });

  it('a payload that can no longer be built is given up without spending a try', async () => {
    const [id] = enqueue('http://127.0.0.1:9/inbox');
    const l = loop({}, undefined, {
      signer: () => ({ keyId: new URL('http://127.0.0.1:9/#k'), privateKey: core.fed.keys.rsa.privateKey }),
      payload: () => ({ kind: 'cancel', reason: 'The post was deleted before it was sent.' }),
      resolve: async () => ({ kind: 'resolved' }),
    });
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ isErrored: true, tries: 0, error: 'The post was deleted before it was sent.' });
  });
});

describe('requests out when Tern was ended', () => {
  it('a row whose request was out when Tern stopped without its answer says so at the next start; answered rows keep their reason', async () => {
    const s = await server((res) => res.writeHead(500).end());
    const [first, again, answered] = enqueue(`${s.origin}/a`, `${s.origin}/b`, `${s.origin}/c`);
    const l = loop();
    await l.drain();
    await l.stop({ graceMs: 0 });
    const failed = rowOf(again!);
    expect(failed).toMatchObject({ tries: 1, lastStatusCode: 500 });
    // Then, once due again, `first` and `again` claimed as the loop claims them, and no outcome
    // written: what a crash with both requests out leaves.
    now = failed.nextTry!.getTime() + 1_000;
    const store = createDeliveryStore(core.sqlite);
    expect(store.claim([{ id: first!, at: new Date(now) }, { id: again!, at: new Date(now) }])).toEqual([true, true]);
    const answeredBefore = rowOf(answered!);
    net.set(false); // the new loop sends nothing: what it found at start is all there is
    loop();
    for (const id of [first!, again!]) expect(rowOf(id)).toMatchObject({ error: ORPHANED_CLAIM_ERROR, tries: 1, lastTry: new Date(now), isErrored: false, isSent: false });
    expect(rowOf(answered!)).toEqual(answeredBefore);
    expect(answeredBefore.error).toMatch(/HTTP 500/);
  });

  it('a request out when Tern was stopped in order keeps the reason it was given then', async () => {
    const s = await server(() => undefined); // never answers
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    for (let i = 0; i < 100 && s.seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await l.stop({ graceMs: 0 });
    const stopped = rowOf(id!);
    expect(stopped.error).toMatch(/had not answered when Tern stopped/);
    net.set(false);
    loop();
    expect(rowOf(id!)).toEqual(stopped);
  });
});

describe('order and limits', () => {
  it('delivers one recipient’s rows strictly in order, one at a time', async () => {
    let open = 0;
    let maxOpen = 0;
    const order: string[] = [];
    const s = await server((res, body) => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      order.push(JSON.parse(body).id);
      setTimeout(() => {
        open--;
        res.writeHead(202).end();
      }, 30);
    });
    const ids = enqueue(...Array.from({ length: 5 }, () => `${s.origin}/inbox`));
    await loop().drain();
    expect(order).toEqual(ids.map((id) => `urn:row:${id}`));
    expect(maxOpen).toBe(1);
  });

  it('a row waiting for its retry holds back the later rows to the same recipient only', async () => {
    let first = true;
    const a = await server((res) => {
      res.writeHead(first ? 503 : 202).end();
      first = false;
    });
    const b = await server((res) => res.writeHead(202).end());
    const [a1, a2] = enqueue(`${a.origin}/inbox`, `${a.origin}/inbox`);
    const [b1] = enqueue(`${b.origin}/inbox`);
    const l = loop();
    await l.drain();
    expect(rowOf(a1!).tries).toBe(1);
    expect(rowOf(a2!).tries).toBe(0); // not overtaking a1
    expect(rowOf(b1!).isSent).toBe(true);
    await advanceTo(l, a1!);
    expect([rowOf(a1!).isSent, rowOf(a2!).isSent]).toEqual([true, true]);
  });

  it('keeps to 2 requests per server and 8 in all', async () => {
    const open = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    const maxPerHost = new Map<string, number>();
    const mk = async () => {
      const s = await server((res) => {
        const host = s.origin;
        open.set(host, (open.get(host) ?? 0) + 1);
        total++;
        maxTotal = Math.max(maxTotal, total);
        maxPerHost.set(host, Math.max(maxPerHost.get(host) ?? 0, open.get(host)!));
        setTimeout(() => {
          open.set(host, open.get(host)! - 1);
          total--;
          res.writeHead(202).end();
        }, 40);
      });
      return s;
    };
    const hosts = await Promise.all(Array.from({ length: 6 }, mk));
    // 5 different inboxes on each of 6 servers: 30 recipients.
    enqueue(...hosts.flatMap((h) => Array.from({ length: 5 }, (_, i) => `${h.origin}/users/u${i}/inbox`)));
    await loop().drain();
    expect(core.db.select().from(outgoingActivity).all().every((r) => r.isSent)).toBe(true);
    expect(Math.max(...maxPerHost.values())).toBe(2);
    expect(maxTotal).toBe(8);
  });

  it.each([
    ['no budget', Number.POSITIVE_INFINITY, 8],
    ['a budget of 0 (one piece of work per turn)', 0, 1],
  ])('paces its work on the thread (%s): what one turn starts, then every row still goes', async (_name, budget, startedInFirstTurn) => {
    const hosts = await Promise.all(Array.from({ length: 4 }, () => server((res) => res.writeHead(202).end())));
    const ids = enqueue(...hosts.flatMap((h) => [`${h.origin}/a/inbox`, `${h.origin}/b/inbox`]));
    const l = loop({ turnBudgetMs: budget });
    // The loop's first turn runs as a macrotask; this one comes right after it, before any later
    // turn could start what was left for it.
    const inFlightThen = await new Promise<number>((resolve) => setImmediate(() => resolve(l.inFlight().size)));
    expect(inFlightThen).toBe(startedInFirstTurn);
    await l.drain();
    expect(ids.map((id) => rowOf(id).isSent)).toEqual(ids.map(() => true));
    expect(hosts.map((h) => h.seen.length)).toEqual([2, 2, 2, 2]);
  });

  it('a server that never answers does not delay deliveries to a live one', async () => {
    const hanging: ServerResponse[] = [];
    const dead = await server((res) => void hanging.push(res));
    const live = await server((res) => res.writeHead(202).end());
    const [d1, d2] = enqueue(`${dead.origin}/a/inbox`, `${dead.origin}/b/inbox`); // older: picked first
    const [l1] = enqueue(`${live.origin}/inbox`);
    const l = loop();
    // The live row is recorded while both requests to the dead server are still open.
    await expect.poll(() => rowOf(l1!).isSent, { timeout: 2_000 }).toBe(true);
    expect(l.inFlight()).toEqual(new Set([d1, d2]));
    expect(dead.seen).toHaveLength(2);
    await l.stop({ graceMs: 0 });
    // Aborted by stop: left due, no try spent (last_try says its request went out).
    expect(rowOf(d1!)).toMatchObject({ isSent: false, isErrored: false, tries: 0 });
    hanging.forEach((r) => r.destroy());
  });
});

describe('time limit', () => {
  it('a request with no answer within requestTimeoutMs spends a try and is retried later (not left as if stopped)', async () => {
    const hanging: ServerResponse[] = [];
    const slow = await server((res) => void hanging.push(res));
    const [id] = enqueue(`${slow.origin}/inbox`);
    const l = loop({ requestTimeoutMs: 150 });
    await expect.poll(() => rowOf(id!).tries, { timeout: 2_000 }).toBe(1);
    const row = rowOf(id!);
    expect(row).toMatchObject({ isSent: false, isErrored: false, lastStatusCode: null });
    expect(row.error).toMatch(/did not answer in time/);
    expect(row.nextTry!.getTime()).toBeGreaterThan(now);
    expect(l.inFlight().size).toBe(0);
    hanging.forEach((r) => r.destroy());
  });
});

describe('offline', () => {
  it('attempts nothing and spends no try while offline; coming online delivers at once', async () => {
    const s = await server((res) => res.writeHead(202).end());
    net.set(false);
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    l.wake();
    await l.drain();
    expect(s.seen).toHaveLength(0);
    expect(rowOf(id!)).toMatchObject({ tries: 0, isSent: false, isErrored: false, lastTry: null });
    const delivered = expect.poll(() => rowOf(id!).isSent, { timeout: 2_000 }).toBe(true);
    net.set(true); // the watch wakes the loop: no wake() call here
    await delivered;
    expect(s.seen).toHaveLength(1);
  });

  it('"Work offline" stops deliveries the same way, and switching it off resumes them', async () => {
    const s = await server((res) => res.writeHead(202).end());
    core.settings.update({ workOffline: true });
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await l.drain();
    expect(rowOf(id!).tries).toBe(0);
    core.settings.update({ workOffline: false });
    await expect.poll(() => rowOf(id!).isSent, { timeout: 2_000 }).toBe(true);
  });
});

describe('sleep (the laptop’s lid closed for 8 hours)', () => {
  /** A monotonic clock the test moves: it stands still while the machine sleeps. */
  let mono = 0;
  const sleep8h = () => {
    now += 8 * 60 * 60 * 1000;
    mono += 1_000;
  };
  const randoms = (values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length]!;
  };

  it('rows whose retry fell due while asleep are spread over the next minute with jitter, not sent in one burst', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const ids = enqueue(...[1, 2, 3, 4, 5].map((n) => `${s.origin}/inbox/${n}`));
    // Each was tried before and waits for its retry, an hour from now.
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 3, next_try = ? WHERE id IN (' + ids.join(',') + ')').run(new Date(now + 3_600_000).toISOString());
    const l = loop({ monotonic: () => mono, random: randoms([0.15, 0.35, 0.55, 0.75, 0.95]) });
    await l.drain();
    expect(s.seen).toHaveLength(0);

    sleep8h();
    await l.drain();
    // Woken: nothing went out at once; each row has its own time within the next 60 s.
    expect(s.seen).toHaveLength(0);
    const times = ids.map((id) => rowOf(id).nextTry!.getTime());
    expect(new Set(times).size).toBe(5);
    for (const t of times) {
      expect(t).toBeGreaterThan(now);
      expect(t).toBeLessThanOrEqual(now + 60_000);
    }
    // Tries were not touched by the sleep.
    expect(ids.map((id) => rowOf(id).tries)).toEqual([3, 3, 3, 3, 3]);
    // A minute later all have gone, once each.
    now += 60_000;
    await l.drain();
    expect(ids.every((id) => rowOf(id).isSent)).toBe(true);
    expect(s.seen).toHaveLength(5);
  });

  it('just after waking, a failure without an answer (network not back yet) spends no try; later it does', async () => {
    const closed = await server((res) => res.writeHead(202).end());
    const origin = closed.origin;
    await closed.close();
    servers.splice(servers.indexOf(closed), 1);
    const [id] = enqueue(`${origin}/inbox`);
    core.sqlite.prepare('UPDATE outgoing_activity SET next_try = ? WHERE id = ?').run(new Date(now + 3_600_000).toISOString(), id);
    const l = loop({ monotonic: () => mono, random: () => 0.5 });
    await l.drain();
    sleep8h();
    await l.drain(); // wakes: the row is spread into the next minute
    now += 60_000;
    await l.drain(); // tried: connection refused, within the grace after waking
    const row = rowOf(id!);
    expect(row.tries).toBe(0);
    expect(row.lastTry).toBeNull(); // refused: nothing left, so no last try
    expect(row.error).toMatch(/network was not back yet after the computer woke/);
    expect(row.nextTry!.getTime()).toBeGreaterThan(now);
    // Past the grace: the same failure counts as usual (a try; still nothing left).
    mono += 61_000;
    now = row.nextTry!.getTime();
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ tries: 1, lastTry: null, error: expect.stringMatching(/refused the connection/) });
  });

  it('the shell’s resume event does the same without waiting for the clocks to disagree', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const [id] = enqueue(`${s.origin}/inbox`);
    core.sqlite.prepare('UPDATE outgoing_activity SET next_try = ? WHERE id = ?').run(new Date(now - 1_000).toISOString(), id);
    const l = loop({ monotonic: () => mono, random: () => 0.5 });
    l.stop({ graceMs: 0 });
    l.start();
    l.resumed();
    expect(rowOf(id!).nextTry!.getTime()).toBe(now + 30_000);
    await l.drain();
    expect(s.seen).toHaveLength(0);
  });
});

describe('stopping', () => {
  it('lets a request in flight finish and records its answer', async () => {
    const s = await server((res) => setTimeout(() => res.writeHead(202).end(), 150));
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await expect.poll(() => s.seen.length).toBe(1);
    await l.stop({ graceMs: 2_000 });
    expect(rowOf(id!)).toMatchObject({ isSent: true, isErrored: false, tries: 1, lastStatusCode: 202 });
  });

  it('aborting leaves the row due and untouched; it is delivered once after a restart', async () => {
    let answered = 0;
    const s = await server((res) =>
      setTimeout(() => {
        answered++;
        res.writeHead(202).end();
      }, s.seen.length === 1 ? 300 : 0),
    );
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await expect.poll(() => s.seen.length).toBe(1);
    await l.stop({ graceMs: 0 });
    const row = rowOf(id!);
    // No try counted, but the request that went out is on record (it may have reached the peer),
    // and the row says why its last try is not counted.
    expect(row).toMatchObject({ isSent: false, isErrored: false, tries: 0, lastStatusCode: null });
    expect(row.lastTry?.getTime()).toBe(now);
    expect(row.error).toMatch(/had not answered when Tern stopped; the delivery may have arrived/);
    await loop().drain();
    expect(rowOf(id!)).toMatchObject({ isSent: true, tries: 1 });
    // The aborted request's late answer reaches nobody and changes nothing.
    await expect.poll(() => answered).toBe(2);
    expect(rowOf(id!)).toMatchObject({ isSent: true, isErrored: false, tries: 1 });
  });
});

/** A TLS server on loopback that takes the connection and never answers the handshake: a
 * request to it never leaves (its head and body wait for the handshake). */
async function silentTls(): Promise<{ origin: string; accepted: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const tcp = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
    accepted: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((x) => x.destroy());
        tcp.close(() => resolve());
      }),
  };
}

describe('last_try: when a request of the row last left Tern', () => {
  it('stopped after its try was put on record but before its request left: no last try (nor the earlier one overwritten), no try, nothing said in the Deliveries view', async () => {
    const tls = await silentTls();
    try {
      const [fresh, retried] = enqueue(`${tls.origin}/a/inbox`, `${tls.origin}/b/inbox`);
      // The second row was tried once before, a minute ago (an answer 503).
      const earlier = new Date(now - 60_000);
      core.sqlite.prepare("UPDATE outgoing_activity SET tries = 1, last_try = ?, last_status_code = 503, error = 'HTTP 503' WHERE id = ?").run(earlier.toISOString(), retried);
      const l = loop();
      // Both claimed (last_try written), both connections waiting on the handshake.
      await expect.poll(() => [rowOf(fresh!).lastTry?.getTime(), rowOf(retried!).lastTry?.getTime(), tls.accepted()]).toEqual([now, now, 2]);
      await l.stop({ graceMs: 0 });
      expect(rowOf(fresh!)).toMatchObject({ isSent: false, isErrored: false, tries: 0, lastTry: null, error: null });
      expect(rowOf(retried!)).toMatchObject({ isSent: false, isErrored: false, tries: 1, lastTry: earlier, lastStatusCode: 503 });
      const view = listDeliveries(core.db, { limit: 10, state: 'all' }, { inFlight: new Set(), online: true });
      expect(view.items.find((i) => i.id === fresh)).toMatchObject({ state: 'queued', tries: 0, lastTry: null });
      expect(view.items.find((i) => i.id === retried)).toMatchObject({ tries: 1, lastTry: earlier.toISOString() });
    } finally {
      await tls.close();
    }
  });

  it('a refused connection counts a try, but is no last try: nothing left', async () => {
    const closed = await server((res) => res.writeHead(202).end());
    const { origin, port } = closed;
    await closed.close();
    servers.splice(servers.indexOf(closed), 1);
    const [id] = enqueue(`${origin}/inbox`);
    const l = loop();
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ tries: 1, lastTry: null, lastStatusCode: null, error: expect.stringMatching(/refused the connection/) });
    // The server is back: its answer is the last try.
    servers.push(await startServer((_req, res) => res.writeHead(202).end(), '127.0.0.1', port));
    await advanceTo(l, id!);
    expect(rowOf(id!)).toMatchObject({ isSent: true, tries: 2, lastStatusCode: 202 });
    expect(rowOf(id!).lastTry?.getTime()).toBe(now);
  });
});

describe('"Retry now" while the row is being sent', () => {
  /** A server whose first request waits until `release` answers it (500); later ones get 202. */
  async function heldThen500() {
    const held: ServerResponse[] = [];
    const s = await server((res) => {
      if (held.length === 0) held.push(res);
      else res.writeHead(202).end();
    });
    return { s, release: () => held[0]!.writeHead(500).end('busy'), held };
  }

  it('the attempt out fails: the row keeps the fresh tries and is sent again at once, not after that attempt’s backoff', async () => {
    const { s, release, held } = await heldThen500();
    const [id] = enqueue(`${s.origin}/inbox`);
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 4 WHERE id = ?').run(id); // retrying for a while
    const l = loop();
    await expect.poll(() => held.length).toBe(1);
    now += 1_000;
    expect(retryNow(core.db, new Date(now), id)).toBe(1); // the author's "Retry now", on the main thread
    release();
    await expect.poll(() => rowOf(id!).isSent, { timeout: 3_000 }).toBe(true);
    await l.drain();
    expect(s.seen).toHaveLength(2);
    expect(rowOf(id!)).toMatchObject({ isSent: true, tries: 1, lastStatusCode: 202 });
  });

  it('"Retry all" does the same; the failure is told, and the row is due when the author asked', async () => {
    const { s, release, held } = await heldThen500();
    const [id] = enqueue(`${s.origin}/inbox`);
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 4 WHERE id = ?').run(id);
    net.set(true);
    const l = loop();
    await expect.poll(() => held.length).toBe(1);
    now += 1_000;
    const asked = now;
    expect(retryNow(core.db, new Date(now))).toBe(1);
    net.set(false); // nothing starts after the answer: the row is seen as the answer left it
    release();
    await expect.poll(() => rowOf(id!).lastStatusCode).toBe(500);
    expect(rowOf(id!)).toMatchObject({ isSent: false, isErrored: false, tries: 0, error: expect.stringMatching(/HTTP 500.*began before Retry now/) });
    expect(rowOf(id!).nextTry?.getTime()).toBe(asked);
    net.set(true);
    await expect.poll(() => rowOf(id!).isSent, { timeout: 3_000 }).toBe(true);
    await l.drain();
  });

  it('an attempt that would have been the last one does not give the retried row up', async () => {
    const { s, release, held } = await heldThen500();
    const [id] = enqueue(`${s.origin}/inbox`);
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 15 WHERE id = ?').run(id); // the 16th try is out
    const l = loop();
    await expect.poll(() => held.length).toBe(1);
    expect(retryNow(core.db, new Date(now), id)).toBe(1);
    release();
    await expect.poll(() => rowOf(id!).isSent, { timeout: 3_000 }).toBe(true);
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ isSent: true, isErrored: false, tries: 1 });
  });

  it('the loop’s own moves are no Retry now: a wake or a clock set back while the request is out leaves the row to its attempt (a try counted, its backoff)', async () => {
    for (const move of ['wake', 'clock set back'] as const) {
      const { s, release, held } = await heldThen500();
      const [id, waiting] = enqueue(`${s.origin}/inbox`, `${s.origin}/later`);
      core.sqlite.prepare('UPDATE outgoing_activity SET tries = 4 WHERE id = ?').run(id);
      // Another row due in an hour: the step back moves it (the move did happen).
      core.sqlite.prepare('UPDATE outgoing_activity SET tries = 1, next_try = ? WHERE id = ?').run(new Date(now + 3_600_000).toISOString(), waiting);
      let mono = 0;
      const l = loop({ monotonic: () => mono });
      await expect.poll(() => held.length).toBe(1);
      if (move === 'wake') l.resumed();
      else {
        now -= 24 * 3600 * 1000;
        mono += 1_000;
        now += 1_000;
        l.wake();
        await expect.poll(() => rowOf(waiting!).nextTry!.getTime()).toBe(now + 3_600_000 - 1_000);
      }
      release();
      await expect.poll(() => rowOf(id!).lastStatusCode, { timeout: 3_000 }).toBe(500);
      expect(rowOf(id!), move).toMatchObject({ isSent: false, tries: 5, error: expect.not.stringMatching(/Retry now/) });
      await l.stop();
      core.sqlite.prepare('DELETE FROM outgoing_activity').run();
    }
  });
});

describe('the try put on record before a request leaves (claims)', () => {
  it('a claim that cannot be written (a full disk) sends nothing and waits before trying again, instead of reading the rows round after round', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const ids = enqueue(`${s.origin}/a`, `${s.origin}/b`);
    // Only the claim fails (an UPDATE of last_try alone), as SQLITE_FULL or SQLITE_IOERR would.
    core.sqlite.exec(`CREATE TRIGGER fail_claim BEFORE UPDATE OF last_try ON outgoing_activity
      WHEN NEW.tries = OLD.tries AND NEW.is_sent = 0 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`);
    let built = 0;
    const lines: string[] = [];
    const l = loop({}, undefined, {
      payload: () => {
        built++;
        return { kind: 'send', body: '{}' };
      },
      log: (line) => lines.push(line),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.seen).toHaveLength(0);
    expect(built).toBeLessThanOrEqual(2);
    expect(lines.filter((line) => /not sent now/.test(line))).toHaveLength(1);
    // The disk has room again: after the wait, both go.
    core.sqlite.exec('DROP TRIGGER fail_claim');
    await expect.poll(() => ids.map((id) => rowOf(id).isSent), { timeout: 5_000 }).toEqual([true, true]);
    await l.drain();
    expect(s.seen).toHaveLength(2);
  });

  it('the claims of one turn are one write: with the file held by the other connection, one busy wait for a fan-out, not one per request', async () => {
    const servers8 = await Promise.all(Array.from({ length: 8 }, () => server((res) => res.writeHead(202).end())));
    const ids = enqueue(...servers8.map((x) => `${x.origin}/inbox`));
    core.sqlite.pragma('busy_timeout = 200');
    const other = openSqlite(core.paths.database);
    try {
      other.exec('BEGIN IMMEDIATE');
      const lines: string[] = [];
      const l = loop({}, undefined, { log: (line) => lines.push(line) });
      await new Promise((resolve) => setTimeout(resolve, 500));
      other.exec('COMMIT');
      await expect.poll(() => ids.every((id) => rowOf(id).isSent), { timeout: 5_000 }).toBe(true);
      await l.drain();
      expect(lines.filter((line) => /not sent now/.test(line))).toHaveLength(1);
      expect(servers8.map((x) => x.seen.length)).toEqual(Array<number>(8).fill(1));
    } finally {
      core.sqlite.pragma('busy_timeout = 5000');
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  });
});

describe('a cancel written on another connection (the main thread) while the loop sends', () => {
  /** Cancels a row as the main thread does (withheld.ts cancelForFormerFollower), on its own
   * connection to the file, as the delivery worker and the main thread each have. */
  function cancelElsewhere(id: number): void {
    const other = openSqlite(core.paths.database);
    try {
      other.prepare("UPDATE outgoing_activity SET is_errored = 1, next_try = NULL, error = 'cancelled' WHERE id = ? AND is_sent = 0").run(id);
    } finally {
      other.close();
    }
  }

  it('cancelled after the loop read the row, before its request left: it is not sent', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop({}, undefined, {
      payload: (row) => {
        cancelElsewhere(row.id); // lands while the payload is built, after the row was read
        return { kind: 'send', body: '{}' };
      },
    });
    await l.drain();
    expect(s.seen).toHaveLength(0);
    expect(rowOf(id!)).toMatchObject({ isSent: false, isErrored: true, tries: 0, error: 'cancelled' });
  });

  it('cancelled while its request is out, then acknowledged: recorded as sent, not as cancelled', async () => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    const s = await server(async (res) => {
      await answered;
      res.writeHead(202).end();
    });
    const [id] = enqueue(`${s.origin}/inbox`);
    const l = loop();
    await expect.poll(() => s.seen.length).toBe(1);
    cancelElsewhere(id!);
    release();
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ isSent: true, isErrored: false, tries: 1, lastStatusCode: 202, error: null });
    expect(s.seen).toHaveLength(1);
  });
});

describe('answers written together', () => {
  /** A loop over a client that answers every request at once (no network), recording the bodies. */
  function instantLoop(status: number, options: DeliveryLoopOptions = {}, onFetch?: (n: number) => void) {
    const sent: string[] = [];
    const client = {
      ...core.fed.client,
      fetch: async (_url: string | URL | Request, init?: RequestInit & { rawBody?: Uint8Array | null }) => {
        sent.push(new TextDecoder().decode(init?.rawBody ?? new Uint8Array()));
        onFetch?.(sent.length);
        return new Response(null, { status });
      },
    };
    const l = createDeliveryLoop({
      sqlite: core.sqlite,
      clock: () => new Date(now),
      client,
      connectivity: core.connectivity,
      signer: () => ({ keyId: new URL('http://127.0.0.1:9/#main-key'), privateKey: core.fed.keys.rsa.privateKey }),
      payload: (row) => ({ kind: 'send', body: JSON.stringify({ id: `urn:row:${row.id}`, type: 'Like' }) }),
      resolve: async () => ({ kind: 'retry', reason: 'no resolver' }),
      options: { random: () => 0.5, ...options },
    });
    loops.push(l);
    return { l, sent };
  }

  it('an answer is written before the queue is read again: one recipient’s rows go once each, in order', async () => {
    const ids = enqueue(...Array.from({ length: 6 }, () => 'http://127.0.0.1:9/u/inbox'));
    const { l, sent } = instantLoop(202);
    l.start();
    await l.drain();
    expect(sent.map((b) => (JSON.parse(b) as { id: string }).id)).toEqual(ids.map((id) => `urn:row:${id}`));
    expect(ids.map((id) => rowOf(id)).filter((row) => !(row.isSent && row.tries === 1 && row.lastStatusCode === 202))).toEqual([]);
  });

  it('drain() returns with every answer written, retries included', async () => {
    const ids = enqueue(...Array.from({ length: 10 }, (_, i) => `http://127.0.0.1:9/u${i}/inbox`));
    const { l } = instantLoop(503, { concurrency: 8, perHost: 8 });
    l.start();
    await l.drain();
    expect(ids.map((id) => rowOf(id)).filter((row) => !(!row.isSent && row.tries === 1 && row.lastStatusCode === 503 && row.nextTry!.getTime() > now))).toEqual([]);
  });

  it('an answer whose write waits for the other connection is not sent again meanwhile', async () => {
    // The main thread holds the file (a long transaction) when the answer is to be written: the
    // write fails with SQLITE_BUSY and stays queued. It lets go right after (as the loop logs).
    const other = openSqlite(core.paths.database);
    core.sqlite.pragma('busy_timeout = 50');
    try {
      const s = await server((res) => {
        if (s.seen.length === 1) other.exec('BEGIN IMMEDIATE');
        res.writeHead(202).end();
      });
      const [id] = enqueue(`${s.origin}/inbox`);
      const lines: string[] = [];
      const l = loop({}, undefined, {
        payload: () => ({ kind: 'send', body: '{}' }),
        log: (line) => {
          lines.push(line);
          if (other.inTransaction) other.exec('COMMIT');
        },
      });
      await expect.poll(() => rowOf(id!).isSent).toBe(true);
      await l.drain();
      expect(lines.some((line) => /locked|busy/i.test(line))).toBe(true); // the write did wait
      expect(s.seen).toHaveLength(1);
      expect(rowOf(id!)).toMatchObject({ isSent: true, tries: 1, lastStatusCode: 202 });
    } finally {
      core.sqlite.pragma('busy_timeout = 5000');
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  });

  it('quitting (stop, then the database closed at once) loses no answer already received, and sends nothing twice', async () => {
    // Right after the 5th answer is handled (a few promise steps later, in the same turn: as a
    // Quit arriving beside the answers would), the app quits as core.close() does: stop() not
    // awaited, the database closed at once. The answers of that turn are not written yet then.
    let answeredAtQuit = -1;
    let writtenAtQuit = -1;
    let quitDone: () => void = () => {};
    const quit = new Promise<void>((resolve) => (quitDone = resolve));
    const { l, sent } = instantLoop(202, { concurrency: 8, perHost: 8 }, (n) => {
      if (n !== 5) return;
      void (async () => {
        for (let i = 0; i < 50; i++) await Promise.resolve();
        answeredAtQuit = sent.length;
        writtenAtQuit = (core.sqlite.prepare('SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 1').get() as { n: number }).n;
        void l.stop({ graceMs: 0 });
        core.sqlite.close();
        quitDone();
      })();
    });
    const ids = enqueue(...Array.from({ length: 40 }, (_, i) => `http://127.0.0.1:9/u${i}/inbox`));
    l.start();
    await quit;
    const reopened = openSqlite(core.paths.database);
    try {
      const rows = reopened.prepare('SELECT id, is_sent AS sent, tries FROM outgoing_activity WHERE id >= ? ORDER BY id').all(ids[0]) as { id: number; sent: number; tries: number }[];
      // Every answer received before the quit is recorded as sent, once; the rest are due, untried.
      expect(answeredAtQuit).toBeGreaterThanOrEqual(5);
      expect(writtenAtQuit).toBeLessThan(answeredAtQuit); // some answers were still waiting to be written
      expect(rows.filter((r) => r.sent === 1)).toHaveLength(answeredAtQuit);
      expect(rows.every((r) => (r.sent === 1 ? r.tries === 1 : r.tries === 0))).toBe(true);
    } finally {
      reopened.close();
    }
  });
});

describe('recipients known only by address', () => {
  it('resolves an address first, then delivers to the inbox it resolved to', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const [id] = enqueue('acct:bob@example.com');
    const l = loop({}, async (row) => {
      core.db.update(outgoingActivity).set({ recipient: `${s.origin}/inbox` }).where(eq(outgoingActivity.id, row.id)).run();
      return { kind: 'resolved' };
    });
    await l.drain();
    expect(rowOf(id!)).toMatchObject({ isSent: true, recipient: `${s.origin}/inbox`, tries: 1 });
  });

  it('an address that does not exist fails every row waiting for it, with the reason', async () => {
    const ids = enqueue('acct:nobody@example.com', 'acct:nobody@example.com');
    await loop({}, async () => ({ kind: 'gone', reason: 'Could not find @nobody@example.com.' })).drain();
    for (const id of ids) expect(rowOf(id)).toMatchObject({ isErrored: true, error: 'Could not find @nobody@example.com.' });
  });

  it('holds a post’s other deliveries while a mention resolves, for a few tries only', async () => {
    const s = await server((res) => res.writeHead(202).end());
    const [acct, inbox] = enqueue('acct:bob@example.com', `${s.origin}/inbox`);
    const l = loop({ holdTries: 2 }, async () => ({ kind: 'retry', reason: 'example.com is down' }));
    await l.drain();
    expect(rowOf(acct!).tries).toBe(1);
    expect(s.seen).toHaveLength(0);
    await advanceTo(l, acct!);
    expect(rowOf(acct!).tries).toBe(2);
    expect(rowOf(inbox!).isSent).toBe(true); // held no longer
  });
});

describe('the wall clock set back (an NTP step, the author fixing a wrong date)', () => {
  it('a retry due 2 s later is still tried seconds later, not a day later; a retry an hour away stays an hour away', async () => {
    let calls = 0;
    const s = await server((res) => (calls++ === 0 ? res.writeHead(500).end() : res.writeHead(202).end()));
    const [soon, later] = enqueue(`${s.origin}/inbox/1`, `${s.origin}/inbox/2`);
    core.sqlite.prepare('UPDATE outgoing_activity SET tries = 5, next_try = ? WHERE id = ?').run(new Date(now + 3_600_000).toISOString(), later);
    let mono = 0;
    const l = loop({ monotonic: () => mono });
    await l.drain();
    expect(rowOf(soon!).tries).toBe(1); // a 500: its retry waits a couple of seconds
    const wait = rowOf(soon!).nextTry!.getTime() - now;
    expect(wait).toBeLessThan(60_000);
    now -= 24 * 3600 * 1000; // set back one day
    mono += 1_000;
    now += 1_000;
    await l.drain();
    // Each keeps what remained of its wait, counted on the new clock.
    expect(rowOf(later!).nextTry!.getTime()).toBe(now + 3_600_000 - 1_000); // a second of its hour has passed
    expect(rowOf(soon!).nextTry!.getTime()).toBeLessThanOrEqual(now + wait);
    now += wait;
    mono += wait;
    l.wake();
    await l.drain();
    expect(rowOf(soon!)).toMatchObject({ isSent: true, tries: 2 });
    expect(rowOf(later!).isSent).toBe(false);
  });
});
