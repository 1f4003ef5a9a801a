// One Tern per data folder. Two processes writing one folder (a desktop Tern and a headless one,
// or two headless ones) would each run a delivery loop and an inbox processor over the same
// rows: deliveries sent twice, settings overwritten. The lock is an exclusive SQLite lock on a
// small file beside the database (`tern.lock`), held for as long as the core is open. SQLite's
// locks are the operating system's file locks, so they go with the process: a Tern killed by a
// power cut or SIGKILL leaves no stale lock behind (unlike a pid file), on Linux, macOS and
// Windows alike.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConflictError, UnavailableError } from './errors';

export const LOCK_FILE = 'tern.lock';

/** Another Tern holds the data folder. */
export class DataFolderInUseError extends ConflictError {
  override name = 'DataFolderInUseError';
  readonly dir: string;
  constructor(dir: string) {
    super(
      `Another Tern is already running on the data folder ${dir}. Quit it first (or use it instead), ` +
        `or start this one on another folder (--data-dir or TERN_DATA_DIR).`,
    );
    this.dir = dir;
  }
}

export interface FolderLock {
  release(): void;
}

/** The data folder cannot be written (a read-only disk or mount, or its permissions). */
export class DataFolderReadOnlyError extends UnavailableError {
  override name = 'DataFolderReadOnlyError';
  constructor(dir: string, code: string) {
    super(
      `Tern cannot write to its data folder ${dir}: it is read-only (${code}). Nothing in it was changed. ` +
        `Make the folder (or the disk it is on) writable again, then start Tern.`,
    );
  }
}

/** Takes the folder's lock, or throws DataFolderInUseError at once (no waiting), or
 * DataFolderReadOnlyError when the folder cannot be written. */
export function lockDataFolder(dir: string): FolderLock {
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'not writable';
    if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') throw new DataFolderReadOnlyError(dir, code);
    throw error;
  }
  const connection = new Database(join(dir, LOCK_FILE), { timeout: 0 });
  try {
    // In EXCLUSIVE locking mode the lock taken by the first write transaction is kept until the
    // connection closes; a second process cannot even read the file meanwhile.
    connection.pragma('locking_mode = EXCLUSIVE');
    connection.exec('BEGIN EXCLUSIVE');
    connection.exec('COMMIT');
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataFolderInUseError(dir);
    throw error;
  }
  return {
    release: () => {
      if (connection.open) connection.close();
    },
  };
}
