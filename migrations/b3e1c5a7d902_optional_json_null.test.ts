// Revision b3e1c5a7d902: on a database Tern made, each of the seven optional JSON columns takes
// NULL from the tools outside Tern — the system `sqlite3` shell and python3's sqlite3 module
// (SQLite 3.40 on Debian 12, where json_valid(NULL) is 0) — and from better-sqlite3; invalid
// JSON is still refused by all three. Before this revision the old tools refused the NULL; its
// downgrade no longer brings that back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../db/client';
import { rebuildTables } from './rebuild';
import { downgrade, upgrade } from './runner';
import { shell, TOOLS, versionOf } from './test-tools';

const T = "'2024-05-01T12:00:00Z'";
const OPTIONAL = [
  ['inbox', 'voted_for_answers'],
  ['inbox', 'og_meta'],
  ['incoming_activity', 'ap_object'],
  ['outbox', 'revisions'],
  ['outbox', 'og_meta'],
  ['webmention', 'source_microformats'],
  ['oauth_client', 'redirect_uris'],
] as const;

let n = 100;
/** One full row of `table` whose `column` holds `value` (SQL) and whose other optional JSON is valid. */
function rowSql(table: string, column: string, value: string): string {
  const k = n++;
  const json = (c: string) => (c === column ? value : "'{}'");
  switch (table) {
    case 'inbox':
      return `INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count, voted_for_answers, og_meta) VALUES (${T}, ${T}, 1, 'a.example', 0, 'https://a.example/u', 'Note', 'https://a.example/n/${k}', ${T}, '{}', 'PUBLIC', 0, 0, 0, ${json('voted_for_answers')}, ${json('og_meta')});`;
    case 'incoming_activity':
      return `INSERT INTO incoming_activity (created_at, ap_object, tries, is_processed, is_errored) VALUES (${T}, ${json('ap_object')}, 0, 0, 0);`;
    case 'outbox':
      return `INSERT INTO outbox (created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted, revisions, og_meta) VALUES (${T}, ${T}, 0, 'p${k}', 'Note', 'https://me.example/o/${k}', '{}', ${T}, 'PUBLIC', 0, 0, 0, 0, 0, ${json('revisions')}, ${json('og_meta')});`;
    case 'webmention':
      return `INSERT INTO webmention (created_at, is_deleted, source, source_microformats, target, outbox_object_id) VALUES (${T}, 0, 'https://blog.example/${k}', ${json('source_microformats')}, 'https://me.example/o/1', 1);`;
    default:
      return `INSERT INTO oauth_client (created_at, client_name, redirect_uris, client_id, client_secret) VALUES (${T}, 'App', ${json('redirect_uris')}, 'https://app.example/${k}', 'secret${k}');`;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'tern-jsonnull-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let path = '';
let files = 0;

/** A database file Tern made, at `target`, with the actor and post the rows refer to. */
function ternDatabase(target = 'head'): string {
  path = join(dir, `tern-${files++}.db`);
  const sqlite = openSqlite(path);
  upgrade(sqlite, target);
  sqlite.exec(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (1, ${T}, ${T}, 'https://a.example/u', '{}', 'Person');`);
  sqlite.exec(rowSql('outbox', 'og_meta', "'{}'").replace('INSERT INTO outbox (', 'INSERT INTO outbox (id, ').replace('VALUES (', 'VALUES (1, '));
  sqlite.close();
  return path;
}

describe('optional JSON columns take NULL (b3e1c5a7d902)', () => {
  beforeEach(() => {
    ternDatabase();
  });

  it('the tools outside Tern are the old SQLite this revision is for', () => {
    // If the machine's SQLite ever passes 3.45, the shell/python cases below stop proving the fix.
    for (const tool of ['shell', 'python'] as const) expect(versionOf(tool)).toMatch(/^3\.(\d|[1-3]\d|4[0-4])\./);
  });

  for (const [name, tool] of TOOLS) {
    for (const [table, column] of OPTIONAL) {
      it(`${name}: ${table}.${column} takes NULL and refuses invalid JSON`, () => {
        const count = () => {
          const sqlite = openSqlite(path, { readonly: true });
          try {
            return sqlite.prepare(`SELECT count(*) FROM ${table} WHERE ${column} IS NULL`).pluck().get();
          } finally {
            sqlite.close();
          }
        };
        expect(tool(path, rowSql(table, column, 'NULL'))).toBeNull();
        expect(count()).toBe(1);
        expect(tool(path, rowSql(table, column, "'{not json'"))).toMatch(`CHECK constraint failed: ck_${table}_${column}`);
      });
    }
  }
});

/** Makes the database at `path` look as one built before the spec revisions wrote `IS NULL OR`:
 * its optional JSON CHECKs bare again (the text those revisions first wrote). */
function asBuiltBefore(path: string): void {
  const sqlite = openSqlite(path);
  sqlite.pragma('foreign_keys = OFF');
  sqlite.transaction(() =>
    rebuildTables(sqlite, [...new Set(OPTIONAL.map(([table]) => table))], (table, sql) =>
      OPTIONAL.filter(([t]) => t === table).reduce((out, [, c]) => out.replace(`CHECK (${c} IS NULL OR json_valid(${c}))`, `CHECK (json_valid(${c}))`), sql),
      'test',
    ),
  )();
  sqlite.close();
}

/** PRAGMA integrity_check as the sqlite3 3.40 shell reports it. */
const integrity = (db: string) => spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim();

describe('before b3e1c5a7d902, and its downgrade', () => {
  it('a database built at the spec revisions (4ab54becec04) takes NULL in every optional JSON column in the sqlite3 shell', () => {
    const db = ternDatabase('4ab54becec04');
    for (const [table, column] of OPTIONAL) expect(shell(db, rowSql(table, column, 'NULL'))).toBeNull();
    expect(integrity(db)).toBe('ok');
  });

  it('one built before that edit refused it there (the bug); upgrading rebuilds its tables to take it', () => {
    const db = ternDatabase('9519a2c5ec87');
    asBuiltBefore(db);
    for (const [table, column] of OPTIONAL) {
      expect(shell(db, rowSql(table, column, 'NULL'))).toMatch(`CHECK constraint failed: ck_${table}_${column}`);
    }
    const sqlite = openSqlite(db);
    upgrade(sqlite, 'b3e1c5a7d902');
    sqlite.close();
    for (const [table, column] of OPTIONAL) expect(shell(db, rowSql(table, column, 'NULL'))).toBeNull();
  });

  it('upgrading keeps every row, id, index and foreign key; the schema is then the one the spec revisions build', () => {
    const db = ternDatabase('9519a2c5ec87');
    const built = openSqlite(db);
    const schema = (sqlite: typeof built) => sqlite.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string; sql: string }[];
    const wanted = schema(built);
    built.close();
    asBuiltBefore(db);
    const sqlite = openSqlite(db);
    for (const [table, column] of OPTIONAL) sqlite.exec(rowSql(table, column, '\'["kept"]\''));
    sqlite.exec("INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count, relates_to_outbox_object_id) VALUES ('2024-05-01T12:00:00Z', '2024-05-01T12:00:00Z', 1, 'a.example', 0, 'https://a.example/u', 'Like', 'https://a.example/like', '2024-05-01T12:00:00Z', '{}', 'PUBLIC', 0, 0, 0, 1)");
    sqlite.exec('UPDATE outbox SET relates_to_inbox_object_id = (SELECT max(id) FROM inbox) WHERE id = 1');
    const rows = () => OPTIONAL.map(([table]) => sqlite.prepare(`SELECT * FROM ${table} ORDER BY id`).all());
    const before = rows();

    expect(upgrade(sqlite, 'b3e1c5a7d902')).toEqual(['b3e1c5a7d902']);
    expect(rows()).toEqual(before);
    expect(schema(sqlite)).toEqual(wanted);
    expect(sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.pragma('legacy_alter_table', { simple: true })).toBe(0);
    // Other tables' references still name the rebuilt tables.
    expect(schema(sqlite).find((o) => o.name === 'notifications')!.sql).toContain('REFERENCES inbox (id)');
    sqlite.close();
  });

  it('downgrading to 4ab54becec04 keeps NULL valid: integrity_check in the sqlite3 shell stays ok, the shell still takes NULL', () => {
    const db = ternDatabase('head');
    const sqlite = openSqlite(db);
    for (const [table, column] of OPTIONAL) sqlite.exec(rowSql(table, column, 'NULL'));
    expect(downgrade(sqlite, '4ab54becec04')).toContain('b3e1c5a7d902');
    sqlite.close();
    // Before the fix: one "CHECK constraint failed" line per NULL stored.
    expect(integrity(db)).toBe('ok');
    for (const [table, column] of OPTIONAL) expect(shell(db, rowSql(table, column, 'NULL'))).toBeNull();
  });
});
