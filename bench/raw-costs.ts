// The floor the inbox is compared with: what one RSA-2048 verification (cached CryptoKey) and one
// 2 KB incoming_activity insert (better-sqlite3, the app's own pragmas: WAL, synchronous NORMAL,
// per-row autocommit as the listener does it) cost on this machine, measured here and now.
// Also one RSA-2048 signature: the floor of every signed delivery in the fan-out.
import { KeyObject, verify as verifySync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../db/client';
import { upgrade } from '../migrations/runner';

export interface RawCosts {
  /** µs per crypto.subtle.verify (RSASSA-PKCS1-v1_5, SHA-256, 2048-bit, key already imported):
   * what Fedify pays in time, including WebCrypto's hop to the thread pool and back. */
  verifyUs: number;
  /** µs per node:crypto verify with a KeyObject: OpenSSL's own cost of the same check, the floor. */
  verifyCpuUs: number;
  /** Verifications per second with 16 in flight (the thread pool may use both cores). */
  verifyParallelPerSec: number;
  /** µs per crypto.subtle.sign with the same key. */
  signUs: number;
  signParallelPerSec: number;
  /** µs per autocommitted INSERT of a ~2 KB ap_object into incoming_activity. */
  insertUs: number;
  payloadBytes: number;
}

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

async function timeSerial(runs: number, run: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(200, runs / 5); i++) await run();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return ((performance.now() - started) / runs) * 1000;
}

async function throughput(total: number, inFlight: number, run: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < total) await run();
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** A Create of about `bytes` bytes of JSON, shaped as Mastodon sends them. */
export function createPayload(bytes: number, n = 0): Record<string, unknown> {
  const actor = 'https://peer.example/users/alice';
  const base = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `${actor}/statuses/${n}/activity`,
    type: 'Create',
    actor,
    published: new Date(0).toISOString(),
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    cc: [`${actor}/followers`],
    object: {
      id: `${actor}/statuses/${n}`,
      type: 'Note',
      attributedTo: actor,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${actor}/followers`],
      content: '',
    },
  };
  const pad = Math.max(0, bytes - JSON.stringify(base).length - 7);
  base.object.content = `<p>${'x'.repeat(pad)}</p>`;
  return base;
}

export async function measureRawCosts(): Promise<RawCosts> {
  const pair = (await crypto.subtle.generateKey(
    { ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    false,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  // About the size of a draft-cavage signing string or an RFC 9421 signature base.
  const data = new TextEncoder().encode('x'.repeat(400));
  const signature = await crypto.subtle.sign(RSA, pair.privateKey, data);
  const verify = async () => {
    if (!(await crypto.subtle.verify(RSA, pair.publicKey, signature, data))) throw new Error('RSA verify failed');
  };
  const sign = () => crypto.subtle.sign(RSA, pair.privateKey, data);
  const verifyUs = await timeSerial(3000, verify);
  const keyObject = KeyObject.from(pair.publicKey);
  const signatureBytes = new Uint8Array(signature);
  const verifyCpuUs = await timeSerial(3000, () => {
    if (!verifySync('sha256', data, keyObject, signatureBytes)) throw new Error('RSA verify failed');
  });
  const verifyParallelPerSec = await throughput(6000, 16, verify);
  const signUs = await timeSerial(300, sign);
  const signParallelPerSec = await throughput(1000, 16, sign);

  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-raw-'));
  try {
    const sqlite = openSqlite(join(dir, 'raw.db'));
    upgrade(sqlite);
    const insert = sqlite.prepare(
      `INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored)
       VALUES (?, ?, ?, ?, 0, ?, 0, 0)`,
    );
    const payloads = Array.from({ length: 3000 }, (_, i) => JSON.stringify(createPayload(2048, i)));
    const now = new Date().toISOString().replace('Z', '+00:00');
    let i = 0;
    const insertUs = await timeSerial(2500, () => {
      const payload = payloads[i++ % payloads.length]!;
      insert.run(now, 'https://peer.example/users/alice', `id-${i}`, payload, now);
    });
    sqlite.close();
    return { verifyUs, verifyCpuUs, verifyParallelPerSec, signUs, signParallelPerSec, insertUs, payloadBytes: payloads[0]!.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
