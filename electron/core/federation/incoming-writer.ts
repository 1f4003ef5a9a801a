// The accept path's one write, grouped: rows of every inbox POST verified in the same turn of the
// event loop are inserted into incoming_activity in one transaction (one commit), and each
// request is answered 202 only after that commit, so an acknowledged activity is always stored.
// One commit per row was ≈235 µs of the ≈1.3 ms an accepted activity cost on the main thread
// (bench profile); with 32 requests in flight several rows share each commit.
//
// When the inbox processor runs on its worker thread, the worker owns this table's writes: the
// batch goes to it by message (routeIncomingWrites), so the main thread never waits on SQLite's
// write lock while the worker commits — a wait that is a synchronous sleep on the thread the
// listener and IPC answer on. Without a worker (not started, restarting) rows are written here.
import { prepared, sqliteOf, type Db, type DbOrTx } from '../../../db/client';
import { rememberVerdict, type Verified } from './embedded-verdicts';
import { rememberFetchedActor, type FetchedActor } from './fetched-actors';

export interface IncomingRow {
  createdAt: string;
  sentBy: string;
  apId: string | null;
  apObject: string;
  /** The inbox's verdict on the activity's own LD signature, handed to the processor with the row. */
  verdict?: Verified;
  /** The actor's document, when verifying the signature just fetched it (fetched-actors.ts). */
  actor?: FetchedActor;
}

/** Writes a batch elsewhere (the inbox worker) and resolves with the ids; null: not available now. */
export type IncomingSink = (rows: IncomingRow[]) => Promise<number[]> | null;
const sinks = new WeakMap<object, IncomingSink>();

/** Rows written through `db`'s connection go to `sink` from now on (the inbox worker's host). */
export function routeIncomingWrites(db: Db, sink: IncomingSink): void {
  sinks.set(sqliteOf(db), sink);
}

/** A batch's ids (a copy already queued gives the stored row's), and the rows newly inserted. */
export interface Inserted {
  ids: number[];
  fresh: { row: IncomingRow; id: number }[];
}

/**
 * Inserts a batch in one transaction (the caller's). A row whose activity id this signer already
 * has queued (processed or not) is not inserted again: its id is the stored row's. The listener
 * looks before it writes (inbox.ts), but copies of one request sent at once all look before any
 * is written — they share a batch, or one is still on its way to the worker — so the one writer
 * checks again inside its transaction. What the checks handed over with the fresh rows (verdicts,
 * actors' documents) is remembered by handOver(), once the transaction has committed.
 */
export function insertIncomingRows(db: DbOrTx, rows: readonly IncomingRow[]): Inserted {
  const insert = prepared<[string, string, string | null, string, string]>(db, INSERT_INCOMING_SQL);
  const fresh: Inserted['fresh'] = [];
  const ids = rows.map((row) => {
    const existing = row.apId === null ? undefined : queuedIncomingId(db, row.apId, row.sentBy);
    if (existing !== undefined) return existing;
    const id = Number(insert.run(row.createdAt, row.sentBy, row.apId, row.apObject, row.createdAt).lastInsertRowid);
    fresh.push({ row, id });
    return id;
  });
  return { ids, fresh };
}

/**
 * Remembers, for the processor on this connection, the LD verdicts and actors' documents that came
 * with rows now committed. Only after the commit: a verdict kept for a row that was rolled back
 * would be kept under an id SQLite gives again to the next row inserted, another activity.
 */
export function handOver(db: DbOrTx, fresh: Inserted['fresh']): void {
  for (const { row, id } of fresh) {
    if (row.verdict) rememberVerdict(db, id, row.verdict);
    if (row.actor) rememberFetchedActor(db, row.actor);
  }
}

// No ORDER BY: ix_incoming_activity_ap_id holds (ap_id, rowid), so the search meets this ap_id's
// rows in id order anyway, and with `ORDER BY id` SQLite prepared the statement again at every
// call (measured: 11.9 µs a look-up against 3.1 µs; sqlite3Reprepare in the profile of the
// checks, twice per activity).
const QUEUED_SQL = 'SELECT id FROM incoming_activity WHERE ap_id = ? AND sent_by_ap_actor_id = ? LIMIT 1';

/**
 * The row of this signer's activity with this id, if one is queued (processed or not). Prepared
 * once: the listener asks for every request, and drizzle's query builder built the statement
 * anew each time (≈8 % of the main thread's time while accepting, in the bench profile).
 */
export function queuedIncomingId(db: DbOrTx, apId: string, sentBy: string): number | undefined {
  return prepared<[string, string], { id: number }>(db, QUEUED_SQL).get(apId, sentBy)?.id;
}

const INSERT_INCOMING_SQL =
  'INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored)' +
  ' VALUES (?, ?, ?, ?, 0, ?, 0, 0)';

interface Pending {
  row: IncomingRow;
  resolve(id: number): void;
  reject(error: unknown): void;
}

interface Writer {
  pending: Pending[];
  scheduled: boolean;
}

const writers = new WeakMap<object, Writer>();

function flush(db: Db, writer: Writer): void {
  const batch = writer.pending;
  writer.pending = [];
  writer.scheduled = false;
  const routed = sinks.get(sqliteOf(db))?.(batch.map((p) => p.row)) ?? null;
  if (routed !== null) {
    routed.then(
      (ids) => batch.forEach((p, i) => p.resolve(ids[i]!)),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
    return;
  }
  let inserted: Inserted;
  try {
    inserted = db.transaction((tx) => insertIncomingRows(tx, batch.map((p) => p.row)));
  } catch (error) {
    for (const p of batch) p.reject(error);
    return;
  }
  handOver(db, inserted.fresh);
  batch.forEach((p, i) => p.resolve(inserted.ids[i]!));
}

/** Stores one verified activity; resolves with its id once the commit holding it is done. */
export function writeIncoming(db: Db, row: IncomingRow): Promise<number> {
  const key = sqliteOf(db);
  let writer = writers.get(key);
  if (writer === undefined) writers.set(key, (writer = { pending: [], scheduled: false }));
  const w = writer;
  return new Promise<number>((resolve, reject) => {
    w.pending.push({ row, resolve, reject });
    if (!w.scheduled) {
      w.scheduled = true;
      // After this turn's I/O callbacks: every verification that completed in it joins the batch.
      setImmediate(() => flush(db, w));
    }
  });
}
