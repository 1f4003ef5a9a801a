// The schema the migrations build equals the schema drizzle declares (db/schema.ts), table by
// table: columns, indexes, unique constraints, foreign keys and CHECK constraints. The drizzle
// side comes from getTableConfig, the migrated side from SQLite's own description of the
// database (PRAGMAs and sqlite_master), so a change to either without the other fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTableName, type SQL } from 'drizzle-orm';
import { SQLiteSyncDialect, getTableConfig, uniqueKeyName, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { openSqlite, type Sqlite } from './client';
import { tables } from './schema';
import { upgrade } from '../migrations/runner';
import { NOT_SEARCH_TABLE } from '../migrations/c41f7a2e9d15_full_text_search';

interface Column {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
  primaryKey: boolean;
}
interface Index {
  name: string;
  unique: boolean;
  columns: string[];
  where: string | null;
}
/** `name` is null for an unnamed constraint. */
interface Unique {
  name: string | null;
  columns: string[];
}
interface ForeignKey {
  columns: string[];
  table: string;
  foreignColumns: string[];
  onUpdate: string;
  onDelete: string;
}
interface Check {
  name: string | null;
  expression: string;
}
interface Shape {
  columns: Column[];
  indexes: Index[];
  uniques: Unique[];
  foreignKeys: ForeignKey[];
  checks: Check[];
}

const byJson = <T>(items: T[]) => [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

// ---- the drizzle side ----------------------------------------------------------------------

const dialect = new SQLiteSyncDialect();
const render = (value: SQL) => dialect.sqlToQuery(value).sql;

/** A drizzle default as SQLite reports it in PRAGMA table_info (booleans are 0/1). */
function sqlDefault(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return render(value as SQL);
}

function drizzleShape(table: SQLiteTable): Shape {
  const config = getTableConfig(table);
  return {
    columns: config.columns.map((c) => ({
      name: c.name,
      // SQLite reports the standard type names in upper case, whatever case they were written in.
      type: c.getSQLType().toUpperCase(),
      notNull: c.notNull,
      default: sqlDefault(c.default),
      primaryKey: c.primary || config.primaryKeys.some((pk) => pk.columns.includes(c)),
    })),
    indexes: byJson(
      config.indexes.map((i) => ({
        name: i.config.name,
        unique: i.config.unique,
        columns: i.config.columns.map((c) => ('name' in c ? c.name : render(c))),
        where: i.config.where ? render(i.config.where) : null,
      })),
    ),
    uniques: byJson([
      // A column's .unique() without a name gets drizzle's generated name: an unnamed constraint.
      ...config.columns
        .filter((c) => c.isUnique)
        .map((c) => ({ name: c.uniqueName === uniqueKeyName(table, [c.name]) ? null : (c.uniqueName ?? null), columns: [c.name] })),
      ...config.uniqueConstraints.map((u) => {
        const columns = u.columns.map((c) => c.name);
        return { name: u.name === uniqueKeyName(table, columns) ? null : (u.name ?? null), columns };
      }),
    ]),
    foreignKeys: byJson(
      config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        return {
          columns: ref.columns.map((c) => c.name),
          table: getTableName(ref.foreignTable),
          foreignColumns: ref.foreignColumns.map((c) => c.name),
          onUpdate: (fk.onUpdate ?? 'no action').toUpperCase(),
          onDelete: (fk.onDelete ?? 'no action').toUpperCase(),
        };
      }),
    ),
    checks: byJson(config.checks.map((c) => ({ name: c.name, expression: render(c.value) }))),
  };
}

// ---- the migrated side ---------------------------------------------------------------------

/** The text of the parenthesised group opening at `open`, quotes respected. */
function parenthesised(sql: string, open: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '(') {
      depth++;
    } else if (ch === ')' && --depth === 0) {
      return sql.slice(open + 1, i);
    }
  }
  throw new Error(`unbalanced parentheses in ${sql}`);
}

/** Splits a column list on its top-level commas (not those inside parentheses or quotes). */
function splitTopLevel(list: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      terms.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  terms.push(list.slice(start).trim());
  return terms;
}

/** The CHECK constraints written in a CREATE TABLE statement, named or not. */
function checksOf(createTable: string): Check[] {
  const found: Check[] = [];
  const re = /(?:\bCONSTRAINT\s+(\w+)\s+)?\bCHECK\s*\(/gi;
  for (let m = re.exec(createTable); m; m = re.exec(createTable)) {
    const expression = parenthesised(createTable, m.index + m[0].length - 1);
    found.push({ name: m[1] ?? null, expression });
    re.lastIndex = m.index + m[0].length + expression.length;
  }
  return found;
}

/** Names of the UNIQUE constraints written in a CREATE TABLE statement, by column list. */
function uniqueNamesOf(createTable: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of createTable.matchAll(/\bCONSTRAINT\s+(\w+)\s+UNIQUE\s*\(([^)]*)\)/gi)) {
    names.set(m[2]!.split(',').map((c) => c.trim()).join(','), m[1]!);
  }
  return names;
}

function migratedShape(sqlite: Sqlite, table: string): Shape {
  const sqlOf = (type: string, name: string) =>
    (sqlite.prepare('SELECT sql FROM sqlite_master WHERE type = ? AND name = ?').pluck().get(type, name) as string | null) ?? '';
  const createTable = sqlOf('table', table);
  // An expression column has no name in index_info: its text is read from the CREATE INDEX.
  const columnsOf = (index: string) => {
    const info = (sqlite.pragma(`index_info(${index})`) as { seqno: number; name: string | null }[]).sort((a, b) => a.seqno - b.seqno);
    const createIndex = sqlOf('index', index);
    const on = /\bON\s+"?\w+"?\s*\(/i.exec(createIndex);
    const terms = on ? splitTopLevel(parenthesised(createIndex, on.index + on[0].length - 1)) : [];
    return info.map((c, i) => c.name ?? terms[i] ?? '?');
  };
  const indexList = sqlite.pragma(`index_list(${table})`) as { name: string; unique: number; origin: string; partial: number }[];
  const uniqueNames = uniqueNamesOf(createTable);
  const fkRows = sqlite.pragma(`foreign_key_list(${table})`) as {
    id: number;
    seq: number;
    table: string;
    from: string;
    to: string;
    on_update: string;
    on_delete: string;
  }[];
  return {
    columns: (
      sqlite.pragma(`table_info(${table})`) as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[]
    ).map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1, default: c.dflt_value, primaryKey: c.pk > 0 })),
    indexes: byJson(
      indexList
        .filter((i) => i.origin === 'c')
        .map((i) => ({
          name: i.name,
          unique: i.unique === 1,
          columns: columnsOf(i.name),
          where: i.partial ? (/\bWHERE\s+([\s\S]*?)\s*;?\s*$/i.exec(sqlOf('index', i.name))?.[1] ?? '?') : null,
        })),
    ),
    uniques: byJson(
      indexList
        .filter((i) => i.origin === 'u')
        .map((i) => {
          const columns = columnsOf(i.name);
          return { name: uniqueNames.get(columns.join(',')) ?? null, columns };
        }),
    ),
    foreignKeys: byJson(
      [...new Set(fkRows.map((r) => r.id))].map((id) => {
        const rows = fkRows.filter((r) => r.id === id).sort((a, b) => a.seq - b.seq);
        return {
          columns: rows.map((r) => r.from),
          table: rows[0]!.table,
          foreignColumns: rows.map((r) => r.to),
          onUpdate: rows[0]!.on_update,
          onDelete: rows[0]!.on_delete,
        };
      }),
    ),
    checks: byJson(checksOf(createTable)),
  };
}

// ---- the comparison ------------------------------------------------------------------------

let sqlite: Sqlite;
beforeAll(() => {
  sqlite = openSqlite(':memory:');
  upgrade(sqlite);
});
afterAll(() => sqlite.close());

// Tern's search tables (c41f7a2e9d15: FTS5 and its queue) are not the spec's, and not in schema.ts.
it('the migrations build exactly the tables schema.ts declares, and no other but the search tables', () => {
  const built = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'alembic_version' AND ${NOT_SEARCH_TABLE}`)
    .pluck()
    .all() as string[];
  expect(built.sort()).toEqual(Object.keys(tables).sort());
});

it('every index the migrations build belongs to schema.ts', () => {
  const built = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
    .pluck()
    .all() as string[];
  const declared = Object.values(tables).flatMap((t) => getTableConfig(t).indexes.map((i) => i.config.name));
  expect(built.sort()).toEqual(declared.sort());
});

describe.each(Object.entries(tables))('table %s: the migrated schema equals schema.ts', (name, table) => {
  const pair = () => ({ migrated: migratedShape(sqlite, name), declared: drizzleShape(table) });

  it('has the same columns in the same order (name, declared type, NOT NULL, DEFAULT, primary key)', () => {
    const { migrated, declared } = pair();
    expect(migrated.columns).toEqual(declared.columns);
  });

  it('has the same indexes (name, unique, columns, partial WHERE)', () => {
    const { migrated, declared } = pair();
    expect(migrated.indexes).toEqual(declared.indexes);
  });

  it('has the same UNIQUE constraints (columns, and the name where one is given)', () => {
    const { migrated, declared } = pair();
    expect(migrated.uniques).toEqual(declared.uniques);
  });

  it('has the same foreign keys (columns, referenced table and columns, actions)', () => {
    const { migrated, declared } = pair();
    expect(migrated.foreignKeys).toEqual(declared.foreignKeys);
  });

  it('has the same CHECK constraints (name and expression text)', () => {
    const { migrated, declared } = pair();
    expect(migrated.checks).toEqual(declared.checks);
  });
});
