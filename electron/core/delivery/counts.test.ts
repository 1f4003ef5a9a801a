// The Deliveries view's counts on a table past the size counted outright (50,000 rows): the
// table's size is kept and brought up to date from new rows; waiting and failed rows are counted
// from their partial index each time; sent is the rest. Checked against a full count.
import { describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import { isAddress } from './addresses';
import { deliveryCounts } from './counts';

const ROWS = 60_000;

function openQueue() {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  const add = sqlite.prepare(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO outgoing_activity (created_at, recipient, tries, is_sent, is_errored)
    SELECT '2025-01-01T00:00:00.000Z', CASE WHEN i % 500 = 0 THEN 'acct:someone@example.org' ELSE 'https://s' || (i % 50) || '.example/inbox' END,
      CASE WHEN i % 300 = 0 THEN 2 ELSE 0 END, ? , ? FROM n`);
  return { sqlite, db: wrapDrizzle(sqlite), add: (n: number, sent: boolean, errored = false) => add.run(BigInt(n), sent ? 1 : 0, errored ? 1 : 0) };
}

function truth(sqlite: ReturnType<typeof openSqlite>) {
  return sqlite
    .prepare(
      `SELECT sum(is_sent) AS sent, sum(is_errored) AS failed,
         sum(is_sent = 0 AND is_errored = 0 AND tries = 0 AND recipient NOT LIKE 'acct:%') AS queued,
         sum(is_sent = 0 AND is_errored = 0 AND tries > 0 AND recipient NOT LIKE 'acct:%') AS retrying,
         sum(is_sent = 0 AND is_errored = 0 AND recipient LIKE 'acct:%') AS resolving FROM outgoing_activity`,
    )
    .get();
}

describe('deliveryCounts on a big table', () => {
  it('matches a full count as rows are added, sent, failed and retried', () => {
    const { sqlite, db, add } = openQueue();
    add(ROWS, true);
    add(2_000, false);
    add(300, false, true);
    expect(deliveryCounts(db)).toEqual(truth(sqlite));
    // New rows (a fan-out) and rows moving between states, between two looks.
    add(5_000, false);
    sqlite.prepare('UPDATE outgoing_activity SET is_sent = 1 WHERE id > ? AND id <= ?').run(ROWS, ROWS + 1_500);
    sqlite.prepare('UPDATE outgoing_activity SET is_errored = 0, tries = 0 WHERE is_errored = 1 AND id % 2 = 0').run();
    const counts = deliveryCounts(db);
    expect(counts).toEqual(truth(sqlite));
    expect(counts.sent).toBe(ROWS + 1_500);
  });
});

describe('deliveryCounts, waiting rows by recipient', () => {
  it('counts as resolving exactly the recipients isAddress calls addresses', () => {
    const { sqlite, db } = openQueue();
    const recipients = ['acct:a@b.example', 'actor:https://b.example/u/1', 'webmention:https://b.example/p/1', 'ACCT:a@b.example', 'acct;x', 'acc', 'actor', 'https://acct.example/inbox', 'webmention', ''];
    const insert = sqlite.prepare("INSERT INTO outgoing_activity (created_at, recipient, tries, is_sent, is_errored) VALUES ('2025-01-01T00:00:00.000Z', ?, 0, 0, 0)");
    for (const r of recipients) insert.run(r);
    const resolving = recipients.filter(isAddress).length;
    expect(resolving).toBe(3);
    expect(deliveryCounts(db)).toMatchObject({ resolving, queued: recipients.length - resolving, retrying: 0 });
  });
});
