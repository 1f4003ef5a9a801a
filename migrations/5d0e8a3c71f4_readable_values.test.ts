// Revision 5d0e8a3c71f4: a datetime written with an offset by any tool (the sqlite3 3.40 shell,
// python3's sqlite3, better-sqlite3) is stored as the same UTC text toISOString() writes, so text
// order is time order; what SQLite versions read differently is refused by all of them alike;
// ap_object and ap_actor hold a JSON object. Upgrading rewrites what is stored; downgrading
// restores the former schema. Neither aborts on a stored datetime that cannot be made that text
// (before 0000 or after 9999 in UTC, text SQLite cannot read): the row keeps the nearest time
// that can be stored, and the text it held is kept in replaced_datetime.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSqlite } from '../db/client';
import { downgrade, upgrade } from './runner';
import { presentTools, shell, versionOf } from './test-tools';

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
    expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
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

  it('keeps text that is not JSON at all in ap_actor (written past the CHECKs) inside an object, as a string, instead of aborting; the downgrade too', () => {
    // (ap_object cannot hold such text: the indexes on its inReplyTo refuse it with 'malformed JSON'.)
    const db = ternDatabase('70cce0da20c3');
    const pastChecks = (statement: string) => shell(db, `PRAGMA ignore_check_constraints = 1; ${statement}`);
    expect(pastChecks("UPDATE actor SET ap_actor = '{\"name\": \"cut off'")).toBeNull();
    expect(pastChecks(inboxRow('not json'))).toMatch('malformed JSON');
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT ap_actor FROM actor').pluck().all()).toEqual(['{"value":"{\\"name\\": \\"cut off"}']);
      expect(pastChecks("UPDATE actor SET ap_actor = '[1,'")).toBeNull();
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT ap_actor FROM actor').pluck().all()).toEqual(['{"value":"[1,"}']);
    } finally {
      sqlite.close();
    }
    expect(spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim()).toBe('ok');
  });

  it('keeps rows, ids, indexes and the search triggers; downgrading drops its triggers and restores the former schema text exactly', () => {
    const db = ternDatabase('70cce0da20c3');
    const sqlite = openSqlite(db);
    sqlite.exec(inboxRow('{"type":"Note"}'));
    const schema = () => sqlite.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all() as { type: string; name: string; sql: string }[];
    const rows = () => ['actor', 'inbox'].map((t) => sqlite.prepare(`SELECT * FROM ${t} ORDER BY id`).all());
    const before = { schema: schema(), rows: rows() };

    upgrade(sqlite, '5d0e8a3c71f4');
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

// Text that cannot be made the canonical UTC text (a time before 0000-01-01 or after 9999 in
// UTC, text SQLite cannot read), stored before the revision or past its CHECKs (the user's own
// tools with ignore_check_constraints): the upgrade and the downgrade never abort on it. The row
// is kept, the column holds the nearest time that can be stored (the original text is kept in
// replaced_datetime and reported on the console), and every other value is rewritten as before.
describe('values 5d0e8a3c71f4 cannot make canonical', () => {
  const MIN = '0000-01-01T00:00:00.000Z';
  const MAX = '9999-12-31T23:59:59.999Z';
  /** One statement through the 3.40 shell with the CHECKs off, as a user's own tool may run it. */
  const pastChecks = (db: string, statement: string) => shell(db, `PRAGMA ignore_check_constraints = 1; ${statement}`);
  const kept = (sqlite: ReturnType<typeof openSqlite>) =>
    sqlite.prepare('SELECT table_name, row_id, column_name, original, stored_as FROM replaced_datetime ORDER BY id').raw().all();
  const integrity = (db: string) => spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim();

  // [stored before the upgrade, what the old CHECK let in (else written past it), stored after, kept?]
  const NOTIFICATIONS: [string, boolean, string, boolean][] = [
    ['0000-01-01T00:30:00+01:00', true, MIN, true], // the reviewer's: -0001-12-31T23:30Z
    ['0000-01-01 00:00+14:00', true, MIN, true],
    ['0000-01-01T00:00:00.5+01:00', true, MIN, true],
    ['0000-01-01T12:00:00.123456+14:00', true, MIN, true],
    ['0000-01-01T00:30:00-01:00', true, '0000-01-01T01:30:00.000Z', false],
    ['0000-01-01T01:00:00+01:00', true, MIN, false], // exactly the bound
    ['0000-01-01T24:00:00+01:00', true, '0000-01-01T23:00:00.000Z', false], // hour 24, as 3.40 read it
    ['0000-02-30T00:00:00Z', true, '0000-03-01T00:00:00.000Z', false], // year 0 is a leap year
    ['9999-12-31T23:30:00-01:00', false, MAX, true], // 10000-01-01T00:30Z
    ['9999-12-31T23:59:59.9999Z', false, MAX, false], // 3.40 rounds it to 10000, digits are cut
    ['9999-12-31T24:00:00Z', false, MAX, true],
    ['9999-12-31 23:00:00-14:00', false, MAX, true],
    ['2025-06-30T23:59:60Z', false, '2025-07-01T00:00:00.000Z', true], // a leap second
    ['2025-02-01T24:30:00.000Z', true, '2025-02-02T00:30:00.000Z', false],
    ['2025-02-01t10:00:00z', false, '2025-02-01T10:00:00.000Z', true], // SQLite reads no 't'
    ['2025-02-01T10:00:00', false, '2025-02-01T10:00:00.000Z', false], // naive text is UTC (parseStoredDate)
    ['-0001-12-31T23:30:00.000Z', true, MIN, true],
    ['yesterday', false, MIN, true],
    ['now', false, MIN, true], // SQLite reads it as the time of the upgrade
    ['', false, MIN, true],
  ];

  it('upgrading keeps every row of a database holding them in several tables, stores the nearest time that can be stored and keeps the original text', () => {
    const db = ternDatabase('70cce0da20c3');
    for (const [at, oldCheckTakes] of NOTIFICATIONS) expect((oldCheckTakes ? shell : pastChecks)(db, notification(at)), at).toBeNull();
    expect(shell(db, inboxRow('{"type":"Note"}', '0000-01-01 00:00+14:00'))).toBeNull();
    expect(pastChecks(db, "UPDATE actor SET updated_at = '9999-12-31T23:30:00-01:00' WHERE id = 1")).toBeNull();
    expect(pastChecks(db, "INSERT INTO incoming_activity (id, created_at, ap_object, tries, next_try, last_try, is_processed, is_errored) VALUES (7, '2025-02-01T12:00:00+02:00', NULL, 0, 'soon', '0000-01-01T12:00:00+14:00', 0, 0)")).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT created_at FROM notifications ORDER BY id').pluck().all()).toEqual(NOTIFICATIONS.map(([, , stored]) => stored));
      expect(sqlite.prepare('SELECT ap_published_at FROM inbox').pluck().all()).toEqual([MIN]);
      expect(sqlite.prepare('SELECT updated_at FROM actor').pluck().all()).toEqual([MAX]);
      expect(sqlite.prepare('SELECT json_array(created_at, next_try, last_try) FROM incoming_activity').pluck().all()).toEqual([`["2025-02-01T10:00:00.000Z","${MIN}","${MIN}"]`]);
      const ids = sqlite.prepare('SELECT id FROM notifications ORDER BY id').pluck().all() as number[];
      expect(kept(sqlite)).toEqual([
        ['actor', 1, 'updated_at', '9999-12-31T23:30:00-01:00', MAX],
        ['inbox', 1, 'ap_published_at', '0000-01-01 00:00+14:00', MIN],
        ['incoming_activity', 7, 'next_try', 'soon', MIN],
        ['incoming_activity', 7, 'last_try', '0000-01-01T12:00:00+14:00', MIN],
        ...NOTIFICATIONS.flatMap(([at, , stored, isKept], i) => (isKept ? [['notifications', ids[i], 'created_at', at, stored]] : [])),
      ]);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(/^5d0e8a3c71f4: 17 datetimes could not be stored as UTC text .*replaced_datetime/),
      ]);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it('downgrading does not abort on text written past the CHECKs at the head either, and upgrading again keeps the originals', () => {
    const db = ternDatabase();
    // With the CHECKs off the triggers still run: '0000-01-01T00:30:00+01:00' is stored as '-001-12-31T23:30:00.000Z'.
    expect(pastChecks(db, notification('0000-01-01T00:30:00+01:00'))).toBeNull();
    expect(pastChecks(db, notification('later'))).toBeNull();
    // …and text SQLite cannot read stays as written: not a NOT NULL failure, nor a next_try lost to NULL.
    expect(pastChecks(db, "INSERT INTO incoming_activity (id, created_at, ap_object, tries, next_try, last_try, is_processed, is_errored) VALUES (7, '2025-02-01T12:00:00+02:00', NULL, 0, 'soon', NULL, 0, 0)")).toBeNull();
    expect(read<string>(db, 'SELECT json_array(created_at, next_try, last_try) FROM incoming_activity')).toEqual(['["2025-02-01T10:00:00.000Z","soon",null]']);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT created_at FROM notifications ORDER BY id').pluck().all()).toEqual([MIN, MIN]);
      expect(kept(sqlite)).toEqual([
        ['incoming_activity', 7, 'next_try', 'soon', MIN],
        ['notifications', 1, 'created_at', '-001-12-31T23:30:00.000Z', MIN],
        ['notifications', 2, 'created_at', 'later', MIN],
      ]);
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      expect(kept(sqlite)).toHaveLength(3);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it('upgrading reads a number the user’s tool stored (a Julian day number, Unix seconds) as SQLite’s auto does, not as 0000-01-01, and keeps what was stored', () => {
    const db = ternDatabase('70cce0da20c3');
    // The shell's julianday(), an integer from `date +%s`, python's time.time(): the TEXT column
    // holds each as its text. Then a number out of range, and one before 0000.
    const numbers = ["julianday('2025-06-01T12:34:56.789Z')", '1700000000', "'1700000000'", '1748781296.789', '253402300800', '0'];
    for (const number of numbers) expect(pastChecks(db, `INSERT INTO notifications (created_at, notification_type, is_new, actor_id) VALUES (${number}, 'NEW_FOLLOWER', 1, 1)`), number).toBeNull();
    expect(read<string>(db, 'SELECT typeof(created_at) FROM notifications')).toEqual(numbers.map(() => 'text'));
    const stored = read<string>(db, 'SELECT created_at FROM notifications ORDER BY id');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      const times = ['2025-06-01T12:34:56.789Z', '2023-11-14T22:13:20.000Z', '2023-11-14T22:13:20.000Z', '2025-06-01T12:34:56.789Z', MIN, MIN];
      expect(sqlite.prepare('SELECT created_at FROM notifications ORDER BY id').pluck().all()).toEqual(times);
      const ids = sqlite.prepare('SELECT id FROM notifications ORDER BY id').pluck().all() as number[];
      expect(kept(sqlite)).toEqual(ids.map((id, i) => ['notifications', id, 'created_at', stored[i], times[i]]));
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it('downgrading reads such a number, written past the CHECKs at the head, alike', () => {
    const db = ternDatabase();
    // The trigger leaves Unix seconds as written (strftime reads them as a Julian day, out of range).
    expect(pastChecks(db, notification('1700000000'))).toBeNull();
    expect(read<string>(db, 'SELECT created_at FROM notifications')).toEqual(['1700000000']);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT created_at FROM notifications').pluck().all()).toEqual(['2023-11-14T22:13:20.000Z']);
      expect(kept(sqlite)).toEqual([['notifications', 1, 'created_at', '1700000000', '2023-11-14T22:13:20.000Z']]);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  for (const [name, tool] of presentTools()) {
    it(`${name}: a time before 0000 or after 9999 in UTC is refused with the column's CHECK; the bounds themselves are taken and rewritten alike`, () => {
      const db = ternDatabase();
      for (const value of ['0000-01-01T00:30:00+01:00', '0000-01-01 00:00+14:00', '9999-12-31T23:30:00-01:00', '9999-12-31T24:00:00Z', '2025-06-30T23:59:60Z']) {
        expect(tool(db, notification(value)), value).toMatch('CHECK constraint failed: ck_notifications_created_at');
        expect(tool(db, `UPDATE incoming_activity SET last_try = '${value}'`), value).toBeNull(); // no rows: nothing to refuse
      }
      for (const [written, stored] of [
        ['0000-01-01T01:00:00+01:00', MIN],
        ['0000-01-01T00:00:00-01:00', '0000-01-01T01:00:00.000Z'],
        ['9999-12-31T23:59:59.999Z', MAX],
        ['9999-12-31T22:59:59.999-01:00', MAX],
      ]) {
        expect(tool(db, notification(written!)), written).toBeNull();
        expect(lastCreatedAt(db), written).toBe(stored);
      }
      expect(read<number>(db, 'SELECT count(*) FROM notifications')).toEqual([4]);
    });
  }

  // The class, enumerated: years at both ends and between × days (29 and 30 February, 31 April)
  // × times (fractions, 23:59:59.9999, a second 60, hour 24) × offsets (Z, z, ' Z', ±01:00,
  // ±14:00, ±23:59, +0100, none) × 'T', ' ' or 't'; and text that is no date at all.
  const GRID = (() => {
    const days: Record<string, string[]> = { '0000': ['01-01', '02-29', '02-30', '12-31'], '0001': ['01-01'], '2025': ['02-01', '02-29', '02-30', '04-31', '12-31'], '9998': ['12-31'], '9999': ['01-01', '02-30', '12-31'] };
    const times = ['00:00', '00:30:00', '00:00:00.5', '12:00:00.123456', '23:30:00', '23:59:59.999', '23:59:59.9999', '23:59:60', '24:00:00', '24:30:00'];
    const offsets = ['Z', 'z', ' Z', '+00:00', '+01:00', '-01:00', '+14:00', '-14:00', '+23:59', '-23:59', '+0100', ''];
    const out = Object.entries(days).flatMap(([year, ds]) => ds.flatMap((d) => times.flatMap((t) => offsets.flatMap((o) => ['T', ' ', 't'].map((sep) => `${year}-${d}${sep}${t}${o}`)))));
    return [...out, 'garbage', '', 'now', '2460000.5', '2460000.5Z', '1700000000', '2025-02-01', '2025-02-01Z', '-0001-12-31T23:30:00.000Z', '10000-01-01T00:00:00Z', '2025-13-01T00:00:00Z', '2025-02-00T00:00:00Z', '2025-02-01T10:60:00Z'];
  })();
  const CANONICAL_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  it(`upgrading and downgrading a database holding each of ${GRID.length} such texts in a required and an optional column never aborts; each row keeps a readable time or its text in replaced_datetime`, () => {
    const db = ternDatabase('70cce0da20c3');
    const sqlite = openSqlite(db);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      sqlite.pragma('ignore_check_constraints = ON');
      const insert = sqlite.prepare("INSERT INTO incoming_activity (id, created_at, ap_object, tries, next_try, last_try, is_processed, is_errored) VALUES (?, ?, NULL, 0, ?, NULL, 0, 0)");
      GRID.forEach((value, i) => insert.run(i + 1, value, value));
      sqlite.pragma('ignore_check_constraints = OFF');
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      const rows = sqlite.prepare('SELECT id, created_at, next_try FROM incoming_activity ORDER BY id').raw().all() as [number, string, string][];
      expect(rows).toHaveLength(GRID.length);
      const replaced = new Map((sqlite.prepare("SELECT row_id || column_name, original FROM replaced_datetime WHERE table_name = 'incoming_activity'").raw().all() as [string, string][]).map(([k, v]) => [k, v]));
      for (const [id, createdAt, nextTry] of rows) {
        const written = GRID[id - 1]!;
        expect([createdAt, nextTry], written).toEqual([nextTry, nextTry]);
        expect(createdAt, written).toMatch(CANONICAL_TEXT);
        expect(new Date(createdAt).toISOString(), written).toBe(createdAt);
        if (replaced.has(`${id}created_at`)) expect(replaced.get(`${id}created_at`), written).toBe(written);
      }
      expect(replaced.size % 2).toBe(0); // created_at and next_try alike
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT created_at FROM incoming_activity ORDER BY id').pluck().all()).toEqual(rows.map((r) => r[1]));
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it.skipIf(versionOf('shell') === null)('the triggers store each text of the class alike in the 3.40 shell and better-sqlite3, or both refuse it with the CHECK (but one: see below)', () => {
    /** Each text written by `tool`, one statement at a time: what is stored, or the error. */
    const written = (each: (db: string, statements: string[]) => (string | null)[]) => {
      const db = ternDatabase();
      const statements = GRID.map((v, i) => `INSERT INTO incoming_activity (id, created_at, ap_object, tries, next_try, last_try, is_processed, is_errored) VALUES (${i + 1}, '${v}', NULL, 0, NULL, NULL, 0, 0);`);
      const errors = each(db, statements);
      const stored = new Map(read<string>(db, "SELECT json_array(id, created_at) FROM incoming_activity").map((j) => JSON.parse(j) as [number, string]));
      return GRID.map((_, i) => errors[i] ?? stored.get(i + 1) ?? 'missing');
    };
    const inShell = written((db, statements) => {
      // One process (not -bail): each failing line is named on stderr.
      const r = spawnSync('sqlite3', [db], { input: statements.join('\n'), encoding: 'utf8' });
      const out: (string | null)[] = statements.map(() => null);
      for (const m of r.stderr.matchAll(/near line (\d+): (?:stepping, )?(.*?)(?: \(\d+\))?$/gm)) out[Number(m[1]) - 1] = m[2]!;
      return out;
    });
    const inBetterSqlite = written((db, statements) => {
      const sqlite = openSqlite(db);
      try {
        return statements.map((statement) => {
          try {
            sqlite.exec(statement);
            return null;
          } catch (error) {
            return (error as Error).message;
          }
        });
      } finally {
        sqlite.close();
      }
    });
    const differ = GRID.flatMap((v, i) => (inShell[i] === inBetterSqlite[i] ? [] : [[v, inShell[i], inBetterSqlite[i]]]));
    // 3.40 rounds the fourth digit of the millisecond, and reads 9999-12-31T23:59:59.9999 as
    // 10000: its CHECK refuses what better-sqlite3's takes (and cuts to …59.999Z).
    expect(differ.every(([v, shellSaid, betterSaid]) => /^9999-12-31.23:59:59\.9999/.test(v!) && /CHECK constraint failed/.test(shellSaid!) && betterSaid === MAX), JSON.stringify(differ.filter(([v]) => !/^9999-12-31.23:59:59\.9999/.test(v!)))).toBe(true);
    for (const [i, result] of inBetterSqlite.entries()) {
      expect(result, GRID[i]).toMatch(/^(CHECK constraint failed: ck_incoming_activity_created_at|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/);
    }
  });
});

