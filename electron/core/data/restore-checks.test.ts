// What a restore checks before it moves anything — the database opens, at the revision its
// manifest says; each entry once; the restored files private — and what the host does when the
// data it swapped in does not open anyway: the previous data goes back.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { HEAD } from '../../../migrations/runner';
import { openCore } from '../core';
import { createCoreHost, type CoreHost } from '../core-host';
import { BadInputError } from '../errors';
import { createBackup, restoreBackup } from './backup';
import { restoreInPlace } from './restore';
import { swapIntoDataFolder, undoSwap } from './swap';
import { writeTar, type TarEntry } from './tar';

const dirs: string[] = [];
const hosts: CoreHost[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-restore-checks-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close().catch(() => undefined);
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const file = (name: string, data: Buffer, mode = 0o600): TarEntry => ({ name, type: 'file', mode, mtime: new Date(), data });

/** An archive of `content` whose manifest lists `listed` (by default: the content) and claims HEAD. */
function archive(content: TarEntry[], listed: TarEntry[] = content): string {
  const manifest = {
    format: 1,
    ternVersion: 'test',
    schemaRevision: HEAD,
    createdAt: new Date().toISOString(),
    entries: listed.map((e) => ({ name: e.name, type: e.type, bytes: e.data.length, sha256: sha256(e.data) })),
  };
  const path = join(tempDir(), 'tern-backup-2026-01-01T00-00-00-000Z.tar.gz');
  writeFileSync(path, gzipSync(writeTar([file('manifest.json', Buffer.from(JSON.stringify(manifest))), ...content])));
  return path;
}

function databaseAt(revision: string): Buffer {
  const path = join(tempDir(), 'x.db');
  const db = new Database(path);
  db.exec('CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)');
  db.prepare('INSERT INTO alembic_version VALUES (?)').run(revision);
  db.close();
  return readFileSync(path);
}

async function hostOn(dataDir: string, open: () => ReturnType<typeof openCore> = () => openCore({ dataDir, mode: 'headless' })): Promise<CoreHost> {
  const host = await createCoreHost({ open, run: () => async () => {} });
  hosts.push(host);
  return host;
}
const addActor = (host: CoreHost, id = 'https://a.example/u') =>
  host
    .current()
    .sqlite.prepare('INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, ?, ?, ?, ?)')
    .run('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', id, '{}', 'Person');
const actorCount = (host: CoreHost) => host.current().sqlite.prepare('SELECT count(*) FROM actor').pluck().get();

describe('a backup whose database cannot be opened', () => {
  it.each([
    ['a database at a revision this build does not know (its manifest says HEAD)', () => databaseAt('ffffffffffff'), /revision ffffffffffff, which this version of Tern does not know/],
    ['a database at a known revision other than its manifest says', () => databaseAt('f5717d82b3ff'), /its database is at revision f5717d82b3ff, not/],
    ['the SQLite magic followed by garbage', () => Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4096, 0x41)]), /tern\.db is damaged/],
  ])('%s is refused before anything moves; the app runs on and the next start opens', async (_what, database, message) => {
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    addActor(host);
    const path = archive([file('tern.db', database())]);
    const before = readdirSync(dataDir).sort();

    const refused = await Promise.resolve(host.handlers()['backup.restore']({ backup: path })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadInputError);
    expect((refused as Error).message).toMatch(message);
    expect((refused as Error).message).not.toContain(tmpdir());
    expect(readdirSync(dataDir).sort()).toEqual(before);
    expect(actorCount(host)).toBe(1);
    await expect(restoreBackup(path, tempDir())).rejects.toThrow(message);
  });
});

describe('the host, when the data swapped in does not open', () => {
  it('puts the previous data back, reopens it, and answers with a clear error', async () => {
    const dataDir = tempDir();
    let opens = 0;
    const host = await hostOn(dataDir, async () => {
      opens++;
      // The second open is the one on the swapped-in data: it fails as a broken database would.
      if (opens === 2) throw new Error('file is not a database');
      return openCore({ dataDir, mode: 'headless' });
    });
    addActor(host);
    const backupPath = (await createBackup(host.current())).path;
    const names = () => readdirSync(dataDir).filter((n) => !n.endsWith('-journal')).sort();
    const before = names();

    const refused = await host
      .reopen(
        (dir) => restoreBackup(backupPath, dir),
        (dir, restored) => undoSwap(dir, restored.movedAside),
      )
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadInputError);
    expect((refused as Error).message).toMatch(/the previous data was put back/);
    expect(opens).toBe(3);
    expect(names()).toEqual(before);
    expect(actorCount(host)).toBe(1);
  });

  it('undoSwap with nothing moved aside removes what was swapped in', async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'backups'));
    const staging = join(dataDir, '.restore-x');
    mkdirSync(staging);
    writeFileSync(join(staging, 'tern.db'), 'new');
    expect(await swapIntoDataFolder(dataDir, staging, 'before-restore-1')).toBeNull();
    await undoSwap(dataDir, null);
    expect(readdirSync(dataDir)).toEqual(['backups']);
  });

  it('restoring through the app: the handler passes the undo (restoreInPlace)', async () => {
    const dataDir = tempDir();
    const calls: string[] = [];
    const reopen = (async (swap: (dir: string) => Promise<unknown>, undo?: unknown) => {
      calls.push(typeof undo);
      return swap(tempDir());
    }) as Parameters<typeof restoreInPlace>[1];
    const core = await openCore({ dataDir, mode: 'headless' });
    const { path } = await createBackup(core);
    await restoreInPlace(core, reopen, path);
    core.close();
    expect(calls).toEqual(['function']);
  });
});

describe('restoring from the running app reads the archive once', () => {
  it('what was checked while the app ran is what is swapped in (the archive is not read again)', async () => {
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    addActor(host);
    const { path } = await createBackup(host.current(), { dest: tempDir() });
    addActor(host, 'https://b.example/u');
    const reopen = host.reopen.bind(host);
    const readOnce: Parameters<typeof restoreInPlace>[1] = (swap, undo) => {
      rmSync(path); // gone once the core closes: only the staged copy can be restored
      return reopen(swap, undo);
    };
    await restoreInPlace(host.current(), readOnce, path);
    expect(actorCount(host)).toBe(1);
    expect(readdirSync(dataDir).some((n) => n.startsWith('.restore-'))).toBe(false);
  });

  it('a refused reopen leaves no staging folder behind', async () => {
    const dataDir = tempDir();
    const core = await openCore({ dataDir, mode: 'headless' });
    const { path } = await createBackup(core, { dest: tempDir() });
    const refusing: Parameters<typeof restoreInPlace>[1] = () => Promise.reject(new Error('busy'));
    await expect(restoreInPlace(core, refusing, path)).rejects.toThrow('busy');
    core.close();
    expect(readdirSync(dataDir).some((n) => n.startsWith('.restore-'))).toBe(false);
  });
});

describe('the entries of a backup', () => {
  it('the same entry twice (the manifest listing another name instead) is refused as damaged, nothing extracted', async () => {
    const db = databaseAt(HEAD);
    const settings = Buffer.from('{}');
    const path = archive([file('tern.db', db), file('tern.db', db)], [file('tern.db', db), file('settings.json', settings)]);
    const dataDir = tempDir();
    const refused = await restoreBackup(path, dataDir).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadInputError);
    expect((refused as Error).message).toMatch(/holds tern\.db twice/);
    expect((refused as Error).message).not.toContain(dataDir);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a manifest naming an entry the archive does not hold is refused', async () => {
    const db = databaseAt(HEAD);
    const path = archive([file('tern.db', db), file('settings.json', Buffer.from('{}'))], [file('tern.db', db), file('keys/private.pem', Buffer.from('k'))]);
    await expect(restoreBackup(path, tempDir())).rejects.toThrow(/manifest and its contents do not match/);
  });

  it('restored files are 0600 and folders 0700 whatever modes the archive gives them', async () => {
    const db = databaseAt(HEAD);
    const settings = Buffer.from('{}');
    const upload = Buffer.from('u');
    const path = archive([
      file('tern.db', db, 0o666),
      file('settings.json', settings, 0o666),
      { name: 'uploads', type: 'directory', mode: 0o777, mtime: new Date(), data: Buffer.alloc(0) },
      file('uploads/a', upload, 0o777),
    ]);
    const dataDir = tempDir();
    await restoreBackup(path, dataDir);
    const mode = (name: string) => (statSync(join(dataDir, name)).mode & 0o777).toString(8);
    expect([mode('tern.db'), mode('settings.json'), mode('uploads/a'), mode('uploads')]).toEqual(['600', '600', '600', '700']);
    expect(existsSync(join(dataDir, 'manifest.json'))).toBe(false);
  });
});
