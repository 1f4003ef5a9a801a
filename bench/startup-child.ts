// The process the start-up phase spawns (bundled by esbuild first, so no TypeScript loader is
// timed): `node startup-child.mjs <dataDir> core|parts`. Prints one JSON line.
//   core:  openCore({ dataDir, mode: 'headless' }) → services.status.get() → close, timed as one.
//   parts: the same steps openCore takes, one by one, to show where the time goes.
// The bundle's banner stores performance.now() before any bundled module runs (__ternT0), so
// Node's own bootstrap and the bundle's module load can be told apart.
import { openCore } from '../electron/core/core';
import { openSqlite, wrapDrizzle } from '../db/client';
import { HEAD, currentRevision, pendingRevisions } from '../migrations/runner';
import { dataPaths } from '../electron/core/paths';
import { createSettingsStore } from '../electron/core/settings';
import { loadKeyPair } from '../electron/core/net/key-files';
import { createHttpClient } from '../electron/core/net/http-client';
import { createStatusService } from '../electron/core/status';

const loaded = performance.now();
const bannerAt = (globalThis as { __ternT0?: number }).__ternT0 ?? 0;
const [dataDir, mode] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: startup-child <dataDir> core|parts');

const out: Record<string, unknown> = { nodeBootMs: bannerAt, moduleLoadMs: loaded - bannerAt };

if (mode === 'parts') {
  const steps: Record<string, number> = {};
  let t = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    steps[name] = now - t;
    t = now;
  };
  const paths = dataPaths(dataDir);
  const sqlite = openSqlite(paths.database);
  step('openSqlite (open + 4 pragmas)');
  currentRevision(sqlite);
  const pending = pendingRevisions(sqlite);
  step(`migration check (${pending.length} pending)`);
  wrapDrizzle(sqlite);
  step('wrapDrizzle');
  createSettingsStore(paths.settings).get();
  step('settings store + read');
  await loadKeyPair(paths.keys);
  step('loadKeyPair (import the keys)');
  const client = createHttpClient({ userAgent: 'Tern/bench', allowPrivateAddresses: false });
  step('createHttpClient');
  const status = createStatusService({ sqlite, paths, mode: 'headless', startedAt: new Date(), head: HEAD });
  step('status service (prepare counts)');
  const counts = status.get().counts;
  step('status.get() (all count(*)s)');
  client.close();
  sqlite.close();
  step('close');
  out.steps = steps;
  out.counts = counts;
} else {
  const t0 = performance.now();
  const core = await openCore({ dataDir, mode: 'headless' });
  const opened = performance.now();
  const status = core.services.status.get();
  const ready = performance.now();
  core.close();
  const closed = performance.now();
  Object.assign(out, {
    openCoreMs: opened - t0,
    statusMs: ready - opened,
    readyMs: ready - t0,
    closeMs: closed - ready,
    migrated: core.migration.applied.length > 0,
    inboxCount: status.counts.inbox,
  });
}
out.endMs = performance.now();
process.stdout.write(`${JSON.stringify(out)}\n`);
