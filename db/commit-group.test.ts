// Commit groups on a real SQLite file, watched from a second connection (as the main thread
// watches the inbox worker's writes): nothing of a group is seen before its commit, all of it
// after; a writer's failure undoes its own writes only; a group SQLite rolled back is reported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle, type Sqlite } from './client';
import { commitGroup } from './commit-group';

let dir: string;
let connections: Sqlite[] = [];
afterEach(() => {
  for (const c of connections) c.close();
  connections = [];
  rmSync(dir, { recursive: true, force: true });
});

function open() {
  dir = mkdtempSync(join(tmpdir(), 'tern-group-'));
  const path = join(dir, 'tern.db');
  const writer = openSqlite(path);
  writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const reader = openSqlite(path);
  connections.push(writer, reader);
  const db = wrapDrizzle(writer, { immediate: true });
  const seen = () => (reader.prepare('SELECT v FROM t ORDER BY id').pluck().all() as string[]).join(',');
  const write = (v: string) => db.transaction(() => writer.prepare('INSERT INTO t (v) VALUES (?)').run(v));
  return { writer, db, seen, write };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('commit groups', () => {
  it('writers of one turn share a commit: another connection sees none of them before it, all after', async () => {
    const { writer, seen, write } = open();
    const group = commitGroup(writer);
    group.join();
    write('a');
    write('b');
    expect(group.open).toBe(true);
    expect(group.heldMs).toBeGreaterThanOrEqual(0);
    expect(seen()).toBe('');
    group.end();
    expect(group.heldMs).toBe(0);
    expect(seen()).toBe('a,b');
    expect(group.stats).toEqual({ committed: 1, lost: 0 });
    // Ending again, or with no group open, does nothing.
    group.end();
    expect(group.stats.committed).toBe(1);
  });

  it('a group ends by itself when the thread turns its event loop (never held across a wait)', async () => {
    const { writer, seen, write } = open();
    const group = commitGroup(writer);
    group.join();
    write('a');
    group.join(); // already open: the same group
    write('b');
    await nextTurn();
    expect(group.open).toBe(false);
    expect(seen()).toBe('a,b');
    expect(group.stats.committed).toBe(1);
    // Outside a group, a transaction commits on its own, as always.
    write('c');
    expect(seen()).toBe('a,b,c');
  });

  it("a writer's failure undoes its own writes only; the group's others commit", () => {
    const { writer, db, seen, write } = open();
    const group = commitGroup(writer);
    group.join();
    write('a');
    expect(() =>
      db.transaction(() => {
        writer.prepare('INSERT INTO t (v) VALUES (?)').run('doomed');
        throw new Error('handler failed');
      }),
    ).toThrow('handler failed');
    write('b');
    group.end();
    expect(seen()).toBe('a,b');
  });

  it('afterGroup waits for the commit; with no group open it runs after the current work', async () => {
    const { writer, seen, write } = open();
    const group = commitGroup(writer);
    const calls: string[] = [];
    group.join();
    write('a');
    group.afterGroup((committed) => calls.push(`first ${committed} ${seen()}`));
    group.afterGroup((committed) => calls.push(`second ${committed}`));
    expect(calls).toEqual([]);
    group.end();
    expect(calls).toEqual(['first true a', 'second true']);
    group.afterGroup((committed) => calls.push(`later ${committed}`));
    expect(calls).toHaveLength(2);
    await Promise.resolve();
    expect(calls).toEqual(['first true a', 'second true', 'later true']);
  });

  // Two ways a group is lost: SQLite rolls its transaction back by itself (what it does on a full
  // disk or an I/O error inside a statement), or work deferred to its commit fails (thrown by end).
  it.each([
    { how: 'SQLite rolled it back by itself', lose: (writer: Sqlite) => writer.exec('ROLLBACK'), thrown: null },
    {
      how: 'a beforeCommit failed',
      lose: (_writer: Sqlite, group: ReturnType<typeof commitGroup>) =>
        group.beforeCommit('boom', () => {
          throw new Error('disk full');
        }),
      thrown: 'disk full',
    },
  ])('a group is lost when $how: nothing stored, its waiters told, the connection usable', ({ lose, thrown }) => {
    const { writer, seen, write } = open();
    const group = commitGroup(writer);
    const told: boolean[] = [];
    group.join();
    write('a');
    group.afterGroup((committed) => told.push(committed));
    expect(group.lost).toBe(false);
    lose(writer, group);
    if (thrown === null) {
      expect(group.lost).toBe(true);
      group.end();
    } else {
      expect(() => group.end()).toThrow(thrown);
    }
    expect(told).toEqual([false]);
    expect(group.stats).toEqual({ committed: 0, lost: 1 });
    expect(seen()).toBe('');
    expect(writer.inTransaction).toBe(false);
    group.join();
    write('b');
    group.end();
    expect(seen()).toBe('b');
  });

  it('beforeCommit runs once per key, inside the transaction, right before the commit; with no group, at once', () => {
    const { writer, seen, write } = open();
    const group = commitGroup(writer);
    const ran: string[] = [];
    group.join();
    write('a');
    group.beforeCommit('count', () => ran.push('first'));
    group.beforeCommit('count', () => {
      ran.push(`count ${writer.inTransaction}`);
      writer.prepare('INSERT INTO t (v) VALUES (?)').run('counted');
    });
    group.beforeCommit('other', () => ran.push('other'));
    expect(ran).toEqual([]);
    group.end();
    expect(ran).toEqual(['count true', 'other']);
    expect(seen()).toBe('a,counted');
    group.beforeCommit('count', () => ran.push('now'));
    expect(ran).toEqual(['count true', 'other', 'now']);
  });

  it('does not take over a transaction someone else opened', () => {
    const { writer, db, seen } = open();
    const group = commitGroup(writer);
    db.transaction(() => {
      writer.prepare('INSERT INTO t (v) VALUES (?)').run('outer');
      group.join();
      expect(group.open).toBe(false);
    });
    expect(seen()).toBe('outer');
  });
});
