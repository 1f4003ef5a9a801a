import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultCacheDir, defaultDataDir } from './paths';
import { bundleWorkerEnv, entryOptions } from './worker-host';

describe('defaultCacheDir', () => {
  it('is the per-user cache folder of each OS, apart from the data folder', () => {
    const home = homedir();
    expect(defaultCacheDir({}, 'linux')).toBe(join(home, '.cache', 'tern'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux')).toBe(join('/x/cache', 'tern'));
    expect(defaultCacheDir({}, 'darwin')).toBe(join(home, 'Library', 'Caches', 'Tern'));
    expect(defaultCacheDir({ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local' }, 'win32')).toBe(join('C:\\Users\\a\\AppData\\Local', 'Tern', 'Cache'));
    for (const platform of ['linux', 'darwin', 'win32'] as const) expect(defaultCacheDir({}, platform)).not.toBe(defaultDataDir({}, platform));
  });
});

describe('bundleWorkerEnv', () => {
  it('turns on Node’s compile cache in Tern’s cache folder and keeps the rest of the environment', () => {
    expect(bundleWorkerEnv({ PATH: '/bin', LANG: 'C' }, '/c/tern')).toEqual({ PATH: '/bin', LANG: 'C', NODE_COMPILE_CACHE: join('/c/tern', 'compile') });
  });

  it('keeps a compile cache folder the user chose', () => {
    expect(bundleWorkerEnv({ NODE_COMPILE_CACHE: '/mine' }, '/c/tern').NODE_COMPILE_CACHE).toBe('/mine');
  });

  it('is given to workers that load a bundle, not to those run from sources under tsx', () => {
    expect(entryOptions({ file: 'w.cjs', execArgv: [], bundle: true }).env?.NODE_COMPILE_CACHE).toBe(bundleWorkerEnv().NODE_COMPILE_CACHE);
    expect(entryOptions({ file: 'w.ts', execArgv: ['--import', 'tsx'] })).toEqual({ execArgv: ['--import', 'tsx'] });
  });
});
