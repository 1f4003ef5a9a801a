// The built app's worker threads load their bundles through V8's on-disk compile cache, kept in
// Tern's per-user cache folder (electron/core/compile-cache.ts bundleWorkerEnv): a worker started
// again (the delivery worker with a post's rows, the inbox checks worker with the first POST
// after a quiet spell) reads its compiled code instead of compiling 6–7 MB again.
import { mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startHeadless, TEST_IDENTITY } from './headless';

test('bundled workers keep their compiled code in Tern’s cache folder, private, and not in the data folder', async () => {
  // XDG_CACHE_HOME places the cache folder on Linux only (elsewhere it is the OS's own).
  test.skip(process.platform !== 'linux', 'the cache folder is set through XDG_CACHE_HOME, a Linux variable');
  const cache = await realpath(await mkdtemp(join(tmpdir(), 'tern-cache-')));
  const dataDir = await realpath(await mkdtemp(join(tmpdir(), 'tern-data-')));
  try {
    // The runner's own compile cache settings, if any, are not Tern's to follow here.
    const tern = await startHeadless({ ...TEST_IDENTITY, dataDir, env: { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined } });
    // The inbox processor starts with the app (it is loading its bundle by now); Node writes a
    // worker's cache as the worker ends, so both folders are read after Tern stopped.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await tern.stop();
    const folder = join(cache, 'tern', 'compile');
    const cached = await readdir(folder, { recursive: true });
    expect(cached.length, cached.join(', ')).toBeGreaterThan(1);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await readdir(dataDir, { recursive: true })).filter((name) => name.includes('compile'))).toEqual([]);
  } finally {
    await rm(cache, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
});
