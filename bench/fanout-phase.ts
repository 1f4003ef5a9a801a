// Fan-out phase: 1,000 followers on 100 loopback servers (10 each, every follower with its own
// inbox, no shared inbox) are stored as the processor would store accepted Follows; then one
// post through the author's real compose path (createPost: the post and its outgoing_activity
// rows in one transaction) and the core's delivery loop, started and drained. Every server is
// then checked for its 10 requests, and one request per server is verified with verifyInbound,
// the check Tern's own inbox makes, with the key fetched from Tern's listener.
// For comparison: a second post to the same followers (the code optimised by then), the same
// 1,000 requests with signedFetch alone (no queue, no bookkeeping, no limit per server), and the
// lean floor (node:crypto signs on the thread pool, bare node:http posts), all at the loop's
// concurrency. Then two posts to HTTPS followers through the loop (tlsRounds).
import { KeyObject } from 'node:crypto';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { eq, sql } from 'drizzle-orm';
import { follower, outgoingActivity } from '../db/schema';
import type { DbOrTx } from '../db/client';
import { saveActor } from '../electron/core/federation/actors';
import { persistInboxObject } from '../electron/core/federation/process/store';
import { deliveryPayload } from '../electron/core/federation/outbox';
import { createKeyCache, keyBelongsToActor, signedFetch, verifyInbound } from '../electron/core/net/signatures';
import { noHooks, type PartHooks } from './inbox-phase';
import { cpuByThreadKind, cpuByThreadKindSince, perUnit, waitedByKind, waitsWith } from './thread-cpu';
import { watchMainThread, type MainThreadFeel } from './main-thread';
import type { Remote } from './remote-client';
import type { InboxServerStatsReply } from './remote-protocol';
import type { BenchTern } from './tern';
import type { DeliveryWorkerHost } from '../electron/core/delivery/worker-host';
import { eachInFlight, leanRound } from './lean-fanout';
import type { LeanWorkerData, LeanWorkerReply } from './lean-worker';

export interface FanoutOptions {
  servers: number;
  followersPerServer: number;
  /** Requests in flight for the signedFetch-only comparison. */
  baselineConcurrency: number;
  samplesToVerify: number;
  /** HTTPS servers for the TLS comparison (one delivery each, a new connection each). */
  tlsServers: number;
}

export interface Delivered {
  wallMs: number;
  perSec: number;
  cpuUsPerDelivery: number;
  /** Of which on the main thread (the rest: signing on libuv's thread pool, GC threads). */
  mainThreadCpuUsPerDelivery: number;
  /** The loopback receivers' CPU per request (the remote process, on the same cores). */
  receiverCpuUsPerDelivery: number;
  /** µs per delivery by thread kind (thread-cpu.ts); empty where /proc is not there. */
  byThread: string;
  /** ms per second each thread kind (and the receivers' process) waited for a core while
   * runnable (schedstat), its threads summed; empty where the kernel does not say. */
  waitedForCore: string;
  serversReached: number;
  serversWithAll: number;
  /** Connections the receivers accepted meanwhile (a kept-alive one is not counted again). */
  connections: number;
  received: number;
  distinctInboxes: number;
  withSignature: number;
  withSignatureInput: number;
}

export interface FanoutResult {
  options: FanoutOptions;
  /** createPost: the post and its outgoing_activity rows, one transaction. */
  composeMs: number;
  /** From the post's rows to the delivery worker up (it starts with the first rows), or null
   * for the loop on the main thread. Under tsx here; the built app's worker loads a bundle. */
  workerStartMs: number | null;
  rows: number;
  loop: (Delivered & { rowStates: Record<string, number>; feel: MainThreadFeel }) | { unavailable: string };
  /** The same fan-out for a second post, right after the first. */
  secondPost: Delivered | null;
  baseline: Delivered;
  /** The least a delivery costs: node:crypto signs on the thread pool, node:http posts (lean). */
  lean: Delivered;
  /** The lean floor in a fresh worker thread: its first round cold, its second warm. */
  coldLean: { rounds: Array<{ perSec: number; cpuUsPerDelivery: number; receiverCpuUsPerDelivery: number }>; received: number } | { unavailable: string };
  /** One signed POST to each of `tlsServers` HTTPS servers, a new connection each, twice: full
   * handshakes, then the same servers again with the sessions the client kept. */
  tls: { rounds: TlsRound[] } | { unavailable: string };
  verified: { checked: number; ok: number; failures: string[] };
}

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** Stores `inboxes.length` followers, each a Person with its own inbox and an accepted Follow. */
function seedFollowers(db: DbOrTx, tern: BenchTern, inboxes: string[]): void {
  const now = tern.core.clock();
  inboxes.forEach((inbox, i) => {
    const id = inbox.replace(/\/inbox$/, '');
    const actorRow = saveActor(db, { id, type: 'Person', preferredUsername: `follower${i}`, inbox, followers: `${id}/followers` }, `@follower${i}@${new URL(id).host}`, now);
    const follow = persistInboxObject(db, {
      object: { id: `${id}#follow`, type: 'Follow', actor: id, object: tern.local.id },
      apId: `${id}#follow`,
      actor: actorRow,
      now,
    });
    db.insert(follower).values({ createdAt: now, updatedAt: now, actorId: actorRow.id, inboxObjectId: follow.id, apActorId: id }).run();
  });
}

const mainThreadMicros = (since: NodeJS.CpuUsage) => {
  const used = process.threadCpuUsage(since);
  return used.user + used.system;
};

/** Runs `work`: its wall time, the process's CPU and the main thread's (µs), and how long each
 * thread kind (and the receivers' process, `receivers`) waited for a core (ms per s). */
async function measured(
  work: () => Promise<void>,
  receivers?: number,
): Promise<{ wallMs: number; cpu: number; mainCpu: number; byThread: Map<string, number>; waitedForCore: string }> {
  const child = { pid: receivers, kind: 'the receivers’ process' };
  const waitsBefore = waitsWith(child);
  const threadsBefore = cpuByThreadKind();
  const cpuStart = process.cpuUsage();
  const mainStart = process.threadCpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  return {
    wallMs,
    cpu: cpuMicros(cpuStart),
    mainCpu: mainThreadMicros(mainStart),
    byThread: cpuByThreadKindSince(threadsBefore),
    waitedForCore: perUnit(waitedByKind(waitsWith(child), waitsBefore), wallMs),
  };
}

function delivered(
  stats: InboxServerStatsReply,
  wallMs: number,
  cpu: number,
  mainCpu: number,
  expectedPerServer: number,
  byThread?: Map<string, number>,
  waitedForCore = '',
): Delivered {
  const counts = Object.values(stats.perServer);
  return {
    wallMs,
    waitedForCore,
    byThread: byThread === undefined ? '' : perUnit(byThread, stats.total),
    perSec: stats.total / (wallMs / 1000),
    cpuUsPerDelivery: cpu / Math.max(1, stats.total),
    mainThreadCpuUsPerDelivery: mainCpu / Math.max(1, stats.total),
    receiverCpuUsPerDelivery: stats.cpuUs / Math.max(1, stats.total),
    serversReached: counts.length,
    connections: stats.connections,
    serversWithAll: counts.filter((n) => n === expectedPerServer).length,
    received: stats.total,
    distinctInboxes: stats.distinctPaths,
    withSignature: stats.withSignature,
    withSignatureInput: stats.withSignatureInput,
  };
}

async function verifySamples(tern: BenchTern, stats: InboxServerStatsReply): Promise<FanoutResult['verified']> {
  const keyCache = createKeyCache({ contextLoader: tern.core.fed.contextLoader });
  const failures: string[] = [];
  let ok = 0;
  for (const sample of stats.samples) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(sample.headers)) {
      if (!['connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers.set(name, value);
    }
    const request = new Request(sample.url, { method: sample.method, headers, body: sample.body });
    const result = await verifyInbound(request, {
      documentLoader: tern.core.fed.documentLoader,
      contextLoader: tern.core.fed.contextLoader,
      keyCache,
    });
    if (result.ok && keyBelongsToActor(result.ownerActorId, tern.local.id)) ok++;
    else failures.push(`${sample.url}: ${result.ok ? `owner ${result.ownerActorId}` : result.reason}`);
  }
  return { checked: stats.samples.length, ok, failures: failures.slice(0, 5) };
}

export async function runFanout(tern: BenchTern, remote: Remote, options: FanoutOptions, hooks: PartHooks = noHooks): Promise<FanoutResult> {
  const { core } = tern;
  const { origins } = await remote.ask({ type: 'startInboxServers', servers: options.servers }, 'inboxServersReady');
  const recipients = origins.flatMap((origin) =>
    Array.from({ length: options.followersPerServer }, (_, k) => `${origin}/users/follower${k}/inbox`),
  );
  await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');
  core.db.transaction((tx) => seedFollowers(tx, tern, recipients));

  // The loop runs before the post is written, as in the app, while the author works offline:
  // the post's rows start the delivery worker (an app with nothing to send has none), and the
  // measure starts when the network comes back, with the worker up.
  const loop = core.loops.delivery;
  core.settings.update({ workOffline: true });
  loop.start();

  // Compose: the post and one outgoing_activity row per follower inbox, in one transaction.
  const composeStart = performance.now();
  const post = await core.services.author.createPost({ content: 'Hello, 1,000 followers.', visibility: 'PUBLIC' });
  const composeMs = performance.now() - composeStart;
  const rows = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE outbox_object_id = ${post.id}`).n;
  const workerStart = performance.now();
  const worker = loop as Partial<DeliveryWorkerHost>;
  await worker.ready?.();
  const workerStartMs = worker.ready ? performance.now() - workerStart : null;

  let loopResult: FanoutResult['loop'];
  let samples: InboxServerStatsReply | null = null;
  try {
    await hooks.start('fan-out loop');
    const watch = watchMainThread(core);
    let feel: MainThreadFeel | undefined;
    const { wallMs, cpu, mainCpu, byThread, waitedForCore } = await measured(() => {
      core.settings.update({ workOffline: false });
      if (!core.connectivity.isOnline()) throw new Error('the connectivity watch says offline');
      return loop.drain();
    }, remote.pid).finally(() => (feel = watch.stop()));
    await hooks.stop();
    const stats = await remote.ask({ type: 'inboxServerStats', samples: options.samplesToVerify, reset: true }, 'inboxServerStatsReply');
    samples = stats;
    const states = core.db.all<{ state: string; n: number }>(sql`
      SELECT CASE WHEN is_sent = 1 THEN 'sent' WHEN is_errored = 1 THEN 'errored' ELSE 'pending' END AS state, count(*) AS n
      FROM outgoing_activity WHERE outbox_object_id = ${post.id} GROUP BY 1`);
    loopResult = { ...delivered(stats, wallMs, cpu, mainCpu, options.followersPerServer, byThread, waitedForCore), rowStates: Object.fromEntries(states.map((s) => [s.state, s.n])), feel: feel! };
  } catch (error) {
    await hooks.stop();
    loopResult = { unavailable: (error as Error).message };
  }

  // A second post to the same followers: the delivery path's code is optimised by now (the
  // first post also paid for V8 compiling it), as for every post after the first in a session.
  let secondPost: Delivered | null = null;
  if (!('unavailable' in loopResult)) {
    await core.services.author.createPost({ content: 'Hello again, 1,000 followers.', visibility: 'PUBLIC' });
    await hooks.start('fan-out second post');
    const { wallMs, cpu, mainCpu, byThread, waitedForCore } = await measured(() => loop.drain(), remote.pid);
    await hooks.stop();
    const stats = await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');
    secondPost = delivered(stats, wallMs, cpu, mainCpu, options.followersPerServer, byThread, waitedForCore);
  }

  // The same requests with signedFetch alone: the signing + HTTP floor of a delivery.
  const firstRow = core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, post.id)).get();
  const payload = firstRow ? deliveryPayload(core.db, tern.local, firstRow) : null;
  if (payload?.kind !== 'send') throw new Error('no payload for the post');
  const signer = { keyId: new URL(tern.local.keyId), privateKey: core.fed.keys.rsa.privateKey };
  await hooks.start('fan-out signedFetch alone');
  const baseline = await measured(() =>
    eachInFlight(recipients, options.baselineConcurrency, async (url) => {
      const request = new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: payload.body });
      const response = await signedFetch(core.fed.client, request, signer);
      await response.body?.cancel();
    }),
  );
  await hooks.stop();
  const baselineStats = await remote.ask({ type: 'inboxServerStats', samples: options.samplesToVerify, reset: true }, 'inboxServerStatsReply');

  // The lean floor, in the same run: a draft-cavage signature made by node:crypto on the thread
  // pool (one RSA sign, as Tern's), then a bare node:http POST with a keep-alive agent. No
  // Fedify, no queue, no SSRF guard, no bookkeeping: what Tern's fan-out is divided by.
  const lean = await leanFanout(recipients, payload.body, KeyObject.from(core.fed.keys.rsa.privateKey), tern.local.keyId, options.baselineConcurrency);
  const leanStats = await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');

  // The same lean floor on a new thread, as Tern's delivery worker is at its first post.
  let coldLean: FanoutResult['coldLean'];
  try {
    const reply = await coldLeanFanout({
      recipients,
      body: payload.body,
      keyPem: KeyObject.from(core.fed.keys.rsa.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
      keyId: tern.local.keyId,
      concurrency: options.baselineConcurrency,
    });
    const stats = await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');
    if ('error' in reply) throw new Error(reply.error);
    const n = recipients.length;
    coldLean = {
      rounds: reply.rounds.map((r) => ({ perSec: n / (r.wallMs / 1000), cpuUsPerDelivery: r.cpuUs / n, receiverCpuUsPerDelivery: stats.cpuUs / Math.max(1, stats.total) })),
      received: stats.total,
    };
  } catch (error) {
    coldLean = { unavailable: (error as Error).message };
  }

  // The loop kept running meanwhile, idle, as in the app (a delivery worker stays up, warm).
  let tls: FanoutResult['tls'];
  try {
    tls = { rounds: await tlsRounds(tern, remote, options, hooks) };
  } catch (error) {
    tls = { unavailable: (error as Error).message };
  } finally {
    await loop.stop();
  }

  return {
    options,
    composeMs,
    workerStartMs,
    rows,
    loop: loopResult,
    secondPost,
    baseline: delivered(baselineStats, baseline.wallMs, baseline.cpu, baseline.mainCpu, options.followersPerServer),
    lean: delivered(leanStats, lean.wallMs, lean.cpu, lean.mainCpu, options.followersPerServer),
    coldLean,
    tls,
    verified: await verifySamples(tern, samples !== null && samples.samples.length > 0 ? samples : baselineStats),
  };
}

/** One post's deliveries over TLS: how many resumed a kept session, and the main thread meanwhile. */
export type TlsRound = Delivered & { resumed: number; feel: MainThreadFeel };

/**
 * Real servers are reached over TLS, and posts minutes apart find no connection still open:
 * each delivery pays a handshake. Here `tlsServers` HTTPS servers (each closing its connection
 * after answering) are the only followers, one shared inbox each, and two posts go to them
 * through the core's delivery loop as it runs in the app (its client trusts the bench's test
 * certificate: the core option trustedCa). The first pays full handshakes; the second finds the
 * TLS sessions the client kept (the servers count the resumed ones).
 */

async function tlsRounds(tern: BenchTern, remote: Remote, options: FanoutOptions, hooks: PartHooks): Promise<TlsRound[]> {
  const { core } = tern;
  const { origins } = await remote.ask({ type: 'startInboxServers', servers: options.tlsServers, tls: true }, 'inboxServersReady');
  await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');
  core.db.transaction((tx) => {
    tx.delete(follower).run();
    seedFollowers(tx, tern, origins.map((origin) => `${origin}/inbox`));
  });
  const loop = core.loops.delivery;
  const rounds: TlsRound[] = [];
  for (let round = 1; round <= 2; round++) {
    await core.services.author.createPost({ content: `Over TLS, round ${round}.`, visibility: 'PUBLIC' });
    await hooks.start(`fan-out over TLS, round ${round}`);
    // The main thread while the post goes out, as for the first post above.
    const watch = watchMainThread(core);
    let feel: MainThreadFeel | undefined;
    const run = await measured(() => loop.drain()).finally(() => (feel = watch.stop()));
    await hooks.stop();
    const stats = await remote.ask({ type: 'inboxServerStats', samples: 0, reset: true }, 'inboxServerStatsReply');
    rounds.push({ ...delivered(stats, run.wallMs, run.cpu, run.mainCpu, 1), resumed: stats.tlsResumed, feel: feel! });
  }
  return rounds;
}

async function leanFanout(recipients: string[], body: string, key: KeyObject, keyId: string, concurrency: number): Promise<{ wallMs: number; cpu: number; mainCpu: number }> {
  const agent = new Agent({ keepAlive: true });
  const result = await measured(() => leanRound(recipients, body, key, keyId, concurrency, agent));
  agent.destroy();
  return result;
}

/** The lean floor in a fresh worker thread (lean-worker.ts): a first round with its code cold,
 * then a second, warm. What any Node code pays on a new thread, before Tern's own work. */
async function coldLeanFanout(data: LeanWorkerData): Promise<LeanWorkerReply> {
  const worker = new Worker(new URL('./lean-worker.ts', import.meta.url), {
    workerData: data,
    execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<LeanWorkerReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the lean worker exited (${code}) without answering`)));
      // A receiver that never answers would hold the run: both rounds take a few seconds.
      timer = setTimeout(() => reject(new Error(`the lean worker had not finished after ${LEAN_WORKER_LIMIT_MS / 1000} s`)), LEAN_WORKER_LIMIT_MS);
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

const LEAN_WORKER_LIMIT_MS = 120_000;
