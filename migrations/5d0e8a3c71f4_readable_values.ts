// Revision 5d0e8a3c71f4: Tern's own, after 70cce0da20c3. Every value the CHECKs let in is one
// that Tern reads, orders and pages correctly, whichever tool wrote it (Tern's better-sqlite3,
// the sqlite3 3.40 shell of Debian 12, python3's sqlite3 3.40).
//
// Datetimes are stored as one text: UTC, strftime('%Y-%m-%dT%H:%M:%fZ'), what toISOString()
// writes. Tern orders and pages by comparing that text (the indexes on ap_published_at and
// created_at serve it); the spec lets a datetime carry any offset, and another tool storing
// '2025-02-01T12:00:00+02:00' (10:00 UTC) had it sorted as 12:00 and skipped by paging. The
// offset is not refused — the spec allows it, and refusing it would refuse the user's tools —
// it is rewritten: triggers AFTER INSERT and AFTER UPDATE OF the datetime columns rewrite a
// value that is not in that form to it, in every SQLite since triggers are part of the schema.
// Their WHEN is a GLOB of the canonical form, not a comparison with strftime(): given the
// CHECK, a value of that shape is its own canonical form, and strftime() with %f costs 0.7 µs
// a call; the CHECK reads the value with julianday() for the same reason. What Tern's own
// inserts pay, the triggers' WHEN and the stricter CHECK together (bench/datetime-triggers.ts,
// CPU time, least of 21 × 10,000 rows): inbox 11.6 → 13.9 µs a row (+2.2 µs), incoming_activity
// 4.2 → 7.1 µs (+2.9 µs); a row another tool writes with an offset pays one UPDATE more
// (+7 to +9 µs). Ordering in SQL on strftime(col) instead would have read every row of a list
// to sort it, and refusing offsets would have refused what the spec allows.
//
// The CHECK refuses what SQLite versions read differently, so a value is either rewritten the
// same way by every tool or refused by every tool:
// - hour 24 ('…T24:30:00Z'): 3.40 takes it and keeps 24:30, 3.54 refuses it (and reads 24:00
//   as the next day), and Date cannot read '24:30' at all — one such row made the whole
//   notifications list fail;
// - a day the month has not ('2025-02-30'): 3.40 keeps it, 3.54 reads 2 March;
// - text around the date that is not the ISO shape: only 'YYYY-MM-DD', 'T' or ' ', 'HH:MM'
//   first, then what SQLite reads (seconds, a fraction, spaces) and Z or ±HH:MM last.
//   '2025-02-01T10:00:00 Z' (a space before the Z) is read alike everywhere and rewritten;
// - digits past the millisecond are cut (as Date and 3.54 read them; 3.40 rounds), so python's
//   isoformat() with microseconds is taken and rewritten alike.
// Existing values are rewritten the same way here; an hour 24 that 3.40 let in is read as 3.40
// read it (the next day's hour 0). A value that cannot be made that text — a time before 0000 or
// after 9999 in UTC ('0000-01-01T00:30:00+01:00', which the former CHECK took, is -0001-12-31
// 23:30Z), or text SQLite cannot read, written past the CHECKs — made the copy into the rebuilt
// table fail and the revision abort, so Tern could not open the database. Such a row is kept,
// as a JSON null is below: the column gets the nearest time that can be stored, and the text it
// held is kept in replaced_datetime and reported on the console (migrations/replaced-datetimes.ts).
// A number written there by the user's own tool (a Julian day number, Unix seconds) is read as
// SQLite's 'auto' modifier reads it, and kept in replaced_datetime too.
// The downgrade does the same for what the former CHECK refuses. Written later by a tool, such a
// time is refused with the column's CHECK in every tool (the trigger's rewrite fails it); with
// the CHECKs off, the trigger leaves text SQLite cannot read as it was written.
//
// ap_object (inbox, outbox) and ap_actor (actor) must hold a JSON object: json_valid() alone
// let JSON null in, and the post and notification lists then failed at the first field read.
// A non-object already stored is kept inside an object ({"value": …}), which reads as an empty
// post or actor; so is text that is not JSON at all (written past the CHECK), as a string, on the
// upgrade and on the downgrade, which otherwise aborted on it ('malformed JSON').
//
// The CHECKs are changed by rebuilding the tables (migrations/rebuild.ts), which also keeps, up
// and down, a row whose value another CHECK refuses (a notification_type 'FOO', an is_new 2),
// with a value it takes and the former one in replaced_value (migrations/replaced-values.ts). Tables without Tern's
// CHECKs (a microblog.pub database being moved in) are left as they are, untouched: the import
// converts its datetimes (electron/core/data/microblogpub-import.ts). Downgrading drops the
// triggers and puts the former CHECKs back; the rewritten values are valid under them.
//
// Frozen: literal SQL, never generated from db/schema.ts (see f5717d82b3ff_initial.ts).
import type { Sqlite } from '../db/client';
import type { Revision } from './revision';
import { rebuildTables, tableSql } from './rebuild';
import { REPLACED_TABLE, replaceUnstorable } from './replaced-datetimes';

/** The datetime columns of each table with Tern's CHECKs. */
const DATETIMES: Readonly<Record<string, readonly string[]>> = {
  actor: ['created_at', 'updated_at'],
  inbox: ['created_at', 'updated_at', 'ap_published_at'],
  incoming_activity: ['created_at', 'next_try', 'last_try'],
  indieauth_authorization_request: ['created_at'],
  outbox: ['created_at', 'updated_at', 'ap_published_at'],
  upload: ['created_at'],
  follower: ['created_at', 'updated_at'],
  following: ['created_at', 'updated_at'],
  indieauth_access_token: ['created_at'],
  outbox_object_attachment: ['created_at'],
  outgoing_activity: ['created_at', 'next_try', 'last_try'],
  poll_answer: ['created_at'],
  webmention: ['created_at'],
  notifications: ['created_at'],
  oauth_client: ['created_at'],
};

/** The required JSON columns, which hold an object. */
const OBJECTS: Readonly<Record<string, string>> = { actor: 'ap_actor', inbox: 'ap_object', outbox: 'ap_object' };

const OLD_DT = (c: string) =>
  `${c} IS NULL OR (datetime(${c}) IS NOT NULL AND (${c} GLOB '*Z' OR ${c} GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))`;

/** The text with digits past the millisecond cut. */
const cut = (c: string) =>
  `CASE WHEN ${c} GLOB '????-??-?????:??:??.[0-9][0-9][0-9][0-9]*' THEN substr(${c}, 1, 23) || ltrim(substr(${c}, 24), '0123456789') ELSE ${c} END`;
/** The canonical text: UTC, milliseconds, Z (toISOString's). */
const utc = (c: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${cut(c)})`;
/** The canonical text's shape, for a value the CHECK let in: SQLite reads two digits exactly
 * at each place of the date and time, one digit or more after the '.', then spaces (so a digit
 * at 23 and Z at 24 leave only the three-digit millisecond). */
const CANONICAL = "'????-??-??T??:??:??.??[0-9]Z'";

const DT = (c: string) =>
  `${c} IS NULL OR (${c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]*' AND substr(${c}, 12, 2) < '24' AND (substr(${c}, 9, 2) < '29' OR date(substr(${c}, 1, 10), '+0 days') = substr(${c}, 1, 10)) AND julianday(${c}) IS NOT NULL AND (${c} GLOB '*Z' OR ${c} GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))`;

const OLD_JSON = (c: string) => `json_valid(${c})`;
const OBJECT = (c: string) => `json_valid(${c}) AND json_type(${c}) = 'object'`;

function edit(table: string, sql: string, to: 'new' | 'old'): string {
  let out = sql;
  const swap = (name: string, oldCheck: string, newCheck: string) => {
    const [from, into] = to === 'new' ? [oldCheck, newCheck] : [newCheck, oldCheck];
    out = out.replace(`CONSTRAINT ${name} CHECK (${from})`, `CONSTRAINT ${name} CHECK (${into})`);
  };
  for (const c of DATETIMES[table] ?? []) swap(`ck_${table}_${c}`, OLD_DT(c), DT(c));
  const object = OBJECTS[table];
  if (object) swap(`ck_${table}_${object}`, OLD_JSON(object), OBJECT(object));
  return out;
}

function triggers(table: string): string {
  const columns = DATETIMES[table]!;
  const when = columns.map((c) => `NEW.${c} NOT GLOB ${CANONICAL}`).join(' OR ');
  // coalesce: text SQLite cannot read reaches the trigger only past the CHECK (a tool with
  // ignore_check_constraints); it stays as written, not NULL (a NOT NULL failure that named no
  // reason, or a next_try silently lost), and the next upgrade or downgrade replaces it.
  const rewrite = `UPDATE ${table} SET ${columns.map((c) => `${c} = coalesce(${utc(c)}, ${c})`).join(', ')} WHERE id = NEW.id;`;
  return `
CREATE TRIGGER utc_${table}_insert AFTER INSERT ON ${table} WHEN ${when} BEGIN ${rewrite} END;
CREATE TRIGGER utc_${table}_update AFTER UPDATE OF ${columns.join(', ')} ON ${table} WHEN ${when} BEGIN ${rewrite} END;
`;
}

/** The tables with Tern's CHECK in the form `form` (a microblog.pub database's have none). */
function ternTables(sqlite: Sqlite, form: (c: string) => string): string[] {
  return Object.keys(DATETIMES).filter((table) => {
    const c = DATETIMES[table]![0]!;
    return tableSql(sqlite, table)?.includes(`CONSTRAINT ck_${table}_${c} CHECK (${form(c)})`) ?? false;
  });
}

/** The hour 24 that 3.40 let in, as 3.40 read it: the next day's hour 0 (3.54 reads nothing). */
const hour24 = (c: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${cut(`(substr(${c}, 1, 11) || '23' || substr(${c}, 14))`)}, '+1 hour')`;
/** Not in the canonical form, or a day past the 28th that 3.40 may have kept as written. */
const notCanonical = (c: string) => `(${c} NOT GLOB ${CANONICAL} OR substr(${c}, 9, 2) >= '29') AND ${c} <> ${utc(c)}`;
/** What rewriteValues stores for a value: NULL where SQLite cannot read it, and where the text
 * does not start with a date, which SQLite reads but not as a time anyone wrote ('now' as the
 * time of the upgrade, '1700000000' as a Julian day number out of range): such a value is
 * replaced (migrations/replaced-datetimes.ts), a number by the time SQLite's 'auto' reads. */
const rewritten = (c: string) =>
  `CASE WHEN ${c} NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' THEN NULL WHEN substr(${c}, 12, 2) = '24' THEN ${hour24(c)} WHEN ${notCanonical(c)} THEN ${utc(c)} ELSE ${c} END`;

/** Rewrites the stored values the new CHECKs would refuse into the form they take. */
function rewriteValues(sqlite: Sqlite, table: string): void {
  for (const c of DATETIMES[table]!) {
    sqlite.exec(`UPDATE ${table} SET ${c} = ${hour24(c)} WHERE substr(${c}, 12, 2) = '24'`);
    sqlite.exec(`UPDATE ${table} SET ${c} = ${utc(c)} WHERE ${notCanonical(c)}`);
  }
  const object = OBJECTS[table];
  // Text that is not JSON at all (ap_actor written past the CHECKs) is kept as a string: json()
  // and json_type() fail on it, which aborted the revision. A blob, which json_object() cannot
  // hold, is left to the rebuild's copy (migrations/replaced-values.ts keeps it aside).
  if (object) {
    sqlite.exec(
      `UPDATE ${table} SET ${object} = json_object('value', CASE WHEN json_valid(${object}) THEN json(${object}) ELSE ${object} END) WHERE typeof(${object}) <> 'blob' AND CASE WHEN json_valid(${object}) THEN json_type(${object}) <> 'object' ELSE 1 END`,
    );
  }
}

/** Replaces what `check` would refuse once stored as `after` says (migrations/replaced-datetimes.ts),
 * and says so on the console. */
function replaceUnstorables(sqlite: Sqlite, tables: readonly string[], after: (c: string) => string, check: (c: string) => string, by: string): void {
  const n = tables.reduce((sum, table) => sum + replaceUnstorable(sqlite, table, DATETIMES[table]!, after, check, by), 0);
  if (n > 0) {
    console.warn(
      `5d0e8a3c71f4: ${n} datetimes could not be stored as UTC text (before 0000 or after 9999, a number, or text SQLite cannot read) ` +
        `and were replaced by the nearest time that can be (a number's as SQLite's 'auto' reads it); the text they held is kept in ${REPLACED_TABLE}`,
    );
  }
}

export const readableValues: Revision = {
  id: '5d0e8a3c71f4',
  parent: '70cce0da20c3',
  description: 'datetimes stored as UTC text, required JSON holds an object',
  upgrade: (sqlite) => {
    const tables = ternTables(sqlite, OLD_DT);
    replaceUnstorables(sqlite, tables, rewritten, DT, 'upgrade to 5d0e8a3c71f4');
    for (const table of tables) rewriteValues(sqlite, table);
    rebuildTables(sqlite, tables, (table, sql) => edit(table, sql, 'new'), 'upgrade to 5d0e8a3c71f4');
    sqlite.exec(tables.map(triggers).join(''));
  },
  downgrade: (sqlite) => {
    const tables = ternTables(sqlite, DT);
    sqlite.exec(tables.map((t) => `DROP TRIGGER utc_${t}_insert;\nDROP TRIGGER utc_${t}_update;\n`).join(''));
    replaceUnstorables(sqlite, tables, (c) => c, OLD_DT, 'downgrade from 5d0e8a3c71f4');
    for (const table of tables) {
      const object = OBJECTS[table];
      if (object) sqlite.exec(`UPDATE ${table} SET ${object} = json_object('value', ${object}) WHERE NOT json_valid(${object}) AND typeof(${object}) <> 'blob'`);
    }
    rebuildTables(sqlite, tables, (table, sql) => edit(table, sql, 'old'), 'downgrade from 5d0e8a3c71f4');
  },
};
