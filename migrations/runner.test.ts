// The revision runner against real SQLite: the chain of the spec (§9), upgrade and downgrade
// and their inverses, the alembic_version stamp, refusals that leave the database untouched,
// and a failing revision rolled back in its own transaction.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqlite, type Sqlite } from '../db/client';
import { IN_REPLY_TO_SQL } from '../db/schema';
import { COUNT_INTERACTIONS_SQL } from '../electron/core/federation/process/counters';
import {
  HEAD,
  REVISIONS,
  RevisionDirectionError,
  RevisionFailedError,
  UnknownDatabaseRevisionError,
  UnknownRevisionError,
  currentRevision,
  downgrade,
  pendingRevisions,
  upgrade,
  type Revision,
} from './runner';

/** Everything SQLite knows of the schema, and the stamp: what "unchanged" means here. */
function snapshot(sqlite: Sqlite) {
  const schema = sqlite.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
  return { schema, revision: currentRevision(sqlite) };
}
const objectNames = (sqlite: Sqlite) =>
  sqlite.prepare('SELECT name FROM sqlite_master ORDER BY name').pluck().all() as string[];

let sqlite: Sqlite;
beforeEach(() => {
  sqlite = openSqlite(':memory:');
});
afterEach(() => sqlite.close());

const stamp = (revision: string) => {
  sqlite.exec(
    'CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))',
  );
  sqlite.prepare('INSERT INTO alembic_version VALUES (?)').run(revision);
};

describe('the chain', () => {
  it('is the spec\'s: f5717d82b3ff (initial) -> 9b404c47970a -> 4ab54becec04, then Tern\'s 0d4f0c70f784, e7c3a9d51b20, 9519a2c5ec87, b3e1c5a7d902, c41f7a2e9d15, d58a0b6c3e27, 70cce0da20c3, 5d0e8a3c71f4, 4a475cedd483 and ae35abd14d3a, the head', () => {
    expect(REVISIONS.map((r) => [r.parent, r.id])).toEqual([
      [null, 'f5717d82b3ff'],
      ['f5717d82b3ff', '9b404c47970a'],
      ['9b404c47970a', '4ab54becec04'],
      ['4ab54becec04', '0d4f0c70f784'],
      ['0d4f0c70f784', 'e7c3a9d51b20'],
      ['e7c3a9d51b20', '9519a2c5ec87'],
      ['9519a2c5ec87', 'b3e1c5a7d902'],
      ['b3e1c5a7d902', 'c41f7a2e9d15'],
      ['c41f7a2e9d15', 'd58a0b6c3e27'],
      ['d58a0b6c3e27', '70cce0da20c3'],
      ['70cce0da20c3', '5d0e8a3c71f4'],
      ['5d0e8a3c71f4', '4a475cedd483'],
      ['4a475cedd483', 'ae35abd14d3a'],
    ]);
    expect(HEAD).toBe('ae35abd14d3a');
  });

  it('a chain whose parents do not follow one another is refused', () => {
    const broken: Revision[] = [REVISIONS[0]!, REVISIONS[2]!];
    expect(() => upgrade(sqlite, 'head', broken)).toThrow('Broken revision chain: 4ab54becec04 has parent 9b404c47970a');
    expect(snapshot(sqlite).schema).toEqual([]);
  });
});

describe('currentRevision', () => {
  it('is null for a database without alembic_version', () => {
    expect(currentRevision(sqlite)).toBeNull();
  });

  it('is null when alembic_version is empty', () => {
    upgrade(sqlite);
    downgrade(sqlite, 'base');
    expect(currentRevision(sqlite)).toBeNull();
  });

  it('is the revision the database is stamped with', () => {
    upgrade(sqlite, 'f5717d82b3ff');
    expect(currentRevision(sqlite)).toBe('f5717d82b3ff');
  });
});

describe('upgrade', () => {
  it('applies every revision of an empty database in chain order and stamps it at head', () => {
    expect(pendingRevisions(sqlite).map((r) => r.id)).toEqual(['f5717d82b3ff', '9b404c47970a', '4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
    expect(upgrade(sqlite)).toEqual(['f5717d82b3ff', '9b404c47970a', '4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
    expect(currentRevision(sqlite)).toBe(HEAD);
    expect(pendingRevisions(sqlite)).toEqual([]);
  });

  it('keeps the revision in alembic_version exactly as Alembic creates it', () => {
    upgrade(sqlite);
    expect(sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'alembic_version'").pluck().get()).toBe(
      'CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))',
    );
    expect(sqlite.prepare('SELECT version_num FROM alembic_version').pluck().all()).toEqual([HEAD]);
  });

  it('stops at the target revision, and continues from there later', () => {
    expect(upgrade(sqlite, 'f5717d82b3ff')).toEqual(['f5717d82b3ff']);
    expect(objectNames(sqlite)).not.toContain('oauth_client');
    expect(pendingRevisions(sqlite).map((r) => r.id)).toEqual(['9b404c47970a', '4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
    expect(upgrade(sqlite, 'head')).toEqual(['9b404c47970a', '4ab54becec04', '0d4f0c70f784', 'e7c3a9d51b20', '9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
  });

  it('does nothing at head', () => {
    upgrade(sqlite);
    const before = snapshot(sqlite);
    expect(upgrade(sqlite)).toEqual([]);
    expect(snapshot(sqlite)).toEqual(before);
  });

  it('restores foreign key enforcement afterwards', () => {
    upgrade(sqlite);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('refuses to run inside an open transaction, touching nothing', () => {
    sqlite.exec('BEGIN');
    expect(() => upgrade(sqlite)).toThrow('own transactions');
    sqlite.exec('ROLLBACK');
    expect(snapshot(sqlite).schema).toEqual([]);
  });
});

describe('downgrade', () => {
  it('to base reverts every revision newest first and leaves no table or index but the emptied alembic_version', () => {
    upgrade(sqlite);
    expect(downgrade(sqlite, 'base')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4', '70cce0da20c3', 'd58a0b6c3e27', 'c41f7a2e9d15', 'b3e1c5a7d902', '9519a2c5ec87', 'e7c3a9d51b20', '0d4f0c70f784', '4ab54becec04', '9b404c47970a', 'f5717d82b3ff']);
    // alembic_version stays, empty, as Alembic leaves it (with its primary key's own index).
    expect(objectNames(sqlite)).toEqual(['alembic_version', 'sqlite_autoindex_alembic_version_1']);
    expect(sqlite.prepare('SELECT count(*) FROM alembic_version').pluck().get()).toBe(0);
  });

  it('to 4ab54becec04 removes the eight indexes of 0d4f0c70f784 and e7c3a9d51b20 (9519a2c5ec87 swapped one of them back), and nothing else', () => {
    upgrade(sqlite, '9519a2c5ec87');
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, '4ab54becec04')).toEqual(['9519a2c5ec87', 'e7c3a9d51b20', '0d4f0c70f784']);
    const after = snapshot(sqlite).schema as { name: string }[];
    expect(before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name).sort()).toEqual([
      'ix_inbox_in_reply_to',
      'ix_inbox_relates_to_outbox_object_counts',
      'ix_incoming_activity_due',
      'ix_notifications_webmention_id',
      'ix_outbox_in_reply_to',
      'ix_outbox_object_attachment_upload_id',
      'ix_outgoing_activity_webmention_target',
      'ix_poll_answer_outbox_object_id_actor_id',
    ]);
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
    expect(currentRevision(sqlite)).toBe('4ab54becec04');
  });

  it('to d58a0b6c3e27 removes the four indexes of 70cce0da20c3 and puts back the inReplyTo indexes it replaced, and nothing else', () => {
    upgrade(sqlite, '70cce0da20c3');
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, 'd58a0b6c3e27')).toEqual(['70cce0da20c3']);
    const after = snapshot(sqlite).schema as { name: string }[];
    const names = (list: { name: string }[], other: { name: string }[]) =>
      list.filter((o) => !other.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name).sort();
    expect(names(before, after)).toEqual(['ix_inbox_follows', 'ix_inbox_replies', 'ix_outbox_follows', 'ix_outbox_replies']);
    expect(names(after, before)).toEqual(['ix_inbox_in_reply_to', 'ix_outbox_in_reply_to']);
    expect(upgrade(sqlite, '70cce0da20c3')).toEqual(['70cce0da20c3']);
    expect(snapshot(sqlite).schema).toEqual(before);
  });

  it('to 4a475cedd483 removes the four indexes of ae35abd14d3a, and nothing else', () => {
    upgrade(sqlite);
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, '4a475cedd483')).toEqual(['ae35abd14d3a']);
    const after = snapshot(sqlite).schema as { name: string }[];
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
    expect(before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name).sort()).toEqual(['ix_actor_inboxes', 'ix_inbox_follows_arrived', 'ix_outgoing_activity_waiting', 'ix_webmention_post']);
    expect(upgrade(sqlite)).toEqual(['ae35abd14d3a']);
    expect(snapshot(sqlite).schema).toEqual(before);
  });

  it('to 5d0e8a3c71f4 removes the five indexes of 4a475cedd483 (and the four of ae35abd14d3a), and nothing else', () => {
    upgrade(sqlite);
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, '5d0e8a3c71f4')).toEqual(['ae35abd14d3a', '4a475cedd483']);
    const after = snapshot(sqlite).schema as { name: string }[];
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
    expect(before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name).sort()).toEqual([
      'ix_actor_inboxes',
      'ix_inbox_bookmarked',
      'ix_inbox_direct',
      'ix_inbox_follows_arrived',
      'ix_inbox_liked',
      'ix_outbox_counts',
      'ix_outbox_direct',
      'ix_outgoing_activity_waiting',
      'ix_webmention_post',
    ]);
    expect(upgrade(sqlite)).toEqual(['4a475cedd483', 'ae35abd14d3a']);
    expect(snapshot(sqlite).schema).toEqual(before);
  });

  it('to c41f7a2e9d15 removes the ten indexes of d58a0b6c3e27, and nothing else', () => {
    upgrade(sqlite, 'd58a0b6c3e27');
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, 'c41f7a2e9d15')).toEqual(['d58a0b6c3e27']);
    const after = snapshot(sqlite).schema as { name: string }[];
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
    expect(before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name).sort()).toEqual([
      'ix_follower_created_at',
      'ix_following_created_at',
      'ix_inbox_stream',
      'ix_notifications_is_new_created_at',
      'ix_outbox_pinned',
      'ix_outbox_published',
      'ix_outbox_relates_to_inbox_object_id',
      'ix_outbox_relates_to_outbox_object_id',
      'ix_outgoing_activity_outbox_object_id',
      'ix_outgoing_activity_unsent',
    ]);
    expect(upgrade(sqlite, 'd58a0b6c3e27')).toEqual(['d58a0b6c3e27']);
    expect(snapshot(sqlite).schema).toEqual(before);
  });

  it('to e7c3a9d51b20 puts back the one-column index that 9519a2c5ec87 replaced, and nothing else', () => {
    upgrade(sqlite, '9519a2c5ec87');
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, 'e7c3a9d51b20')).toEqual(['9519a2c5ec87']);
    const after = snapshot(sqlite).schema as { name: string }[];
    const names = (list: { name: string }[], other: { name: string }[]) =>
      list.filter((o) => !other.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name);
    expect(names(before, after)).toEqual(['ix_inbox_relates_to_outbox_object_counts']);
    expect(names(after, before)).toEqual(['ix_inbox_relates_to_outbox_object_id']);
    expect(upgrade(sqlite)).toEqual(['9519a2c5ec87', 'b3e1c5a7d902', 'c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
  });

  it('to b3e1c5a7d902 removes the search tables (FTS5 and their shadow tables, queue, rebuild state) and triggers, and nothing else', () => {
    upgrade(sqlite, 'c41f7a2e9d15');
    const before = snapshot(sqlite).schema as { type: string; name: string }[];
    expect(downgrade(sqlite, 'b3e1c5a7d902')).toEqual(['c41f7a2e9d15']);
    const after = snapshot(sqlite).schema as { type: string; name: string }[];
    const gone = before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o)));
    expect(gone.length).toBeGreaterThan(12);
    expect(gone.every((o) => o.name.startsWith('search_') || o.name.startsWith('sqlite_autoindex_search_'))).toBe(true);
    expect(gone.filter((o) => o.type === 'trigger').map((o) => o.name).sort()).toEqual(
      ['actor', 'inbox', 'outbox', 'webmention'].flatMap((t) => [`search_${t}_delete`, `search_${t}_insert`, `search_${t}_update`]),
    );
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
  });

  it('at the head, a post\'s likes are counted from the index alone (no table read)', () => {
    upgrade(sqlite);
    // The statements the processor runs (the id bound as +?, so SQLite does not prepare them again at every run).
    for (const sql of Object.values(COUNT_INTERACTIONS_SQL)) {
      const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1) as { detail: string }[];
      expect(plan.map((p) => p.detail)).toEqual([
        'SEARCH inbox USING COVERING INDEX ix_inbox_relates_to_outbox_object_counts (relates_to_outbox_object_id=? AND ap_type=? AND is_deleted=?)',
      ]);
    }
  });

  it('at the head, a post\'s replies are counted from the replies indexes alone (no table read)', () => {
    upgrade(sqlite);
    for (const table of ['inbox', 'outbox']) {
      const plan = sqlite.prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM ${table} WHERE ${IN_REPLY_TO_SQL} = ? AND is_deleted = 0 AND is_transient = 0`).all('https://x.example/1') as { detail: string }[];
      expect(plan.map((p) => p.detail)).toEqual([`SEARCH ${table} USING COVERING INDEX ix_${table}_replies (<expr>=? AND is_deleted=? AND is_transient=?)`]);
    }
  });

  it('to 9b404c47970a removes oauth_client and its indexes, and nothing else', () => {
    upgrade(sqlite, '4ab54becec04');
    const before = snapshot(sqlite).schema as { name: string }[];
    expect(downgrade(sqlite, '9b404c47970a')).toEqual(['4ab54becec04']);
    const after = snapshot(sqlite).schema as { name: string }[];
    expect(before.filter((o) => !after.some((a) => JSON.stringify(a) === JSON.stringify(o))).map((o) => o.name)).toEqual([
      'ix_oauth_client_client_id',
      'ix_oauth_client_id',
      'sqlite_autoindex_oauth_client_1',
      'oauth_client',
    ]);
    expect(after.every((a) => before.some((b) => JSON.stringify(a) === JSON.stringify(b)))).toBe(true);
    expect(currentRevision(sqlite)).toBe('9b404c47970a');
  });

  it('of each revision restores exactly the schema from before its upgrade', () => {
    for (const revision of REVISIONS) {
      const before = snapshot(sqlite);
      upgrade(sqlite, revision.id);
      downgrade(sqlite, revision.parent ?? 'base');
      // At base the stamp table remains (empty); compare the rest.
      const after = snapshot(sqlite);
      const withoutStamp = (s: ReturnType<typeof snapshot>) => (s.schema as { tbl_name: string }[]).filter((o) => o.tbl_name !== 'alembic_version');
      expect(withoutStamp(after)).toEqual(withoutStamp(before));
      expect(after.revision).toBe(before.revision);
      upgrade(sqlite, revision.id);
    }
  });

  it('upgrade, downgrade, upgrade again gives an identical schema', () => {
    upgrade(sqlite);
    const first = snapshot(sqlite);
    downgrade(sqlite, 'base');
    upgrade(sqlite);
    expect(snapshot(sqlite)).toEqual(first);
  });

  it('to base succeeds when inbox and outbox rows reference each other', () => {
    upgrade(sqlite);
    const t = '2024-05-01T12:00:00Z';
    sqlite.exec(`
      INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (1, '${t}', '${t}', 'https://a.example', '{}', 'Person');
      INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, ap_published_at,
        visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted)
        VALUES (1, '${t}', '${t}', 0, 'p', 'Note', 'https://me.example/o/1', '{}', '${t}', 'PUBLIC', 0, 0, 0, 0, 0);
      INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at,
        ap_object, visibility, relates_to_outbox_object_id, is_bookmarked, is_deleted, replies_count)
        VALUES (1, '${t}', '${t}', 1, 'a.example', 0, 'https://a.example', 'Like', 'https://a.example/l/1', '${t}', '{}', 'PUBLIC', 1, 0, 0, 0);
      UPDATE outbox SET relates_to_inbox_object_id = 1 WHERE id = 1;
    `);
    expect(downgrade(sqlite, 'base')).toHaveLength(13);
    expect(objectNames(sqlite)).toEqual(['alembic_version', 'sqlite_autoindex_alembic_version_1']);
  });

  it('does nothing at the target', () => {
    upgrade(sqlite, 'f5717d82b3ff');
    expect(downgrade(sqlite, 'f5717d82b3ff')).toEqual([]);
  });
});

describe('refusals leave the database untouched', () => {
  it('an unknown target: UnknownRevisionError naming it, for upgrade and downgrade', () => {
    upgrade(sqlite, 'f5717d82b3ff');
    const before = snapshot(sqlite);
    expect(() => upgrade(sqlite, 'deadbeef0000')).toThrow(UnknownRevisionError);
    expect(() => upgrade(sqlite, 'deadbeef0000')).toThrow('Unknown revision deadbeef0000');
    expect(() => downgrade(sqlite, 'deadbeef0000')).toThrow(UnknownRevisionError);
    expect(() => pendingRevisions(sqlite, 'deadbeef0000')).toThrow(UnknownRevisionError);
    expect(snapshot(sqlite)).toEqual(before);
  });

  it('a database stamped with a revision this build does not know (a209f0333f5a): UnknownDatabaseRevisionError', () => {
    stamp('a209f0333f5a');
    const before = snapshot(sqlite);
    expect(() => upgrade(sqlite)).toThrow(UnknownDatabaseRevisionError);
    expect(() => upgrade(sqlite)).toThrow('The database is at revision a209f0333f5a, which this build of Tern does not know');
    expect(() => downgrade(sqlite, 'base')).toThrow(UnknownDatabaseRevisionError);
    expect(() => pendingRevisions(sqlite)).toThrow(UnknownDatabaseRevisionError);
    expect(snapshot(sqlite)).toEqual(before);
    expect(sqlite.prepare('SELECT version_num FROM alembic_version').pluck().all()).toEqual(['a209f0333f5a']);
  });

  it('a database stamped with two revisions at once: UnknownDatabaseRevisionError', () => {
    stamp('f5717d82b3ff');
    sqlite.prepare('INSERT INTO alembic_version VALUES (?)').run('4ab54becec04');
    expect(() => currentRevision(sqlite)).toThrow(UnknownDatabaseRevisionError);
    expect(() => upgrade(sqlite)).toThrow('several revisions at once (f5717d82b3ff, 4ab54becec04)');
  });

  it('an upgrade to an older revision, or a downgrade to a newer one: RevisionDirectionError', () => {
    upgrade(sqlite, '9b404c47970a');
    const before = snapshot(sqlite);
    expect(() => upgrade(sqlite, 'f5717d82b3ff')).toThrow(RevisionDirectionError);
    expect(() => upgrade(sqlite, 'f5717d82b3ff')).toThrow('Cannot upgrade to f5717d82b3ff: the database is at 9b404c47970a');
    expect(() => downgrade(sqlite, '4ab54becec04')).toThrow('Cannot downgrade to 4ab54becec04: the database is at 9b404c47970a');
    expect(snapshot(sqlite)).toEqual(before);
  });
});

describe('a failing revision', () => {
  const revision = (id: string, parent: string | null, up: (s: Sqlite) => void): Revision => ({
    id,
    parent,
    description: id,
    upgrade: up,
    downgrade: (s) => s.exec(`DROP TABLE IF EXISTS t_${id}`),
  });
  const chain = (failing: (s: Sqlite) => void): Revision[] => [
    revision('aaa', null, (s) => s.exec('CREATE TABLE t_aaa (id INTEGER PRIMARY KEY); CREATE TABLE t_child (parent_id INTEGER REFERENCES t_aaa (id))')),
    revision('bbb', 'aaa', failing),
  ];

  it('that throws is rolled back in its own transaction; the revisions before it stay applied', () => {
    const revisions = chain((s) => {
      s.exec('CREATE TABLE t_bbb (id INTEGER PRIMARY KEY)');
      throw new Error('boom');
    });
    const attempt = () => upgrade(sqlite, 'head', revisions);
    expect(attempt).toThrow(RevisionFailedError);
    expect(objectNames(sqlite)).not.toContain('t_bbb');
    expect(objectNames(sqlite)).toContain('t_aaa');
    expect(currentRevision(sqlite)).toBe('aaa');
    expect(attempt).toThrow('Revision bbb failed to upgrade and was rolled back; the database stays at aaa. boom');
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('that leaves a broken foreign key is rolled back before commit', () => {
    const revisions = chain((s) => s.exec('CREATE TABLE t_bbb (id INTEGER); INSERT INTO t_child VALUES (42)'));
    expect(() => upgrade(sqlite, 'head', revisions)).toThrow('Foreign key check failed: t_child row 1 references a missing t_aaa');
    expect(sqlite.prepare('SELECT count(*) FROM t_child').pluck().get()).toBe(0);
    expect(objectNames(sqlite)).not.toContain('t_bbb');
    expect(currentRevision(sqlite)).toBe('aaa');
  });

  it('that leaves a broken foreign key is rolled back, even when the database already held another: the stored one is left alone, only the new one counts', () => {
    const revisions = chain((s) => s.exec('INSERT INTO t_child VALUES (42)'));
    upgrade(sqlite, 'aaa', revisions);
    sqlite.pragma('foreign_keys = OFF'); // as the sqlite3 shell has it
    sqlite.exec('INSERT INTO t_child VALUES (7)');
    sqlite.pragma('foreign_keys = ON');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(() => upgrade(sqlite, 'head', revisions)).toThrow(/Foreign key check failed: t_child row 2 references a missing t_aaa\.$/);
      expect(sqlite.prepare('SELECT parent_id FROM t_child').pluck().all()).toEqual([7]);
      expect(currentRevision(sqlite)).toBe('aaa');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('in a downgrade is rolled back too; the database stays where it was', () => {
    const revisions = chain(() => {});
    revisions[1] = { ...revisions[1]!, downgrade: () => { sqlite.exec('DROP TABLE t_child'); throw new Error('no'); } };
    upgrade(sqlite, 'head', revisions);
    expect(() => downgrade(sqlite, 'base', revisions)).toThrow('Revision bbb failed to downgrade and was rolled back; the database stays at bbb. no');
    expect(objectNames(sqlite)).toContain('t_child');
    expect(currentRevision(sqlite)).toBe('bbb');
  });
});
