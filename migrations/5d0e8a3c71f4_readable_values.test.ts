// Revision 5d0e8a3c71f4: a datetime written with an offset by any tool (the sqlite3 3.40 shell,
// python3's sqlite3, better-sqlite3) is stored as the same UTC text toISOString() writes, so text
// order is time order; what SQLite versions read differently is refused by all of them alike;
// ap_object and ap_actor hold a JSON object. Upgrading rewrites what is stored; downgrading
// restores the former schema.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../db/client';
import { downgrade, upgrade } from './runner';
import { presentTools, shell } from './test-tools';

const T = "'2024-05-01T12:00:00.000Z'";
const dir = mkdtempSync(join(tmpdir(), 'tern-readable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A database file Tern made, at `target`, with an actor and an inbox row to refer to. */
function ternDatabase(target = 'head'): string {
  const path = join(dir, `tern-${files++}.db`);
  const sqlite = openSqlite(path);
  upgrade(sqlite, target);
  sqlite.exec(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (1, ${T}, ${T}, 'https://a.example/u', '{}', 'Person');`);
  sqlite.close();
  return path;
}

const notification = (at: string) => `INSERT INTO notifications (created_at, notification_type, is_new, actor_id) VALUES ('${at}', 'NEW_FOLLOWER', 1, 1)`;
let n = 0;
const inboxRow = (object: string, published = '2024-05-01T12:00:00.000Z') =>
  `INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count) VALUES (${T}, ${T}, 1, 'a.example', 0, 'https://a.example/u', 'Note', 'https://a.example/n/${n++}', '${published}', '${object}', 'PUBLIC', 0, 0, 0)`;

function read<T>(db: string, sql: string): T[] {
  const sqlite = openSqlite(db, { readonly: true });
  try {
    return sqlite.prepare(sql).pluck().all() as T[];
  } finally {
    sqlite.close();
  }
}
const lastCreatedAt = (db: string) => read<string>(db, 'SELECT created_at FROM notifications ORDER BY id DESC LIMIT 1')[0];

// Written by another tool → stored as.
const REWRITTEN: [string, string][] = [
  ['2025-02-01T12:00:00+02:00', '2025-02-01T10:00:00.000Z'],
  ['2025-02-01 12:00:00 -05:30', '2025-02-01T17:30:00.000Z'],
  ['2025-02-01T10:00:00 Z', '2025-02-01T10:00:00.000Z'],
  ['2025-02-01T10:00Z', '2025-02-01T10:00:00.000Z'],
  ['2025-02-01T10:00:00.123456+00:00', '2025-02-01T10:00:00.123Z'], // python's isoformat()
  ['2025-02-01T10:00:00.1239Z', '2025-02-01T10:00:00.123Z'], // cut, not rounded (3.40 rounds)
  ['2024-02-29T23:30:00-01:00', '2024-03-01T00:30:00.000Z'],
  ['2025-02-01T10:00:00.000Z', '2025-02-01T10:00:00.000Z'],
];
// Read differently by SQLite versions, or by none: refused by every tool.
const REFUSED = [
  '2025-02-01T24:30:00Z', // 3.40 keeps 24:30, 3.54 refuses it
  '2025-02-01T24:00:00Z', // 3.40 keeps 24:00, 3.54 reads the next day
  '2025-02-30T10:00:00Z', // 3.40 keeps it, 3.54 reads 2 March
  '2025-02-29T10:00:00Z',
  '2025-02-01T10:00:00', // no offset
  '2025-02-01Z',
  '2025-02-01t10:00:00Z',
  '2025-02-01T10:00:60Z',
  '20250201T100000Z',
];

describe('datetimes and JSON objects, whichever tool writes them (5d0e8a3c71f4)', () => {
  for (const [name, tool] of presentTools()) {
    it(`${name}: a datetime with an offset or a space is stored as UTC text; what versions read differently is refused`, () => {
      const db = ternDatabase();
      for (const [written, stored] of REWRITTEN) {
        expect(tool(db, notification(written)), written).toBeNull();
        expect(lastCreatedAt(db), written).toBe(stored);
      }
      for (const value of REFUSED) expect(tool(db, notification(value)), value).toMatch('CHECK constraint failed: ck_notifications_created_at');
      // UPDATE, and an optional column that stays NULL.
      expect(tool(db, "UPDATE notifications SET created_at = '2025-03-01T00:00:00+01:00' WHERE id = 1")).toBeNull();
      expect(read<string>(db, 'SELECT created_at FROM notifications WHERE id = 1')).toEqual(['2025-02-28T23:00:00.000Z']);
      expect(tool(db, "INSERT INTO incoming_activity (created_at, ap_object, tries, next_try, last_try, is_processed, is_errored) VALUES ('2025-02-01T12:00:00+02:00', NULL, 0, NULL, '2025-02-01T12:00:00.5+02:00', 0, 0)")).toBeNull();
      expect(read<string>(db, "SELECT json_array(created_at, next_try, last_try) FROM incoming_activity")).toEqual(['["2025-02-01T10:00:00.000Z",null,"2025-02-01T10:00:00.500Z"]']);
    });

    it(`${name}: ap_object and ap_actor take a JSON object, and refuse null, a list, a string`, () => {
      const db = ternDatabase();
      expect(tool(db, inboxRow('{"type":"Note"}', '2025-02-01T12:00:00+02:00'))).toBeNull();
      expect(read<string>(db, 'SELECT ap_published_at FROM inbox')).toEqual(['2025-02-01T10:00:00.000Z']);
      for (const bad of ['null', '[]', '"text"', '1']) {
        expect(tool(db, inboxRow(bad)), bad).toMatch('CHECK constraint failed: ck_inbox_ap_object');
        expect(tool(db, `UPDATE inbox SET ap_object = '${bad}'`), bad).toMatch('CHECK constraint failed: ck_inbox_ap_object');
        expect(tool(db, `UPDATE actor SET ap_actor = '${bad}'`), bad).toMatch('CHECK constraint failed: ck_actor_ap_actor');
      }
    });
  }
});

describe('upgrading to 5d0e8a3c71f4, and back', () => {
  it('rewrites what the 3.40 shell stored before it (offsets, a space, hour 24, 30 February, microseconds, a JSON null) so that it reads and sorts as the time it is; integrity_check stays ok in the shell', () => {
    const db = ternDatabase('70cce0da20c3');
    const written = [
      '2025-02-01T12:00:00+02:00',
      '2025-02-01T10:30:00 Z',
      '2025-02-01T24:30:00+02:00', // 3.40 read: 2025-02-01T22:30:00Z
      '2025-02-30T12:00:00Z', // 3.40 read: 2 March
      '2025-02-01T11:00:00.123456Z',
      '2025-02-01T11:30:00.000Z',
    ];
    for (const at of written) expect(shell(db, notification(at))).toBeNull();
    expect(shell(db, inboxRow('null'))).toBeNull();
    const sqlite = openSqlite(db);
    expect(upgrade(sqlite)).toEqual(['5d0e8a3c71f4']);
    expect(sqlite.prepare('SELECT created_at FROM notifications ORDER BY id').pluck().all()).toEqual([
      '2025-02-01T10:00:00.000Z',
      '2025-02-01T10:30:00.000Z',
      '2025-02-01T22:30:00.000Z',
      '2025-03-02T12:00:00.000Z',
      '2025-02-01T11:00:00.123Z',
      '2025-02-01T11:30:00.000Z',
    ]);
    expect(sqlite.prepare('SELECT ap_object FROM inbox').pluck().all()).toEqual(['{"value":null}']);
    sqlite.close();
    expect(spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim()).toBe('ok');
  });

  it('keeps rows, ids, indexes and the search triggers; downgrading drops its triggers and restores the former schema text exactly', () => {
    const db = ternDatabase('70cce0da20c3');
    const sqlite = openSqlite(db);
    sqlite.exec(inboxRow('{"type":"Note"}'));
    const schema = () => sqlite.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all() as { type: string; name: string; sql: string }[];
    const rows = () => ['actor', 'inbox'].map((t) => sqlite.prepare(`SELECT * FROM ${t} ORDER BY id`).all());
    const before = { schema: schema(), rows: rows() };

    upgrade(sqlite);
    expect(rows()).toEqual(before.rows);
    const after = schema();
    const added = after.filter((o) => !before.schema.some((b) => b.name === o.name)).map((o) => o.name);
    expect(added.every((name) => /^utc_\w+_(insert|update)$/.test(name))).toBe(true);
    expect(added).toHaveLength(30);
    for (const o of before.schema.filter((b) => b.type !== 'table')) expect(after).toContainEqual(o);
    expect(sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(sqlite.pragma('legacy_alter_table', { simple: true })).toBe(0);

    expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['5d0e8a3c71f4']);
    expect(schema()).toEqual(before.schema);
    expect(rows()).toEqual(before.rows);
    sqlite.close();
  });
});
