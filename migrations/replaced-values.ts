// Stored values a rebuilt table's CHECK refuses, for the table rebuilds (migrations/rebuild.ts).
// A user's own tool may store anything in any column: the sqlite3 shell or python3 with
// ignore_check_constraints, or an older revision's looser CHECK. Copied as they were into the
// rebuilt table, a notification_type 'FOO', an is_new 2, a visibility 'PRIVATE' or an og_meta
// that is not JSON failed its CHECK there, the revision rolled back, and Tern could not open the
// database at all.
//
// The row is kept; the value is replaced by one the CHECK takes, and the value it held is kept
// in replaced_value (made only when there is one: table, row id, column, original, stored_as,
// which revision step) and counted in one line on the console, so nothing the user wrote is lost.
// What replaces it follows from the CHECK itself (Tern's CHECKs are named ck_<table>_<column>
// and hold one column each), not from a list of columns:
// - an enumeration (`col IN ('A', …)`): the value it names, whatever its case and spaces
//   ('public ' is PUBLIC); else NULL where the column is optional (notification_type, whose NULL
//   the notifications list already shows as a notification without a kind); else the safest
//   value: for visibility DIRECT, the narrowest audience, so a post the user meant to keep to
//   few ('PRIVATE') is never shown to more people than they chose;
// - a boolean (`col IN (0, 1)`) where true hides or disables (is_revoked, is_used, is_deleted,
//   is_hidden_*, is_transient): false only for a 0 (a number, or text that is exactly a number
//   equal to 0), true for anything else, words included ('false', 'no' and 'off' too). Before
//   the upgrade Tern's own `col = 0` filters read every such value as not 0: the token revoked,
//   the code used, the row out of sight; so nothing hidden comes to light and a token or code
//   whose state is in doubt grants nothing;
// - any other boolean (is_new, is_bookmarked, is_pinned, has_thumbnail, is_sent, is_processed…):
//   'true'/'yes'/'on' and 'false'/'no'/'off' as written; a number (or numeric text) as SQLite's
//   truthiness reads it (2 and -0.5 are true); anything else (other text, a blob) says nothing,
//   and gets false (is_sent, is_processed: a delivery or an activity is tried again rather than
//   dropped);
// - JSON (`json_valid(col)`): NULL where optional (og_meta, revisions, redirect_uris…: a
//   wrapped value would be of the wrong shape there); in a required column the text is kept
//   inside an object, {"value": <text>}, as 5d0e8a3c71f4 already keeps ap_actor (a7d256c), which
//   Tern reads as an empty actor or post;
// - a datetime: nearestStorable's time, kept in replaced_datetime, as 5d0e8a3c71f4 does
//   (migrations/replaced-datetimes.ts), its table read by the same users;
// - any other CHECK: NULL where the column is optional, else its DEFAULT; without one the
//   value stays, and the rebuild fails naming the CHECK, as before.
import type { Sqlite } from '../db/client';
import { nearestStorable, REPLACED_DDL as REPLACED_DATETIME_DDL, REPLACED_TABLE as REPLACED_DATETIME } from './replaced-datetimes';

export const REPLACED_VALUE = 'replaced_value';

// As replaced_datetime, but stored_as may be NULL (an optional column's value).
const REPLACED_VALUE_DDL = `CREATE TABLE IF NOT EXISTS ${REPLACED_VALUE} (
  id INTEGER PRIMARY KEY,
  table_name TEXT NOT NULL,
  row_id INTEGER NOT NULL,
  column_name TEXT NOT NULL,
  original,
  stored_as,
  replaced_by TEXT NOT NULL
)`;

/** A required enumeration's value for text that names none of its values (see above). */
const SAFEST: Readonly<Record<string, string>> = { visibility: 'DIRECT' };

/** Booleans whose true hides or disables: anything but a 0 is true in them (see above). */
const CAUTIOUSLY_TRUE = new Set(['is_revoked', 'is_used', 'is_deleted', 'is_hidden_from_stream', 'is_hidden_from_homepage', 'is_transient']);

const TRUE_WORDS = ['true', 'yes', 'on'];
const FALSE_WORDS = ['false', 'no', 'off'];

export type CheckKind = { is: 'boolean' } | { is: 'enum'; values: string[] } | { is: 'json' } | { is: 'datetime' } | { is: 'other' };

/** One CHECK of a table's text: the column it holds and its expression. */
export interface ColumnCheck {
  name: string;
  column: string;
  expression: string;
  kind: CheckKind;
}

/** The CHECKs of a CREATE TABLE text as Tern writes it: one `CONSTRAINT ck_<table>_<column> CHECK (…)` a line. */
export function columnChecks(table: string, createSql: string): ColumnCheck[] {
  return createSql.split('\n').flatMap((line) => {
    const m = /^\s*CONSTRAINT (ck_\w+) CHECK \((.*)\),?$/.exec(line);
    if (!m || !m[1]!.startsWith(`ck_${table}_`)) return [];
    const column = m[1]!.slice(`ck_${table}_`.length);
    return [{ name: m[1]!, column, expression: m[2]!, kind: kindOf(column, m[2]!) }];
  });
}

/** What a CHECK on `c` holds, read from its text. */
export function kindOf(c: string, expression: string): CheckKind {
  if (expression === `${c} IN (0, 1)`) return { is: 'boolean' };
  const list = new RegExp(`^${c} IN \\(((?:'[^']*'(?:, )?)+)\\)$`).exec(expression);
  if (list) return { is: 'enum', values: list[1]!.split(', ').map((v) => v.slice(1, -1)) };
  if (expression.includes(`json_valid(${c})`)) return { is: 'json' };
  if (expression.includes(`datetime(${c})`) || expression.includes(`julianday(${c})`)) return { is: 'datetime' };
  return { is: 'other' };
}

/** A 0 as Tern's `col = 0` filters saw it: the number, or text that is exactly a number equal
 * to 0 (as the column's INTEGER affinity stores '0' or '0.0'). */
const isZero = (value: unknown): boolean =>
  typeof value === 'number' || typeof value === 'bigint'
    ? Number(value) === 0
    : typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value) && Number(value) === 0;

interface Column {
  name: string;
  notnull: number;
  dflt_value: string | null;
}

/** What replaces `value` in a column, or undefined when nothing can (the value stays). */
function replacement(sqlite: Sqlite, kind: CheckKind, column: Column, value: unknown): unknown {
  const optional = column.notnull === 0;
  const text = typeof value === 'string' ? value.trim() : null;
  switch (kind.is) {
    case 'datetime':
      return nearestStorable(value);
    case 'enum': {
      const named = kind.values.find((v) => v === text?.toUpperCase());
      return named ?? (optional ? null : (SAFEST[column.name] ?? kind.values[0]));
    }
    case 'boolean':
      if (CAUTIOUSLY_TRUE.has(column.name)) return isZero(value) ? 0 : 1;
      if (text !== null && TRUE_WORDS.includes(text.toLowerCase())) return 1;
      if (text !== null && FALSE_WORDS.includes(text.toLowerCase())) return 0;
      if (typeof value === 'number' || typeof value === 'bigint' || (text !== null && text !== '' && !Number.isNaN(Number(text)))) {
        return sqlite.prepare('SELECT CASE WHEN ? THEN 1 ELSE 0 END').pluck().get(value);
      }
      return 0;
    case 'json':
      if (optional) return null;
      return sqlite
        .prepare("SELECT json_object('value', CASE WHEN typeof(@v) = 'blob' THEN CAST(@v AS TEXT) WHEN json_valid(@v) THEN json(@v) ELSE @v END)")
        .pluck()
        .get({ v: value });
    case 'other':
      if (optional) return null;
      return column.dflt_value === null ? undefined : sqlite.prepare(`SELECT ${column.dflt_value}`).pluck().get();
  }
}

/** How many values were replaced, by table.column, and how many of them were datetimes. */
export interface Replaced {
  byColumn: Map<string, number>;
  datetimes: number;
}

/**
 * Replaces, in `from` (the rows of `table` about to be copied into its rebuilt text
 * `createSql`), each value a CHECK of that text refuses, keeping it in replaced_value or
 * replaced_datetime; adds what it replaced to `replaced` and returns how many.
 */
export function replaceRefused(sqlite: Sqlite, table: string, from: string, createSql: string, by: string, replaced: Replaced): number {
  // The rows are set right where they wait, under the former CHECKs: those may refuse what the
  // new ones take (a datetime's), and only the new ones matter.
  const ignoring = sqlite.pragma('ignore_check_constraints', { simple: true }) === 1;
  sqlite.pragma('ignore_check_constraints = ON');
  try {
    return replaceEach(sqlite, table, from, createSql, by, replaced);
  } finally {
    if (!ignoring) sqlite.pragma('ignore_check_constraints = OFF');
  }
}

function replaceEach(sqlite: Sqlite, table: string, from: string, createSql: string, by: string, replaced: Replaced): number {
  const columns = sqlite.prepare(`PRAGMA table_info("${from}")`).all() as Column[];
  let n = 0;
  for (const check of columnChecks(table, createSql)) {
    const column = columns.find((c) => c.name === check.column);
    if (!column) continue;
    // A CHECK refuses only a false expression: NULL passes.
    const rows = sqlite.prepare(`SELECT rowid AS id, "${column.name}" AS v FROM "${from}" WHERE NOT (${check.expression}) ORDER BY rowid`).all() as { id: number; v: unknown }[];
    for (const { id, v } of rows) {
      const storedAs = replacement(sqlite, check.kind, column, v);
      if (storedAs === undefined) continue;
      const datetime = check.kind.is === 'datetime';
      sqlite.exec(datetime ? REPLACED_DATETIME_DDL : REPLACED_VALUE_DDL);
      sqlite
        .prepare(`INSERT INTO ${datetime ? REPLACED_DATETIME : REPLACED_VALUE} (table_name, row_id, column_name, original, stored_as, replaced_by) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(table, id, column.name, v, storedAs, by);
      sqlite.prepare(`UPDATE "${from}" SET "${column.name}" = ? WHERE rowid = ?`).run(storedAs, id);
      const key = `${table}.${column.name}`;
      replaced.byColumn.set(key, (replaced.byColumn.get(key) ?? 0) + 1);
      if (datetime) replaced.datetimes++;
      n++;
    }
  }
  return n;
}

/** The one console line for what a step replaced, if anything. */
export function reportReplaced(by: string, replaced: Replaced): void {
  const n = [...replaced.byColumn.values()].reduce((a, b) => a + b, 0);
  if (n === 0) return;
  const where = [...replaced.byColumn].map(([column, count]) => `${column} ${count}`).join(', ');
  const datetimes = replaced.datetimes > 0 ? ` (the ${replaced.datetimes} datetimes in ${REPLACED_DATETIME})` : '';
  console.warn(
    `${by}: ${n} stored values a CHECK refuses were replaced by values it takes, so that no row is lost (${where}); ` +
      `the values they held are kept in ${REPLACED_VALUE}${datetimes}`,
  );
}

/**
 * Runs `make`, which reads the stored values of `tables` (an index on an expression over their
 * JSON). Text one of their own CHECKs refuses (JSON that is not JSON, written past the CHECK)
 * failed it with 'malformed JSON' and the revision aborted: such values are then replaced as a
 * rebuild replaces them, and `make` runs again. A database without any pays nothing.
 */
export function replacingRefusedOnFailure(sqlite: Sqlite, tables: readonly string[], by: string, make: () => void): void {
  try {
    make();
    return;
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('malformed JSON')) throw error;
    const replaced: Replaced = { byColumn: new Map(), datetimes: 0 };
    const tableSql = sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
    const n = tables.reduce((sum, table) => sum + replaceRefused(sqlite, table, table, (tableSql.get(table) as string | undefined) ?? '', by, replaced), 0);
    if (n === 0) throw error;
    reportReplaced(by, replaced);
  }
  make();
}
