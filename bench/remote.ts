// The bench's "rest of the fediverse", run as a child process (see remote-protocol.ts):
//  * a few remote actors on one loopback node:http server, serving their actor documents (with
//    publicKey) and WebFinger, counting every fetch so key caching can be checked;
//  * their activities, signed ahead of time with Fedify's signRequest (RFC 9421 and
//    draft-cavage alternately), then POSTed to Tern's inbox with bounded concurrency;
//  * the loopback inbox servers the fan-out delivers to, answering 202 after reading the body.
// Only 127.0.0.1, only servers started here or by the parent.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import type { Command, Reply, SampledRequest } from './remote-protocol';
import { createPayload } from './raw-costs';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

interface RemoteActor {
  id: string;
  keyId: URL;
  privateKey: CryptoKey;
  document: Record<string, unknown>;
}

interface Prepared {
  headers: Record<string, string>;
  body: Buffer;
}

const state = {
  actors: [] as RemoteActor[],
  actorServer: null as Server | null,
  actorGets: {} as Record<string, number>,
  prepared: [] as Prepared[],
  target: null as URL | null,
  inboxServers: [] as Server[],
};

function send(reply: Reply): void {
  process.send?.(reply);
}

async function listen(server: Server, scheme = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function drain(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    req.on('end', () => resolve(Buffer.alloc(0)));
    req.on('error', reject);
    req.resume();
  });
}

function json(res: ServerResponse, status: number, type: string, doc: unknown): void {
  const body = JSON.stringify(doc);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function pemOf(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('spki', key)).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${der.replace(/.{64}/g, '$&\n').trimEnd()}\n-----END PUBLIC KEY-----\n`;
}

async function setupActors(count: number): Promise<void> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/.well-known/webfinger') {
      state.actorGets.webfinger = (state.actorGets.webfinger ?? 0) + 1;
      const actor = state.actors.find((a) => a.id === url.searchParams.get('resource'));
      if (!actor) return json(res, 404, 'application/json', { error: 'not found' });
      const host = new URL(actor.id).host;
      return json(res, 200, 'application/jrd+json', {
        subject: `acct:${String(actor.document.preferredUsername)}@${host}`,
        aliases: [actor.id],
        links: [{ rel: 'self', type: 'application/activity+json', href: actor.id }],
      });
    }
    const actor = state.actors.find((a) => new URL(a.id).pathname === url.pathname);
    if (actor) {
      state.actorGets.actor = (state.actorGets.actor ?? 0) + 1;
      return json(res, 200, 'application/activity+json', actor.document);
    }
    state.actorGets.other = (state.actorGets.other ?? 0) + 1;
    json(res, 404, 'application/json', { error: 'not found' });
  });
  server.keepAliveTimeout = 30_000;
  const origin = await listen(server);
  state.actorServer = server;
  for (let i = 0; i < count; i++) {
    const pair = (await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const id = `${origin}/users/peer${i}`;
    state.actors.push({
      id,
      keyId: new URL(`${id}#main-key`),
      privateKey: pair.privateKey,
      document: {
        '@context': [AS, 'https://w3id.org/security/v1'],
        id,
        type: 'Person',
        preferredUsername: `peer${i}`,
        name: `Peer ${i}`,
        inbox: `${id}/inbox`,
        outbox: `${id}/outbox`,
        followers: `${id}/followers`,
        following: `${id}/following`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: await pemOf(pair.publicKey) },
      },
    });
  }
  send({ type: 'actorsReady', origin, actorIds: state.actors.map((a) => a.id) });
}

function activity(i: number, actor: RemoteActor, likeTargets: string[], createBytes: number): Record<string, unknown> {
  if (i % 2 === 1) {
    return {
      '@context': AS,
      id: `${actor.id}/likes/${i}`,
      type: 'Like',
      actor: actor.id,
      object: likeTargets[i % likeTargets.length],
    };
  }
  const doc = createPayload(createBytes, i);
  const object = doc.object as Record<string, unknown>;
  return {
    ...doc,
    id: `${actor.id}/statuses/${i}/activity`,
    actor: actor.id,
    cc: [`${actor.id}/followers`],
    object: { ...object, id: `${actor.id}/statuses/${i}`, attributedTo: actor.id, to: [PUBLIC], cc: [`${actor.id}/followers`] },
  };
}

async function presign(command: Extract<Command, { type: 'presign' }>): Promise<void> {
  const started = performance.now();
  state.target = new URL(command.inbox);
  state.prepared = new Array<Prepared>(command.count);
  const bySpec: Record<string, number> = {};
  const byType: Record<string, number> = {};
  let bytes = 0;
  let next = 0;
  const signOne = async (i: number) => {
    const actor = state.actors[i % state.actors.length]!;
    const doc = activity(i, actor, command.likeTargets, command.createBytes);
    const body = JSON.stringify(doc);
    // Alternate specs in pairs, so both types are signed with both specs.
    const spec: HttpMessageSignaturesSpec = command.spec ?? (Math.floor(i / 2) % 2 === 0 ? 'rfc9421' : 'draft-cavage-http-signatures-12');
    const unsigned = new Request(command.inbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json', 'user-agent': 'tern-bench-peer/1' },
      body,
    });
    const signed = await signRequest(unsigned, actor.privateKey, actor.keyId, { spec });
    const headers: Record<string, string> = {};
    signed.headers.forEach((value, name) => (headers[name] = value));
    state.prepared[i] = { headers, body: Buffer.from(body) };
    bySpec[spec] = (bySpec[spec] ?? 0) + 1;
    byType[String(doc.type)] = (byType[String(doc.type)] ?? 0) + 1;
    bytes += body.length;
  };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < command.count) await signOne(next++);
    }),
  );
  send({ type: 'presigned', count: command.count, ms: performance.now() - started, bySpec, byType, meanBodyBytes: bytes / command.count });
}

function post(agent: Agent, target: URL, item: Prepared, seq: number | null, onWritten?: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...item.headers, 'content-length': String(item.body.length), ...(seq === null ? {} : { 'x-bench-seq': String(seq) }) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (onWritten) req.once('finish', onWritten);
    req.end(item.body);
  });
}

async function blast(concurrency: number, from: number, to: number, trace: boolean): Promise<void> {
  const target = state.target;
  if (!target) throw new Error('presign first');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  // BENCH_ACCEPT_TRACE: when each request was sent (ms since the epoch, as the parent's clock
  // reads it) and its number, sent as an unsigned header so the listener's side can be matched.
  const trace_: Array<{ seq: number; sentAt: number; writtenAt: number; ms: number }> = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpuStart = process.cpuUsage();
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  let next = from;
  const end = Math.min(to, state.prepared.length);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < end) {
        const seq = next;
        const item = state.prepared[next++]!;
        const t0 = performance.now();
        try {
          let written = 0;
          const status = await post(agent, target, item, trace ? seq : null, trace ? () => (written = performance.now()) : undefined);
          const ms = performance.now() - t0;
          latencies.push(ms);
          if (trace) trace_.push({ seq, sentAt: performance.timeOrigin + t0, writtenAt: performance.timeOrigin + written, ms });
          statuses[status] = (statuses[status] ?? 0) + 1;
        } catch (error) {
          statuses.error = (statuses.error ?? 0) + 1;
          if (failures.length < 5) failures.push((error as Error).message);
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  loop.disable();
  const cpu = process.cpuUsage(cpuStart);
  agent.destroy();
  send({
    type: 'blastDone',
    sent: end - from,
    wallMs,
    statuses,
    latenciesMs: latencies,
    failures,
    ...(trace ? { trace: trace_, remote: { cpuUs: cpu.user + cpu.system, loopDelayP99Ms: loop.percentile(99) / 1e6, loopDelayMaxMs: loop.max / 1e6 } } : {}),
  });
}

const inboxStats = {
  perServer: {} as Record<string, number>,
  paths: new Set<string>(),
  total: 0,
  withSignature: 0,
  withSignatureInput: 0,
  firstAt: null as number | null,
  lastAt: null as number | null,
  samples: [] as SampledRequest[],
  sampledServers: new Set<string>(),
  cpuSince: process.cpuUsage(),
  tlsResumed: 0,
  connections: 0,
};

const tlsFixture = (name: string) => readFileSync(new URL(`../test/fixtures/tls/${name}`, import.meta.url), 'utf8');

async function startInboxServers(count: number, tls: boolean): Promise<void> {
  const origins: string[] = [];
  const tlsOptions = tls ? { key: tlsFixture('localhost-key.pem'), cert: tlsFixture('localhost-cert.pem') } : null;
  for (let i = 0; i < count; i++) {
    let origin = '';
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      if (tls && (req.socket as TLSSocket).isSessionReused()) inboxStats.tlsResumed++;
      // Only the sampled request's body is kept; the others are read and dropped.
      const sampling = !inboxStats.sampledServers.has(origin);
      void (sampling ? readBody(req) : drain(req)).then((body) => {
        const now = Date.now();
        inboxStats.total++;
        inboxStats.firstAt ??= now;
        inboxStats.lastAt = now;
        inboxStats.perServer[origin] = (inboxStats.perServer[origin] ?? 0) + 1;
        inboxStats.paths.add(`${origin}${req.url ?? ''}`);
        if (req.headers.signature !== undefined) inboxStats.withSignature++;
        if (req.headers['signature-input'] !== undefined) inboxStats.withSignatureInput++;
        // One sample per server, first come, so samples spread over servers.
        if (!inboxStats.sampledServers.has(origin)) {
          inboxStats.sampledServers.add(origin);
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
          inboxStats.samples.push({ url: `${origin}${req.url ?? ''}`, method: req.method ?? 'POST', headers, body: body.toString('utf8') });
        }
        res.writeHead(202, tls ? { 'content-length': '0', connection: 'close' } : { 'content-length': '0' });
        res.end();
      });
    };
    const server = tlsOptions === null ? createServer(handler) : createHttpsServer(tlsOptions, handler);
    server.on('connection', () => inboxStats.connections++);
    server.keepAliveTimeout = 30_000;
    origin = await listen(server, tls ? 'https' : 'http');
    state.inboxServers.push(server);
    origins.push(origin);
  }
  send({ type: 'inboxServersReady', origins });
}

function replyInboxStats(samples: number, reset: boolean): void {
  send({
    type: 'inboxServerStatsReply',
    perServer: { ...inboxStats.perServer },
    total: inboxStats.total,
    withSignature: inboxStats.withSignature,
    withSignatureInput: inboxStats.withSignatureInput,
    distinctPaths: inboxStats.paths.size,
    firstAt: inboxStats.firstAt,
    lastAt: inboxStats.lastAt,
    samples: inboxStats.samples.slice(0, samples),
    cpuUs: ((used) => used.user + used.system)(process.cpuUsage(inboxStats.cpuSince)),
    tlsResumed: inboxStats.tlsResumed,
    connections: inboxStats.connections,
  });
  if (reset) {
    inboxStats.perServer = {};
    inboxStats.paths.clear();
    inboxStats.total = inboxStats.withSignature = inboxStats.withSignatureInput = inboxStats.tlsResumed = inboxStats.connections = 0;
    inboxStats.firstAt = inboxStats.lastAt = null;
    inboxStats.samples = [];
    inboxStats.sampledServers.clear();
    inboxStats.cpuSince = process.cpuUsage();
  }
}

async function close(): Promise<void> {
  for (const server of [state.actorServer, ...state.inboxServers]) {
    if (!server) continue;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  process.disconnect?.();
}

process.on('message', (message: Command) => {
  const run = async () => {
    switch (message.type) {
      case 'setupActors':
        return setupActors(message.actors);
      case 'presign':
        return presign(message);
      case 'blast':
        return blast(message.concurrency, message.from, message.to, message.trace === true);
      case 'startInboxServers':
        return startInboxServers(message.servers, message.tls === true);
      case 'actorGets': {
        const gets = { ...state.actorGets };
        if (message.reset) state.actorGets = {};
        return send({ type: 'actorGetsReply', gets });
      }
      case 'inboxServerStats':
        return replyInboxStats(message.samples, message.reset);
      case 'close':
        return close();
    }
  };
  run().catch((error: unknown) => send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
});
