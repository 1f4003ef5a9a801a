import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../db/client';
import { upgrade } from '../../migrations/runner';
import { waitingPostsCounter } from './waiting-posts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('posts waiting', () => {
  it('counts posts with a delivery not sent and not given up — one post to many servers is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-waiting-'));
    dirs.push(dir);
    const sqlite = openSqlite(join(dir, 'tern.db'));
    upgrade(sqlite);
    sqlite.pragma('foreign_keys = OFF'); // rows point at outbox ids that this test does not create
    const insert = sqlite.prepare(
      `INSERT INTO outgoing_activity (created_at, recipient, outbox_object_id, tries, is_sent, is_errored)
       VALUES ('2030-01-01T00:00:00+00:00', ?, ?, 0, ?, ?)`,
    );
    const waiting = waitingPostsCounter(sqlite);
    expect(waiting()).toBe(0);
    insert.run('https://a.example/inbox', 1, 0, 0);
    insert.run('https://b.example/inbox', 1, 0, 0);
    insert.run('https://a.example/inbox', 2, 0, 0);
    insert.run('https://a.example/inbox', 3, 1, 0); // sent
    insert.run('https://a.example/inbox', 4, 0, 1); // given up
    expect(waiting()).toBe(2);
    sqlite.close();
  });
});
