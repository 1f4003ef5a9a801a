// Starts Tern in headless mode as a child process for an end-to-end test: a fresh data folder,
// a random port and token, and the URL parsed from the line Tern prints when it is ready
// ("Open http://127.0.0.1:<port>/#token=<token>"; a place can follow it: `${url}#/stream`).
// `stop()` ends it with SIGTERM and waits.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const REPO = path.resolve(import.meta.dirname, '..');
/** The built headless entry (`npm run build`); overridable to run the specs against another build. */
const ENTRY = path.resolve(REPO, process.env.TERN_HEADLESS_ENTRY ?? 'dist/electron/headless.mjs');
const READY_LINE = /^Open (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)$/;
const LISTENER_LINE = /^Listener on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export interface Headless {
  /** The URL Tern printed, token included. */
  url: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  token: string;
  dataDir: string;
  /** Where the federation listener listens (with `listen`), else null. */
  listenerUrl: string | null;
  /** Ends Tern (SIGTERM, then SIGKILL if it lingers) and removes its data folder. Idempotent. */
  stop: () => Promise<void>;
}

export interface HeadlessOptions {
  /** Saved as the identity at start (--base-url, --username); leave out for the first-run setup. */
  baseUrl?: string;
  username?: string;
  /** Start the federation listener here (--listen), e.g. '127.0.0.1:0' for a free port. */
  listen?: string;
  /** Let the outbound client reach loopback peers (--allow-private-addresses); tests only. */
  allowPrivateAddresses?: boolean;
  /** Run on this data folder, which stop() then leaves in place (else a fresh one, removed). */
  dataDir?: string;
  /** More environment for Tern's process (e.g. XDG_CACHE_HOME). */
  env?: NodeJS.ProcessEnv;
}

/** The identity most specs start with, so they open straight into the app. */
export const TEST_IDENTITY = { baseUrl: 'https://tern.test', username: 'ana' } as const;

export async function startHeadless(options: HeadlessOptions = {}): Promise<Headless> {
  // realpath: on some systems the temp folder is a symlink, and Tern reports the resolved path.
  const dataDir = options.dataDir ?? (await realpath(await mkdtemp(path.join(tmpdir(), 'tern-e2e-'))));
  // In the environment, as the author would give it: a command line is readable by every user.
  const token = randomBytes(24).toString('hex');
  const args = [ENTRY, '--data-dir', dataDir, '--ui-port', '0'];
  if (options.baseUrl !== undefined) args.push('--base-url', options.baseUrl);
  if (options.username !== undefined) args.push('--username', options.username);
  if (options.listen !== undefined) args.push('--listen', options.listen);
  if (options.allowPrivateAddresses) args.push('--allow-private-addresses');
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env, NODE_ENV: 'test', TERN_TOKEN: token },
  });

  const output: string[] = [];
  const remember = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
    if (process.env.TERN_E2E_VERBOSE) console.log(`[headless] ${line}`);
  };
  // Both pipes are read to the end, so Tern can never block on a full pipe.
  createInterface({ input: child.stderr! }).on('line', remember);
  const stdout = createInterface({ input: child.stdout! });

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= kill(child, exited).finally(() => (options.dataDir === undefined ? rm(dataDir, { recursive: true, force: true }) : undefined)));

  try {
    let listenerUrl: string | null = null;
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Tern did not print its URL within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      let openUrl: string | null = null;
      stdout.on('line', (line) => {
        remember(line);
        openUrl ??= READY_LINE.exec(line.trim())?.[1] ?? null;
        listenerUrl ??= LISTENER_LINE.exec(line.trim())?.[1] ?? null;
        // With a listener, Tern prints where it listens right after the URL to open.
        if (openUrl && (options.listen === undefined || listenerUrl)) {
          clearTimeout(timer);
          resolve(openUrl);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Tern exited before it was ready (code ${code}, signal ${signal})`));
      });
    });
    return { url, origin: new URL(url).origin, token, dataDir, listenerUrl, stop };
  } catch (err) {
    await stop();
    const detail = output.length ? `\n--- its output ---\n${output.join('\n')}` : '';
    throw new Error(`${(err as Error).message} (${ENTRY})${detail}`, { cause: err });
  }
}

async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const lingered = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (lingered) {
    child.kill('SIGKILL');
    await exited;
  }
}
