// A small pool of signature-verifying workers (verify-worker.ts) for the inbox: the main thread
// keeps the prechecks, the key cache, the key fetches (through the one safe client) and the
// key-owner check; the workers run Fedify's verifyRequestDetailed with the key they are given.
// Size 0 (or workers that cannot start) means "verify inline": callers then use the main-thread
// path, which is also the answer to every job a worker did not verify. Workers start with the
// first job (a core that never receives an activity starts none) and take jobs once loaded;
// until then verification stays inline, so start-up adds no wait. The queue is bounded: past
// `maxQueued` jobs in flight, verify() answers 'busy' and the listener answers 503.
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HttpMessageSignaturesSpec } from '@fedify/fedify';
import type { VerifyAnswer, VerifyJob } from './verify-worker';

export type VerifyOutcome =
  /** Fedify verified the signature with the key given. */
  | 'verified'
  /** Not verified here (bad signature, other key, worker gone…): verify inline. */
  | 'inline'
  /** The queue is full: refuse for now (503). */
  | 'busy';

export interface VerifyParts {
  url: string;
  method: string;
  headers: Headers;
  body: Uint8Array | null;
  spec: HttpMessageSignaturesSpec;
  keyId: string;
  key: CryptoKey;
}

export interface VerifyPool {
  /** Workers configured (0: always inline). */
  readonly size: number;
  verify(parts: VerifyParts): Promise<VerifyOutcome>;
  /** Starts the workers; true once at least one is loaded and taking jobs (false: none can). */
  ready(): Promise<boolean>;
  readonly stats: { verified: number; inline: number; busy: number };
  close(): Promise<void>;
}

export interface VerifyPoolOptions {
  /** Workers; default min(2, cores - 1), at least 1. 0 verifies inline. */
  size?: number;
  /** Jobs in flight across the pool before 'busy'. Default 256. */
  maxQueued?: number;
  /** Keys remembered as sent, per worker. Default 10 000. */
  maxKeys?: number;
  /** Told once when a worker fails (the pool then verifies inline without it). */
  log?: (line: string) => void;
}

/** The default size: TERN_VERIFY_WORKERS when set, else min(2, cores - 1), at least 1. */
export function defaultVerifyWorkers(): number {
  const configured = Number(process.env.TERN_VERIFY_WORKERS);
  if (process.env.TERN_VERIFY_WORKERS !== undefined && Number.isInteger(configured) && configured >= 0) return configured;
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/**
 * Where the worker is: beside this module as verify-worker.ts when running from source (Node
 * strips its types), or verify-worker.mjs beside the bundle (dist/electron), unpacked from the
 * asar in a packaged app.
 */
export function verifyWorkerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./verify-worker.ts', here);
  const path = fileURLToPath(new URL('./verify-worker.mjs', here));
  return pathToFileURL(path.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2'));
}

interface Slot {
  worker: Worker | null;
  /** Loaded and taking jobs. */
  ready: boolean;
  dead: boolean;
  pending: Map<number, (outcome: VerifyOutcome) => void>;
  /** Which key object this worker was last sent under each keyId (insertion order: oldest first). */
  sent: Map<string, CryptoKey>;
  drop: string[];
}

export function createVerifyPool(options: VerifyPoolOptions = {}): VerifyPool {
  const size = options.size ?? defaultVerifyWorkers();
  const maxQueued = options.maxQueued ?? 256;
  const maxKeys = options.maxKeys ?? 10_000;
  const log = options.log ?? (() => {});
  const stats = { verified: 0, inline: 0, busy: 0 };
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: null, ready: false, dead: false, pending: new Map(), sent: new Map(), drop: [] }));
  // Told whenever a worker becomes ready or dies (ready() waits on these).
  let changed: Array<() => void> = [];
  const notify = () => {
    const waiting = changed;
    changed = [];
    for (const wake of waiting) wake();
  };
  let nextId = 1;
  let inFlight = 0;
  let closed = false;

  const fail = (slot: Slot, why: string) => {
    if (slot.dead) return;
    slot.dead = true;
    slot.ready = false;
    notify();
    log(`verify worker stopped (${why}); verifying on the main thread instead`);
    for (const resolve of slot.pending.values()) resolve('inline');
    slot.pending.clear();
    void slot.worker?.terminate();
    slot.worker = null;
  };

  const start = (slot: Slot): Worker | null => {
    if (slot.worker !== null || slot.dead) return slot.worker;
    let worker: Worker;
    try {
      worker = new Worker(verifyWorkerUrl());
    } catch (error) {
      fail(slot, (error as Error).message);
      return null;
    }
    worker.unref();
    worker.on('message', (answer: VerifyAnswer) => {
      if ('ready' in answer) {
        slot.ready = true;
        notify();
        return;
      }
      const resolve = slot.pending.get(answer.id);
      if (resolve === undefined) return;
      slot.pending.delete(answer.id);
      resolve(answer.verified ? 'verified' : 'inline');
    });
    worker.on('error', (error) => fail(slot, error.message));
    worker.on('exit', (code) => {
      if (!closed) fail(slot, `exit ${code}`);
    });
    slot.worker = worker;
    return worker;
  };

  return {
    size,
    stats,
    async ready() {
      for (;;) {
        if (closed) return false;
        for (const slot of slots) start(slot);
        if (slots.some((s) => s.ready)) return true;
        if (slots.every((s) => s.dead)) return false;
        await new Promise<void>((wake) => changed.push(wake));
      }
    },

    async verify(parts) {
      if (closed) {
        stats.inline++;
        return 'inline';
      }
      for (const slot of slots) start(slot);
      const live = slots.filter((s) => s.ready && s.worker !== null);
      if (live.length === 0) {
        stats.inline++;
        return 'inline';
      }
      if (inFlight >= maxQueued) {
        stats.busy++;
        return 'busy';
      }
      let slot = live[0]!;
      for (const s of live) if (s.pending.size < slot.pending.size) slot = s;
      const worker = slot.worker!;

      const job: VerifyJob = {
        id: nextId++,
        url: parts.url,
        method: parts.method,
        headers: [...parts.headers],
        // A view into a larger buffer (node's pooled chunks) would be cloned whole: send its bytes.
        body: parts.body === null || (parts.body.byteOffset === 0 && parts.body.byteLength === parts.body.buffer.byteLength) ? parts.body : parts.body.slice(),
        spec: parts.spec,
        keyId: parts.keyId,
      };
      if (slot.sent.get(parts.keyId) !== parts.key) {
        job.key = parts.key;
        slot.sent.delete(parts.keyId);
        slot.sent.set(parts.keyId, parts.key);
        while (slot.sent.size > maxKeys) {
          const oldest = slot.sent.keys().next().value;
          if (oldest === undefined) break;
          slot.sent.delete(oldest);
          slot.drop.push(oldest);
        }
      }
      if (slot.drop.length > 0) {
        job.drop = slot.drop;
        slot.drop = [];
      }
      inFlight++;
      const outcome = await new Promise<VerifyOutcome>((resolve) => {
        slot.pending.set(job.id, resolve);
        try {
          worker.postMessage(job);
        } catch (error) {
          slot.pending.delete(job.id);
          resolve('inline');
          fail(slot, (error as Error).message);
        }
      }).finally(() => inFlight--);
      stats[outcome]++;
      return outcome;
    },
    async close() {
      closed = true;
      const workers = slots.map((s) => s.worker).filter((w): w is Worker => w !== null);
      for (const slot of slots) {
        for (const resolve of slot.pending.values()) resolve('inline');
        slot.pending.clear();
        slot.worker = null;
        slot.ready = false;
      }
      notify();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
