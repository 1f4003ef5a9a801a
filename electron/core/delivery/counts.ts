// The Deliveries view's counts by state, without counting the whole delivery history on every
// page. Rows not sent yet (waiting or failed) are counted from the partial index
// ix_outgoing_activity_unsent, so those counts cost what is unsent. "Sent" is every other row:
// the table's size minus those. Counting a table is O(rows) in SQLite (≈ 30 ms at 2,000,000
// rows), so for a big table the size is kept per connection and brought up to date from the new
// rows alone (ids only grow); it is counted again in full, off the page call, at most once a
// minute when asked, which also puts right the rare deleted row (a duplicate waiting delivery,
// federation/actions/deferred.ts).
import { sql } from 'drizzle-orm';
import { sqliteOf, type DbOrTx, type Sqlite } from '../../../db/client';
import type { DeliveryRowState } from '../ipc/author-contract';

/** Below this many rows (by the largest id) the table is counted outright: ≈ 1 ms. */
const COUNT_OUTRIGHT_BELOW = 50_000;
const RECOUNT_AFTER_MS = 60_000;
/** Rows that wait for an address (acct:, actor:, webmention:) are "resolving": a recipient
 * starting so, as addresses.ts isAddress reads it (case and all), written as text ranges (the
 * text starting "acct:" is the text from "acct:" up to "acct;"), the first one ruling out at
 * once every recipient from "b" on but webmention ones: an https recipient costs two
 * comparisons. Three LIKEs of each row, three times, took 45 ms of a count of 200,000; this, 20 ms
 * (each as a CASE: a bare comparison summed, total(a OR b), took 90). */
const ADDRESS = sql.raw(
  "(recipient < 'b' AND (recipient >= 'acct:' AND recipient < 'acct;' OR recipient >= 'actor:' AND recipient < 'actor;') OR recipient >= 'webmention:' AND recipient < 'webmention;')",
);

interface Size {
  /** Rows with id ≤ upTo. */
  rows: number;
  upTo: number;
  countedAt: number;
  recounting: boolean;
}
const sizes = new WeakMap<Sqlite, Size>();

function count(db: DbOrTx, from: number, to: number): number {
  return db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE id > ${from} AND id <= ${to}`)?.n ?? 0;
}

/** Rows of outgoing_activity (exact unless a row was deleted in the last minute). */
function tableSize(db: DbOrTx): number {
  const maxId = db.get<{ m: number }>(sql`SELECT coalesce(max(id), 0) AS m FROM outgoing_activity`)?.m ?? 0;
  if (maxId < COUNT_OUTRIGHT_BELOW) return count(db, 0, maxId);
  const sqlite = sqliteOf(db);
  let size = sizes.get(sqlite);
  if (!size) {
    size = { rows: count(db, 0, maxId), upTo: maxId, countedAt: Date.now(), recounting: false };
    sizes.set(sqlite, size);
  } else if (maxId > size.upTo) {
    size.rows += count(db, size.upTo, maxId);
    size.upTo = maxId;
  }
  if (Date.now() - size.countedAt > RECOUNT_AFTER_MS && !size.recounting) {
    const stale = size;
    stale.recounting = true;
    setTimeout(() => {
      if (!sqlite.open || sqlite.inTransaction) return void (stale.recounting = false);
      const upTo = db.get<{ m: number }>(sql`SELECT coalesce(max(id), 0) AS m FROM outgoing_activity`)?.m ?? 0;
      Object.assign(stale, { rows: count(db, 0, upTo), upTo, countedAt: Date.now(), recounting: false });
    }, 0).unref();
  }
  return size.rows;
}

/** How many rows are in each state (in-flight rows not yet moved to "sending"). */
export function deliveryCounts(db: DbOrTx): Record<Exclude<DeliveryRowState, 'sending'>, number> {
  // From the index of waiting rows alone (revision ae35abd14d3a: their tries and recipients), no
  // row read: 200,000 waiting (ten posts written offline to 20,000 followers' inboxes), each row
  // read, held the main thread 60–80 ms at every page of the Deliveries view.
  const waiting = db.get<{ n: number; tried: number; resolving: number; resolvingTried: number }>(sql`
    SELECT count(*) AS n, sum(CASE WHEN tries > 0 THEN 1 ELSE 0 END) AS tried, sum(CASE WHEN ${ADDRESS} THEN 1 ELSE 0 END) AS resolving,
           sum(CASE WHEN tries > 0 AND ${ADDRESS} THEN 1 ELSE 0 END) AS resolvingTried
    FROM outgoing_activity INDEXED BY ix_outgoing_activity_waiting WHERE is_sent = 0 AND is_errored = 0`)!;
  const failed = db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 1`)!.n;
  // A row both sent and errored is counted as sent (the delivery store never writes one).
  const sent = Math.max(0, tableSize(db) - waiting.n - failed);
  const retrying = waiting.tried - waiting.resolvingTried;
  return { sent, failed, queued: waiting.n - retrying - waiting.resolving, retrying, resolving: waiting.resolving };
}
