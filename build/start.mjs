// npm start: opens the desktop app where Electron's binary is present (downloading it on first
// start where the network allows); where it cannot be had, says so in one line and runs
// headless mode on the default data folder, printing the URL to open. `--headless` forces it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const forceHeadless = args.includes('--headless');
const passThrough = args.filter((a) => a !== '--headless');

const built = spawnSync(process.execPath, [join(root, 'build/build.mjs'), '--if-needed'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

function electronBinary() {
  const dir = join(root, 'node_modules/electron');
  const pathFile = join(dir, 'path.txt');
  const found = () => existsSync(pathFile) && existsSync(join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()));
  if (found()) return join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(join(dir, 'install.js'))) return null;
  // First start on a machine with internet: fetch Electron's binary (what `electron` does lazily).
  const install = spawnSync(process.execPath, [join(dir, 'install.js')], { cwd: dir, stdio: 'pipe', timeout: 180_000 });
  return install.status === 0 && found() ? join(dir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;
}

const binary = forceHeadless ? null : electronBinary();
const child = binary
  ? spawn(binary, [root, ...passThrough], { stdio: 'inherit' })
  : (console.log(
      forceHeadless
        ? 'Starting Tern in headless mode.'
        : "Electron's binary is not installed here and could not be downloaded, so Tern runs in headless mode: open the link below in a browser.",
    ),
    spawn(process.execPath, [join(root, 'dist/electron/headless.mjs'), ...passThrough], { stdio: 'inherit' }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
