// Validates the packaging configuration without running electron-builder (which needs the
// network): targets per OS, the files allowlist, what is unpacked from the asar, and the fuses
// the afterPack hook flips.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FuseV1Options, FuseVersion } from '@electron/fuses';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  asar: boolean;
  asarUnpack: string[];
  afterPack: string;
  directories: { output: string };
  linux: { target: string[]; icon: string; maintainer: string };
  mac: { target: string[] };
  win: { target: string[] };
  RUNTIME_MODULES: string[];
  bundledDependencies(): string[];
}
interface FusesHook {
  (context: unknown): Promise<void>;
  FUSES: Record<string, boolean>;
  fuseConfig(enums: { FuseVersion: typeof FuseVersion; FuseV1Options: typeof FuseV1Options }, platform: string): Record<string, unknown>;
  executablePath(context: { appOutDir: string; electronPlatformName: string; packager: { appInfo: { productFilename: string }; executableName: string } }): string;
}

const config = require('./electron-builder.config.cjs') as BuilderConfig;
const hook = require('./fuses.cjs') as FusesHook;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** A tiny glob → RegExp for the patterns used in the config (**, *, {a,b}). */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',') re += '|';
    else re += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** electron-builder's rule: the last matching pattern wins; a leading ! excludes. */
function included(path: string): boolean {
  let result = false;
  for (const pattern of config.files) {
    const negated = pattern.startsWith('!');
    const glob = negated ? pattern.slice(1) : pattern;
    const candidates = glob.includes('/') ? [path] : [path, path.split('/').at(-1) as string];
    if (candidates.some((p) => globToRegExp(glob).test(p))) result = !negated;
  }
  return result;
}

describe('electron-builder config', () => {
  it('names the app and writes packages to release/', () => {
    expect(config).toMatchObject({ appId: 'app.tern.desktop', productName: 'Tern', directories: { output: 'release' }, asar: true });
    expect(existsSync(join(root, config.linux.icon))).toBe(true);
    expect(config.linux.maintainer).toMatch(/<.+@.+>/);
  });

  it('builds AppImage and deb on Linux, dmg on macOS, nsis on Windows', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('the files allowlist takes the bundles, the renderer and package.json', () => {
    // The worker threads' scripts, each started from beside main.cjs: the inbox processor's,
    // the delivery loop's, the page reader's and the backup thread's.
    for (const path of [
      'package.json',
      'dist/electron/main.cjs',
      'dist/electron/preload.cjs',
      'dist/electron/inbox-worker.cjs',
      'dist/electron/delivery-worker.cjs',
      'dist/electron/source-worker.cjs',
      'dist/electron/backup-worker.cjs',
      'dist/renderer/index.html',
      'dist/renderer/assets/index-abc.js',
    ]) {
      expect(included(path), path).toBe(true);
    }
    expect(pkg.main).toBe('dist/electron/main.cjs');
  });

  it('and leaves out sources, tests, e2e, bench, source maps and the headless entry', () => {
    for (const path of [
      'electron/main.ts',
      'electron/shell/security.test.ts',
      'e2e/electron.spec.ts',
      'bench/run.ts',
      'test/fixtures.ts',
      'migrations/runner.ts',
      'renderer/App.tsx',
      'dist/electron/main.cjs.map',
      'dist/electron/inbox-worker.cjs.map',
      'dist/electron/headless.mjs',
      'README.md',
      'node_modules/foo/test/a.js',
    ]) {
      expect(included(path), path).toBe(false);
    }
  });

  it('ships the native modules (not excluded) and excludes the dependencies esbuild already bundled', () => {
    const excluded = config.bundledDependencies();
    for (const native of [...config.RUNTIME_MODULES, 'node-addon-api', 'detect-libc', 'semver']) expect(excluded).not.toContain(native);
    for (const bundled of ['hono', '@fedify/fedify', 'drizzle-orm', 'zod', 'marked']) {
      expect(excluded).toContain(bundled);
      expect(config.files).toContain(`!node_modules/${bundled}{,/**/*}`);
    }
    // build/build.mjs keeps exactly these external (besides electron): they must be shipped.
    const buildScript = readFileSync(join(root, 'build/build.mjs'), 'utf8');
    expect(buildScript).toMatch(/EXTERNAL = \['electron', 'better-sqlite3', 'sharp'\]/);
    expect(config.RUNTIME_MODULES).toEqual(['better-sqlite3', 'sharp']);
  });

  it('unpacks native modules from the asar', () => {
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/*.node', 'node_modules/better-sqlite3/**/*', 'node_modules/sharp/**/*', 'node_modules/@img/**/*']));
    const unpacked = (path: string) => config.asarUnpack.some((glob) => globToRegExp(glob).test(path));
    expect(unpacked('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(unpacked('node_modules/@img/sharp-linux-x64/lib/sharp-linux-x64.node')).toBe(true);
    expect(unpacked('node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.17.3')).toBe(true);
    expect(unpacked('dist/electron/main.cjs')).toBe(false);
  });

  it('the migrations travel inside the main bundle (no migrations folder is read at run time)', () => {
    const runner = readFileSync(join(root, 'migrations/runner.ts'), 'utf8');
    expect(runner).not.toMatch(/readdir|readFileSync/);
    const main = join(root, 'dist/electron/main.cjs');
    if (existsSync(main)) expect(readFileSync(main, 'utf8')).toContain('4ab54becec04');
  });

  it('npm run dist runs electron-builder with this config; electron-builder and @electron/fuses are pinned', () => {
    expect(pkg.scripts.dist).toBe('node build/build.mjs && electron-builder --config build/electron-builder.config.cjs');
    expect(pkg.devDependencies['electron-builder']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies['@electron/fuses']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('fuses (afterPack hook)', () => {
  it('the hook is the afterPack of the config and exists', () => {
    expect(config.afterPack).toBe('./build/fuses.cjs');
    expect(existsSync(join(root, config.afterPack))).toBe(true);
    expect(typeof hook).toBe('function');
  });

  it('sets exactly these fuses', () => {
    const fuses = hook.fuseConfig({ FuseVersion, FuseV1Options }, 'linux');
    const { version, resetAdHocDarwinSignature, ...wire } = fuses;
    expect(version).toBe(FuseVersion.V1);
    expect(resetAdHocDarwinSignature).toBe(false);
    expect(wire).toEqual({
      [FuseV1Options.RunAsNode]: false,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
      [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    });
    expect(hook.fuseConfig({ FuseVersion, FuseV1Options }, 'darwin').resetAdHocDarwinSignature).toBe(true);
  });

  it('finds the packaged binary on each platform', () => {
    const context = (platform: string) => ({ appOutDir: '/out', electronPlatformName: platform, packager: { appInfo: { productFilename: 'Tern' }, executableName: 'tern' } });
    expect(hook.executablePath(context('linux'))).toBe(join('/out', 'tern'));
    expect(hook.executablePath(context('darwin'))).toBe(join('/out', 'Tern.app'));
    expect(hook.executablePath(context('win32'))).toBe(join('/out', 'Tern.exe'));
  });
});
