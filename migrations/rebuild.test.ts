// The table rebuilds of b3e1c5a7d902 and 5d0e8a3c71f4 (migrations/rebuild.ts), upgrade and
// downgrade, on values a user's own tool stored past the CHECKs (the sqlite3 3.40 shell with
// ignore_check_constraints): an enum outside its list, a boolean 2, JSON that is not JSON. Each
// was copied into the rebuilt table as it was, failed a CHECK there, and the revision rolled
// back, so Tern could not open the database. Now the row is kept with a value the CHECK takes,
// the value it held is kept in replaced_value, and one console line says so. A reference to a
// row that does not exist (the shell's foreign keys are off) no longer aborts every revision.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSqlite, type Sqlite } from '../db/client';
import { rebuildTables } from './rebuild';
import { downgrade, upgrade } from './runner';
import { shell } from './test-tools';

const T = "'2024-05-01T12:00:00.000Z'";
const dir = mkdtempSync(join(tmpdir(), 'tern-rebuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A database file Tern made, at `target`, with an actor and a post to refer to. */
function ternDatabase(target: string): string {
  const path = join(dir, `tern-${files++}.db`);
  const sqlite = openSqlite(path);
  upgrade(sqlite, target);
  sqlite.exec(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (1, ${T}, ${T}, 'https://a.example/u', '{}', 'Person');`);
  sqlite.exec(
    `INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted) VALUES (1, ${T}, ${T}, 0, 'p1', 'Note', 'https://me.example/o/1', '{}', ${T}, 'PUBLIC', 0, 0, 0, 0, 0)`,
  );
  sqlite.close();
  return path;
}

/** Statements through the 3.40 shell with the CHECKs off, as a user's own tool may run them. */
const pastChecks = (db: string, statements: string) => shell(db, `PRAGMA ignore_check_constraints = 1; ${statements}`);
const integrity = (db: string) => spawnSync('sqlite3', [db, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim();
const kept = (sqlite: Sqlite) => sqlite.prepare('SELECT table_name, row_id, column_name, original, stored_as FROM replaced_value ORDER BY id').raw().all() as unknown[][];

/** Rows holding, past the CHECKs, each kind of value a CHECK of the rebuilt tables refuses. */
const REFUSED = `
INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id) VALUES (10, ${T}, 'FOO', 2, 1);
INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id) VALUES (11, ${T}, ' like', 'yes', 1);
INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id) VALUES (12, ${T}, 'MENTION', -0.5, 1);
INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count, voted_for_answers, og_meta)
  VALUES (20, ${T}, ${T}, 1, 'a.example', 0, 'https://a.example/u', 'Note', 'https://a.example/n/1', ${T}, '{}', 'PRIVATE', 2, 'false', 0, '[1,', '{broken');
INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted, revisions)
  VALUES (30, ${T}, ${T}, 0, 'p30', 'Note', 'https://me.example/o/30', '{}', ${T}, 'unlisted', 0, 0, 0, 'off', 0, 'not json');
INSERT INTO incoming_activity (id, created_at, ap_object, tries, is_processed, is_errored) VALUES (40, ${T}, 'not json', 0, 1, 0);
INSERT INTO webmention (id, created_at, is_deleted, source, source_microformats, target, outbox_object_id) VALUES (50, ${T}, 0, 'https://blog.example/1', '{', 'https://me.example/o/1', 1);
INSERT INTO oauth_client (id, created_at, client_name, redirect_uris, client_id, client_secret) VALUES (60, ${T}, 'App', 'https://app.example/cb', 'https://app.example/', 's');
INSERT INTO indieauth_access_token (id, created_at, access_token, expires_in, scope, is_revoked) VALUES (70, ${T}, 'token', 60, 'create', 'unknown');
INSERT INTO indieauth_access_token (id, created_at, access_token, expires_in, scope, is_revoked) VALUES (71, ${T}, 'token2', 60, 'create', 'no');
INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id) VALUES (13, ${T}, 'like', 'unknown', 1);
`;

/** What each becomes, and the value kept: [table, id, column, original, stored as]. */
const REPLACED = [
  ['inbox', 20, 'is_bookmarked', 2, 1],
  ['inbox', 20, 'is_deleted', 'false', 1], // a cautious flag: only a 0 is false (Tern's `= 0` filters hid it)
  ['inbox', 20, 'voted_for_answers', '[1,', null],
  ['inbox', 20, 'og_meta', '{broken', null],
  ['inbox', 20, 'visibility', 'PRIVATE', 'DIRECT'],
  ['incoming_activity', 40, 'ap_object', 'not json', null],
  ['outbox', 30, 'revisions', 'not json', null],
  ['outbox', 30, 'visibility', 'unlisted', 'UNLISTED'],
  ['outbox', 30, 'is_pinned', 'off', 0], // not a cautious flag: the word's meaning
  ['webmention', 50, 'source_microformats', '{', null],
  ['notifications', 10, 'is_new', 2, 1],
  ['notifications', 10, 'notification_type', 'FOO', null],
  ['notifications', 11, 'is_new', 'yes', 1],
  ['notifications', 11, 'notification_type', ' like', 'LIKE'],
  ['notifications', 12, 'is_new', -0.5, 1],
  ['oauth_client', 60, 'redirect_uris', 'https://app.example/cb', null],
  ['indieauth_access_token', 70, 'is_revoked', 'unknown', 1], // not a 0: revoked
  ['indieauth_access_token', 71, 'is_revoked', 'no', 1], // not a 0: revoked, as Tern's `is_revoked = 0` read it
  ['notifications', 13, 'is_new', 'unknown', 0], // says nothing: read
  ['notifications', 13, 'notification_type', 'like', 'LIKE'],
];

function expectReplaced(sqlite: Sqlite): void {
  for (const [table, id, column, , storedAs] of REPLACED) {
    expect(sqlite.prepare(`SELECT ${column} FROM ${table} WHERE id = ?`).pluck().get(id), `${table}.${column}`).toBe(storedAs);
  }
  const order = (rows: unknown[][]) => [...rows].sort((a, b) => `${a[0]}${a[1]}${a[2]}`.localeCompare(`${b[0]}${b[1]}${b[2]}`));
  expect(order(kept(sqlite))).toEqual(order(REPLACED));
}

describe('a table rebuild keeps a row whose value the new table CHECK refuses', () => {
  it('upgrading to 5d0e8a3c71f4: each such value gets one the CHECK takes, the value it held is kept in replaced_value, one line on the console', () => {
    const db = ternDatabase('70cce0da20c3');
    expect(pastChecks(db, REFUSED)).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      expectReplaced(sqlite);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^upgrade to 5d0e8a3c71f4: 20 stored values .*replaced_value/)]);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it('downgrading from 5d0e8a3c71f4 does the same for such values written at the head, and upgrading again keeps them', () => {
    const db = ternDatabase('head');
    expect(pastChecks(db, REFUSED)).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(downgrade(sqlite, '70cce0da20c3')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4']);
      expectReplaced(sqlite);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(upgrade(sqlite)).toEqual(['5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
      expectReplaced(sqlite);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });

  it('upgrading to b3e1c5a7d902 (a database built before the spec revisions wrote IS NULL OR) does the same; a datetime the CHECK refuses goes to replaced_datetime', () => {
    const db = ternDatabase('9519a2c5ec87');
    asBuiltBefore(db);
    // oauth_client is rebuilt there too, but its redirect_uris is the one column that changes.
    expect(pastChecks(db, REFUSED)).toBeNull();
    expect(pastChecks(db, "UPDATE webmention SET created_at = 'soon' WHERE id = 50")).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, 'b3e1c5a7d902')).toEqual(['b3e1c5a7d902']);
      // Only the rebuilt tables are touched: notifications and indieauth_access_token are not.
      const rebuilt = REPLACED.filter(([table]) => table !== 'notifications' && table !== 'indieauth_access_token');
      for (const [table, id, column, , storedAs] of rebuilt) {
        expect(sqlite.prepare(`SELECT ${column} FROM ${table} WHERE id = ?`).pluck().get(id), `${table}.${column}`).toBe(storedAs);
      }
      expect(kept(sqlite)).toHaveLength(rebuilt.length);
      expect(sqlite.prepare('SELECT table_name, row_id, column_name, original, stored_as FROM replaced_datetime').raw().all()).toEqual([
        ['webmention', 50, 'created_at', 'soon', '0000-01-01T00:00:00.000Z'],
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(upgrade(sqlite)).toHaveLength(6);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
  });

  it('a reference to a row that does not exist, stored by a tool with foreign keys off, does not abort a revision; it stays as it was', () => {
    const db = ternDatabase('70cce0da20c3');
    expect(shell(db, `INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id) VALUES (10, ${T}, 'LIKE', 1, 999)`)).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '5d0e8a3c71f4')).toEqual(['5d0e8a3c71f4']);
      expect(sqlite.prepare('SELECT actor_id FROM notifications WHERE id = 10').pluck().get()).toBe(999);
      expect(downgrade(sqlite, 'd58a0b6c3e27')).toEqual(['5d0e8a3c71f4', '70cce0da20c3']);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(/^5d0e8a3c71f4: 1 reference .*left as it was/),
        expect.stringMatching(/^5d0e8a3c71f4: 1 reference .*left as it was/),
        expect.stringMatching(/^70cce0da20c3: 1 reference .*left as it was/),
      ]);
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
  });

  it('NOT NULL and UNIQUE hold even with the CHECKs off, so stored rows cannot break them in a rebuild', () => {
    const db = ternDatabase('head');
    expect(pastChecks(db, `INSERT INTO notifications (created_at, is_new) VALUES (${T}, NULL)`)).toMatch('NOT NULL constraint failed: notifications.is_new');
    expect(pastChecks(db, `INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (${T}, ${T}, 'https://a.example/u', '{}', 'Person')`)).toMatch('UNIQUE constraint failed: actor.ap_id');
    expect(pastChecks(db, `INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (${T}, ${T}, 1, 1, 'x'), (${T}, ${T}, 1, 1, 'y')`)).toMatch('UNIQUE constraint failed: follower.actor_id');
  });
});

describe('an index on stored JSON (0d4f0c70f784)', () => {
  it('text that is not JSON in inbox or outbox ap_object, stored at the spec revisions past their CHECK, is kept inside an object instead of failing the index with malformed JSON', () => {
    const db = ternDatabase('4ab54becec04');
    expect(pastChecks(db, "UPDATE outbox SET ap_object = '{\"type\": \"Note\", cut' WHERE id = 1")).toBeNull();
    expect(
      pastChecks(
        db,
        `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, replies_count) VALUES (20, ${T}, ${T}, 1, 'a.example', 0, 'https://a.example/u', 'Note', 'https://a.example/n/1', ${T}, X'00ff', 'PUBLIC', 0, 0, 0)`,
      ),
    ).toBeNull();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sqlite = openSqlite(db);
    try {
      expect(upgrade(sqlite, '0d4f0c70f784')).toEqual(['0d4f0c70f784']);
      expect(sqlite.prepare('SELECT ap_object FROM outbox WHERE id = 1').pluck().get()).toBe('{"value":"{\\"type\\": \\"Note\\", cut"}');
      expect(kept(sqlite)).toEqual([
        ['inbox', 20, 'ap_object', Buffer.from([0, 255]), expect.stringMatching(/^\{"value":/)],
        ['outbox', 1, 'ap_object', '{"type": "Note", cut', '{"value":"{\\"type\\": \\"Note\\", cut"}'],
      ]);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^upgrade to 0d4f0c70f784: 2 stored values/)]);
      expect(upgrade(sqlite)).toContain('5d0e8a3c71f4');
    } finally {
      warn.mockRestore();
      sqlite.close();
    }
    expect(integrity(db)).toBe('ok');
  });
});

/** Makes the database at `path` look as one built before the spec revisions wrote `IS NULL OR`
 * (as b3e1c5a7d902_optional_json_null.test.ts does). */
function asBuiltBefore(path: string): void {
  const optional: Record<string, string[]> = { inbox: ['voted_for_answers', 'og_meta'], incoming_activity: ['ap_object'], outbox: ['revisions', 'og_meta'], webmention: ['source_microformats'], oauth_client: ['redirect_uris'] };
  const sqlite = openSqlite(path);
  sqlite.pragma('foreign_keys = OFF');
  sqlite.transaction(() =>
    rebuildTables(sqlite, Object.keys(optional), (table, sql) => optional[table]!.reduce((out, c) => out.replace(`CHECK (${c} IS NULL OR json_valid(${c}))`, `CHECK (json_valid(${c}))`), sql), 'test'),
  )();
  sqlite.close();
}
