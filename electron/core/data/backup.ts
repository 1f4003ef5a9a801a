// Backups of the whole data folder in one archive: a consistent copy of the running database
// (SQLite's online backup, so writes may go on meanwhile), the keys, settings.json, uploads/,
// and a manifest with a sha256 per entry. Restoring checks all of it before touching anything,
// and moves what it replaces aside instead of deleting it.
//
// The archive's work — hashing, tar, gzip, and on the way back gunzip, checks and extraction —
// runs on the backup thread (backup-worker.ts, backup-archive.ts), as streams, never on the main thread: the whole data folder
// passes through it, uploads included. gzipSync took seconds for a folder of 100 MB, and even
// the thread pool's gunzip handed a 200 MB archive back to the main thread in one 130–160 ms
// piece. The main thread only takes SQLite's online copy (in steps) and moves folders. A
// microblog.pub folder moved in is staged on the same thread (microblogpub-import.ts).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { Sqlite } from '../../../db/client';
import { BadInputError, ConflictError } from '../errors';
import { dataPaths, type DataPaths } from '../paths';
import { entryOptions, workerEntry } from '../worker-host';
import { swapIntoDataFolder } from './swap';
import type { ImportInspection, TernEnums } from './import-types';

export const BACKUP_FORMAT = 1;
/** tern-backup-2026-11-22T05-28-39-123Z.tar.gz: the time is in the name so sorting by name sorts by age. */
export const BACKUP_NAME_RE = /^tern-backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.tar\.gz$/;
const DB_ENTRY = 'tern.db';

export const manifestSchema = z.object({
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
  const started: BackupThread = { worker: new Worker(entry.file, { ...entryOptions(entry), name: 'tern-backup' }), waiting: new Map(), idle: null };
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

/** What a backup may put in the data folder: the database, settings, keys and uploads (what
 * createBackup writes). Anything else — a -wal beside the database, backups/, before-restore-…/ —
 * is refused: it would be swapped into the data folder unchecked, or make the swap fail halfway. */
export function isRestorableName(name: string): boolean {
  return name === DB_ENTRY || name === 'settings.json' || /^(keys|uploads)(\/[^/]+)*$/.test(name);
}

/**
 * Reads and checks an archive on the backup thread: every entry listed and matching its
 * checksum, a known revision. With `extractTo` (an empty folder), its entries are written there
 * once all of it is checked. Returns the manifest.
 */
export function readBackup(archivePath: string, options: { extractTo?: string } = {}): Promise<{ manifest: BackupManifest }> {
  return onBackupThread({ kind: 'read', archivePath, extractTo: options.extractTo ?? null });
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
export async function restoreBackup(
  archivePath: string,
  dataDir: string,
  clock: () => Date = () => new Date(),
  options: { staged?: { staging: string; manifest: BackupManifest } } = {},
): Promise<RestoreResult> {
  const paths = dataPaths(dataDir);
  const existed = existsSync(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const stamp = clock().toISOString().replace(/[:.]/g, '-');
  const staging = options.staged?.staging ?? (await mkdtemp(join(dataDir, '.restore-')));
  let restored = false;
  try {
    // Read once: checked whole on the backup thread, and extracted there as it is checked (or
    // already, by stageRestore, while the app ran). A bad archive says so before the folder's
    // state is looked at.
    const manifest = options.staged?.manifest ?? (await readBackup(archivePath, { extractTo: staging })).manifest;
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

/** Reads, checks and extracts an archive into a staging folder of `dataDir` while the app runs
 * (restore.ts), for restoreBackup to swap in: the archive is read once. A staging folder left by a
 * crash has no journal and is removed at the next start (swap.ts). The caller removes it when the
 * restore does not happen. */
export async function stageRestore(archivePath: string, dataDir: string): Promise<{ staging: string; manifest: BackupManifest }> {
  const staging = await mkdtemp(join(dataDir, '.restore-'));
  try {
    return { staging, manifest: (await readBackup(archivePath, { extractTo: staging })).manifest };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
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
