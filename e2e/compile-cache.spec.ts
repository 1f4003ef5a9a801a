// The built app's worker threads load their bundles through V8's on-disk compile cache, kept in
// Tern's per-user cache folder (electron/core/worker-host.ts bundleWorkerEnv): a worker started
// again (the delivery worker with a post's rows, the inbox checks worker with the first POST
// after a quiet spell) reads its compiled code instead of compiling 6–7 MB again.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startHeadless, TEST_IDENTITY } from './headless';

test('bundled workers keep their compiled code in Tern’s cache folder, not the data folder', async () => {
  const cache = await mkdtemp(join(tmpdir(), 'tern-cache-'));
  try {
    const tern = await startHeadless({ ...TEST_IDENTITY, env: { XDG_CACHE_HOME: cache } });
    // The inbox processor starts with the app (it is loading its bundle by now); Node writes a
    // worker's cache as the worker ends, so it is read after Tern stopped.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const dataDir = tern.dataDir;
    const inData = await readdir(dataDir, { recursive: true });
    await tern.stop();
    const cached = await readdir(join(cache, 'tern', 'compile'), { recursive: true });
    expect(cached.length, cached.join(', ')).toBeGreaterThan(1);
    expect(inData.filter((name) => name.includes('compile'))).toEqual([]);
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
});
