// Audit support (not a test): a listening core over the bench's "years of the fediverse" rows
// (bench/scale-fixture.ts writeScaleData, the project's own scale fixture), its search index
// built before anything is measured, a token of every scope, and a measured GET; and a core
// without a listener over the same rows, with the window's IPC handlers and a measured call
// (scaledCore).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeScaleData, type ScaleOptions } from '../../bench/scale-fixture';
import { openCore, type Core } from '../../electron/core/core';
import { createHandlers, dispatch, type Handlers } from '../../electron/core/ipc/handlers';
import { createSearchIndexer } from '../../electron/core/search/indexer';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import type Database from 'better-sqlite3';
import { longestStall } from '../longest-stall';
import { STALL_LIMIT_MS } from './rig';

export interface ScaledListener {
  core: Core;
  url: string;
  token: string;
  /** GETs `path` (bearer token unless `anonymous`), a warm-up first; the second is measured. */
  measure(path: string, options?: { anonymous?: boolean; accept?: string }): Promise<{ status: number; bytes: number; stallMs: number }>;
  /** measure, up to three times while the stall is over STALL_LIMIT_MS: the suite runs files
   * side by side on two cores, and a step the scheduler takes the core from shows as a stall of
   * 100-200 ms (its CPU time 15-17 ms); the code before held the thread 450-980 ms each time. */
  measureBest(path: string, options?: { anonymous?: boolean; accept?: string }): Promise<{ status: number; bytes: number; stallMs: number }>;
  /** GETs `path` (bearer token unless `anonymous`), counting the JSON.parse calls meanwhile: the
   * listener runs in this process, and each stored document it reads (an actor, an activity, a
   * post) is one. */
  parsesOf(path: string, options?: { anonymous?: boolean }): Promise<{ status: number; body: string; parses: number }>;
  close(): Promise<void>;
}

type Sqlite = InstanceType<typeof Database>;
export type Statement = { source: string; args: unknown[] };

/** SQLite's plan for a recorded statement, as EXPLAIN QUERY PLAN's details. */
export function planOf(sqlite: Sqlite, statement: Statement): string[] {
  return (sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...statement.args) as { detail: string }[]).map((r) => r.detail);
}

/** Records every statement run on `sqlite` from now on, with its arguments, into the list it
 * returns (better-sqlite3 has no statement hook: the connection's prepare is wrapped, as
 * electron/core/ipc/query-plans.test.ts does). */
export function recordStatements(sqlite: Sqlite): Statement[] {
  const recorded: Statement[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const run = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, { value: (...args: unknown[]) => (recorded.push({ source, args }), run.apply(statement, args)) });
    }
    return statement;
  }) as typeof sqlite.prepare;
  return recorded;
}

export const SMALL: ScaleOptions = { inboxRows: 20_000, actors: 1000, outboxRows: 1_000, followers: 500, following: 100, notifications: 1000, outgoing: 1000, threads: 1, repliesPerThread: 200 };

export async function scaledListener(sizes: Partial<ScaleOptions>): Promise<ScaledListener> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-audit-'));
  await writeScaleData(dataDir, { ...SMALL, ...sizes });
  const core = await openCore({ dataDir, mode: 'headless', allowPrivateAddresses: false, listen: { host: '127.0.0.1', port: 0 } });
  const indexer = createSearchIndexer(core.sqlite);
  while (indexer.step(5_000));
  const url = core.listener.status().url ?? '';
  const token = await issueToken(url, core, ['read', 'write', 'follow', 'push', 'create', 'media', 'profile']);
  const get = async (path: string, options: { anonymous?: boolean; accept?: string }) => {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
    if (!options.anonymous) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${url}${path}`, { headers });
    return { status: res.status, bytes: (await res.text()).length };
  };
  const measure: ScaledListener['measure'] = async (path, options = {}) => {
    await get(path, options);
    const { result, stallMs } = await longestStall(() => get(path, options));
    if (result instanceof Error) throw result;
    return { ...result, stallMs };
  };
  return {
    core,
    url,
    token,
    measure,
    async measureBest(path, options = {}) {
      let best = await measure(path, options);
      for (let i = 0; i < 2 && best.stallMs >= STALL_LIMIT_MS; i++) {
        const again = await measure(path, options);
        if (again.stallMs < best.stallMs) best = again;
      }
      return best;
    },
    async parsesOf(path, options = {}) {
      const { result, parses } = await countingParses(async () => {
        const res = await fetch(`${url}${path}`, { headers: options.anonymous ? {} : { authorization: `Bearer ${token}` } });
        return { status: res.status, body: await res.text() };
      });
      return { ...result, parses };
    },
    async close() {
      await core.listener.stop();
      core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `work`, counting the JSON.parse calls meanwhile (each stored document read is one). */
export async function countingParses<T>(work: () => Promise<T>): Promise<{ result: T; parses: number }> {
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = ((...args: Parameters<typeof parse>) => {
    parses++;
    return parse(...args);
  }) as typeof JSON.parse;
  try {
    return { result: await work(), parses };
  } finally {
    JSON.parse = parse;
  }
}

/** A core over the bench's scale data (no listener), working offline, with the window's IPC
 * handlers, and the main thread's longest hold measured around one handler call. */
export interface ScaledCore {
  core: Core;
  handlers: Handlers;
  /** One call through dispatch between two timer turns (a synchronous handler holds the thread
   * for the whole call, and the timer must get a turn before and after it). */
  stallOf(channel: string, input: unknown): Promise<{ stallMs: number; value: unknown }>;
  /** A warm-up call, then up to three measured while over STALL_LIMIT_MS (`reset` before each,
   * the warm-up's too): the best. */
  bestStallOf(channel: string, input: unknown, reset?: () => void): Promise<number>;
  close(): void;
}

/** `extra`: hostile rows written before anything else reads the database; `searchIndex`: the
 * search index built over everything first. */
export async function scaledCore(sizes: Partial<ScaleOptions>, options: { extra?: (core: Core) => void; searchIndex?: boolean } = {}): Promise<ScaledCore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-audit-ipc-'));
  await writeScaleData(dataDir, { ...SMALL, ...sizes });
  const core = await openCore({ dataDir, mode: 'headless' });
  options.extra?.(core);
  if (options.searchIndex) {
    const indexer = createSearchIndexer(core.sqlite);
    while (indexer.step(5_000));
  }
  const handlers = createHandlers(core);
  await dispatch(handlers, 'connectivity.setWorkOffline', { workOffline: true });
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  const stallOf: ScaledCore['stallOf'] = async (channel, input) => {
    const { result, stallMs } = await longestStall(async () => {
      await pause();
      const answer = await dispatch(handlers, channel, input);
      await pause();
      return answer;
    });
    if (result instanceof Error) throw result;
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return { stallMs, value: result.value };
  };
  return {
    core,
    handlers,
    stallOf,
    async bestStallOf(channel, input, reset = () => {}) {
      reset();
      await stallOf(channel, input);
      let best = Infinity;
      for (let i = 0; i < 3 && best >= STALL_LIMIT_MS; i++) {
        reset();
        best = Math.min(best, (await stallOf(channel, input)).stallMs);
      }
      return best;
    },
    close() {
      core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
