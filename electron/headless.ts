// Headless mode: the same core without Electron. Serves the built renderer and the HTTP
// transport of the IPC contract on 127.0.0.1 only, behind a token, and prints the URL to open.
//   npm run headless -- --data-dir DIR [--ui-port N] [--token T]
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { UnknownDatabaseRevisionError } from '../migrations/runner';
import { openCore, type Core } from './core';
import { createHandlers } from './ipc/handlers';
import { createUiApp } from './ipc/http-transport';
import { defaultDataDir } from './paths';

export const DEFAULT_UI_PORT = 4860;

export interface HeadlessOptions {
  dataDir: string;
  uiPort: number;
  token: string;
  staticDir: string;
  log: (line: string) => void;
}

export interface Headless {
  core: Core;
  url: string;
  origin: string;
  close(): Promise<void>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseHeadlessArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Omit<HeadlessOptions, 'staticDir' | 'log'> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        'ui-port': { type: 'string' },
        token: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nUsage: npm run headless -- --data-dir DIR [--ui-port N] [--token T]`);
  }
  const port = values['ui-port'] === undefined ? DEFAULT_UI_PORT : Number(values['ui-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--ui-port must be a port number (0–65535), not “${values['ui-port']}”.`);
  const token = values.token ?? randomBytes(24).toString('hex');
  if (token.length < 16) throw new UsageError('--token must be at least 16 characters long.');
  return { dataDir: resolve(values['data-dir'] ?? defaultDataDir(env)), uiPort: port, token };
}

/** Where the built renderer is, whether this runs from dist/electron/ or from source. */
export function builtRendererDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.endsWith(join('dist', 'electron')) ? resolve(here, '../renderer') : resolve(here, '../dist/renderer');
}

export async function startHeadless(options: HeadlessOptions): Promise<Headless> {
  if (!existsSync(join(options.staticDir, 'index.html'))) {
    throw new UsageError(`The renderer is not built (no ${join(options.staticDir, 'index.html')}). Run: npm run build`);
  }
  const core = await openCore({ dataDir: options.dataDir, mode: 'headless', log: options.log });
  let allowed: string[] = [];
  const app = createUiApp({
    handlers: createHandlers(core),
    token: options.token,
    staticDir: options.staticDir,
    allowedHosts: () => allowed,
    onInternalError: (error) => options.log(`internal error: ${(error as Error)?.stack ?? String(error)}`),
  });
  let server: ServerType;
  const port = await new Promise<number>((resolvePort, reject) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: options.uiPort }, (info) => resolvePort(info.port));
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`Port ${options.uiPort} is already in use; choose another with --ui-port.`) : error),
    );
  });
  allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  const origin = `http://127.0.0.1:${port}`;
  return {
    core,
    origin,
    url: `${origin}/?token=${encodeURIComponent(options.token)}`,
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      core.close();
    },
  };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  let headless: Headless;
  try {
    const args = parseHeadlessArgs(process.argv.slice(2));
    headless = await startHeadless({ ...args, staticDir: builtRendererDir(), log });
    log(`Tern is running headless. Data folder: ${headless.core.paths.dir}`);
    log(`Open ${headless.url}`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnknownDatabaseRevisionError) {
      console.error(`tern: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    log(`Stopping (${signal})…`);
    headless.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

// Run when executed directly (node dist/electron/headless.mjs, tsx electron/headless.ts), not when imported.
const entry = process.argv[1] ? resolve(process.argv[1]) : '';
if (entry === fileURLToPath(import.meta.url)) void main();
