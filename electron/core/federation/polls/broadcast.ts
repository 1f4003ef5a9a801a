// Telling other servers how our polls stand. Votes only recount (tallies.ts); this sweep sends an
// Update of each open Question whose last broadcast is out of date — at most one per poll per
// window, however many votes came in — and closes polls whose end time has passed: `closed` is
// set, the final tallies go out at once (hidden totals revealed), and the author is notified.
// Everything it needs is in the database (the last Update row of each poll says what was sent
// and when), so a restart loses nothing: the first sweep catches up.
//
// The closing notification: the spec's notification_type enum has no poll type, and the column
// is a CHECK, so no new type is added. The column is optional (the spec lets it be null): a
// notification with no type, no actor and our Question as its outbox object means "your poll
// has ended"; one with no type on a remote Question (its inbox object, its author as actor)
// means "a poll you voted in has ended". The renderer reads them so.
import { and, desc, eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../../db/client';
import { notifications, outbox, type Actor, type OutboxObject } from '../../../../db/schema';
import { prepared } from '../../../../db/client';
import { isObject, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { queuePostUpdate, type ApObject } from '../outbox';
import { inboxOfActor } from '../recipients';
import { isClosed, pollOf, tallySignature, withTallies } from './question';
import { countVotes } from './tallies';

/** At most one tally Update per poll in this long (the final one on closing excepted). */
export const TALLY_WINDOW_MS = 30_000;

export interface SweepResult {
  broadcast: number;
  closed: number;
  /** When the next poll ends (ms since epoch), if one is open. */
  nextEnd: number | null;
}

function lastUpdate(db: DbOrTx, question: OutboxObject): OutboxObject | undefined {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, question.id), eq(outbox.apType, 'Update')))
    .orderBy(desc(outbox.id))
    .get();
}

/** Where the voters receive: they may follow nobody here, but they care how it turned out
 * (Mastodon sends poll updates to its voters too). */
function voterInboxes(db: DbOrTx, questionId: number): string[] {
  const docs = prepared<[number], string>(
    db,
    'SELECT DISTINCT a.ap_actor FROM poll_answer p JOIN actor a ON a.id = p.actor_id WHERE p.outbox_object_id = ?',
  )
    .pluck()
    .all(questionId);
  return docs.map((doc) => inboxOfActor({ apActor: JSON.parse(doc) as Actor["apActor"] })).filter((i): i is string => i !== null);
}

/** Queues an Update of the Question (its current object) to everyone it reached and its voters. */
export function queueQuestionUpdate(tx: DbOrTx, local: LocalActor, question: OutboxObject, object: Json, now: Date): OutboxObject {
  return queuePostUpdate(tx, local, { post: question, object: object as ApObject, stamp: now.toISOString(), now, more: voterInboxes(tx, question.id) });
}

/** One pass over our polls: closes those that ended, re-broadcasts stale tallies. */
export function sweepPolls(db: Db, local: LocalActor, now: Date, windowMs = TALLY_WINDOW_MS): SweepResult {
  const result: SweepResult = { broadcast: 0, closed: 0, nextEnd: null };
  const questions = db.select().from(outbox).where(and(eq(outbox.apType, 'Question'), eq(outbox.isDeleted, false))).all();
  for (const question of questions) {
    const poll = pollOf(question.apObject as Json);
    if (!poll || poll.closed !== null) continue;
    if (isClosed(poll, now)) {
      db.transaction((tx) => {
        const object = { ...withTallies(question.apObject as Json, countVotes(tx, question.id)), closed: poll.endTime ?? now.toISOString() };
        tx.update(outbox).set({ apObject: object as OutboxObject['apObject'], updatedAt: now }).where(eq(outbox.id, question.id)).run();
        queueQuestionUpdate(tx, local, question, object, now);
        tx.insert(notifications).values({ createdAt: now, notificationType: null, isNew: true, outboxObjectId: question.id }).run();
      });
      result.closed++;
      continue;
    }
    const end = poll.endTime === null ? null : Date.parse(poll.endTime);
    if (end !== null && (result.nextEnd === null || end < result.nextEnd)) result.nextEnd = end;
    const last = lastUpdate(db, question);
    if (last && now.getTime() - last.createdAt.getTime() < windowMs) continue;
    const sent = last && isObject(last.apObject.object) ? (last.apObject.object as Json) : withTallies(question.apObject as Json, { votersCount: 0, byOption: new Map() });
    if (tallySignature(sent) === tallySignature(question.apObject as Json)) continue;
    db.transaction((tx) => queueQuestionUpdate(tx, local, question, question.apObject as Json, now));
    result.broadcast++;
  }
  notifyEndedVotes(db, now);
  return result;
}

/** Remote polls the author voted in that have ended and were not yet announced. */
function notifyEndedVotes(db: Db, now: Date): void {
  const candidates = prepared<[], { id: number; actor_id: number; ap_object: string }>(
    db,
    `SELECT id, actor_id, ap_object FROM inbox WHERE ap_type = 'Question' AND voted_for_answers IS NOT NULL AND is_deleted = 0
       AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.inbox_object_id = inbox.id AND n.notification_type IS NULL)`,
  ).all();
  for (const row of candidates) {
    const poll = pollOf(JSON.parse(row.ap_object) as Json);
    if (!poll || !isClosed(poll, now)) continue;
    db.insert(notifications).values({ createdAt: now, notificationType: null, isNew: true, inboxObjectId: row.id, actorId: row.actor_id }).run();
  }
}

export interface PollLoop {
  start(): void;
  stop(): void;
  /** One sweep now (tests and the loop itself). */
  sweep(): SweepResult | null;
}

/** Sweeps every window, and right when the next poll ends. */
export function createPollLoop(deps: {
  db: Db;
  clock: () => Date;
  identity: () => LocalActor | null;
  log: (line: string) => void;
  windowMs?: number;
}): PollLoop {
  const windowMs = deps.windowMs ?? TALLY_WINDOW_MS;
  let timer: NodeJS.Timeout | null = null;
  let running = false;

  const sweep = (): SweepResult | null => {
    const local = deps.identity();
    return local ? sweepPolls(deps.db, local, deps.clock(), windowMs) : null;
  };

  const tick = () => {
    timer = null;
    if (!running) return;
    let wait = windowMs;
    try {
      const result = sweep();
      if (result?.nextEnd != null) wait = Math.min(wait, Math.max(result.nextEnd - deps.clock().getTime(), 0) + 50);
    } catch (error) {
      deps.log(`poll sweep failed: ${(error as Error)?.message ?? String(error)}`);
    }
    timer = setTimeout(tick, wait);
    timer.unref();
  };

  return {
    start() {
      if (running) return;
      running = true;
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    sweep,
  };
}
