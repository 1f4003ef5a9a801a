// Backups of the whole data folder in one archive: a consistent copy of the running database
// (SQLite's online backup, so writes may go on meanwhile), the keys, settings.json, uploads/,
// and a manifest with a sha256 per entry. Restoring checks all of it before touching anything,
// and moves what it replaces aside instead of deleting it.
//
// The archive's work — hashing, tar, gzip, and on the way back gunzip, checks and extraction —
// runs on the backup thread (backup-worker.ts), never on the main thread: the whole data folder
// passes through it, uploads included. gzipSync took seconds for a folder of 100 MB, and even
// the thread pool's gunzip handed a 200 MB archive back to the main thread in one 130–160 ms
// piece. The main thread only takes SQLite's online copy (in steps) and moves folders. A
// microblog.pub folder moved in is staged on the same thread (microblogpub-import.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { swapIntoDataFolder } from './swap';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { Sqlite } from '../../../db/client';
import { BadInputError, ConflictError } from '../errors';
import { dataPaths, type DataPaths } from '../paths';
import { TERN_VERSION } from '../version';
import { REVISIONS, currentRevision } from '../../../migrations/runner';
import { readTar, writeTar, type TarEntry } from './tar';
import { writePrivateFile } from './private-file';
import { parseBoundedJson } from '../net/bounded-json';
import { workerEntry } from '../worker-host';
import { isTemporaryFile } from '../media/temporary-files';
import type { ImportInspection, TernEnums } from './import-types';

export const BACKUP_FORMAT = 1;
/** tern-backup-2026-11-22T05-28-39-123Z.tar.gz: the time is in the name so sorting by name sorts by age. */
export const BACKUP_NAME_RE = /^tern-backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.tar\.gz$/;
const DB_ENTRY = 'tern.db';
const MANIFEST_ENTRY = 'manifest.json';
/** Caps what a restore inflates, so a crafted archive cannot fill memory. */
const MAX_ENTRY_BYTES = 2 * 1024 ** 3;
const MAX_ARCHIVE_BYTES = 4 * 1024 ** 3 - 1;

const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  ternVersion: z.string(),
  schemaRevision: z.string(),
  createdAt: z.string(),
  entries: z.array(z.object({ name: z.string(), type: z.enum(['file', 'directory']), bytes: z.number().int().min(0), sha256: z.string() })),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

export interface BackupResult {
  path: string;
  bytes: number;
  /** Rows in all tables of the copied database. */
  rows: number;
}

export interface BackupFile {
  name: string;
  path: string;
  bytes: number;
  createdAt: string;
}

export function backupFileName(at: Date): string {
  return `tern-backup-${at.toISOString().replace(/[:.]/g, '-')}.tar.gz`;
}

/** When a backup was made, read from its name; null for files that are not Tern backups. */
export function backupCreatedAt(name: string): Date | null {
  const m = BACKUP_NAME_RE.exec(name);
  return m ? new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : null;
}

/** Tern's backup archives in `dir`, newest first. */
export async function listBackups(dir: string): Promise<BackupFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: BackupFile[] = [];
  for (const name of names) {
    const createdAt = backupCreatedAt(name);
    if (createdAt === null) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info?.isFile()) found.push({ name, path: join(dir, name), bytes: info.size, createdAt: createdAt.toISOString() });
  }
  return found.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/** What a backup reads from the running core. */
export interface BackupDeps {
  paths: DataPaths;
  sqlite: Sqlite;
  clock: () => Date;
}

/** Writes one archive of the running core's data into `dest` (a folder; the backups folder by default). */
export async function createBackup(core: BackupDeps, options: { dest?: string } = {}): Promise<BackupResult> {
  const destDir = options.dest ?? core.paths.backups;
  await mkdir(destDir, { recursive: true, mode: 0o700 });
  const createdAt = core.clock();
  const work = await mkdtemp(join(destDir, '.backup-'));
  try {
    const dbCopy = join(work, DB_ENTRY);
    await core.sqlite.backup(dbCopy);
    return await onBackupThread({ kind: 'create', dbCopy, paths: core.paths, createdAt: createdAt.toISOString(), destDir });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The archive of a database copy and the data folder's files (the backup thread's part). */
export async function writeBackupArchive(job: { dbCopy: string; paths: DataPaths; createdAt: string; destDir: string }): Promise<BackupResult> {
  const createdAt = new Date(job.createdAt);
  const copy = new Database(job.dbCopy);
  let rows = 0;
  let revision: string | null;
  try {
    revision = currentRevision(copy);
    const tables = copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const table of tables) rows += copy.prepare(`SELECT count(*) FROM "${table.replace(/"/g, '""')}"`).pluck().get() as number;
    // Fold the copy's WAL into the one file, so the archive holds a single self-contained database.
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  if (revision === null) throw new BadInputError('The database has no schema revision yet; there is nothing to back up.');

  const entries: TarEntry[] = [{ name: DB_ENTRY, type: 'file', mode: 0o600, mtime: createdAt, data: await readFile(job.dbCopy) }];
  entries.push(...(await folderEntries(job.paths.keys, 'keys', createdAt)));
  if (existsSync(job.paths.settings)) {
    entries.push({ name: 'settings.json', type: 'file', mode: 0o600, mtime: createdAt, data: await readFile(job.paths.settings) });
  }
  entries.push(...(await folderEntries(job.paths.uploads, 'uploads', createdAt)));
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    ternVersion: TERN_VERSION,
    schemaRevision: revision,
    createdAt: createdAt.toISOString(),
    entries: entries.map((e) => ({ name: e.name, type: e.type, bytes: e.data.length, sha256: sha256(e.data) })),
  };
  const manifestEntry: TarEntry = { name: MANIFEST_ENTRY, type: 'file', mode: 0o600, mtime: createdAt, data: Buffer.from(JSON.stringify(manifest, null, 2)) };
  const archive = gzipSync(writeTar([manifestEntry, ...entries]));

  const path = join(job.destDir, backupFileName(createdAt));
  await writePrivateFile(path, archive);
  return { path, bytes: archive.length, rows };
}

/** A job for the backup thread, and what it answers. */
export type BackupJob =
  | { kind: 'create'; dbCopy: string; paths: DataPaths; createdAt: string; destDir: string }
  | { kind: 'read'; archivePath: string; extractTo: string | null }
  /** Moving in from microblog.pub (microblogpub-import.ts stageMicroblogPub): the staging
   * folder's path. `settings`: this Tern's Settings. */
  | { kind: 'stageImport'; folder: string; dataDir: string; settings: unknown; now: string }
  /** A look at a microblog.pub folder (microblogpub-import.ts inspectMicroblogPub). */
  | { kind: 'inspectImport'; folder: string; copy: string; enums: TernEnums };
type BackupAnswer<J extends BackupJob> = J extends { kind: 'create' }
  ? BackupResult
  : J extends { kind: 'stageImport' }
    ? string
    : J extends { kind: 'inspectImport' }
      ? ImportInspection
      : { manifest: BackupManifest };
export type BackupReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { name: string; message: string } };

/** A backup thread with nothing to do for this long is ended (it holds tens of MB; the next job
 * starts another). */
export const BACKUP_THREAD_IDLE_MS = 30_000;

interface BackupThread {
  worker: Worker;
  /** Its jobs not answered yet, by id. */
  waiting: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
  idle: NodeJS.Timeout | null;
}
let thread: BackupThread | null = null;
let nextJob = 1;
/** Backup threads whose 'exit' has not come yet (one, but an idle one may still be ending). */
let threadsAlive = 0;

/** How many backup threads are running now (status and tests: the idle stop gives one back). */
export function backupThreadsAlive(): number {
  return threadsAlive;
}

function startBackupThread(): BackupThread {
  const entry = workerEntry('data/backup-worker.ts', 'backup-worker.cjs');
  const started: BackupThread = { worker: new Worker(entry.file, { execArgv: entry.execArgv, name: 'tern-backup' }), waiting: new Map(), idle: null };
  const { worker, waiting } = started;
  threadsAlive++;
  worker.unref();
  worker.on('message', (reply: BackupReply) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) {
      worker.unref();
      started.idle = setTimeout(() => {
        // Forgotten first: a job asked for from now on starts a new thread.
        if (thread === started) thread = null;
        void worker.terminate();
      }, BACKUP_THREAD_IDLE_MS);
      started.idle.unref();
    }
    if (pending === undefined) return;
    if (reply.ok) return pending.resolve(reply.value);
    const { name, message } = reply.error;
    pending.reject(name === 'BadInputError' ? new BadInputError(message) : name === 'ConflictError' ? new ConflictError(message) : new Error(message));
  });
  const ended = (why: string) => {
    if (thread === started) thread = null;
    for (const pending of waiting.values()) pending.reject(new Error(`The backup thread stopped (${why}).`));
    waiting.clear();
  };
  worker.on('error', (error) => ended(error.message));
  worker.on('exit', (code) => {
    threadsAlive--;
    ended(`exit code ${code}`);
  });
  return started;
}

/** Runs `job` on the backup thread (started with the first job; it does not keep the process
 * alive, and ends after BACKUP_THREAD_IDLE_MS with nothing to do). BadInputError and
 * ConflictError come back as themselves, with their messages. The thread also moves a
 * microblog.pub folder in: upgrading its database and copying every row took seconds, in one
 * piece, for a large one. */
export function onBackupThread<J extends BackupJob>(job: J): Promise<BackupAnswer<J>> {
  thread ??= startBackupThread();
  const running = thread;
  if (running.idle !== null) clearTimeout(running.idle);
  running.idle = null;
  const id = nextJob++;
  // Held while a job runs: a backup in progress keeps the process up until it is written.
  running.worker.ref();
  return new Promise((resolve, reject) => {
    running.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    running.worker.postMessage({ ...job, id });
  });
}

/** A folder's files and sub-folders as entries under `prefix`; none when it does not exist. */
async function folderEntries(dir: string, prefix: string, mtime: Date): Promise<TarEntry[]> {
  if (!existsSync(dir)) return [];
  const entries: TarEntry[] = [{ name: prefix, type: 'directory', mode: 0o700, mtime, data: Buffer.alloc(0) }];
  for (const item of await readdir(dir, { withFileTypes: true })) {
    // The app runs on while its backup is written: an upload being received or renamed into
    // place (media/store.ts, a *.tmp file) is not part of it, and a file removed meanwhile (the
    // media sweep) is left out rather than failing the backup.
    if (isTemporaryFile(item.name)) continue;
    const full = join(dir, item.name);
    const name = `${prefix}/${item.name}`;
    if (item.isDirectory()) entries.push(...(await folderEntries(full, name, mtime)));
    else if (item.isFile()) {
      const file = await Promise.all([stat(full), readFile(full)]).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (file !== null) entries.push({ name, type: 'file', mode: file[0].mode & 0o777, mtime, data: file[1] });
    }
    // Links and other special files are not Tern's and are left out.
  }
  return entries;
}



/** What a backup may put in the data folder: the database, settings, keys and uploads (what
 * createBackup writes). Anything else — a -wal beside the database, backups/, before-restore-…/ —
 * is refused: it would be swapped into the data folder unchecked, or make the swap fail halfway. */
export function isRestorableName(name: string): boolean {
  return name === DB_ENTRY || name === 'settings.json' || /^(keys|uploads)(\/[^/]+)*$/.test(name);
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Reads and checks an archive on the backup thread: every entry listed and matching its
 * checksum, a known revision. With `extractTo` (an empty folder), its entries are written there
 * once all of it is checked. Returns the manifest.
 */
export function readBackup(archivePath: string, options: { extractTo?: string } = {}): Promise<{ manifest: BackupManifest }> {
  return onBackupThread({ kind: 'read', archivePath, extractTo: options.extractTo ?? null });
}

/** readBackup's work, on the backup thread. */
export async function readBackupHere(job: { archivePath: string; extractTo: string | null }): Promise<{ manifest: BackupManifest }> {
  const { archivePath } = job;
  let compressed: Buffer;
  try {
    compressed = await readFile(archivePath);
  } catch {
    throw new BadInputError(`The backup ${archivePath} could not be read.`);
  }
  let tar: Buffer;
  try {
    // A gzip bomb (gigabytes of zeros in a few MB) is cut at the limit.
    tar = gunzipSync(compressed, { maxOutputLength: MAX_ARCHIVE_BYTES });
  } catch {
    throw new BadInputError(`${archivePath} is not a Tern backup (it is not a gzip archive, or it is damaged).`);
  }
  const entries = readTar(tar, { maxEntryBytes: MAX_ENTRY_BYTES });
  const manifestEntry = entries.find((e) => e.name === MANIFEST_ENTRY && e.type === 'file');
  if (!manifestEntry) throw new BadInputError(`${archivePath} is not a Tern backup (it has no manifest).`);
  let manifest: BackupManifest;
  try {
    manifest = manifestSchema.parse(parseBoundedJson(manifestEntry.data.toString('utf8')));
  } catch {
    throw new BadInputError(`The manifest of ${archivePath} is not one this version of Tern understands.`);
  }
  const content = entries.filter((e) => e !== manifestEntry);
  for (const entry of content) {
    if (!isRestorableName(entry.name)) {
      throw new BadInputError(`The backup holds ${JSON.stringify(entry.name)}, which is not part of a Tern data folder; nothing was restored.`);
    }
  }
  const listed = new Map(manifest.entries.map((e) => [e.name, e]));
  // Each name once, and every name the manifest lists present: a name twice would fail halfway
  // through extraction, and counting alone let one stand in for another.
  const seen = new Set<string>();
  for (const entry of content) {
    if (seen.has(entry.name)) throw new BadInputError(`The backup is damaged: it holds ${entry.name} twice, so nothing was restored.`);
    seen.add(entry.name);
  }
  if (listed.size !== manifest.entries.length || listed.size !== content.length || [...listed.keys()].some((name) => !seen.has(name))) {
    throw new BadInputError('The backup is damaged: its manifest and its contents do not match, so nothing was restored.');
  }
  for (const entry of content) {
    const expected = listed.get(entry.name);
    if (!expected || expected.type !== entry.type || expected.sha256 !== sha256(entry.data)) {
      throw new BadInputError(`The backup is damaged: ${entry.name} does not match its checksum, so nothing was restored.`);
    }
  }
  const database = content.find((e) => e.name === DB_ENTRY && e.type === 'file');
  if (!database) throw new BadInputError('The backup holds no database.');
  // Checked before anything is moved: a file that is not SQLite would only fail on reopening.
  if (!database.data.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw new BadInputError(`The backup's ${DB_ENTRY} is not an SQLite database, so nothing was restored.`);
  }
  if (!REVISIONS.some((r) => r.id === manifest.schemaRevision)) {
    throw new BadInputError(
      `The backup's database is at schema revision ${manifest.schemaRevision}, which this version of Tern does not know ` +
        `(it was made by a newer Tern, ${manifest.ternVersion}); update Tern, then restore it.`,
    );
  }
  // The database itself is opened before anything moves: a file that only starts like SQLite, or
  // one at a revision other than the manifest says, would otherwise fail only on reopening, with
  // the previous data already moved aside.
  const scratch = job.extractTo === null ? await mkdtemp(join(tmpdir(), 'tern-backup-check-')) : null;
  try {
    if (job.extractTo !== null) await extract(content, job.extractTo);
    else if (scratch !== null) await writeFile(join(scratch, DB_ENTRY), database.data, { mode: 0o600, flag: 'wx' });
    checkBackupDatabase(join(job.extractTo ?? scratch ?? '', DB_ENTRY), manifest.schemaRevision);
  } finally {
    if (scratch !== null) await rm(scratch, { recursive: true, force: true });
  }
  return { manifest };
}

/** Opens a backup's database read-only and checks it the way the app will need it: an intact
 * SQLite file (quick_check) at a revision of this build's chain, the one its manifest names. */
export function checkBackupDatabase(file: string, claimedRevision: string): void {
  const damaged = `The backup's ${DB_ENTRY} is damaged (it cannot be read as a database), so nothing was restored.`;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new BadInputError(damaged);
  }
  try {
    let revision: string | null;
    try {
      const problems = db.pragma('quick_check', { simple: false }) as { quick_check: string }[];
      if (problems.length !== 1 || problems[0]?.quick_check !== 'ok') throw new Error('quick_check');
      revision = currentRevision(db);
    } catch {
      throw new BadInputError(damaged);
    }
    if (revision === null || !REVISIONS.some((r) => r.id === revision)) {
      throw new BadInputError(
        `The backup's database is at schema revision ${revision ?? '(none)'}, which this version of Tern does not know, so nothing was restored.`,
      );
    }
    if (revision !== claimedRevision) {
      throw new BadInputError(`The backup is damaged: its database is at revision ${revision}, not ${claimedRevision} as its manifest says, so nothing was restored.`);
    }
  } finally {
    db.close();
  }
}

/** Writes checked entries under `dir`. */
async function extract(entries: TarEntry[], dir: string): Promise<void> {
  for (const entry of entries) {
    const target = join(dir, ...entry.name.split('/'));
    if (entry.type === 'directory') {
      await mkdir(target, { recursive: true, mode: 0o700 });
      await chmod(target, 0o700);
    } else {
      await mkdir(join(target, '..'), { recursive: true, mode: 0o700 });
      // Private whatever the archive says (its mode bits are ignored): 0600, and 0600 again
      // after the umask may have narrowed the create mode.
      await writeFile(target, entry.data, { mode: 0o600, flag: 'wx' });
      await chmod(target, 0o600);
    }
  }
}

export interface RestoreResult {
  /** Where the data folder's previous files were moved (null when there were none). */
  movedAside: string | null;
  schemaRevision: string;
}

/**
 * Restores an archive into `dataDir`, whose core must be closed. The archive is checked and
 * extracted beside the data before anything moves; the previous files go to
 * before-restore-<time>/. The next openCore upgrades an older database as usual.
 */
export async function restoreBackup(archivePath: string, dataDir: string, clock: () => Date = () => new Date()): Promise<RestoreResult> {
  const paths = dataPaths(dataDir);
  const existed = existsSync(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const stamp = clock().toISOString().replace(/[:.]/g, '-');
  const staging = await mkdtemp(join(dataDir, '.restore-'));
  let restored = false;
  try {
    // Read once: checked whole on the backup thread, then extracted there. A bad archive says so
    // before the folder's state is looked at.
    const { manifest } = await readBackup(archivePath, { extractTo: staging });
    if (isDatabaseOpen(paths.database)) {
      throw new ConflictError('Tern is still using this data folder; quit Tern (or stop it) before restoring a backup.');
    }
    const movedAside = await swapIntoDataFolder(dataDir, staging, `before-restore-${stamp}`);
    restored = true;
    return { movedAside, schemaRevision: manifest.schemaRevision };
  } finally {
    await rm(staging, { recursive: true, force: true });
    // A folder made for a restore that did not happen is not left behind (only if still empty).
    if (!restored && !existed) await rmdir(dataDir).catch(() => undefined);
  }
}

/** Whether some connection (in this process or another) holds the database open: in WAL mode
 * every open connection keeps a shared lock, so an exclusive one cannot be had. */
export function isDatabaseOpen(database: string): boolean {
  if (!existsSync(database)) return false;
  const probe = new Database(database, { timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('COMMIT');
    return false;
  } catch {
    return true;
  } finally {
    probe.close();
  }
}
