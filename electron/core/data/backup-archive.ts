// The backup thread's part of a backup (backup-worker.ts): writing the archive and reading it
// back, both as streams, so memory stays a few MB whatever the size of the data folder. An
// archive once went through one buffer each way: gzipSync silently truncated a tar over 4 GiB
// (Node 24), writing a 5 GiB folder took 9 GB of memory, and a 4 MB gzip bomb made a restore
// inflate and copy 3.8 GB before it found there was no manifest.
//
// The archive: a gzip of a ustar, manifest.json first (every entry's name, type, size and
// sha256), then the entries in the manifest's order. Reading checks each header against the
// manifest as it comes (so nothing unlisted, nothing larger than listed, is ever inflated), and
// hashes and writes each entry straight to the staging folder.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip, createGzip, crc32 } from 'node:zlib';
import Database from 'better-sqlite3';
import { REVISIONS, currentRevision } from '../../../migrations/runner';
import { BadInputError } from '../errors';
import { isTemporaryFile } from '../media/temporary-files';
import { parseBoundedJson } from '../net/bounded-json';
import type { DataPaths } from '../paths';
import { TERN_VERSION } from '../version';
import { BACKUP_FORMAT, backupFileName, isRestorableName, manifestSchema, type BackupManifest, type BackupResult } from './backup';
import { writePrivateStream } from './private-file';
import { BLOCK, MAX_OCTAL_SIZE, TAR_END, parseTarHeader, tarHeader, tarPadding, type TarHeader } from './tar';

const DB_ENTRY = 'tern.db';
const MANIFEST_ENTRY = 'manifest.json';
/** The format's limits, the same for writing and reading: one entry up to what ustar's size
 * field holds (8 GiB − 1), the whole archive up to 64 GiB, the manifest up to 16 MiB. */
export const MAX_ENTRY_BYTES = MAX_OCTAL_SIZE;
export const MAX_BACKUP_BYTES = 64 * 1024 ** 3;
const MAX_MANIFEST_BYTES = 16 * 1024 ** 2;

/** An entry to write: small ones (keys, settings) held, the others read from `path`. */
interface SourceEntry {
  name: string;
  type: 'file' | 'directory';
  mode: number;
  bytes: number;
  sha256: string;
  data?: Buffer;
  path?: string;
}

/** Writes the archive of a database copy and the data folder's files (the backup thread's part). */
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

  // First pass: what goes in, with sizes and hashes, for the manifest that comes first.
  const entries: SourceEntry[] = [await streamedFile(DB_ENTRY, job.dbCopy)];
  entries.push(...(await folderEntries(job.paths.keys, 'keys', true)));
  if (existsSync(job.paths.settings)) entries.push(heldFile('settings.json', await readFile(job.paths.settings)));
  entries.push(...(await folderEntries(job.paths.uploads, 'uploads', false)));
  const total = entries.reduce((sum, e) => sum + e.bytes, 0);
  if (total > MAX_BACKUP_BYTES) throw new BadInputError(`The data folder holds ${gib(total)} GiB, more than a backup holds (${gib(MAX_BACKUP_BYTES)} GiB).`);
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    ternVersion: TERN_VERSION,
    schemaRevision: revision,
    createdAt: createdAt.toISOString(),
    entries: entries.map((e) => ({ name: e.name, type: e.type, bytes: e.bytes, sha256: e.sha256 })),
  };
  const manifestEntry = heldFile(MANIFEST_ENTRY, Buffer.from(JSON.stringify(manifest, null, 2)));

  // Second pass: tar, gzip and write, a chunk at a time; the CRC and length of what went into gzip
  // are kept to check the written file's trailer.
  const path = join(job.destDir, backupFileName(createdAt));
  let crc = 0;
  let tarBytes = 0;
  async function* tar(): AsyncGenerator<Buffer> {
    const counted = (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      tarBytes += chunk.length;
      return chunk;
    };
    for (const entry of [manifestEntry, ...entries]) {
      yield counted(tarHeader({ ...entry, mtime: createdAt }, entry.bytes));
      if (entry.type === 'directory') continue;
      if (entry.data !== undefined) yield counted(entry.data);
      else {
        // Read again and checked against the first pass: a file changed in between fails the
        // backup rather than writing an archive whose manifest does not match it.
        const hash = createHash('sha256');
        let read = 0;
        for await (const chunk of createReadStream(entry.path ?? '', { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
          read += chunk.length;
          if (read > entry.bytes) break;
          hash.update(chunk);
          yield counted(chunk);
        }
        if (read !== entry.bytes || hash.digest('hex') !== entry.sha256) throw new Error(`${entry.name} changed while the backup was being written; try again.`);
      }
      yield counted(tarPadding(entry.bytes));
    }
    yield counted(TAR_END);
  }
  const bytes = await writePrivateStream(path, tar(), { through: createGzip(), check: (file) => checkGzipTrailer(file, crc, tarBytes) });
  return { path, bytes, rows };
}

/** The written archive, checked before it counts as a backup (and older ones are pruned): its
 * gzip trailer must hold the CRC-32 and length (mod 2^32) of the tar that went in. */
async function checkGzipTrailer(handle: FileHandle, crc: number, tarBytes: number): Promise<void> {
  const { size } = await handle.stat();
  const head = Buffer.alloc(2);
  const trailer = Buffer.alloc(8);
  await handle.read(head, 0, 2, 0);
  await handle.read(trailer, 0, 8, Math.max(0, size - 8));
  if (size < 18 || head[0] !== 0x1f || head[1] !== 0x8b || trailer.readUInt32LE(0) !== crc >>> 0 || trailer.readUInt32LE(4) !== tarBytes % 2 ** 32) {
    throw new Error('The backup archive was not written correctly (its gzip trailer does not match what went in); no backup was made.');
  }
}

const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function heldFile(name: string, data: Buffer): SourceEntry {
  return { name, type: 'file', mode: 0o600, bytes: data.length, sha256: sha256(data), data };
}

/** A file read as a stream for its size and hash (it is read again when the archive is written). */
async function streamedFile(name: string, path: string): Promise<SourceEntry> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_ENTRY_BYTES) throw new BadInputError(`${name} is larger than a backup holds (${gib(MAX_ENTRY_BYTES)} GiB).`);
    hash.update(chunk);
  }
  return { name, type: 'file', mode: 0o600, bytes, sha256: hash.digest('hex'), path };
}

/** A folder's files and sub-folders as entries under `prefix`; none when it does not exist.
 * `hold`: small files (keys), read into memory once. */
async function folderEntries(dir: string, prefix: string, hold: boolean): Promise<SourceEntry[]> {
  if (!existsSync(dir)) return [];
  const entries: SourceEntry[] = [{ name: prefix, type: 'directory', mode: 0o700, bytes: 0, sha256: sha256(Buffer.alloc(0)) }];
  for (const item of await readdir(dir, { withFileTypes: true })) {
    // The app runs on while its backup is written: an upload being received or renamed into
    // place (media/store.ts, a *.tmp file) is not part of it, and a file removed meanwhile (the
    // media sweep) is left out rather than failing the backup.
    if (isTemporaryFile(item.name)) continue;
    const full = join(dir, item.name);
    const name = `${prefix}/${item.name}`;
    if (item.isDirectory()) entries.push(...(await folderEntries(full, name, hold)));
    else if (item.isFile()) {
      const entry = await (hold ? readFile(full).then((data) => heldFile(name, data)) : streamedFile(name, full)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (entry !== null) entries.push(entry);
    }
    // Links and other special files are not Tern's and are left out.
  }
  return entries;
}

/** Reads exact lengths from a stream of chunks, keeping only what is not yet consumed. */
class ChunkReader {
  private pending: Buffer = Buffer.alloc(0);
  private done = false;
  constructor(
    private readonly source: AsyncIterator<Buffer>,
    /** What a source that fails (not gzip, damaged) is answered with. */
    private readonly damaged: Error,
  ) {}

  private async more(): Promise<boolean> {
    if (this.done) return false;
    let next: IteratorResult<Buffer>;
    try {
      next = await this.source.next();
    } catch {
      throw this.damaged;
    }
    if (next.done) {
      this.done = true;
      return false;
    }
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
    return true;
  }

  /** Exactly `n` bytes (n small: a header, a manifest); null at the very end of the stream. */
  async exactly(n: number): Promise<Buffer | null> {
    while (this.pending.length < n) {
      if (!(await this.more())) {
        if (this.pending.length === 0) return null;
        throw new BadInputError('The backup archive is cut short.');
      }
    }
    const out = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  /** `n` bytes in the pieces they come in. */
  async *pieces(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.pending.length === 0 && !(await this.more())) throw new BadInputError('The backup archive is cut short.');
      const piece = this.pending.subarray(0, Math.min(left, this.pending.length));
      this.pending = this.pending.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const piece of this.pieces(n)) void piece;
  }
}

/**
 * Reads and checks an archive (the backup thread's part of readBackup): the manifest first, then
 * each entry against it — listed, once, its type and size, its sha256 — and its database opened
 * read-only at the revision the manifest names. With `extractTo` (an empty folder), the entries
 * are written there as they come; without it only the database is written, to a private temp
 * folder, for its check. Throws BadInputError for anything it refuses.
 */
export async function readBackupHere(job: { archivePath: string; extractTo: string | null }): Promise<{ manifest: BackupManifest }> {
  const notBackup = (why: string) => new BadInputError(`${job.archivePath} is not a Tern backup (${why}).`);
  const source = await open(job.archivePath, 'r').catch(() => {
    throw new BadInputError(`The backup ${job.archivePath} could not be read.`);
  });
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  const compressed = source.createReadStream();
  compressed.on('error', (error) => gunzip.destroy(error));
  const reader = new ChunkReader((compressed.pipe(gunzip) as AsyncIterable<Buffer>)[Symbol.asyncIterator](), notBackup('it is not a gzip archive, or it is damaged'));
  const scratch = job.extractTo === null ? await mkdtemp(join(tmpdir(), 'tern-backup-check-')) : null;
  const target = job.extractTo ?? scratch ?? '';
  const limits = { maxEntryBytes: MAX_ENTRY_BYTES };
  const nextHeader = async (): Promise<TarHeader | null> => {
    const block = await reader.exactly(BLOCK);
    if (block === null) throw new BadInputError('The backup archive is cut short (no end marker).');
    return parseTarHeader(block, limits);
  };
  try {
    // The manifest comes first: an archive without one is refused before anything is inflated.
    // Nothing at all (an empty or truncated gzip stream) is not a backup either.
    const firstBlock = await reader.exactly(BLOCK).catch(() => null);
    if (firstBlock === null) throw notBackup('it is not a gzip archive, or it is damaged');
    const first = parseTarHeader(firstBlock, limits);
    if (first === null || first.name !== MANIFEST_ENTRY || first.type !== 'file') throw notBackup('it does not start with a manifest');
    if (first.size > MAX_MANIFEST_BYTES) throw notBackup('its manifest is too large');
    const manifest = parseManifest((await reader.exactly(first.size)) ?? Buffer.alloc(0));
    await reader.skip(tarPadding(first.size).length);
    const listed = checkManifest(manifest);

    const seen = new Set<string>();
    for (let header = await nextHeader(); header !== null; header = await nextHeader()) {
      const expected = listed.get(header.name);
      if (!isRestorableName(header.name)) {
        throw new BadInputError(`The backup holds ${JSON.stringify(header.name)}, which is not part of a Tern data folder; nothing was restored.`);
      }
      if (seen.has(header.name)) throw new BadInputError(`The backup is damaged: it holds ${header.name} twice, so nothing was restored.`);
      seen.add(header.name);
      if (expected === undefined) throw new BadInputError('The backup is damaged: its manifest and its contents do not match, so nothing was restored.');
      if (expected.type !== header.type || expected.bytes !== header.size) {
        throw new BadInputError(`The backup is damaged: ${header.name} does not match its manifest, so nothing was restored.`);
      }
      const path = join(target, ...header.name.split('/'));
      if (header.type === 'directory') {
        if (job.extractTo !== null) {
          await mkdir(path, { recursive: true, mode: 0o700 });
          await chmod(path, 0o700);
        }
        continue;
      }
      const written = job.extractTo !== null || header.name === DB_ENTRY ? await createPrivate(path) : null;
      const hash = createHash('sha256');
      try {
        for await (const piece of reader.pieces(header.size)) {
          hash.update(piece);
          if (written !== null) await written.write(piece);
        }
      } finally {
        await written?.close();
      }
      await reader.skip(tarPadding(header.size).length);
      if (hash.digest('hex') !== expected.sha256) throw new BadInputError(`The backup is damaged: ${header.name} does not match its checksum, so nothing was restored.`);
    }
    if ([...listed.keys()].some((name) => !seen.has(name))) {
      throw new BadInputError('The backup is damaged: its manifest and its contents do not match, so nothing was restored.');
    }
    checkBackupDatabase(join(target, DB_ENTRY), manifest.schemaRevision);
    return { manifest };
  } finally {
    compressed.destroy();
    gunzip.destroy();
    await source.close().catch(() => undefined);
    if (scratch !== null) await rm(scratch, { recursive: true, force: true });
  }
}

/** A new file, private whatever the archive says (0600, also after the umask), in 0700 folders. */
async function createPrivate(path: string): Promise<FileHandle> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const handle = await open(path, 'wx', 0o600);
  await handle.chmod(0o600);
  return handle;
}

function parseManifest(data: Buffer): BackupManifest {
  try {
    return manifestSchema.parse(parseBoundedJson(data.toString('utf8')));
  } catch {
    throw new BadInputError('The manifest of this backup is not one this version of Tern understands.');
  }
}

/** The manifest's entries by name, once each, within the format's limits, with a database at a
 * revision this build knows. */
function checkManifest(manifest: BackupManifest): Map<string, BackupManifest['entries'][number]> {
  const listed = new Map(manifest.entries.map((e) => [e.name, e]));
  if (listed.size !== manifest.entries.length) throw new BadInputError('The backup is damaged: its manifest lists an entry twice, so nothing was restored.');
  let total = 0;
  for (const entry of manifest.entries) {
    if (!isRestorableName(entry.name)) {
      throw new BadInputError(`The backup holds ${JSON.stringify(entry.name)}, which is not part of a Tern data folder; nothing was restored.`);
    }
    if (entry.bytes > MAX_ENTRY_BYTES || (entry.type === 'directory' && entry.bytes !== 0)) throw new BadInputError(`The backup's ${entry.name} is larger than Tern accepts.`);
    total += entry.bytes;
  }
  if (total > MAX_BACKUP_BYTES) throw new BadInputError(`The backup holds ${gib(total)} GiB, more than Tern accepts (${gib(MAX_BACKUP_BYTES)} GiB).`);
  if (listed.get(DB_ENTRY)?.type !== 'file') throw new BadInputError('The backup holds no database.');
  if (!REVISIONS.some((r) => r.id === manifest.schemaRevision)) {
    throw new BadInputError(
      `The backup's database is at schema revision ${manifest.schemaRevision}, which this version of Tern does not know ` +
        `(it was made by a newer Tern, ${manifest.ternVersion}); update Tern, then restore it.`,
    );
  }
  return listed;
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
