// Builds what the app runs: the Electron main process and preload, the headless entry (all
// bundled by esbuild; native modules stay external) and the renderer (Vite).
//   node build/build.mjs            build everything
//   node build/build.mjs --if-needed  skip when dist/ is newer than every source file
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const SOURCES = ['electron', 'renderer', 'db', 'migrations', 'package.json', 'vite.config.ts', 'build/build.mjs'];
// Native or binary-carrying packages are loaded from node_modules at run time.
const EXTERNAL = ['electron', 'better-sqlite3', 'sharp'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const outputs = ['electron/main.cjs', 'electron/preload.cjs', 'electron/headless.mjs', 'electron/inbox-worker.cjs', 'electron/delivery-worker.cjs', 'electron/source-worker.cjs', 'electron/backup-worker.cjs', 'renderer/index.html'].map((p) => join(out, p));
if (process.argv.includes('--if-needed') && outputs.every(existsSync)) {
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  if (Math.max(...SOURCES.map((s) => newest(join(root, s)))) < built) process.exit(0);
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  external: EXTERNAL,
  logLevel: 'warning',
  absWorkingDir: root,
  // Modules that find files beside themselves read __filename first in CommonJS and
  // import.meta.url only under ESM (db/checkpointer.ts, worker-host.ts): in a CommonJS bundle
  // the empty import.meta is never read.
  logOverride: { 'empty-import-meta': 'silent' },
};
await Promise.all([
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: 'dist/electron/main.cjs',
    format: 'cjs',
  }),
  // A sandboxed preload may require only `electron`: everything else is bundled in.
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/electron/preload.cjs', format: 'cjs' }),
  // The inbox processor's worker thread, started by both the Electron main and headless from
  // beside their own bundle (inbox-worker-host.ts). CommonJS: Electron loads a worker script
  // from its asar archive through require.
  build({ ...common, entryPoints: ['electron/core/federation/inbox-worker.ts'], outfile: 'dist/electron/inbox-worker.cjs', format: 'cjs' }),
  // The delivery loop's worker thread (delivery/worker-host.ts), the same way.
  build({ ...common, entryPoints: ['electron/core/delivery/worker.ts'], outfile: 'dist/electron/delivery-worker.cjs', format: 'cjs' }),
  // Webmention source pages are parsed in a worker thread (electron/core/webmention/source-parse.ts).
  build({ ...common, entryPoints: ['electron/core/webmention/source-worker.ts'], outfile: 'dist/electron/source-worker.cjs', format: 'cjs' }),
  // Backups are written and read on a worker thread (data/backup.ts).
  build({ ...common, entryPoints: ['electron/core/data/backup-worker.ts'], outfile: 'dist/electron/backup-worker.cjs', format: 'cjs' }),
  build({
    ...common,
    entryPoints: ['electron/headless.ts'],
    outfile: 'dist/electron/headless.mjs',
    format: 'esm',
    // Bundled CommonJS dependencies may call require(); give ESM output one, and __dirname (webmention/source-parse.ts finds its worker beside the bundle).
    banner: {
      js: "import { createRequire as __ternCreateRequire } from 'node:module'; const require = __ternCreateRequire(import.meta.url); const __dirname = import.meta.dirname;",
    },
  }),
]);

const vite = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
});
if (vite.status !== 0) process.exit(vite.status ?? 1);
