// Restoring a backup from the running app (Settings → Backups): the archive is named by its file
// name in the backups folder or by an absolute path, checked in full and extracted beside the
// data while Tern keeps running (read once), and only then is the core closed, the staged files
// put in place (the previous files moved aside to before-restore-<time>/, as the headless
// --restore flag does) and the core opened again on the restored data. A failure at any step
// leaves the data folder as it was; restored data that does not open is swapped back out.
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import type { DataPaths } from '../paths';
import { BadInputError, UnavailableError } from '../errors';
import { rm } from 'node:fs/promises';
import { BACKUP_NAME_RE, restoreBackup, stageRestore, type RestoreResult } from './backup';
import { undoSwap } from './swap';

export interface RestoreOutcome {
  /** The archive restored. */
  restoredFrom: string;
  /** Where the replaced files went (null when the folder held none). */
  movedAside: string | null;
  schemaRevision: string;
}

/** The archive a Settings request names: a backup of the list, or an absolute path to a file. */
export function resolveBackupSource(backupsDir: string, backup: string): string {
  const named = backup.trim();
  if (BACKUP_NAME_RE.test(named) && basename(named) === named) {
    const path = join(backupsDir, named);
    if (!existsSync(path)) throw new BadInputError(`There is no backup named ${named} in ${backupsDir}.`);
    return path;
  }
  if (!isAbsolute(named)) {
    throw new BadInputError('Name a backup from the list, or give the full path of a backup file (for example /home/me/tern-backup-….tar.gz).');
  }
  if (!existsSync(named)) throw new BadInputError(`There is no file at ${named}.`);
  if (!statSync(named).isFile()) throw new BadInputError(`${named} is a folder, not a backup file.`);
  return named;
}

/** Closes the core, runs `swap` on the closed data folder, reopens the core (core-host.ts);
 * `undo` puts the previous data back when the swapped-in data does not open. */
export type Reopen = <T>(swap: (dataDir: string) => Promise<T>, undo?: (dataDir: string, swapped: T) => Promise<void>) => Promise<T>;

/** Checks the archive, then swaps the data folder's files for it with the core closed, and reopens. */
export async function restoreInPlace(core: { paths: Pick<DataPaths, 'backups' | 'dir'>; clock: () => Date }, reopen: Reopen | undefined, backup: string): Promise<RestoreOutcome> {
  if (reopen === undefined) {
    throw new UnavailableError('This Tern cannot restore while it runs; stop it and use: npm run headless -- --data-dir DIR --restore ARCHIVE');
  }
  const path = resolveBackupSource(core.paths.backups, backup);
  // Everything is checked (checksums, the database opened) and extracted beside the data before
  // the core is closed; the archive is read once.
  const staged = await stageRestore(path, core.paths.dir);
  const clock = core.clock;
  let result: RestoreResult;
  try {
    result = await reopen(
      (dataDir) => restoreBackup(path, dataDir, clock, { staged }),
      (dataDir, restored) => undoSwap(dataDir, restored.movedAside),
    );
  } finally {
    // Gone once swapped in; still here when the reopen was refused.
    await rm(staged.staging, { recursive: true, force: true });
  }
  return { restoredFrom: path, movedAside: result.movedAside, schemaRevision: result.schemaRevision };
}
