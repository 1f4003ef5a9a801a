// Column types shared by every table of the schema: how Tern stores the spec's datetimes,
// booleans, JSON values and enumerations in SQLite, and the CHECK constraints that keep
// those storage rules true for every writer (Tern, the CLI, a hand-edited file).
import { check, customType, integer, text } from 'drizzle-orm/sqlite-core';
import { sql } from 'drizzle-orm';

/** JSON as stored: any value JSON can hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// An offset is required: `Z` or `±HH:MM` at the end of the ISO-8601 text.
const OFFSET_RE = /(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO-8601 datetime read from the database. Text without an offset (as the
 * service behind the spec wrote, naive UTC) is read as UTC, never as local time. */
export function parseStoredDate(value: string): Date {
  const text = OFFSET_RE.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new Error(`invalid datetime in database: ${value}`);
  return date;
}

/** parseStoredDate, but an Invalid Date for text it cannot read, instead of an error. */
export function readStoredDate(value: string): Date {
  try {
    return parseStoredDate(value);
  } catch {
    return new Date(Number.NaN);
  }
}

/** A datetime with a time zone: ISO-8601 text with an explicit offset, read back as a Date. */
export const datetime = customType<{ data: Date; driverData: string }>({
  dataType: () => 'text',
  toDriver: (value) => {
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError('datetime columns take a valid Date');
    return value.toISOString();
  },
  // An unreadable value (only a writer that bypassed the CHECK can store one) is an Invalid
  // Date rather than an error, so that reading a list does not fail as a whole: the list leaves
  // the row out (db/readable-rows.ts).
  fromDriver: (value) => readStoredDate(value),
});

/** A JSON value, stored as JSON text (valid JSON is enforced by a CHECK). */
export const json = <T extends JsonValue | object = JsonValue>() =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  });

/**
 * JSON text read from the database, parsed only when its value is asked for (once). For a
 * column most reads never look at: a post's earlier versions (outbox.revisions) are whole copies
 * of the post, up to 2 MiB of them, and every list of posts read them — parsed eagerly, one
 * post edited 400 times held the main thread 450 ms on each outbox page that listed it.
 * JSON.stringify writes it as its value.
 */
export class StoredJson<T> {
  #value: T | undefined;
  #parsed = false;
  constructor(readonly text: string) {}
  get value(): T {
    if (!this.#parsed) {
      this.#value = JSON.parse(this.text) as T;
      this.#parsed = true;
    }
    return this.#value as T;
  }
  toJSON(): T {
    return this.value;
  }
}

/** A JSON value read back as StoredJson (parsed on demand); written from a value or a StoredJson. */
export const lazyJson = <T extends JsonValue | object = JsonValue>() =>
  customType<{ data: T | StoredJson<T>; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => (value instanceof StoredJson ? value.text : JSON.stringify(value)),
    fromDriver: (value) => new StoredJson<T>(value),
  });

/** The value of a lazyJson column (null stays null). */
export function storedValue<T>(stored: T | StoredJson<T> | null): T | null {
  return stored instanceof StoredJson ? stored.value : stored;
}

/** A boolean stored as 0/1. */
export const bool = (name: string) => integer(name, { mode: 'boolean' });

/** A string column. */
export const str = (name: string) => text(name);

export const VISIBILITIES = ['PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const NOTIFICATION_TYPES = [
  'NEW_FOLLOWER',
  'UNFOLLOW',
  'FOLLOW_REQUEST_ACCEPTED',
  'FOLLOW_REQUEST_REJECTED',
  'LIKE',
  'UNDO_LIKE',
  'ANNOUNCE',
  'UNDO_ANNOUNCE',
  'MENTION',
  'NEW_WEBMENTION',
  'UPDATED_WEBMENTION',
  'DELETED_WEBMENTION',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

// ---- CHECK constraints, named ck_<table>_<column> -------------------------------------------
// The expressions are plain SQL over bare column names, so the text drizzle holds is the same
// text the migrations write, and the schema test can compare them.

export const boolCheckSql = (column: string) => `${column} IN (0, 1)`;
// A required JSON column holds an object (ap_object, ap_actor): JSON null, a number or a list
// there made every list that showed the row fail (revision 5d0e8a3c71f4).
export const jsonCheckSql = (column: string) => `json_valid(${column}) AND json_type(${column}) = 'object'`;
// An optional JSON column says `IS NULL OR` itself: SQLite before 3.45 (Debian 12's sqlite3 shell
// and python3 module) answers json_valid(NULL) with 0, not NULL, so a bare CHECK there would
// refuse NULL to other tools (revision b3e1c5a7d902).
export const optionalJsonCheckSql = (column: string) => `${column} IS NULL OR json_valid(${column})`;

/** The text of a datetime with digits past the millisecond cut (3.40 rounds them, later
 * SQLite and Date cut them). */
const cutToMillisecondsSql = (column: string) =>
  `CASE WHEN ${column} GLOB '????-??-?????:??:??.[0-9][0-9][0-9][0-9]*' THEN substr(${column}, 1, 23) || ltrim(substr(${column}, 24), '0123456789') ELSE ${column} END`;
/** A datetime as Tern stores it: UTC, milliseconds, Z — toISOString()'s text, so text order is
 * time order. Triggers rewrite any other form a tool writes into this one (5d0e8a3c71f4). */
export const utcDatetimeSql = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${cutToMillisecondsSql(column)})`;
// `column IS NULL OR`: without it NULL fails the CHECK, which would make the spec's optional
// datetimes (next_try, last_try) required. The rest takes only what every SQLite (3.40 as well
// as better-sqlite3's) reads as the same time: the ISO shape, an hour below 24, a day the month
// has, and an offset (Z or ±HH:MM) at the end (revision 5d0e8a3c71f4 says why each).
export const datetimeCheckSql = (column: string) =>
  `${column} IS NULL OR (${column} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]*' AND substr(${column}, 12, 2) < '24' AND (substr(${column}, 9, 2) < '29' OR date(substr(${column}, 1, 10), '+0 days') = substr(${column}, 1, 10)) AND julianday(${column}) IS NOT NULL AND (${column} GLOB '*Z' OR ${column} GLOB '*[+-][0-9][0-9]:[0-9][0-9]'))`;
export const enumCheckSql = (column: string, values: readonly string[]) =>
  `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;

/** `column IN (0, 1)`; NULL passes (nullability is a separate rule). */
export const boolCheck = (table: string, column: string) => check(`ck_${table}_${column}`, sql.raw(boolCheckSql(column)));
/** A JSON object (a required column). */
export const jsonCheck = (table: string, column: string) => check(`ck_${table}_${column}`, sql.raw(jsonCheckSql(column)));
/** Valid JSON text or NULL (an optional column). */
export const optionalJsonCheck = (table: string, column: string) =>
  check(`ck_${table}_${column}`, sql.raw(optionalJsonCheckSql(column)));
/** ISO-8601 text that every SQLite reads alike, ending in an explicit offset. */
export const datetimeCheck = (table: string, column: string) =>
  check(`ck_${table}_${column}`, sql.raw(datetimeCheckSql(column)));
/** One of the enumeration's names. */
export const enumCheck = (table: string, column: string, values: readonly string[]) =>
  check(`ck_${table}_${column}`, sql.raw(enumCheckSql(column, values)));
