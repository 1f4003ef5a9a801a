// The class, enumerated: every CHECK of every table a revision rebuilds is one whose refused
// values migrations/replaced-values.ts knows how to replace, and a database holding, past the
// CHECKs, each of a grid of values in each CHECKed column of each of those tables is upgraded
// through both rebuilding revisions and downgraded again without losing a row.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSqlite, type Sqlite } from '../db/client';
import { rebuildTables } from './rebuild';
import { columnChecks } from './replaced-values';
import { downgrade, upgrade } from './runner';

const dir = mkdtempSync(join(tmpdir(), 'tern-replaced-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const tables = (sqlite: Sqlite) =>
  sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%CONSTRAINT ck_%'").all() as { name: string; sql: string }[];

/** Values of every kind a tool may store: numbers, text of each shape, a blob, JSON and not. */
const GRID: unknown[] = [2, -1, 0.5, 1e300, 'garbage', '', ' public ', 'Like', 'true', 'no', '2', 'null', '[1,', '{"a":1}', '"text"', '2025-02-30T10:00:00Z', 'soon', Buffer.from([0, 255])];

describe('every CHECK of the rebuilt tables', () => {
  it('is read as a boolean, an enumeration, JSON or a datetime, at every revision that rebuilds', () => {
    const sqlite = openSqlite(':memory:');
    try {
      for (const target of ['9519a2c5ec87', '70cce0da20c3', 'head']) {
        upgrade(sqlite, target);
        for (const { name, sql } of tables(sqlite)) {
          const checks = columnChecks(name, sql);
          expect(checks.length, name).toBe(sql.split('CONSTRAINT ck_').length - 1);
          for (const check of checks) expect(check.kind.is, `${target} ${check.name}: ${check.expression}`).not.toBe('other');
        }
      }
    } finally {
      sqlite.close();
    }
  });

  /** One row per value of GRID in each table, that value in every CHECKed column (other
   * columns: a unique text or number), written with the CHECKs and foreign keys off. */
  function fill(sqlite: Sqlite, round: number): Map<string, number> {
    sqlite.pragma('foreign_keys = OFF');
    sqlite.pragma('ignore_check_constraints = ON');
    const counts = new Map<string, number>();
    for (const { name, sql } of tables(sqlite)) {
      const checked = new Set(columnChecks(name, sql).map((c) => c.column));
      const columns = (sqlite.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string }[]).filter((c) => c.name !== 'id');
      const insert = sqlite.prepare(`INSERT INTO ${name} (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      GRID.forEach((value, i) => {
        const row = columns.map((c) => (checked.has(c.name) ? value : c.type === 'INTEGER' ? 1000 * round + i : `${c.name}-${round}-${i}`));
        try {
          insert.run(...row);
        } catch (error) {
          // Text that is not JSON in inbox/outbox ap_object: their inReplyTo indexes refuse it.
          expect((error as Error).message, `${name} ${String(value)}`).toBe('malformed JSON');
        }
      });
      counts.set(name, sqlite.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number);
      for (const c of checked) stored.push(...sqlite.prepare(`SELECT ${c} FROM ${name}`).pluck().all());
    }
    sqlite.pragma('ignore_check_constraints = OFF');
    sqlite.pragma('foreign_keys = ON');
    return counts;
  }
  /** Every value fill stored in a CHECKed column, as SQLite stored it (2 in a TEXT column is '2.0'). */
  const stored: unknown[] = [];
  const counts = (sqlite: Sqlite) => new Map(tables(sqlite).map(({ name }) => [name, sqlite.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number]));
  const integrity = (db: string) => spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim();

  it(`takes each of ${GRID.length} values in each column through b3e1c5a7d902 and 5d0e8a3c71f4 up and down, keeping every row; integrity_check stays ok in the 3.40 shell`, () => {
    const db = join(dir, `tern-${files++}.db`);
    const sqlite = openSqlite(db);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      upgrade(sqlite, '9519a2c5ec87');
      // As built before the spec revisions wrote `IS NULL OR`, so that b3e1c5a7d902 rebuilds.
      sqlite.pragma('foreign_keys = OFF');
      sqlite.transaction(() =>
        rebuildTables(sqlite, ['inbox', 'incoming_activity', 'outbox', 'webmention', 'oauth_client'], (_, sql) => sql.replace(/CHECK \((\w+) IS NULL OR json_valid\(\1\)\)/g, 'CHECK (json_valid($1))'), 'test'),
      )();
      sqlite.pragma('foreign_keys = ON');
      const before = fill(sqlite, 1);
      expect(upgrade(sqlite)).toHaveLength(7);
      expect(counts(sqlite)).toEqual(before);
      const atHead = fill(sqlite, 2);
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4']);
      expect(counts(sqlite)).toEqual(atHead);
      expect(upgrade(sqlite)).toEqual(['5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
      expect(counts(sqlite)).toEqual(atHead);
      // Every value set aside is one that was stored, kept as it was.
      const originals = sqlite.prepare('SELECT original FROM replaced_value UNION ALL SELECT original FROM replaced_datetime').pluck().all();
      expect(originals.length).toBeGreaterThan(100);
      for (const original of originals) expect(stored).toContainEqual(original);
      // In a flag whose true hides or disables, no value of GRID is a 0 ('no' and 'true' alike):
      // each became true, as Tern's `col = 0` filters read it before.
      const cautious = sqlite
        .prepare("SELECT column_name, original, stored_as FROM replaced_value WHERE column_name IN ('is_revoked', 'is_used', 'is_deleted', 'is_hidden_from_stream', 'is_hidden_from_homepage', 'is_transient')")
        .raw()
        .all() as unknown[][];
      expect(cautious.length).toBeGreaterThan(20);
      expect(cautious.filter((row) => row[2] !== 1)).toEqual([]);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });
});
