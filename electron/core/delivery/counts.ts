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
/** Rows that wait for an address (acct:, actor:, webmention:) are "resolving". */
const NOT_ADDRESS = sql.raw("recipient NOT LIKE 'acct:%' AND recipient NOT LIKE 'actor:%' AND recipient NOT LIKE 'webmention:%'");

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
  const waiting = db.get<{ queued: number; retrying: number; resolving: number; n: number }>(sql`
    SELECT coalesce(sum(CASE WHEN tries = 0 AND ${NOT_ADDRESS} THEN 1 ELSE 0 END), 0) AS queued,
           coalesce(sum(CASE WHEN tries > 0 AND ${NOT_ADDRESS} THEN 1 ELSE 0 END), 0) AS retrying,
           coalesce(sum(CASE WHEN ${NOT_ADDRESS} THEN 0 ELSE 1 END), 0) AS resolving,
           count(*) AS n
    FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 0`)!;
  const failed = db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 1`)!.n;
  // A row both sent and errored is counted as sent (the delivery store never writes one).
  const sent = Math.max(0, tableSize(db) - waiting.n - failed);
  return { sent, failed, queued: waiting.queued, retrying: waiting.retrying, resolving: waiting.resolving };
}
