import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../db/client';
import { currentRevision, downgrade, upgrade, UnknownDatabaseRevisionError } from '../../migrations/runner';
import { openCore } from './core';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-core-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('openCore', () => {
  it('creates the data folder and a database at head, with no backup for a new file', async () => {
    const dir = join(tempDir(), 'nested', 'data');
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    expect(currentRevision(core.sqlite)).toBe('ae35abd14d3a');
    expect(core.migration).toMatchObject({ from: null, backup: null });
    expect(core.migration.applied).toEqual(['f5717d82b3ff', '9b404c47970a', '4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
    expect(core.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(core.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    core.close();
  });

  it('copies an older database aside before upgrading it, keeping its rows', async () => {
    const dir = tempDir();
    const old = openSqlite(join(dir, 'tern.db'));
    upgrade(old, '9b404c47970a');
    old
      .prepare(`INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, ?, ?, ?, ?)`)
      .run('2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', 'https://example.com/u', '{}', 'Person');
    old.close();

    const core = await openCore({ dataDir: dir, mode: 'headless', clock: () => new Date('2026-01-02T03:04:05Z') });
    expect(core.migration.from).toBe('9b404c47970a');
    expect(core.migration.applied).toEqual(['4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
    expect(core.migration.backup).not.toBeNull();
    expect(existsSync(core.migration.backup!)).toBe(true);
    expect(core.services.status.get().counts.actor).toBe(1);
    core.close();

    const backup = openSqlite(readdirSync(join(dir, 'backups')).map((f) => join(dir, 'backups', f))[0]!, { readonly: true });
    expect(currentRevision(backup)).toBe('9b404c47970a');
    expect(backup.prepare('SELECT count(*) AS n FROM actor').get()).toEqual({ n: 1 });
    backup.close();
  });

  it('opens a database already at head without copying it', async () => {
    const dir = tempDir();
    (await openCore({ dataDir: dir, mode: 'headless' })).close();
    const again = await openCore({ dataDir: dir, mode: 'headless' });
    expect(again.migration).toEqual({ from: 'ae35abd14d3a', applied: [], backup: null });
    expect(existsSync(join(dir, 'backups'))).toBe(false);
    again.close();
  });

  it('refuses a database whose revision this build does not know, and leaves it untouched', async () => {
    const dir = tempDir();
    const db = openSqlite(join(dir, 'tern.db'));
    upgrade(db);
    downgrade(db, 'base');
    db.exec(`DELETE FROM alembic_version; INSERT INTO alembic_version (version_num) VALUES ('a209f0333f5a')`);
    db.close();
    await expect(openCore({ dataDir: dir, mode: 'headless' })).rejects.toBeInstanceOf(UnknownDatabaseRevisionError);
    const after = openSqlite(join(dir, 'tern.db'));
    expect(currentRevision(after)).toBe('a209f0333f5a');
    expect(after.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'actor'`).get()).toEqual({ n: 0 });
    after.close();
  });

  it('reports its status: revision, head, counts, folder and mode', async () => {
    const dir = tempDir();
    const core = await openCore({ dataDir: dir, mode: 'desktop' });
    const status = core.services.status.get();
    expect(status).toMatchObject({ revision: 'ae35abd14d3a', head: 'ae35abd14d3a', dataDir: dir, mode: 'desktop' });
    expect(status.databasePath).toBe(join(dir, 'tern.db'));
    expect(Object.values(status.counts).every((n) => n === 0)).toBe(true);
    core.close();
  });
});
