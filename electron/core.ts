// The composition root: opens (creates, migrates) the database in the data folder and builds
// the services the IPC handlers and the listener call. Plain Node; never imports electron.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../db/client';
import { HEAD, currentRevision, pendingRevisions, upgrade } from '../migrations/runner';
import { dataPaths, type DataPaths } from './paths';
import { createStatusService, type StatusService } from './status';

export interface CoreOptions {
  dataDir: string;
  mode: 'desktop' | 'headless';
  clock?: () => Date;
  /** Where the core reports what it did (migrations, loops); defaults to silence. */
  log?: (line: string) => void;
}

export interface Core {
  paths: DataPaths;
  sqlite: Sqlite;
  db: Db;
  clock: () => Date;
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
    const startedAt = clock();
    const core: Core = {
      paths,
      sqlite,
      db,
      clock,
      migration: { from, applied, backup },
      services: {
        status: createStatusService({ sqlite, paths, mode: options.mode, startedAt, head: HEAD }),
      },
      close() {
        if (sqlite.open) sqlite.close();
      },
    };
    return core;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
