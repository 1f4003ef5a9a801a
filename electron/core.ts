// The composition root: opens (creates, migrates) the database in the data folder and builds
// the services the IPC handlers and the listener call. Plain Node; never imports electron.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../db/client';
import { HEAD, currentRevision, pendingRevisions, upgrade } from '../migrations/runner';
import { dataPaths, type DataPaths } from './paths';
import { createStatusService, type StatusService } from './status';
import { createSettingsStore, type SettingsStore } from './settings';
import { localActor, type LocalActor } from './federation/identity';
import { createHttpClient, type HttpClient } from './net/http-client';
import {
  createContextLoader,
  createDocumentLoader,
  createKeyCache,
  generateKeyPairFiles,
  loadKeyPair,
  type TernKeyCache,
  type TernKeyPairs,
} from './net/signatures';
import { KEY_FILES } from './net/key-files';
import type { DocumentLoader } from '@fedify/fedify';
import { TERN_VERSION } from './version';

export interface CoreOptions {
  dataDir: string;
  mode: 'desktop' | 'headless';
  clock?: () => Date;
  /** Where the core reports what it did (migrations, loops); defaults to silence. */
  log?: (line: string) => void;
  /** Lets the outbound client reach loopback/private addresses. Tests with loopback peers
   * only (headless --allow-private-addresses); never a user setting. */
  allowPrivateAddresses?: boolean;
}

/** What federation needs from the core: the one outbound client, loaders, keys, caches. */
export interface FederationContext {
  client: HttpClient;
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  keyCache: TernKeyCache;
  keys: TernKeyPairs;
  allowPrivateAddresses: boolean;
}

export interface Core {
  paths: DataPaths;
  sqlite: Sqlite;
  db: Db;
  clock: () => Date;
  settings: SettingsStore;
  fed: FederationContext;
  /** The local actor, or null until the base URL and user name are set (first run). */
  identity(): LocalActor | null;
  services: { status: StatusService };
  /** What start-up did to the database. */
  migration: { from: string | null; applied: string[]; backup: string | null };
  close(): void;
}

/** Opens the core on a data folder: creates it, copies the database aside when it has
 * anything to migrate, upgrades it to head, and builds the services. */
export async function openCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? (() => {});
  const paths = dataPaths(options.dataDir);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });

  const existed = existsSync(paths.database);
  const sqlite = openSqlite(paths.database);
  try {
    const from = currentRevision(sqlite);
    // Throws UnknownDatabaseRevisionError, touching nothing, for a revision this build does not know.
    const pending = pendingRevisions(sqlite);
    let backup: string | null = null;
    if (pending.length > 0 && existed && from !== null) {
      mkdirSync(paths.backups, { recursive: true, mode: 0o700 });
      backup = join(paths.backups, `tern-${from}-before-upgrade-${clock().toISOString().replace(/[:.]/g, '-')}.db`);
      await sqlite.backup(backup);
      log(`database copied aside to ${backup}`);
    }
    const applied = pending.length > 0 ? upgrade(sqlite) : [];
    if (applied.length > 0) log(`database upgraded: ${[from ?? 'base', ...applied].join(' -> ')} (head)`);

    const db = wrapDrizzle(sqlite);
    const settings = createSettingsStore(paths.settings);
    const fed = await openFederationContext(paths.keys, options.allowPrivateAddresses ?? false);
    const startedAt = clock();
    const core: Core = {
      paths,
      sqlite,
      db,
      clock,
      settings,
      fed,
      identity() {
        const { baseUrl, username } = settings.get();
        return baseUrl && username ? localActor(baseUrl, username) : null;
      },
      migration: { from, applied, backup },
      services: {
        status: createStatusService({ sqlite, paths, mode: options.mode, startedAt, head: HEAD }),
      },
      close() {
        fed.client.close();
        if (sqlite.open) sqlite.close();
      },
    };
    return core;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

async function openFederationContext(keysDir: string, allowPrivateAddresses: boolean): Promise<FederationContext> {
  const keys = existsSync(join(keysDir, KEY_FILES.rsaPrivate)) ? await loadKeyPair(keysDir) : await generateKeyPairFiles(keysDir);
  const client = createHttpClient({ userAgent: `Tern/${TERN_VERSION}`, allowPrivateAddresses });
  const contextLoader = createContextLoader(client);
  return {
    client,
    documentLoader: createDocumentLoader(client),
    contextLoader,
    keyCache: createKeyCache({ contextLoader }),
    keys,
    allowPrivateAddresses,
  };
}
