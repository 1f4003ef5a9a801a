import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleWorkerEnv, compileCacheFolder } from './compile-cache';
import { entryOptions } from './worker-host';

describe('compileCacheFolder', () => {
  const base = () => mkdtempSync(join(tmpdir(), 'tern-cache-test-'));

  it('makes <cache>/compile private to this user (0700), also when it was there, open', () => {
    const dir = base();
    try {
      const folder = compileCacheFolder({}, dir, { electron: false });
      expect(folder).toBe(join(dir, 'compile'));
      if (process.platform !== 'win32') {
        expect(statSync(folder!).mode & 0o777).toBe(0o700);
        chmodSync(folder!, 0o755);
        expect(compileCacheFolder({}, dir, { electron: false })).toBe(folder);
        expect(statSync(folder!).mode & 0o777).toBe(0o700);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes the entries of other Node versions, and keeps this one’s and anything else', () => {
    const dir = base();
    try {
      const old = join(dir, 'compile', 'v22.11.0-x64-1a2b3c4d-1000');
      const mine = join(dir, 'compile', `v${process.versions.node}-${process.arch}-5e6f7a8b-1000`);
      const other = join(dir, 'compile', 'notes');
      for (const folder of [old, mine, other]) mkdirSync(folder, { recursive: true });
      writeFileSync(join(old, 'abcd1234'), 'old code');
      expect(compileCacheFolder({}, dir, { electron: false })).toBe(join(dir, 'compile'));
      expect([existsSync(old), existsSync(mine), existsSync(other)]).toEqual([false, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform !== 'win32')('is none under a cache folder others may write to', () => {
    const dir = base();
    try {
      chmodSync(dir, 0o777);
      expect(compileCacheFolder({}, dir, { electron: false })).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is none in the desktop app, in an AppImage, or for a relative folder', () => {
    const dir = base();
    try {
      expect(compileCacheFolder({}, dir, { electron: true })).toBeNull();
      expect(compileCacheFolder({ APPIMAGE: '/home/a/Tern.AppImage' }, dir, { electron: false })).toBeNull();
      expect(compileCacheFolder({}, 'tern', { electron: false })).toBeNull();
      expect(existsSync(join(dir, 'compile'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bundleWorkerEnv', () => {
  it('turns on Node’s compile cache in the folder given and keeps the rest of the environment', () => {
    expect(bundleWorkerEnv({ PATH: '/bin', LANG: 'C' }, '/c/tern/compile')).toEqual({ PATH: '/bin', LANG: 'C', NODE_COMPILE_CACHE: '/c/tern/compile' });
  });

  it('keeps a compile cache folder the user chose', () => {
    expect(bundleWorkerEnv({ NODE_COMPILE_CACHE: '/mine' }, '/c/tern').NODE_COMPILE_CACHE).toBe('/mine');
  });

  it('sets nothing where there is no folder', () => {
    expect(bundleWorkerEnv({ PATH: '/bin' }, null)).toEqual({ PATH: '/bin' });
  });

  it('is given to workers that load a bundle, not to those run from sources under tsx', () => {
    expect(entryOptions({ file: 'w.cjs', execArgv: [], bundle: true }).env).toEqual(bundleWorkerEnv());
    expect(entryOptions({ file: 'w.ts', execArgv: ['--import', 'tsx'] })).toEqual({ execArgv: ['--import', 'tsx'] });
  });
});
