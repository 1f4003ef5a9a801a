// The moment a quote of the author's turns "unanswered" (quoting.ts: a day after its QuoteRequest
// reached the quoted author's server with no answer), told to the window when it passes, so a
// post on screen says so without a reload. Nothing changes in the database at that moment —
// the state is read from the clock — so no row written tells the change feed; this does.
//
// One timer, set for the earliest such moment still to come, and set again when it fires or
// when what sets the moments may have changed (a request delivered, an answer received: the core
// calls rearm; the machine woke from sleep: the desktop shell does). No polling: with no quote
// waiting, nothing wakes the process; with some, it wakes at each moment and at least every
// QUOTE_DEADLINE_MAX_WAIT_MS (so a sleep no shell tells of is seen that soon after the wake).
import { and, eq, exists, gt, or } from 'drizzle-orm';
import { prepared, type DbOrTx } from '../../../db/client';
import { outbox, outgoingActivity } from '../../../db/schema';
import { QUOTE_ANSWER_WAIT_MS, unansweredAt } from './quoting';

/** A quote post of the author's that turns unanswered at `at` unless an answer comes. */
export interface QuoteDeadline {
  postId: number;
  at: Date;
}

/** The author's pending quotes whose moment is still to come, earliest first. Only requests
 * written or delivered in the last QUOTE_ANSWER_WAIT_MS can have one (ix_outbox_ap_type, then
 * each request's deliveries by ix_outgoing_activity_outbox_object_id). */
export function pendingQuoteDeadlines(db: DbOrTx, localId: string, now: Date): QuoteDeadline[] {
  const cutoff = new Date(now.getTime() - QUOTE_ANSWER_WAIT_MS);
  const deliveredSince = db
    .select({ id: outgoingActivity.id })
    .from(outgoingActivity)
    .where(and(eq(outgoingActivity.outboxObjectId, outbox.id), gt(outgoingActivity.lastTry, cutoff)));
  const posts = db
    .selectDistinct({ id: outbox.relatesToOutboxObjectId })
    .from(outbox)
    .where(and(eq(outbox.apType, 'QuoteRequest'), or(gt(outbox.createdAt, cutoff), exists(deliveredSince))))
    .all();
  const deadlines: QuoteDeadline[] = [];
  for (const { id } of posts) {
    const post = id === null ? undefined : db.select().from(outbox).where(eq(outbox.id, id)).get();
    if (post === undefined || post.isDeleted) continue;
    const at = unansweredAt(db, localId, post, now);
    if (at !== null && at.getTime() > now.getTime()) deadlines.push({ postId: post.id, at });
  }
  return deadlines.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** What the QuoteRequests' deliveries are now, in one line: it changes when one is queued, tried,
 * sent or given up on — the only changes to deliveries that move a quote's moment. Read through
 * ix_outbox_ap_type and each request's deliveries (the author's own quote requests, not the
 * queue): cheap beside pendingQuoteDeadlines, which reads each pending post's standing. */
export function quoteDeliveriesMark(db: DbOrTx): string {
  const row = prepared<[], { n: number; id: number | null; lastTry: string | null; sent: number | null; errored: number | null }>(
    db,
    `SELECT count(*) AS n, max(oa.id) AS id, max(oa.last_try) AS lastTry, sum(oa.is_sent) AS sent, sum(oa.is_errored) AS errored
     FROM outbox o JOIN outgoing_activity oa ON oa.outbox_object_id = o.id
     WHERE o.ap_type = 'QuoteRequest'`,
  ).get();
  return row === undefined ? '' : `${row.n}:${row.id}:${row.lastTry}:${row.sent}:${row.errored}`;
}

/** The longest the timer is set for at once: a moment further away is looked at again then.
 * setTimeout takes at most 2^31 − 1 ms (fires at once past that, a clock set back weeks), and it
 * does not count a suspend: a moment that passed while the machine slept is told when the timer
 * fires, this long after the wake at most, where no shell says the machine woke (headless mode
 * has no resume event; the desktop's calls rearm on resume). Four looks an hour while a quote
 * waits for its answer, none otherwise. */
export const QUOTE_DEADLINE_MAX_WAIT_MS = 15 * 60 * 1000;

/** setTimeout and clearTimeout, or a test's stand-in. */
export interface Timers {
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const nodeTimers: Timers = {
  set(fire, ms) {
    const timer = setTimeout(fire, ms);
    // Never what keeps the process alive.
    timer.unref();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface QuoteDeadlineWatch {
  /** Tells what the timer was set for if that has passed, looks again for the earliest moment to
   * come, and sets the one timer for it. */
  rearm(): void;
  /** Deliveries changed: rearm, if those of the quote requests did (quoteDeliveriesMark). A
   * stranger's Follows queue Accepts all day; those alone do not make it read every quote. */
  deliveriesChanged(): void;
  /** When the timer is set for, or null (tests, the status). */
  armedFor(): Date | null;
  stop(): void;
}

export function createQuoteDeadlineWatch(deps: {
  db: DbOrTx;
  clock: () => Date;
  /** The local actor's id, or null before the author set Tern up. */
  localId: () => string | null;
  /** These posts turned unanswered just now. */
  onDue: (postIds: number[]) => void;
  log?: (line: string) => void;
  timers?: Timers;
}): QuoteDeadlineWatch {
  const timers = deps.timers ?? nodeTimers;
  let handle: unknown = null;
  let armed: QuoteDeadline[] = [];
  let stopped = false;
  // The quote requests' deliveries as the last rearm saw them.
  let deliveriesMark: string | null = null;

  function clear(): void {
    if (handle !== null) timers.clear(handle);
    handle = null;
    armed = [];
  }

  function rearm(): void {
    if (stopped) return;
    const now = deps.clock();
    // What the timer was set for and has passed unseen — a monotonic timer does not count a
    // suspend, so after a sleep it fires late — is told now (the shell calls rearm on resume).
    const passed = armed.filter((d) => d.at.getTime() <= now.getTime()).map((d) => d.postId);
    clear();
    if (passed.length > 0) deps.onDue(passed);
    const localId = deps.localId();
    if (localId === null) return;
    let deadlines: QuoteDeadline[];
    try {
      deliveriesMark = quoteDeliveriesMark(deps.db);
      deadlines = pendingQuoteDeadlines(deps.db, localId, now);
    } catch (error) {
      // The database closing under it: the next rearm looks again.
      deps.log?.(`quote deadlines not read: ${String(error)}`);
      return;
    }
    const first = deadlines[0];
    if (first === undefined) return;
    // Every post due at that same moment (to the millisecond) is told together.
    armed = deadlines.filter((d) => d.at.getTime() === first.at.getTime());
    handle = timers.set(fire, Math.min(first.at.getTime() - now.getTime(), QUOTE_DEADLINE_MAX_WAIT_MS));
  }

  function deliveriesChanged(): void {
    if (stopped) return;
    let mark: string;
    try {
      mark = quoteDeliveriesMark(deps.db);
    } catch (error) {
      deps.log?.(`quote deadlines not read: ${String(error)}`);
      return;
    }
    if (mark !== deliveriesMark) rearm();
  }

  function fire(): void {
    handle = null;
    // What is due is told by rearm; a timer that fired a little early is set again for the rest.
    rearm();
  }

  return {
    rearm,
    deliveriesChanged,
    armedFor: () => (handle === null ? null : (armed[0]?.at ?? null)),
    stop() {
      stopped = true;
      clear();
    },
  };
}
