// Headless mode: the same core without Electron. Serves the built renderer and the HTTP
// transport of the IPC contract on 127.0.0.1 only, behind a token, and prints the URL to open
// (http://127.0.0.1:<port>/#token=…: in the fragment, which the browser never sends to a server).
//   npm run headless -- --data-dir DIR [--ui-port N] [--token-file FILE]
//     [--listen HOST:PORT] [--base-url URL] [--username NAME] [--allow-private-addresses]
//   (or the token in the environment: TERN_TOKEN=… npm run headless -- …; else a random one)
//   npm run headless -- --data-dir DIR --restore ARCHIVE   (restores a backup, then exits)
//   npm run headless -- --data-dir DIR --import-microblogpub FOLDER   (moves in, then exits)
// While it runs, its core can be reopened in place (core-host.ts): Settings restores a backup
// or moves in from microblog.pub that way. The author's tunnel runs as its child (tunnel/).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { UnknownDatabaseRevisionError } from '../migrations/runner';
import { openCore, type Core } from './core/core';
import { createCoreHost } from './core/core-host';
import { createTunnelRunner } from './core/tunnel/runner';
import { createUiApp } from './core/ipc/http-transport';
import { createUiMediaHandler } from './core/media/ui-routes';
import { defaultDataDir } from './core/paths';
import { ListenerStartError, type ListenerAddress } from './core/listener/server';
import { baseUrlSchema, USERNAME_RE } from './core/settings';
import { createSettingsService } from './core/settings-service';
import { BadInputError, ConflictError, UnavailableError } from './core/errors';
import { createBackupScheduler } from './core/data/backup-scheduler';
import { restoreBackup } from './core/data/backup';
import { importMicroblogPub } from './core/data/microblogpub-import';
import { CHANGE_KINDS, type ChangeKind } from './core/ipc/changes-contract';

export const DEFAULT_UI_PORT = 4860;
/** The environment variable a chosen token can be given in. */
export const TOKEN_ENV = 'TERN_TOKEN';
const USAGE =
  'Usage: npm run headless -- --data-dir DIR [--ui-port N] [--token-file FILE] [--listen HOST:PORT] [--base-url URL] [--username NAME] [--allow-private-addresses] [--restore ARCHIVE] [--import-microblogpub FOLDER]';

export interface HeadlessOptions {
  dataDir: string;
  uiPort: number;
  token: string;
  staticDir: string;
  log: (line: string) => void;
  /** Start the federation listener here (else: when enabled in settings). */
  listen?: ListenerAddress;
  /** Saved into settings when given. */
  baseUrl?: string;
  username?: string;
  /** Test only (loopback peers): the outbound client may reach private addresses. Never a setting. */
  allowPrivateAddresses?: boolean;
  /** Restore this backup archive into the data folder, then exit (no server). */
  restore?: string;
  /** Move in from this microblog.pub data/ folder, then exit (no server). */
  importMicroblogPub?: string;
}

export interface Headless {
  core: Core;
  url: string;
  origin: string;
  /** Where the federation listener listens, when it runs. */
  listenerUrl: string | null;
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
        'token-file': { type: 'string' },
        listen: { type: 'string' },
        'base-url': { type: 'string' },
        username: { type: 'string' },
        'allow-private-addresses': { type: 'boolean' },
        restore: { type: 'string' },
        'import-microblogpub': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const port = values['ui-port'] === undefined ? DEFAULT_UI_PORT : Number(values['ui-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--ui-port must be a port number (0–65535), not “${values['ui-port']}”.`);
  // Not on the command line: every local user can read a process's arguments (/proc/<pid>/cmdline).
  if (values.token !== undefined) {
    throw new UsageError(`--token is not taken: other users of this machine can read a command line. Give the token in ${TOKEN_ENV}, or in a file only you can read with --token-file FILE.`);
  }
  const given = values['token-file'] !== undefined ? readTokenFile(values['token-file']) : env[TOKEN_ENV] || undefined;
  const token = given ?? randomBytes(24).toString('hex');
  if (token.length < 16) throw new UsageError('The token must be at least 16 characters long.');
  if (!/^[\x21-\x7e]+$/.test(token)) throw new UsageError('The token must be printable ASCII, without spaces.');
  const baseUrl = values['base-url'] === undefined ? undefined : baseUrlSchema.safeParse(values['base-url']);
  if (baseUrl !== undefined && !baseUrl.success) throw new UsageError(`--base-url ${baseUrl.error.issues[0]?.message ?? 'is not valid'}: “${values['base-url']}”.`);
  if (values.username !== undefined && !USERNAME_RE.test(values.username)) {
    throw new UsageError(`--username must be 1–30 letters, digits or _, not “${values.username}”.`);
  }
  return {
    dataDir: resolve(values['data-dir'] ?? defaultDataDir(env)),
    uiPort: port,
    token,
    ...(values.listen === undefined ? {} : { listen: parseListenAddress(values.listen) }),
    ...(baseUrl === undefined ? {} : { baseUrl: baseUrl.data }),
    ...(values.username === undefined ? {} : { username: values.username }),
    ...(values['allow-private-addresses'] ? { allowPrivateAddresses: true } : {}),
    ...(values.restore === undefined ? {} : { restore: resolve(values.restore) }),
    ...(values['import-microblogpub'] === undefined ? {} : { importMicroblogPub: resolve(values['import-microblogpub']) }),
  };
}

/** --token-file: the token on the file's first line, the file readable by its owner alone. */
function readTokenFile(file: string): string {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--token-file: ${(error as Error).message}`);
  }
  // Windows has no such mode bits; its files are private to their owner's profile.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new UsageError(`--token-file: ${file} can be read by other users; make it yours alone (chmod 600 ${file}).`);
  }
  return text.split(/\r?\n/, 1)[0]!.trim();
}

/** HOST:PORT, with an IPv6 host in brackets ([::1]:4861). */
export function parseListenAddress(value: string): ListenerAddress {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--listen takes HOST:PORT (for example 127.0.0.1:4861), not “${value}”.`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
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
  // The listener's address is kept across reopens (a restore, a move from microblog.pub): with
  // port 0 the port the OS gave the first time is asked for again.
  let listen = options.listen;
  // The tunnel outlives reopens (a quick tunnel's address would change with a restart).
  const tunnel = createTunnelRunner({ log: options.log });
  // The pages following the core's change hints; they stay through a reopen (a restore).
  const following = new Set<(kinds: ChangeKind[]) => void>();
  const tellPages = (kinds: ChangeKind[]) => following.forEach((page) => page(kinds));
  const host = await createCoreHost({
    log: options.log,
    handlerOptions: { tunnel },
    open: async () => {
      const opened = await openCore({
        dataDir: options.dataDir,
        mode: 'headless',
        log: options.log,
        // The inbox processor and the delivery loop on their own threads: a burst of activities
        // or a fan-out never holds the UI's API or the listener.
        inboxWorker: true,
        deliveryWorker: true,
        ...(listen ? { listen } : {}),
        ...(options.allowPrivateAddresses ? { allowPrivateAddresses: true } : {}),
      });
      const url = opened.listener.status().url;
      if (listen && url) listen = { host: listen.host, port: Number(new URL(url).port) };
      return opened;
    },
    run: (opened) => {
      const unfollow = opened.changes.subscribe(tellPages);
      // Reopened on other data (a restore, a move from microblog.pub): all of it may differ.
      tellPages([...CHANGE_KINDS]);
      opened.loops.inbox.start();
      opened.loops.delivery.start();
      opened.loops.polls.start();
      opened.loops.search.start();
      opened.loops.previews.start();
      const backups = createBackupScheduler({ core: opened, log: options.log });
      backups.start();
      return async () => {
        unfollow();
        await backups.stop();
        await opened.listener.stop();
        await opened.loops.inbox.stop();
        await opened.loops.polls.stop();
        opened.loops.search.stop();
        await opened.loops.previews.stop();
        // Lets deliveries in flight finish (up to 5 s) so their answers are recorded.
        await opened.loops.delivery.stop();
      };
    },
  });
  const core = host.current();
  if (options.baseUrl !== undefined || options.username !== undefined) {
    try {
      await createSettingsService(core).update({
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.username === undefined ? {} : { username: options.username }),
      });
    } catch (error) {
      await host.close();
      if (error instanceof ConflictError) throw new UsageError(`--base-url refused. ${error.message} (Change it in Settings to confirm.)`);
      throw error;
    }
  }
  const { command, startWithTern } = core.settings.get().tunnel;
  if (startWithTern && command !== '') {
    await tunnel.start(command).catch((error: unknown) => options.log(`tunnel not started: ${(error as Error).message}`));
  }
  let allowed: string[] = [];
  const app = createUiApp({
    handlers: host.handlers(),
    token: options.token,
    staticDir: options.staticDir,
    allowedHosts: () => allowed,
    // The current core's, also after a restore reopened it.
    media: createUiMediaHandler({
      get db() {
        return host.current().db;
      },
      get fed() {
        return host.current().fed;
      },
      get paths() {
        return host.current().paths;
      },
      connectivity: { isOnline: () => host.current().connectivity.isOnline() },
    }),
    onInternalError: (error) => options.log(`internal error: ${(error as Error)?.stack ?? String(error)}`),
    changes: {
      subscribe(page) {
        following.add(page);
        return () => following.delete(page);
      },
    },
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
    get core() {
      return host.current();
    },
    origin,
    // In the fragment: never sent to a server, nor in a Referer; the page keeps it for itself.
    url: `${origin}/#token=${encodeURIComponent(options.token)}`,
    listenerUrl: core.listener.status().url,
    async close() {
      // Browsers keep idle (and pre-opened) sockets: close them, or close() waits for them.
      await new Promise<void>((done) => {
        server.close(() => done());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await tunnel.stop();
      await host.close();
    },
  };
}

/** --restore: puts the archive's data in place (the old files moved aside), then opens the core
 * once so an older database is upgraded, and closes it. */
export async function restoreFromArchive(archive: string, dataDir: string, log: (line: string) => void): Promise<void> {
  const result = await restoreBackup(archive, dataDir);
  if (result.movedAside) log(`The previous data was moved to ${result.movedAside}`);
  const core = await openCore({ dataDir, mode: 'headless', log });
  core.close();
  log(`Restored ${archive} into ${dataDir}.`);
}

/** --import-microblogpub: moves a microblog.pub data/ folder in (the old files moved aside), then
 * opens the core once on the result to check it, and closes it. */
export async function importFromMicroblogPub(folder: string, dataDir: string, log: (line: string) => void): Promise<void> {
  let core = await openCore({ dataDir, mode: 'headless', log });
  try {
    const result = await importMicroblogPub(core, async (swap) => {
      core.close();
      try {
        return await swap(dataDir);
      } finally {
        core = await openCore({ dataDir, mode: 'headless', log });
      }
    }, folder, true);
    const { identity, counts, uploads } = result.preview;
    log(`Moved in from ${folder}: ${identity.handle} (${identity.baseUrl}), ${counts.outbox ?? 0} outbox, ${counts.inbox ?? 0} inbox, ${counts.follower ?? 0} followers, ${counts.following ?? 0} following, ${uploads} uploads.`);
    for (const left of result.preview.leftBehind) log(`Left behind: ${left.rows} ${left.table} of kind ${left.value} (Tern has no such kind).`);
    if (result.movedAside) log(`The previous data was moved to ${result.movedAside}`);
  } finally {
    core.close();
  }
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  let headless: Headless;
  try {
    const args = parseHeadlessArgs(process.argv.slice(2));
    // Read once; the tunnel and any other child need not inherit it.
    delete process.env[TOKEN_ENV];
    if (args.restore !== undefined) {
      await restoreFromArchive(args.restore, args.dataDir, log);
      process.exit(0);
    }
    if (args.importMicroblogPub !== undefined) {
      await importFromMicroblogPub(args.importMicroblogPub, args.dataDir, log);
      process.exit(0);
    }
    headless = await startHeadless({ ...args, staticDir: builtRendererDir(), log });
    log(`Tern is running headless. Data folder: ${headless.core.paths.dir}`);
    log(`Open ${headless.url}`);
    if (headless.listenerUrl !== null) {
      log(`Listener on ${headless.listenerUrl} (public URL ${headless.core.identity()?.baseUrl ?? 'not set: use --base-url and --username'})`);
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof UnknownDatabaseRevisionError ||
      error instanceof ListenerStartError ||
      error instanceof BadInputError ||
      error instanceof ConflictError ||
      error instanceof UnavailableError
    ) {
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
