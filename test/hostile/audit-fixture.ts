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
import { longestStall } from '../longest-stall';

export interface ScaledListener {
  core: Core;
  url: string;
  token: string;
  /** GETs `path` (bearer token unless `anonymous`), a warm-up first; the second is measured. */
  measure(path: string, options?: { anonymous?: boolean; accept?: string }): Promise<{ status: number; bytes: number; stallMs: number }>;
  close(): Promise<void>;
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
  return {
    core,
    url,
    token,
    async measure(path, options = {}) {
      await get(path, options);
      const { result, stallMs } = await longestStall(() => get(path, options));
      if (result instanceof Error) throw result;
      return { ...result, stallMs };
    },
    async close() {
      await core.listener.stop();
      core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
