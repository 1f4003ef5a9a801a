import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultCacheDir, defaultDataDir } from './paths';

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

describe('defaultCacheDir: variables that are no place', () => {
  it('takes the default for an empty or relative XDG_CACHE_HOME or LOCALAPPDATA', () => {
    const home = homedir();
    expect(defaultCacheDir({ XDG_CACHE_HOME: '' }, 'linux')).toBe(join(home, '.cache', 'tern'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'cache' }, 'linux')).toBe(join(home, '.cache', 'tern'));
    expect(defaultCacheDir({ LOCALAPPDATA: 'AppData' }, 'win32')).toBe(join(home, 'AppData', 'Local', 'Tern', 'Cache'));
  });
});
