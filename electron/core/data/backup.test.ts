import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { BadInputError, ConflictError } from '../errors';
import { publicKeyFingerprint } from '../settings-service';
import { createBackupScheduler } from './backup-scheduler';
import { createBackup, listBackups, readBackup, restoreBackup } from './backup';
import { readTar, writeTar, type TarEntry } from './tar';

const dirs: string[] = [];
const cores: Core[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-backup-'));
  dirs.push(d);
  return d;
};
const open = async (dataDir: string, clock?: () => Date) => {
  const core = await openCore({ dataDir, mode: 'headless', ...(clock ? { clock } : {}) });
  cores.push(core);
  return core;
};
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function tables(sqlite: Database.Database): string[] {
  return sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
}
/** Rows in rowid order; a WITHOUT ROWID table (the search index's) is read in its key's order. */
function dump(sqlite: Database.Database): Record<string, unknown[]> {
  const withoutRowid = (t: string) => /WITHOUT ROWID\s*$/i.test(sqlite.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(t) as string);
  return Object.fromEntries(tables(sqlite).map((t) => [t, sqlite.prepare(`SELECT * FROM "${t}"${withoutRowid(t) ? '' : ' ORDER BY rowid'}`).all()]));
}
function files(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(dir, join(d, e.name))] = readFileSync(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}
function addActors(core: Core, n: number) {
  const insert = core.sqlite.prepare('INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, ?, ?, ?, ?)');
  for (let i = 0; i < n; i++) insert.run('2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', `https://example.com/u/${i}`, JSON.stringify({ i }), 'Person');
}
/** Rewrites an archive's entries (the headers are rebuilt, so only the content check can catch it). */
function rewrite(archive: string, change: (entries: TarEntry[]) => void) {
  const entries = readTar(gunzipSync(readFileSync(archive)), { maxEntryBytes: 1e9 });
  change(entries);
  writeFileSync(archive, gzipSync(writeTar(entries)));
}
/** A one-entry tar whose name is written raw, bypassing the writer's own checks. */
function rawTar(name: string): Buffer {
  const tar = writeTar([{ name: 'placeholder', type: 'file', mode: 0o600, mtime: new Date(0), data: Buffer.from('x') }]);
  tar.fill(0, 0, 100);
  tar.write(name, 0, 'utf8');
  tar.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i] ?? 0;
  tar.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return gzipSync(tar);
}

describe('createBackup', () => {
  it('leaves out uploads still being written (their temporary files), keeping the stored ones', async () => {
    const core = await open(tempDir());
    mkdirSync(core.paths.uploads, { recursive: true });
    const hash = 'c'.repeat(64);
    writeFileSync(join(core.paths.uploads, hash), 'stored');
    writeFileSync(join(core.paths.uploads, 'incoming-0b7f.tmp'), 'arriving');
    writeFileSync(join(core.paths.uploads, `${'d'.repeat(64)}.4e1a.tmp`), 'before its rename');
    const { path } = await createBackup(core, { dest: tempDir() });
    const { manifest } = await readBackup(path);
    expect(manifest.entries.filter((e) => e.name.startsWith('uploads/')).map((e) => e.name)).toEqual([`uploads/${hash}`]);
  });

  it('copies the running database consistently while rows are being written', async () => {
    const core = await open(tempDir());
    core.sqlite.exec('CREATE TABLE probe_a (id INTEGER PRIMARY KEY, blob BLOB); CREATE TABLE probe_b (id INTEGER PRIMARY KEY, blob BLOB);');
    const pair = core.sqlite.transaction((blob: Buffer) => {
      core.sqlite.prepare('INSERT INTO probe_a (blob) VALUES (?)').run(blob);
      core.sqlite.prepare('INSERT INTO probe_b (blob) VALUES (?)').run(blob);
    });
    for (let i = 0; i < 400; i++) pair(Buffer.alloc(8192, i)); // several MB: the backup takes many steps
    let writing = true;
    let during = 0;
    const writer = (async () => {
      while (writing) {
        pair(Buffer.alloc(4096, during++));
        await new Promise((r) => setImmediate(r));
      }
    })();
    const result = await createBackup(core);
    writing = false;
    await writer;
    expect(during).toBeGreaterThan(0);
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(result.bytes).toBe(statSync(result.path).size);

    const extracted = tempDir();
    await readBackup(result.path, { extractTo: extracted });
    const copy = new Database(join(extracted, 'tern.db'));
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const a = copy.prepare('SELECT count(*) FROM probe_a').pluck().get() as number;
    expect(copy.prepare('SELECT count(*) FROM probe_b').pluck().get()).toBe(a);
    expect(a).toBeGreaterThanOrEqual(400);
    const total = tables(copy).reduce((n, t) => n + (copy.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number), 0);
    expect(result.rows).toBe(total);
    copy.close();
  });
});

describe('restoreBackup', () => {
  it('round trip: every row, key and upload comes back byte-equal, with the same key fingerprint', async () => {
    const dataDir = join(tempDir(), 'data');
    const core = await open(dataDir);
    addActors(core, 25);
    core.settings.update({ displayName: 'Ada' });
    mkdirSync(join(core.paths.uploads, 'ab'), { recursive: true });
    writeFileSync(join(core.paths.uploads, 'ab', 'photo.bin'), Buffer.from([0, 1, 2, 255, 254]));
    const rows = dump(core.sqlite);
    const before = files(dataDir);
    const fingerprint = await publicKeyFingerprint(core.fed.keys.rsa.publicKey);
    const elsewhere = tempDir();
    const { path } = await createBackup(core, { dest: elsewhere });
    expect(await listBackups(elsewhere)).toHaveLength(1);

    await expect(restoreBackup(path, dataDir)).rejects.toThrow(ConflictError);
    core.close();
    rmSync(dataDir, { recursive: true, force: true });
    expect((await restoreBackup(path, dataDir)).movedAside).toBeNull();

    const back = await open(dataDir);
    expect(dump(back.sqlite)).toEqual(rows);
    expect(await publicKeyFingerprint(back.fed.keys.rsa.publicKey)).toBe(fingerprint);
    expect(back.settings.get().displayName).toBe('Ada');
    const after = files(dataDir);
    for (const name of Object.keys(before).filter((n) => n.startsWith('keys') || n.startsWith('uploads') || n === 'settings.json')) {
      expect(after[name], name).toEqual(before[name]);
    }
    for (const key of readdirSync(back.paths.keys)) expect(statSync(join(back.paths.keys, key)).mode & 0o777).toBe(0o600);
  });

  it('moves the files it replaces aside, deleting nothing', async () => {
    const dataDir = tempDir();
    const core = await open(dataDir, () => new Date('2026-03-01T10:00:00Z'));
    const { path } = await createBackup(core);
    addActors(core, 3);
    core.close();
    const result = await restoreBackup(path, dataDir, () => new Date('2026-03-02T10:00:00Z'));
    expect(result.movedAside).toBe(join(dataDir, 'before-restore-2026-03-02T10-00-00-000Z'));
    expect(readdirSync(result.movedAside ?? '')).toEqual(expect.arrayContaining(['tern.db', 'keys']));
    expect(readdirSync(join(dataDir, 'backups'))).toContain('tern-backup-2026-03-01T10-00-00-000Z.tar.gz');
    const back = await open(dataDir);
    expect(back.sqlite.prepare('SELECT count(*) FROM actor').pluck().get()).toBe(0);
  });

  it('refuses a tampered archive with a clear message and changes nothing', async () => {
    const dataDir = tempDir();
    const core = await open(dataDir);
    addActors(core, 5);
    const { path } = await createBackup(core, { dest: tempDir() });
    core.close();
    rewrite(path, (entries) => {
      const db = entries.find((e) => e.name === 'tern.db');
      if (db) db.data[db.data.length - 100] = (db.data[db.data.length - 100] ?? 0) ^ 0xff;
    });
    const before = files(dataDir);
    await expect(restoreBackup(path, dataDir)).rejects.toThrow(/tern\.db does not match its checksum/);
    await expect(restoreBackup(path, dataDir)).rejects.toBeInstanceOf(BadInputError);
    expect(files(dataDir)).toEqual(before);
  });

  it.each([
    ['a parent path', '../evil.txt'],
    ['an absolute path', '/tmp/evil.txt'],
  ])('refuses an archive with %s', async (_what, name) => {
    const archive = join(tempDir(), 'evil.tar.gz');
    writeFileSync(archive, rawTar(name));
    const dataDir = tempDir();
    await expect(restoreBackup(archive, dataDir)).rejects.toThrow(/unsafe path/);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it.each([['backups/tern-backup-x.tar.gz'], ['tern.db-wal'], ['before-restore-x/tern.db'], ['notes.txt']])(
    'refuses an archive holding %s (not part of a data folder) and changes nothing',
    async (name) => {
      const dataDir = tempDir();
      const core = await open(dataDir);
      const { path } = await createBackup(core, { dest: tempDir() });
      core.close();
      const data = Buffer.from('smuggled');
      rewrite(path, (entries) => {
        const manifestEntry = entries.find((e) => e.name === 'manifest.json')!;
        const manifest = JSON.parse(manifestEntry.data.toString()) as { entries: unknown[] };
        manifest.entries.push({ name, type: 'file', bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') });
        manifestEntry.data = Buffer.from(JSON.stringify(manifest));
        entries.push({ name, type: 'file', mode: 0o600, mtime: new Date(0), data });
      });
      const before = files(dataDir);
      await expect(restoreBackup(path, dataDir)).rejects.toThrow(/not part of a Tern data folder/);
      expect(files(dataDir)).toEqual(before);
    },
  );

  it('refuses a link entry', async () => {
    const raw = gunzipSync(rawTar('link'));
    raw.write('2', 156, 'ascii');
    raw.fill(0x20, 148, 156);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += raw[i] ?? 0;
    raw.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
    const archive = join(tempDir(), 'link.tar.gz');
    writeFileSync(archive, gzipSync(raw));
    await expect(restoreBackup(archive, tempDir())).rejects.toThrow(/links are refused/);
  });

  it('refuses an archive from a schema revision this build does not know', async () => {
    const core = await open(tempDir());
    const { path } = await createBackup(core, { dest: tempDir() });
    rewrite(path, (entries) => {
      const manifest = entries.find((e) => e.name === 'manifest.json');
      if (manifest) manifest.data = Buffer.from(JSON.stringify({ ...JSON.parse(manifest.data.toString()), schemaRevision: 'ffffffffffff' }));
    });
    const dataDir = tempDir();
    await expect(restoreBackup(path, dataDir)).rejects.toThrow(/schema revision ffffffffffff, which this version of Tern does not know/);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('createBackupScheduler', () => {
  it('backs up once a day and keeps the newest N, leaving other files alone', async () => {
    let now = new Date('2026-05-01T08:00:00Z');
    const clock = () => now;
    const core = await open(tempDir(), clock);
    mkdirSync(core.paths.backups, { recursive: true });
    writeFileSync(join(core.paths.backups, 'tern-4ab54becec04-before-upgrade-2026-01-01.db'), 'old');
    writeFileSync(join(core.paths.backups, 'notes.txt'), 'mine');
    const scheduler = createBackupScheduler({ core, clock, keep: 3 });
    scheduler.start(); // checks at once
    await scheduler.stop();
    expect(await listBackups(core.paths.backups)).toHaveLength(1);

    let made = 0;
    for (let hour = 1; hour <= 24 * 6; hour++) {
      now = new Date(Date.parse('2026-05-01T08:00:00Z') + hour * 3600_000);
      if (await scheduler.runIfDue()) made++;
    }
    expect(made).toBe(6);
    const kept = await listBackups(core.paths.backups);
    expect(kept.map((b) => b.createdAt)).toEqual(['2026-05-07T08:00:00.000Z', '2026-05-06T08:00:00.000Z', '2026-05-05T08:00:00.000Z']);
    expect(readdirSync(core.paths.backups)).toEqual(expect.arrayContaining(['notes.txt', 'tern-4ab54becec04-before-upgrade-2026-01-01.db']));
  });

  it('a backup written while the clock was a year ahead neither stops the daily backups once it is corrected nor keeps newer ones from rotation', async () => {
    let now = new Date('2027-11-27T08:00:00Z'); // a dead RTC battery, a bad NTP answer
    const clock = () => now;
    const core = await open(tempDir(), clock);
    const scheduler = createBackupScheduler({ core, clock, keep: 3 });
    expect(await scheduler.runIfDue()).not.toBeNull();
    let made = 0;
    for (let day = 0; day < 5; day++) {
      now = new Date(Date.parse('2026-11-27T08:00:00Z') + day * 86_400_000); // corrected
      if (await scheduler.runIfDue()) made++;
    }
    expect(made).toBe(5);
    // The one from the future is pruned first, as if it were the oldest: the newest three real ones stay.
    expect((await listBackups(core.paths.backups)).map((b) => b.createdAt)).toEqual(['2026-12-01T08:00:00.000Z', '2026-11-30T08:00:00.000Z', '2026-11-29T08:00:00.000Z']);
  });
});
