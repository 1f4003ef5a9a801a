import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite, type Sqlite } from './client';
import { createCheckpointer } from './checkpointer';

let dir: string;
let sqlite: Sqlite | null = null;
afterEach(() => {
  if (sqlite?.open) sqlite.close();
  sqlite = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function open(): Sqlite {
  dir = mkdtempSync(join(tmpdir(), 'tern-ckpt-'));
  sqlite = openSqlite(join(dir, 'tern.db'));
  sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  return sqlite;
}

const write = (db: Sqlite, rows: number) => {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < rows; i++) insert.run('x'.repeat(2000));
};
const pragma = (db: Sqlite, name: string) => db.pragma(name, { simple: true });

describe('the checkpoint worker', () => {
  it('copies committed pages into the database file off the main thread, and hands back on stop', async () => {
    const db = open();
    const checkpointer = createCheckpointer(db, { intervalMs: 20 });
    expect(pragma(db, 'wal_autocheckpoint')).toBe(1000);
    checkpointer.start();
    expect(checkpointer.running).toBe(true);
    // The main connection only checkpoints as a far-off backstop now.
    expect(pragma(db, 'wal_autocheckpoint')).toBe(10_000);
    const fileBefore = statSync(join(dir, 'tern.db')).size;
    write(db, 300); // ≈ 150+ pages: below the backstop, so only the worker can move them
    await expect.poll(() => statSync(join(dir, 'tern.db')).size, { timeout: 5_000, interval: 20 }).toBeGreaterThan(fileBefore + 300 * 2000);
    checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    expect(pragma(db, 'wal_autocheckpoint')).toBe(1000);
    // stop() waited for the worker's connection to close: the main one is the last, so closing
    // it checkpoints and removes the WAL.
    db.close();
    expect(existsSync(join(dir, 'tern.db-wal'))).toBe(false);
    const again = openSqlite(join(dir, 'tern.db'));
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(300);
    again.close();
  });

  it('runs a pass every busyIntervalMs while commits keep coming, and every intervalMs once they stop', async () => {
    const db = open();
    const checkpointer = createCheckpointer(db, { intervalMs: 1_000, busyIntervalMs: 50 });
    checkpointer.start();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // 1.8 s of commits, one every 10 ms: the first pass comes within the idle second, then one
    // every 50 ms while they go on (at one pass a second there would be one or two).
    const writingUntil = performance.now() + 1_800;
    while (performance.now() < writingUntil) {
      write(db, 2);
      await sleep(10);
    }
    const whileWriting = checkpointer.passes;
    expect(whileWriting).toBeGreaterThanOrEqual(5);
    // Quiet: a pass finds the last commits, the next finds nothing new, then one a second.
    await sleep(1_300);
    expect(checkpointer.passes - whileWriting).toBeLessThanOrEqual(4);
    checkpointer.stop();
  });

  it('does nothing for an in-memory database, and stop without start is harmless', () => {
    const memory = openSqlite(':memory:');
    const checkpointer = createCheckpointer(memory);
    checkpointer.start();
    expect(checkpointer.running).toBe(false);
    checkpointer.stop();
    memory.close();
  });
});
