// The delivery loop's reads and writes of `outgoing_activity`, as statements prepared once (the
// loop looks for due rows after every answer; re-preparing SQL each time cost more than signing).
//  * heads(): the one due-row query — the oldest pending row of each recipient, soonest first;
//  * claim(): before a request goes out, last_try is written at once (as microblog.pub does
//    before each attempt), guarded by the row still being pending: a request that may have
//    reached the peer is on record even if its answer never is (stopped, the network gone,
//    a crash), and a row cancelled meanwhile on another connection is not sent. The claims of
//    one turn of the loop are one transaction (loop.ts writeClaims). A claim whose request
//    never left (stopped first, refused, no such host, a TLS handshake that never ended) is
//    taken back (unclaim, or the outcome writing the last_try from before): last_try is when a
//    request of the row last left Tern, so a row that never went out shows no last try, and a
//    Delete of the post goes only where a Create may have arrived (withheld.ts mayHaveReached);
//  * markSent / retryLater / giveUp: one UPDATE per outcome, each guarded so it only changes a
//    row that is still pending (sent: not sent yet — an answer received is the truth even for a
//    row cancelled while its request was out), each writing the whole outcome at once. They are
//    queued and written together by flush(), one transaction for all the answers of one turn
//    of the event loop (a commit per delivery cost as much as the rest of the bookkeeping);
//    the loop flushes before it reads the queue again and before stop() or drain() return.
//    "Retry now" written while the attempt was out (tries reset, next_try moved: status.ts
//    retryNow, on the main thread's connection) wins over that attempt's failure: the row keeps
//    its fresh tries and the time the author asked for, and the failure is only reported.
import type { Sqlite } from '../../../db/client';
import { parseStoredDate, type OutgoingActivity } from '../../../db/schema';

export interface Head {
  id: number;
  recipient: string;
  nextTry: string | null;
  outboxObjectId: number | null;
  /** The recipient's server (host:port), filled in by the loop the first time it asks. */
  host?: string;
  /** Started by the loop (or found in flight) since this head was read. */
  taken?: boolean;
}

export interface Attempt {
  /** The last_try to record: when the attempt began if its request left (it may have reached
   * the peer), else the row's last_try from before its claim (null: never left at all). */
  at: Date | null;
  status: number | null;
  body: string | null;
}

/** What the attempt read of the row before it began: a row whose tries or next_try changed
 * since was retried by the author meanwhile ("Retry now"). */
export interface Seen {
  tries: number;
  nextTry: Date | null;
}

interface RawRow {
  id: number;
  created_at: string;
  recipient: string;
  outbox_object_id: number | null;
  inbox_object_id: number | null;
  webmention_target: string | null;
  tries: number;
  next_try: string | null;
  last_try: string | null;
  last_status_code: number | null;
  last_response: string | null;
  is_sent: number;
  is_errored: number;
  error: string | null;
}

const date = (v: string | null) => (v === null ? null : parseStoredDate(v));

function toRow(r: RawRow): OutgoingActivity {
  return {
    id: r.id,
    createdAt: parseStoredDate(r.created_at),
    recipient: r.recipient,
    outboxObjectId: r.outbox_object_id,
    inboxObjectId: r.inbox_object_id,
    webmentionTarget: r.webmention_target,
    tries: r.tries,
    nextTry: date(r.next_try),
    lastTry: date(r.last_try),
    lastStatusCode: r.last_status_code,
    lastResponse: r.last_response,
    isSent: r.is_sent === 1,
    isErrored: r.is_errored === 1,
    error: r.error,
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;

const PENDING = 'is_sent = 0 AND is_errored = 0';

/** The error of a row whose request was out when Tern stopped without its answer. */
export const ORPHANED_CLAIM_ERROR = 'Tern stopped while this request was out, before its answer came; the delivery may have arrived. No try counted: it goes again.';
/** The row was retried ("Retry now": tries reset, next_try moved) since the attempt read it
 * (@seenTries, @seenNextTry). Only the loop changes tries, and only one attempt of a row is out
 * at a time, so a change is the author's (the loop's own moves, a wake's spreading and a clock
 * set back, leave the rows in flight alone). */
const RETRIED = '(tries <> @seenTries OR julianday(next_try) IS NOT julianday(@seenNextTry))';

export function createDeliveryStore(sqlite: Sqlite) {
  const q = {
    // Window over the pending tail only (id >= floor): cost follows the queue, not the table.
    heads: sqlite.prepare<[number, number], Head>(`
      WITH pending AS (
        SELECT id, recipient, next_try, outbox_object_id,
               row_number() OVER (PARTITION BY recipient ORDER BY id) AS pos
        FROM outgoing_activity
        WHERE id >= ? AND ${PENDING}
      )
      SELECT id, recipient, next_try AS nextTry, outbox_object_id AS outboxObjectId
      FROM pending WHERE pos = 1
      ORDER BY coalesce(julianday(next_try), 0), id
      LIMIT ?`),
    held: sqlite.prepare<[number, number], { id: number }>(`
      SELECT DISTINCT outbox_object_id AS id FROM outgoing_activity
      WHERE id >= ? AND ${PENDING} AND recipient LIKE 'acct:%' AND tries < ? AND outbox_object_id IS NOT NULL`),
    // ORDER BY id LIMIT 1 walks the primary key and stops at the first pending row.
    floor: sqlite.prepare<[number], { id: number }>(`SELECT id FROM outgoing_activity WHERE id >= ? AND ${PENDING} ORDER BY id LIMIT 1`),
    row: sqlite.prepare<[number], RawRow>(`SELECT * FROM outgoing_activity WHERE id = ? AND ${PENDING}`),
    claim: sqlite.prepare(`UPDATE outgoing_activity SET last_try = @at WHERE id = @id AND ${PENDING}`),
    // Not guarded by is_errored: a cancel written while the request was out came too late.
    sent: sqlite.prepare(`
      UPDATE outgoing_activity
      SET is_sent = 1, is_errored = 0, tries = tries + 1, last_try = @at, last_status_code = @status, last_response = @body, next_try = NULL, error = NULL
      WHERE id = @id AND is_sent = 0`),
    // After a failure: unless retried meanwhile (RETRIED), one more try and the next one's time;
    // if retried, the author's fresh tries and time stay, and the failure is reported.
    retry: sqlite.prepare(`
      UPDATE outgoing_activity
      SET tries = CASE WHEN ${RETRIED} THEN tries ELSE tries + 1 END, last_try = @at, last_status_code = @status, last_response = @body,
          next_try = CASE WHEN ${RETRIED} THEN next_try ELSE @nextTry END, error = CASE WHEN ${RETRIED} THEN @retriedError ELSE @error END
      WHERE id = @id AND ${PENDING}`),
    erroredTried: sqlite.prepare(`
      UPDATE outgoing_activity
      SET is_errored = CASE WHEN ${RETRIED} THEN 0 ELSE 1 END, tries = CASE WHEN ${RETRIED} THEN tries ELSE tries + 1 END, last_try = @at,
          last_status_code = @status, last_response = @body,
          next_try = CASE WHEN ${RETRIED} THEN next_try ELSE NULL END, error = CASE WHEN ${RETRIED} THEN @retriedError ELSE @error END
      WHERE id = @id AND ${PENDING}`),
    erroredUntried: sqlite.prepare(`UPDATE outgoing_activity SET is_errored = 1, next_try = NULL, error = @error WHERE id = @id AND ${PENDING}`),
    postpone: sqlite.prepare(`
      UPDATE outgoing_activity SET next_try = CASE WHEN ${RETRIED} THEN next_try ELSE @nextTry END, error = CASE WHEN ${RETRIED} THEN @retriedError ELSE @error END
      WHERE id = @id AND ${PENDING}`),
    // A claim whose request never left: last_try back to what it was (not when cancelled meanwhile
    // either: nothing went out), unless something else was written since.
    unclaim: sqlite.prepare(`UPDATE outgoing_activity SET last_try = @before WHERE id = @id AND is_sent = 0 AND last_try = @claimed`),
    // A request that left and got no answer (stopped, the network gone): why last_try is newer
    // than the tries counted, while the row waits to go again.
    unanswered: sqlite.prepare(`UPDATE outgoing_activity SET error = @error WHERE id = @id AND ${PENDING} AND last_try = @claimed`),
    // Claims no outcome followed: after any outcome a pending row is due after its last try
    // (next_try > last_try: the backoff, or the author's Retry now made while it was out), and a
    // claim is made only once due (last_try >= next_try). Read when the loop starts, with nothing
    // in flight: those requests were out when Tern (or its worker) was ended. A clock set back
    // meanwhile (pullBack) can make an answered row look the same; it is then told this too.
    orphaned: sqlite.prepare(`
      UPDATE outgoing_activity SET error = @error
      WHERE ${PENDING} AND last_try IS NOT NULL AND (next_try IS NULL OR julianday(next_try) <= julianday(last_try))
        AND (error IS NULL OR error NOT LIKE '%may have arrived%')`),
    later: sqlite.prepare<[string], { id: number; nextTry: string }>(`SELECT id, next_try AS nextTry FROM outgoing_activity WHERE ${PENDING} AND julianday(next_try) > julianday(?)`),
    setNextTry: sqlite.prepare(`UPDATE outgoing_activity SET next_try = @nextTry WHERE id = @id AND ${PENDING}`),
    erroredRecipient: sqlite.prepare(`UPDATE outgoing_activity SET is_errored = 1, next_try = NULL, error = @error WHERE recipient = @recipient AND ${PENDING}`),
  };
  const params = (id: number, a: Attempt) => ({ id, at: a.at?.toISOString() ?? null, status: a.status, body: a.body });
  const seenParams = (seen: Seen, retriedError: string) => ({
    seenTries: seen.tries,
    seenNextTry: seen.nextTry?.toISOString() ?? null,
    retriedError,
  });
  // Outcomes not written yet, in the order they were decided.
  let queued: (() => void)[] = [];
  const writeAll = sqlite.transaction((writes: (() => void)[]) => writes.forEach((w) => w()));
  const claimAll = sqlite.transaction((attempts: readonly { id: number; at: Date }[]) =>
    attempts.map(({ id, at }) => q.claim.run({ id, at: at.toISOString() }).changes === 1),
  );

  return {
    heads: (floor: number, limit: number): Head[] => q.heads.all(floor, limit),
    /** Posts whose rows wait for an `acct:` mention to resolve (fewer than `holdTries` tries). */
    heldPosts: (floor: number, holdTries: number): Set<number> => new Set(q.held.all(floor, holdTries).map((r) => r.id)),
    /** The smallest pending id at or above `from`, or +∞ when nothing is pending. */
    floor: (from: number): number => q.floor.get(from)?.id ?? Number.MAX_SAFE_INTEGER,
    pendingRow: (id: number): OutgoingActivity | undefined => {
      const raw = q.row.get(id);
      return raw ? toRow(raw) : undefined;
    },

    /** Puts the attempts starting now on record before their requests go out, in one
     * transaction (not queued with the answers: written at once). For each, false when the row
     * is no longer pending (cancelled, or sent, meanwhile). Throws, writing none, when the file
     * cannot be written (the other connection held it past the busy timeout). */
    claim(attempts: readonly { id: number; at: Date }[]): boolean[] {
      return claimAll.immediate(attempts);
    },
    markSent(id: number, a: Attempt): void {
      const values = params(id, a);
      queued.push(() => q.sent.run(values));
    },
    /** Due again at `nextTry`, one more try counted; unless retried since `seen` (then still
     * due when the author asked, with `retriedError`). */
    retryLater(id: number, a: Attempt, seen: Seen, nextTry: Date, error: string, retriedError: string): void {
      const values = { ...params(id, a), ...seenParams(seen, retriedError), nextTry: nextTry.toISOString(), error };
      queued.push(() => q.retry.run(values));
    },
    /** Gives up: counting the attempt when one was made (`a`, with what it read, `seen`: a row
     * retried since stays due), else leaving the try count alone. */
    giveUp(id: number, a: { attempt: Attempt; seen: Seen; retriedError: string } | null, error: string): void {
      if (a === null) {
        const values = { id, error };
        queued.push(() => q.erroredUntried.run(values));
        return;
      }
      const values = { ...params(id, a.attempt), ...seenParams(a.seen, a.retriedError), error };
      queued.push(() => q.erroredTried.run(values));
    },
    /** Due again at `nextTry` without counting a try (the failure was the machine's own). */
    postpone(id: number, seen: Seen, nextTry: Date, error: string, retriedError: string): void {
      const values = { id, ...seenParams(seen, retriedError), nextTry: nextTry.toISOString(), error };
      queued.push(() => q.postpone.run(values));
    },
    /** Takes back the claim made at `claimed`: its request never left. last_try becomes `before`. */
    unclaim(id: number, claimed: Date, before: Date | null): void {
      const values = { id, claimed: claimed.toISOString(), before: before?.toISOString() ?? null };
      queued.push(() => q.unclaim.run(values));
    },
    /** The request claimed at `claimed` left and its answer never came: says so in `error`. */
    unanswered(id: number, claimed: Date, error: string): void {
      const values = { id, claimed: claimed.toISOString(), error };
      queued.push(() => q.unanswered.run(values));
    },
    /** Says why a row's last try is newer than its tries counted when its request was out as
     * Tern stopped without hearing its answer (a crash, a forced quit, the worker ended). Only
     * while nothing is in flight (the loop's start). Returns how many rows it explained. */
    explainOrphanedClaims(): number {
      return q.orphaned.run({ error: ORPHANED_CLAIM_ERROR }).changes;
    },
    /** After a sleep: each recipient's next row (the only one that can start: the rest wait
     * behind it in order), when already due, gets a time in the next `spreadMs` at random, so
     * they go out over a minute instead of all at once. Read through the due-row query, not a
     * scan of the queue, and bounded by `limit`: a wake is on the main thread. Returns how many
     * rows moved. */
    spreadOverdue(now: number, spreadMs: number, random: () => number, limit = 2_000, inFlight: ReadonlySet<number> = new Set()): number {
      const due = q.heads.all(0, limit).filter((h) => !inFlight.has(h.id) && (h.nextTry === null || parseStoredDate(h.nextTry).getTime() <= now));
      sqlite
        .transaction(() => {
          for (const { id } of due) q.setNextTry.run({ id, nextTry: new Date(now + Math.round(random() * spreadMs)).toISOString() });
        })
        .immediate();
      return due.length;
    },
    /** After the wall clock was set back `backMs`: every pending row due later than `now`
     * becomes due after what remained of its wait (next_try − backMs), never before `now`;
     * else a retry 2 s away would wait the whole step back. Returns how many rows moved. Rows
     * `inFlight` are left alone: their attempt's outcome writes their next time, and a next_try
     * moved under it would read as the author's Retry now (RETRIED). */
    pullBack(now: number, backMs: number, inFlight: ReadonlySet<number> = new Set()): number {
      const nowIso = new Date(now).toISOString();
      const later = q.later.all(nowIso).filter((row) => !inFlight.has(row.id));
      sqlite
        .transaction(() => {
          for (const { id, nextTry } of later) {
            const at = Math.max(now, parseStoredDate(nextTry).getTime() - backMs);
            q.setNextTry.run({ id, nextTry: new Date(at).toISOString() });
          }
        })
        .immediate();
      return later.length;
    },
    /** Gives up every pending row to a recipient (an address that does not resolve). */
    giveUpRecipient(recipient: string, error: string): void {
      queued.push(() => q.erroredRecipient.run({ recipient, error }));
    },
    /** Outcomes decided but not written yet. */
    get unwritten(): number {
      return queued.length;
    },
    /**
     * Writes the queued outcomes, in one transaction. If that fails (the disk), each is
     * tried on its own so one bad write cannot take the others with it; the errors are thrown
     * after (those rows stay due and are tried again, as a crash before the write would leave
     * them). Returns how many were written.
     */
    flush(): number {
      if (queued.length === 0) return 0;
      const writes = queued;
      queued = [];
      try {
        // Immediate: the main thread's connection writes this file too (delivery worker).
        writeAll.immediate(writes);
        return writes.length;
      } catch (error) {
        // The other connection held the file past the busy timeout: each write alone would wait
        // as long again. They stay queued for the next turn, in order.
        if (isBusy(error)) {
          queued = writes.concat(queued);
          throw error;
        }
        const errors: unknown[] = [];
        for (const w of writes) {
          try {
            w();
          } catch (error) {
            errors.push(error);
          }
        }
        if (errors.length > 0) throw new AggregateError(errors, `${errors.length} of ${writes.length} delivery outcomes could not be written`, { cause: error });
        return writes.length;
      }
    },
  };
}

const isBusy = (error: unknown): boolean => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

/** Whether any delivery is still to be made (one probe of the unsent rows' index). */
export function anyPending(sqlite: Sqlite): boolean {
  return sqlite.prepare(`SELECT 1 FROM outgoing_activity WHERE ${PENDING} LIMIT 1`).get() !== undefined;
}
