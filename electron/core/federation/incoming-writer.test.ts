import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle, type Db, type Sqlite } from '../../../db/client';
import { upgrade } from '../../../migrations/runner';
import { queuedIncomingId, routeIncomingWrites, writeIncoming, type IncomingRow } from './incoming-writer';
import { takeVerdict, type Verified } from './embedded-verdicts';

let sqlite: Sqlite;
let db: Db;
beforeEach(() => {
  sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  db = wrapDrizzle(sqlite);
});
afterEach(() => {
  if (sqlite.open) sqlite.close();
});

const row = (n: number): IncomingRow => ({
  createdAt: '2026-11-22T09:00:00.000Z',
  sentBy: 'https://peer.example/users/a',
  apId: `https://peer.example/a/${n}`,
  apObject: JSON.stringify({ id: `https://peer.example/a/${n}`, type: 'Like' }),
});

describe('queuedIncomingId', () => {
  it("finds a signer's activity by id, the oldest row when older data holds copies, and not another signer's", () => {
    const insert = sqlite.prepare(
      "INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES ('2026-11-22T09:00:00.000Z', ?, ?, '{}', 0, '2026-11-22T09:00:00.000Z', 0, 0)",
    );
    const other = Number(insert.run('https://other.example/users/b', 'https://peer.example/a/1').lastInsertRowid);
    const first = Number(insert.run('https://peer.example/users/a', 'https://peer.example/a/1').lastInsertRowid);
    insert.run('https://peer.example/users/a', 'https://peer.example/a/2');
    insert.run('https://peer.example/users/a', 'https://peer.example/a/1');
    expect(queuedIncomingId(db, 'https://peer.example/a/1', 'https://peer.example/users/a')).toBe(first);
    expect(queuedIncomingId(db, 'https://peer.example/a/1', 'https://other.example/users/b')).toBe(other);
    expect(queuedIncomingId(db, 'https://peer.example/a/3', 'https://peer.example/users/a')).toBeUndefined();
  });
});

describe('writeIncoming (the accept path\'s grouped write)', () => {
  it('rows written in one turn share one commit, keep their order, and resolve only once stored', async () => {
    const commits: number[] = [];
    // Every commit of the writer is one db.transaction: count them.
    const original = db.transaction.bind(db);
    db.transaction = ((fn: Parameters<Db['transaction']>[0]) => {
      commits.push(1);
      return original(fn);
    }) as Db['transaction'];
    const writes = [1, 2, 3].map((n) => writeIncoming(db, row(n)));
    // Nothing is stored before the turn ends.
    expect(sqlite.prepare('SELECT count(*) FROM incoming_activity').pluck().get()).toBe(0);
    const ids = await Promise.all(writes);
    expect(commits).toHaveLength(1);
    expect(ids).toEqual([ids[0], ids[0]! + 1, ids[0]! + 2]);
    const stored = sqlite.prepare('SELECT id, ap_id, tries, is_processed, next_try, created_at FROM incoming_activity ORDER BY id').all();
    expect(stored).toEqual(
      [1, 2, 3].map((n, i) => ({
        id: ids[i],
        ap_id: `https://peer.example/a/${n}`,
        tries: 0,
        is_processed: 0,
        next_try: '2026-11-22T09:00:00.000Z',
        created_at: '2026-11-22T09:00:00.000Z',
      })),
    );
    // A later turn is a new commit.
    await writeIncoming(db, row(4));
    expect(commits).toHaveLength(2);
  });

  it('a failed commit rejects every request of the batch and stores none of them', async () => {
    const writes = [1, 2].map((n) => writeIncoming(db, row(n)));
    // A row the table refuses (ap_object must be valid JSON) makes the whole batch roll back.
    const refused = writeIncoming(db, { ...row(3), apObject: '{not json' });
    const results = await Promise.allSettled([...writes, refused]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(sqlite.prepare('SELECT count(*) FROM incoming_activity').pluck().get()).toBe(0);
  });

  it('copies of one activity from one signer sent at once (a replay) are stored once; another signer\'s copy is its own row', async () => {
    // All three passed the listener's look for an earlier copy before any was written.
    const relayed = { ...row(1), sentBy: 'https://relay.example/actor' };
    const ids = await Promise.all([writeIncoming(db, row(1)), writeIncoming(db, row(1)), writeIncoming(db, relayed)]);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    // A copy arriving later (its look raced the commit) is the stored row too.
    expect(await writeIncoming(db, row(1))).toBe(ids[0]);
    expect(sqlite.prepare('SELECT sent_by_ap_actor_id FROM incoming_activity ORDER BY id').pluck().all()).toEqual([row(1).sentBy, relayed.sentBy]);
  });
});

describe('the LD verdict travels with its row', () => {
  const verdict: Verified = { ok: true, keyId: 'https://peer.example/users/a#main-key', ownerActorId: 'https://peer.example/users/a', method: 'ld-signature' };

  it('written here: the processor on this connection takes it, once', async () => {
    const id = await writeIncoming(db, { ...row(1), verdict });
    expect(takeVerdict(db, id)).toEqual(verdict);
    expect(takeVerdict(db, id)).toBeUndefined();
  });

  it('kept only once its row is committed: a rolled-back batch leaves no verdict for the id SQLite gives next', async () => {
    const refused = await Promise.allSettled([writeIncoming(db, { ...row(1), verdict }), writeIncoming(db, { ...row(2), apObject: '{not json' })]);
    expect(refused.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // The id the first row had inside the rolled-back transaction goes to the next row inserted.
    const next = await writeIncoming(db, row(3));
    expect(sqlite.prepare('SELECT count(*) FROM incoming_activity').pluck().get()).toBe(1);
    expect(takeVerdict(db, next)).toBeUndefined();
  });

  it('routed to the inbox worker: the batch (verdicts included) goes to the sink, nothing is written here', async () => {
    const sent: IncomingRow[][] = [];
    routeIncomingWrites(db, (rows) => {
      sent.push(rows);
      return Promise.resolve(rows.map((_, i) => 100 + i));
    });
    const ids = await Promise.all([writeIncoming(db, { ...row(1), verdict }), writeIncoming(db, row(2))]);
    expect(ids).toEqual([100, 101]);
    expect(sent).toHaveLength(1);
    expect(sent[0]![0]!.verdict).toEqual(verdict);
    expect(sqlite.prepare('SELECT count(*) FROM incoming_activity').pluck().get()).toBe(0);
    expect(takeVerdict(db, 100)).toBeUndefined();
  });

  it('no worker running (the sink says null): written here after all', async () => {
    routeIncomingWrites(db, () => null);
    const id = await writeIncoming(db, { ...row(3), verdict });
    expect(sqlite.prepare('SELECT count(*) FROM incoming_activity').pluck().get()).toBe(1);
    expect(takeVerdict(db, id)).toEqual(verdict);
  });
});
