// electron-builder configuration: Tern as an AppImage and a .deb on Linux, a .dmg on macOS and
// an NSIS installer on Windows. `npm run dist` (on a machine with internet: electron-builder
// downloads Electron and rebuilds better-sqlite3 for Electron's ABI).
//
// What goes in is an explicit allowlist: the bundles esbuild and Vite made (dist/electron,
// dist/renderer — the inbox worker's script beside main.cjs; the migrations are compiled into dist/electron/main.cjs) and package.json.
// Everything else the app needs is bundled, except the native modules (better-sqlite3, sharp
// and what they load), which stay in node_modules and are unpacked from the asar, since a
// .node file cannot be loaded from inside one. electron-builder always adds the production
// dependencies; those esbuild already bundled are excluded here, so only the natives ship.
// build/fuses.cjs flips Electron's fuses on the packaged binary (afterPack).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- electron-builder loads CommonJS config and hooks */
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The packages left external by build/build.mjs (besides electron) and loaded at run time. */
const RUNTIME_MODULES = ['better-sqlite3', 'sharp'];

function manifest(name) {
  const path = join(root, 'node_modules', name, 'package.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
}

/** `names` and everything they depend on (installed optional dependencies included). */
function closure(names) {
  const seen = new Set();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.shift();
    if (seen.has(name)) continue;
    seen.add(name);
    const m = manifest(name);
    if (!m) continue;
    for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies })) {
      if (manifest(dep)) queue.push(dep);
    }
  }
  return seen;
}

/** Production dependencies already inside the bundles: shipped twice if not excluded. */
function bundledDependencies() {
  const runtime = closure(RUNTIME_MODULES);
  return [...closure(Object.keys(pkg.dependencies ?? {}))].filter((name) => !runtime.has(name)).sort();
}

const config = {
  appId: 'app.tern.desktop',
  productName: 'Tern',
  executableName: 'tern',
  copyright: 'Tern contributors',
  directories: { output: 'release', buildResources: 'build/icons' },
  files: [
    'package.json',
    'dist/electron/main.cjs',
    'dist/electron/preload.cjs',
    'dist/electron/inbox-worker.cjs',
    'dist/electron/delivery-worker.cjs',
    'dist/electron/source-worker.cjs',
    'dist/electron/backup-worker.cjs',
    'dist/renderer/**/*',
    '!**/*.map',
    '!**/*.{ts,tsx,md,markdown}',
    '!**/{test,tests,__tests__,e2e,bench,docs,example,examples}/**',
    '!**/*.{test,spec}.*',
    ...bundledDependencies().map((name) => `!node_modules/${name}{,/**/*}`),
  ],
  asar: true,
  asarUnpack: ['**/*.node', 'node_modules/better-sqlite3/**/*', 'node_modules/sharp/**/*', 'node_modules/@img/**/*'],
  // Rebuild better-sqlite3 against Electron's headers (needs internet, as does Electron itself).
  npmRebuild: true,
  nodeGypRebuild: false,
  afterPack: './build/fuses.cjs',
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Network',
    icon: 'build/icons/icon.png',
    synopsis: 'Your own home on the fediverse, on the desktop',
    // .deb needs a maintainer; package.json has no author.
    maintainer: 'Tern contributors <tern@users.noreply.github.com>',
  },
  deb: { depends: ['libnotify4', 'libsecret-1-0'] },
  mac: { target: ['dmg'], category: 'public.app-category.social-networking', hardenedRuntime: true },
  dmg: { title: 'Tern' },
  win: { target: ['nsis'] },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
};

module.exports = config;
module.exports.RUNTIME_MODULES = RUNTIME_MODULES;
module.exports.bundledDependencies = bundledDependencies;
