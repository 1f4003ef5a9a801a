// Where one inbox POST's time goes, measured in-process without sockets: each step of the
// accept path run on its own, one at a time, with the sender's key already cached. Signed
// requests are replayed (verification keeps no nonce store, and incoming_activity has no unique
// ap_id), so only a few are signed. The loopback HTTP cost is what the accept phase measured
// beyond the in-process app.fetch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest, type HttpMessageSignaturesSpec } from '@fedify/fedify';
import { CryptographicKey } from '@fedify/vocab';
import { incomingActivity } from '../db/schema';
import { openCore } from '../electron/core/core';
import { inboundActivitySchema } from '../electron/core/federation/ap';
import { receiveInboxPost } from '../electron/core/federation/inbox';
import { createListenerApp } from '../electron/core/listener/app';
import { precheckSignedRequest } from '../electron/core/net/signature-precheck';
import { verifyInbound } from '../electron/core/net/signatures';
import { createPayload } from './raw-costs';

/** Mean per run: wall time, and CPU time of the whole process (thread pool included). */
export interface Cost {
  us: number;
  cpuUs: number;
}

export interface Breakdown {
  /** One at a time, in order. */
  steps: Array<{ step: string } & Cost>;
  /** The whole receiveInboxPost (parse, block list, verify, insert, events). */
  receive: Cost;
  /** The listener app in-process: Hono routing, body read, public URL, receiveInboxPost, 202. */
  appFetch: Cost;
  /** The same with 32 in flight: what the accept path could do without sockets. */
  appFetchConcurrent: { perSec: number; cpuUs: number };
}

const BASE = 'https://tern.example';

async function mean(runs: number, run: (i: number) => Promise<unknown> | unknown): Promise<Cost> {
  for (let i = 0; i < 100; i++) await run(i);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await run(i);
  const used = process.cpuUsage(cpu);
  return { us: ((performance.now() - started) / runs) * 1000, cpuUs: (used.user + used.system) / runs };
}

export async function measureInboxBreakdown(runs = 600): Promise<Breakdown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-bench-breakdown-'));
  const core = await openCore({ dataDir, mode: 'headless' });
  try {
    core.settings.update({ baseUrl: BASE, username: 'bench' });
    const templates: Array<{ url: string; headers: Headers; body: string }> = [];
    for (let a = 0; a < 4; a++) {
      const pair = (await crypto.subtle.generateKey(
        { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
        true,
        ['sign', 'verify'],
      )) as CryptoKeyPair;
      const actor = `https://peer${a}.example/users/alice`;
      const keyId = new URL(`${actor}#main-key`);
      await core.fed.keyCache.set(keyId, new CryptographicKey({ id: keyId, owner: new URL(actor), publicKey: pair.publicKey }));
      for (const spec of ['rfc9421', 'draft-cavage-http-signatures-12'] as HttpMessageSignaturesSpec[]) {
        const doc: Record<string, unknown> =
          a % 2 === 0
            ? { ...createPayload(2048, a), actor }
            : { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/likes/${a}`, type: 'Like', actor, object: `${BASE}/o/x` };
        const body = JSON.stringify(doc);
        const request = new Request(`${BASE}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
        const signed = await signRequest(request, pair.privateKey, keyId, { spec });
        templates.push({ url: signed.url, headers: signed.headers, body });
      }
    }
    const template = (i: number) => templates[i % templates.length]!;
    const make = (i: number) => {
      const t = template(i);
      return new Request(t.url, { method: 'POST', headers: t.headers, body: t.body });
    };
    const bytes = templates.map((t) => new TextEncoder().encode(t.body));
    const fedDeps = { documentLoader: core.fed.documentLoader, contextLoader: core.fed.contextLoader, keyCache: core.fed.keyCache };
    const steps: Breakdown['steps'] = [];
    const step = async (name: string, run: (i: number) => Promise<unknown> | unknown) => {
      steps.push({ step: name, ...(await mean(runs, run)) });
    };

    await step('new Request from headers + body (per copy)', (i) => make(i));
    await step('JSON.parse + inboundActivitySchema (zod)', (i) => {
      const parsed = inboundActivitySchema.safeParse(JSON.parse(new TextDecoder().decode(bytes[i % bytes.length])));
      if (!parsed.success) throw new Error('schema');
    });
    await step('precheck (dates, host coverage, digest)', async (i) => {
      const r = await precheckSignedRequest(make(i), Date.now(), 3_600_000);
      if (!r.ok) throw new Error(r.reason);
    });
    await step('verifyInbound (precheck + Fedify verify + owner)', async (i) => {
      const r = await verifyInbound(make(i), fedDeps);
      if (!r.ok) throw new Error(r.reason);
    });
    const now = new Date();
    await step('drizzle insert … returning().get() (as inbox.ts)', (i) =>
      core.db
        .insert(incomingActivity)
        .values({
          createdAt: now,
          sentByApActorId: 'https://peer0.example/users/alice',
          apId: `x-${i}`,
          apObject: JSON.parse(template(i).body) as Record<string, never>,
          tries: 0,
          nextTry: now,
          isProcessed: false,
          isErrored: false,
        })
        .returning()
        .get(),
    );
    const deps = { db: core.db, fed: core.fed, clock: core.clock, settings: () => core.settings.get() };
    const receive = await mean(runs, async (i) => {
      const r = await receiveInboxPost(deps, make(i), bytes[i % bytes.length]!);
      if (r.status !== 202) throw new Error(r.reason);
    });
    const app = createListenerApp(core);
    const appFetch = await mean(runs, async (i) => {
      const response = await app.fetch(make(i));
      if (response.status !== 202) throw new Error(`app answered ${response.status}: ${await response.text()}`);
    });
    let next = 0;
    const total = runs * 3;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const response = await app.fetch(make(next++));
          if (response.status !== 202) throw new Error(`app answered ${response.status}`);
        }
      }),
    );
    const perSec = total / ((performance.now() - started) / 1000);
    const used = process.cpuUsage(cpu);
    return { steps, receive, appFetch, appFetchConcurrent: { perSec, cpuUs: (used.user + used.system) / total } };
  } finally {
    core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
