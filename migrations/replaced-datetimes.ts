// Stored datetimes a revision cannot bring under its CHECK, for 5d0e8a3c71f4: a time before
// 0000-01-01 or after 9999-12-31 in UTC ('0000-01-01T00:30:00+01:00' is -0001-12-31T23:30Z,
// which strftime writes as '-001-…'), or text SQLite cannot read at all ('9999-12-31T24:00:00Z',
// a leap second ':60', 'soon'), written by an older revision's CHECK or by the user's own tool
// with ignore_check_constraints. Copied into the rebuilt table as it was, one such value made the
// revision abort, and Tern could not open the database at all.
//
// The row is kept, as the revision keeps a JSON null inside an object: the column gets the
// nearest time that can be stored, and the text it held is kept in replaced_datetime (made only
// when there is one) and reported on the console, so nothing the user wrote is lost:
// - text of the ISO shape is read as written (a naive one as UTC, as parseStoredDate reads it;
//   an hour 24, a second 60 or a day past the month's end carried over, as SQLite reads hour 24
//   and 30 February), then brought within 0000-01-01T00:00:00.000Z…9999-12-31T23:59:59.999Z;
// - a number — what a user's own tool stores for a time: julianday('now') in the sqlite3 shell,
//   time.time() from python — is read as SQLite's 'auto' modifier reads one
//   (https://sqlite.org/lang_datefunc.html): from 0 to 5373484.499999 a Julian day number, else
//   Unix seconds from -210866760000 to 253402300799, else no time; then brought within
//   0000…9999 as text is. The columns have TEXT affinity, so the number is stored as its text
//   ('2460000.5', '1700000000'): text that is a number and nothing else (numberAsTime) is read
//   as that number, since nothing tells the two apart. 'auto' is SQLite 3.42's and Debian 12's
//   3.40 has none, so the reading is written with what both have: a Julian day number is what
//   date functions read a bare number as, and 'unixepoch' reads Unix seconds;
// - anything else has no time: it gets 0000-01-01T00:00:00.000Z, which sorts last in Tern's
//   lists (newest first), makes a delivery due, and expires a token rather than keeping it alive.
import type { Sqlite } from '../db/client';

export const REPLACED_TABLE = 'replaced_datetime';

export const REPLACED_DDL = `CREATE TABLE IF NOT EXISTS ${REPLACED_TABLE} (
  id INTEGER PRIMARY KEY,
  table_name TEXT NOT NULL,
  row_id INTEGER NOT NULL,
  column_name TEXT NOT NULL,
  original,
  stored_as TEXT NOT NULL,
  replaced_by TEXT NOT NULL
)`;

const MIN_MS = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

// ISO 8601 as SQLite and Date read it, a little wider: a signed or five-digit year, 't'/'z',
// a space before the offset, an offset past SQLite's ±14:00, no offset at all (UTC).
const ISO =
  /^([+-]?\d{4,6})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(?:[Zz]|([+-])(\d{2}):?(\d{2}))?$/;

/** The canonical text (toISOString's) nearest to what a stored value says. */
export function nearestStorable(value: unknown): string {
  const m = typeof value === 'string' ? ISO.exec(value.trim()) : null;
  if (!m) return new Date(MIN_MS).toISOString();
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  const [offsetHours, offsetMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  const fits = month! >= 1 && month! <= 12 && day! >= 1 && day! <= 31 && hour <= 24 && minute <= 59 && second <= 60 && offsetHours <= 23 && offsetMinutes <= 59;
  if (!fits) return new Date(MIN_MS).toISOString();
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!); // not Date.UTC, which reads years 0–99 as 1900–1999
  date.setUTCHours(hour, minute, second, Number((m[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(Math.min(MAX_MS, Math.max(MIN_MS, date.getTime() - offset))).toISOString();
}

/** A number's text as a tool has it stored in a TEXT column (SQLite writes a REAL as '%!.15g'):
 * digits, a fraction, an exponent, nothing around them. */
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** ? read as 'auto' reads a number (3.54 takes a Julian day number up to 5373484.5 exclusive). */
const AUTO_SQL =
  "WITH n(r) AS (SELECT CAST(? AS REAL)) SELECT CASE WHEN r >= 0 AND r < 5373484.5 THEN strftime('%Y-%m-%dT%H:%M:%fZ', r) " +
  "WHEN r BETWEEN -210866760000 AND 253402300799 THEN strftime('%Y-%m-%dT%H:%M:%fZ', r, 'unixepoch') END FROM n";

/** The time a stored number (or a number's text) says, as SQLite's 'auto' modifier reads it, in
 * strftime's text (a year before 0000 written as SQLite writes it); null for any other value,
 * and for a number out of 'auto''s range. */
export function numberAsTime(sqlite: Sqlite, value: unknown): string | null {
  const isNumber = typeof value === 'number' ? Number.isFinite(value) : typeof value === 'bigint' || (typeof value === 'string' && NUMBER_TEXT.test(value));
  return isNumber ? ((sqlite.prepare(AUTO_SQL).pluck().get(value) as string | null) ?? null) : null;
}

/** Canonical text of an hour below 24 and a day every month has: what Tern itself writes, which
 * every revision takes as it is, so the scan below skips it without reading it as a date (that
 * doubled the upgrade's time: 100,000 rows, about 0.6 s -> 1.2 s). */
const plain = (c: string) =>
  `${c} GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-2][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AND substr(${c}, 6, 2) BETWEEN '01' AND '12' AND substr(${c}, 9, 2) BETWEEN '01' AND '28' AND substr(${c}, 12, 2) < '24'`;

/**
 * Replaces, in each of `columns` of `table`, every value whose `after` (the SQL text of what the
 * revision would store, over the column) `check` refuses or leaves NULL, by nearestStorable's
 * text (of the time a number says, numberAsTime), keeping the value in replaced_datetime;
 * returns how many were replaced.
 */
export function replaceUnstorable(
  sqlite: Sqlite,
  table: string,
  columns: readonly string[],
  after: (column: string) => string,
  check: (column: string) => string,
  replacedBy: string,
): number {
  let replaced = 0;
  for (const c of columns) {
    const rows = sqlite
      .prepare(
        // MATERIALIZED: flattened, `after` was computed again at each of the CHECK's eight reads of r.
        `WITH candidate AS MATERIALIZED (SELECT id, ${c} AS v, ${after(c)} AS r FROM ${table} WHERE ${c} IS NOT NULL AND NOT (${plain(c)})) ` +
          `SELECT id, v FROM candidate WHERE NOT ifnull(r IS NOT NULL AND (${check('r')}), 0) ORDER BY id`,
      )
      .all() as { id: number; v: unknown }[];
    if (rows.length === 0) continue;
    sqlite.exec(REPLACED_DDL);
    const keep = sqlite.prepare(`INSERT INTO ${REPLACED_TABLE} (table_name, row_id, column_name, original, stored_as, replaced_by) VALUES (?, ?, ?, ?, ?, ?)`);
    const store = sqlite.prepare(`UPDATE ${table} SET ${c} = ? WHERE id = ?`);
    for (const { id, v } of rows) {
      const storedAs = nearestStorable(numberAsTime(sqlite, v) ?? v);
      keep.run(table, id, c, v, storedAs, replacedBy);
      store.run(storedAs, id);
    }
    replaced += rows.length;
  }
  return replaced;
}
