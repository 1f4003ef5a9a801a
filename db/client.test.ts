// preparedInsert must write and return exactly what drizzle's insert().values().returning().get()
// does: the processor's hot paths use it in place of drizzle.
import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { allRows, openSqlite, prepared, preparedInsert, sqliteOf, wrapDrizzle } from './client';
import { actor, inbox, notifications } from './schema';
import { upgrade } from '../migrations/runner';

function openDb() {
  const sqlite = openSqlite(':memory:');
  upgrade(sqlite);
  const db = wrapDrizzle(sqlite);
  const now = new Date('2026-01-02T03:04:05.678Z');
  const a = db
    .insert(actor)
    .values({ createdAt: now, updatedAt: now, apId: 'https://a.example/u', apActor: { id: 'https://a.example/u' }, apType: 'Person' })
    .returning()
    .get();
  return { sqlite, db, now, actorId: a.id };
}

const KEYS = ['createdAt', 'updatedAt', 'actorId', 'apActorId', 'server', 'isHiddenFromStream', 'apType', 'apId', 'apContext',
  'apPublishedAt', 'apObject', 'activityObjectApId', 'visibility', 'relatesToInboxObjectId', 'relatesToOutboxObjectId',
  'isBookmarked', 'isDeleted', 'isTransient', 'repliesCount'] as const;

describe('preparedInsert', () => {
  it('stores and returns the same row as drizzle (dates, JSON, booleans, nulls)', () => {
    const { sqlite, db, now, actorId } = openDb();
    const values = (apId: string) => ({
      createdAt: now,
      updatedAt: now,
      actorId,
      apActorId: 'https://a.example/u',
      server: 'a.example',
      isHiddenFromStream: true,
      apType: 'Note',
      apId,
      apContext: null,
      apPublishedAt: new Date('2025-12-31T23:59:59.000Z'),
      apObject: { id: apId, type: 'Note', content: '<p>é "quoted"</p>', n: [1, 2.5, null, true] },
      activityObjectApId: null,
      visibility: 'PUBLIC' as const,
      relatesToInboxObjectId: null,
      relatesToOutboxObjectId: null,
      isBookmarked: false,
      isDeleted: false,
      isTransient: true,
      repliesCount: 3,
    });
    const viaDrizzle = db.insert(inbox).values(values('https://a.example/n/1')).returning().get();
    const insert = preparedInsert(inbox, KEYS);
    const viaPrepared = insert(db, values('https://a.example/n/2'));
    expect({ ...viaPrepared, id: 0, apId: '', apObject: { ...viaPrepared.apObject, id: '' } }).toEqual({
      ...viaDrizzle,
      id: 0,
      apId: '',
      apObject: { ...viaDrizzle.apObject, id: '' },
    });
    expect(viaPrepared.id).toBe(viaDrizzle.id + 1);
    // The stored text is the same too, column by column.
    const raw = sqlite.prepare('SELECT * FROM inbox ORDER BY id').all() as Array<Record<string, unknown>>;
    expect({ ...raw[1], id: 0, ap_id: '', ap_object: '' }).toEqual({ ...raw[0], id: 0, ap_id: '', ap_object: '' });
    expect(db.select().from(inbox).where(eq(inbox.id, viaPrepared.id)).get()).toEqual(viaPrepared);
  });

  it('takes a column default for a missing value, and refuses what the constraints refuse', () => {
    const { db, now, actorId } = openDb();
    const insert = preparedInsert(notifications, ['createdAt', 'notificationType', 'isNew', 'actorId']);
    const row = insert(db, { createdAt: now, notificationType: 'LIKE', isNew: true, actorId });
    expect(row).toMatchObject({ createdAt: now, notificationType: 'LIKE', isNew: true, actorId, inboxObjectId: null });
    const missingDate = preparedInsert(notifications, ['createdAt', 'isNew']);
    const defaulted = missingDate(db, { isNew: false } as never);
    expect(defaulted.createdAt).toBeInstanceOf(Date);
    expect(() => insert(db, { createdAt: now, notificationType: 'NOPE' as never, isNew: true, actorId })).toThrow(/CHECK/);
  });
});

describe('allRows', () => {
  it('gives the rows `all` gives (by column name, a repeated name taking the later value), and leaves the statement as it was', () => {
    const { db, actorId } = openDb();
    const source = 'SELECT a.id, a.ap_id, a.ap_actor, 7 AS id2, NULL AS absent, a.id AS ap_id FROM actor a WHERE a.id >= ? ORDER BY a.id';
    const statement = prepared<[number]>(db, source);
    const expected = statement.all(actorId);
    expect(allRows(statement, actorId)).toEqual(expected);
    expect(expected).toEqual([{ id: actorId, ap_id: actorId, ap_actor: '{"id":"https://a.example/u"}', id2: 7, absent: null }]);
    expect(allRows(statement, actorId + 1)).toEqual([]);
    expect(statement.all(actorId)).toEqual(expected);
  });
});

describe('sqliteOf', () => {
  it('finds the same connection behind a handle and inside its transactions (per-connection state is keyed by it)', () => {
    const sqlite = openSqlite(':memory:');
    for (const db of [wrapDrizzle(sqlite), wrapDrizzle(sqlite, { immediate: true })]) {
      expect(sqliteOf(db)).toBe(sqlite);
      expect(db.transaction((tx) => sqliteOf(tx))).toBe(sqlite);
    }
    sqlite.close();
  });
});

describe('wrapDrizzle', () => {
  it('prepares a query once and reuses it, in the mode each call needs; a busy statement is not reused', () => {
    const { sqlite, db, actorId } = openDb();
    const prepared: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((source: string) => {
      prepared.push(source);
      return prepare(source);
    }) as typeof sqlite.prepare;
    const byId = () => db.select({ apId: actor.apId }).from(actor).where(eq(actor.id, actorId)).get();
    for (let i = 0; i < 5; i++) expect(byId()).toEqual({ apId: 'https://a.example/u' });
    expect(prepared).toHaveLength(1);
    // The same SQL as objects after drizzle read it as arrays (raw mode is reset on reuse).
    const text = prepared[0]!;
    const asObject = db.all<{ ap_id: string }>(sql.raw(text.replace('?', String(actorId))));
    expect(asObject).toEqual([{ ap_id: 'https://a.example/u' }]);
    // A statement still stepping (iterate() on the same text, through the session's client) is not handed out again.
    const client = (db as unknown as { session: { client: typeof sqlite } }).session.client;
    const rows = client.prepare('SELECT id FROM actor').iterate();
    expect(rows.next().value).toEqual({ id: actorId });
    expect(client.prepare('SELECT id FROM actor').all()).toEqual([{ id: actorId }]);
    rows.return?.();
  });

  it('keeps drizzle transactions as they were: commit, rollback on a throw, savepoints when nested, no promises', () => {
    const sqlite = openSqlite(':memory:');
    sqlite.exec('CREATE TABLE t (x INTEGER)');
    const count = () => sqlite.prepare('SELECT count(*) AS n FROM t').pluck().get();
    for (const db of [wrapDrizzle(sqlite), wrapDrizzle(sqlite, { immediate: true })]) {
      sqlite.exec('DELETE FROM t');
      db.transaction((tx) => tx.run(sql`INSERT INTO t VALUES (1)`));
      expect(count()).toBe(1);
      expect(() => db.transaction((tx) => {
        tx.run(sql`INSERT INTO t VALUES (2)`);
        throw new Error('undo');
      })).toThrow('undo');
      expect(count()).toBe(1);
      expect(sqlite.inTransaction).toBe(false);
      // tx.rollback() ends the transaction with nothing written.
      expect(() => db.transaction((tx) => {
        tx.run(sql`INSERT INTO t VALUES (3)`);
        tx.rollback();
      })).toThrow();
      expect(count()).toBe(1);
      // Nested (db.transaction again, or tx.transaction): the inner failure undoes the inner writes only.
      db.transaction((tx) => {
        tx.run(sql`INSERT INTO t VALUES (4)`);
        expect(() => db.transaction((inner) => {
          inner.run(sql`INSERT INTO t VALUES (5)`);
          throw new Error('inner');
        })).toThrow('inner');
        expect(() => tx.transaction((inner) => {
          inner.run(sql`INSERT INTO t VALUES (6)`);
          throw new Error('inner');
        })).toThrow('inner');
        db.transaction((inner) => inner.run(sql`INSERT INTO t VALUES (7)`));
      });
      expect(sqlite.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 4, 7]);
      // A function that returns a promise is refused (the transaction would end before it), and undone.
      expect(() => db.transaction((async (tx: typeof db) => tx.run(sql`INSERT INTO t VALUES (8)`)) as never)).toThrow(TypeError);
      expect(count()).toBe(3);
      expect(sqlite.inTransaction).toBe(false);
    }
    sqlite.close();
  });
});
