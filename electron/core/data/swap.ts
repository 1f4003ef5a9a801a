// Putting other data in place (restoring a backup, moving in from microblog.pub) without ever
// leaving the data folder half-written. The new files are staged in a hidden folder beside the
// data; the swap then moves the current files aside (before-restore-<time>/) and the staged
// ones in, one rename at a time. A journal in the staging folder (.swap.json: which aside
// folder, which phase) lets the next start finish a swap that a crash or a power cut
// interrupted, and staging or work folders with no journal (interrupted before the swap began)
// are removed: the data is then either all old or all new, never a mix.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCK_FILE } from '../folder-lock';

const JOURNAL = '.swap.json';
/** Hidden folders Tern stages or works in: staging of a restore or an import, an import's work. */
const STAGING = /^\.(restore|import)-/;
const WORK = /^\.(microblogpub)-/;

interface Journal {
  aside: string;
  phase: 'aside' | 'in';
}

/** What stays where it is in a swap: backups, earlier asides, the lock, hidden work folders. */
function stays(name: string): boolean {
  return name === 'backups' || name === LOCK_FILE || /^before-(restore|import)-/.test(name) || name.startsWith('.');
}

function parseJournal(text: string): Journal | null {
  try {
    const j = JSON.parse(text) as Partial<Journal>;
    return typeof j.aside === 'string' && (j.phase === 'aside' || j.phase === 'in') ? { aside: j.aside, phase: j.phase } : null;
  } catch {
    return null;
  }
}

async function writeJournal(staging: string, journal: Journal): Promise<void> {
  const tmp = join(staging, `${JOURNAL}.tmp`);
  await writeFile(tmp, JSON.stringify(journal), { mode: 0o600 });
  await rename(tmp, join(staging, JOURNAL)); // atomic: the journal is old or new, never torn
}

async function moveAside(dataDir: string, aside: string): Promise<number> {
  let moved = 0;
  for (const name of await readdir(dataDir)) {
    if (stays(name)) continue;
    if (!existsSync(aside)) await mkdir(aside, { mode: 0o700 });
    await rename(join(dataDir, name), join(aside, name));
    moved++;
  }
  return moved;
}

async function moveIn(dataDir: string, staging: string): Promise<void> {
  for (const name of await readdir(staging)) {
    if (name === JOURNAL || name === `${JOURNAL}.tmp`) continue;
    await rename(join(staging, name), join(dataDir, name));
  }
}

/**
 * Moves the data folder's files (all but backups/, the lock and the folders earlier swaps moved
 * aside) into `asideName`, then the staged files into their place. Returns the aside folder, or
 * null when there was nothing to move. The core must be closed; `staging` must be complete.
 */
export async function swapIntoDataFolder(dataDir: string, staging: string, asideName: string): Promise<string | null> {
  const aside = join(dataDir, asideName);
  await writeJournal(staging, { aside: asideName, phase: 'aside' });
  const moved = await moveAside(dataDir, aside);
  await writeJournal(staging, { aside: asideName, phase: 'in' });
  await moveIn(dataDir, staging);
  await rm(staging, { recursive: true, force: true });
  return moved > 0 ? aside : null;
}

/**
 * Puts back what swapIntoDataFolder moved aside, when the data put in place could not be opened
 * (core-host.ts): the files swapped in go to a hidden folder that is then removed (they are
 * still in the archive or the folder they came from), and the aside folder's files move back.
 * `aside` is what swapIntoDataFolder returned (null: there was nothing before).
 */
export async function undoSwap(dataDir: string, aside: string | null): Promise<void> {
  // Hidden and named like a staging folder with no journal: a crash here leaves it for the next
  // start to remove, never to be put back in place.
  const undone = await mkdtemp(join(dataDir, '.restore-undone-'));
  await moveAside(dataDir, undone);
  if (aside !== null) {
    for (const name of await readdir(aside)) await rename(join(aside, name), join(dataDir, name));
    await rmdir(aside);
  }
  await rm(undone, { recursive: true, force: true });
}

/**
 * At start, before the database opens: finishes a swap that was interrupted, and removes staging
 * and work folders left by an interrupted restore, import or backup. Returns what it did, as
 * sentences for the log.
 */
export async function recoverDataFolder(dataDir: string, backupsDir: string, uploadsDir?: string): Promise<string[]> {
  const done: string[] = [];
  if (!existsSync(dataDir)) return done;
  for (const name of await readdir(dataDir)) {
    const path = join(dataDir, name);
    if (STAGING.test(name)) {
      const journal = await readFile(join(path, JOURNAL), 'utf8').then(parseJournal, () => null);
      if (journal !== null && /^before-(restore|import)-[\w-]+$/.test(journal.aside)) {
        if (journal.phase === 'aside') {
          await moveAside(dataDir, join(dataDir, journal.aside));
          await writeJournal(path, { ...journal, phase: 'in' });
        }
        await moveIn(dataDir, path);
        done.push(`finished putting the staged data of ${name} in place (it was interrupted); the previous data is in ${journal.aside}`);
      } else {
        done.push(`removed ${name}, left by an interrupted restore or import (nothing had been moved yet)`);
      }
      await rm(path, { recursive: true, force: true });
    } else if (WORK.test(name)) {
      await rm(path, { recursive: true, force: true });
      done.push(`removed ${name}, left by an interrupted import`);
    } else if (name.endsWith('.tmp')) {
      // A file written under a temporary name and not yet renamed (settings.json's).
      await rm(path, { force: true });
      done.push(`removed ${name}, left by an interrupted write`);
    }
  }
  if (existsSync(backupsDir)) {
    for (const name of await readdir(backupsDir)) {
      // The work folder of a backup, or its archive not yet renamed into place (private-file.ts).
      if (!name.startsWith('.backup-') && !name.endsWith('.tmp')) continue;
      await rm(join(backupsDir, name), { recursive: true, force: true });
      done.push(`removed backups/${name}, left by an interrupted backup`);
    }
  }
  // An export not yet renamed into place (private-file.ts): a partial archive a crash left.
  const exportsDir = join(dataDir, 'exports');
  if (existsSync(exportsDir)) {
    for (const name of await readdir(exportsDir)) {
      if (!name.endsWith('.tmp')) continue;
      await rm(join(exportsDir, name), { force: true });
      done.push(`removed exports/${name}, left by an interrupted export`);
    }
  }
  // Uploads are written under temporary names and renamed into place (media/store.ts).
  if (uploadsDir !== undefined && existsSync(uploadsDir)) {
    let removed = 0;
    for (const name of await readdir(uploadsDir)) {
      if (!name.endsWith('.tmp')) continue;
      await rm(join(uploadsDir, name), { force: true });
      removed++;
    }
    if (removed > 0) done.push(`removed ${removed} partly written upload(s) left by an interruption`);
  }
  return done;
}
