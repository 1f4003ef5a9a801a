// Rebuilding a table to change what SQLite cannot alter in place (a CHECK), for the revisions
// that need it (b3e1c5a7d902, 5d0e8a3c71f4). SQLite's procedure for other schema changes
// (https://sqlite.org/lang_altertable.html#otheralter), with one step in another order: the old
// table is renamed away and the new one created under the real name, instead of the new one
// renamed into place, because SQLite stores a renamed table as `CREATE TABLE "inbox"` and the
// schema text must stay exactly what the chain writes (a downgrade restores it byte for byte).
// That order is safe only with legacy_alter_table on, under which the rename leaves the other
// tables' REFERENCES inbox alone. The runner turns foreign keys off around a revision and runs
// foreign_key_check before the commit.
//
// The table is rebuilt from its own stored text with one edit, so it keeps exactly its columns,
// keys, foreign keys, unique constraints and other CHECKs; rows keep their ids (id is the
// rowid), and every index and trigger the chain made on it is made again from its stored text
// (after the copy, so triggers do not fire for the copied rows).
//
// A stored value one of the rebuilt table's CHECKs refuses (written by a user's tool with
// ignore_check_constraints, or under an older revision's looser CHECK) made the copy fail and the
// revision abort. When the copy fails on a CHECK, such values are replaced by ones it takes, the
// values they held kept aside (migrations/replaced-values.ts), and the copy is run again: a
// database without them pays nothing for the search. NOT NULL and UNIQUE cannot be broken by
// stored rows (SQLite enforces them whatever ignore_check_constraints says), and the rebuild
// keeps every column's NOT NULL and every unique constraint as they were.
import type { Sqlite } from '../db/client';
import { replaceRefused, reportReplaced, type Replaced } from './replaced-values';

/** A table's CREATE TABLE text as stored, or null when there is no such table. */
export function tableSql(sqlite: Sqlite, table: string): string | null {
  return (sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined) ?? null;
}

/**
 * Rebuilds each table whose stored text `edit` changes into the edited text; tables it leaves
 * as they are, or that do not exist (a microblog.pub database being moved in has no CHECK at
 * all: electron/core/data/microblogpub-import.ts), are not touched. Returns the rebuilt tables.
 * `by` names the step ('upgrade to b3e1c5a7d902') where values are kept and on the console.
 */
export function rebuildTables(sqlite: Sqlite, tables: readonly string[], edit: (table: string, sql: string) => string, by: string): string[] {
  const plans = tables.flatMap((table) => {
    const sql = tableSql(sqlite, table);
    if (sql === null) return [];
    const next = edit(table, sql);
    return next === sql ? [] : [{ table, next }];
  });
  const replaced: Replaced = { byColumn: new Map(), datetimes: 0 };
  sqlite.pragma('legacy_alter_table = ON');
  try {
    for (const { table, next } of plans) rebuildTable(sqlite, table, next, by, replaced);
  } finally {
    sqlite.pragma('legacy_alter_table = OFF');
  }
  reportReplaced(by, replaced);
  return plans.map((p) => p.table);
}

function rebuildTable(sqlite: Sqlite, table: string, createSql: string, by: string, replaced: Replaced): void {
  // Indexes and triggers as the chain wrote them (autoindexes of UNIQUE have no text: the new
  // CREATE TABLE makes them).
  const dependents = sqlite
    .prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, rowid")
    .pluck()
    .all(table) as string[];
  const columns = (sqlite.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => `"${c.name}"`).join(', ');
  const away = `_rebuild_${table}`;
  sqlite.exec(`ALTER TABLE "${table}" RENAME TO "${away}"`);
  sqlite.exec(createSql);
  const copy = () => sqlite.exec(`INSERT INTO "${table}" (${columns}) SELECT ${columns} FROM "${away}"`);
  try {
    copy();
  } catch (error) {
    // A failed INSERT is undone as a whole: the new table is still empty.
    if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_CHECK' || replaceRefused(sqlite, table, away, createSql, by, replaced) === 0) throw error;
    copy();
  }
  sqlite.exec(`DROP TABLE "${away}"`);
  for (const sql of dependents) sqlite.exec(sql);
}
