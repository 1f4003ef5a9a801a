// Accept or Reject of one of OUR QuoteRequests (FEP-044f): the quoted post's author answers the
// author's quote. The answer is kept as an inbox row linked to our request; that is all a Reject
// does (the quote shows as not approved: quoting.ts quoteStateOf), but for dropping the
// `quoteAuthorization` an earlier Accept gave the post when the Reject is what the quote now
// reads. An Accept names, as `result`, the QuoteAuthorization its server serves; it is fetched
// and checked as Mastodon 4.5 checks it (activity/accept.rb accept_quote!, VerifyQuoteService):
// a QuoteAuthorization on the answerer's server, attributed to them, whose interactingObject is
// our quoting post and interactionTarget the quoted one. Then it becomes the quoting post's `quoteAuthorization`, and an Update tells
// everyone the post reached, so their servers show the quote as approved.
//
// The author is told when the answer changes where their quote stands (quoting.ts quoteStateOf:
// waiting → approved, or → refused) with a typeless notification (actor: the quoted post's
// author, inbox object: their answer, outbox object: our quoting post): the spec's types have no
// QUOTE, as for a quote of ours approved on the quoted side (quote-request.ts); the views word it
// by what the inbox object is (notifications/service.ts). An Accept of a quote the policy
// already approved (the usual Mastodon answer, seconds after posting) changes nothing the author
// sees, and tells them nothing. An author who keeps changing their mind (Accept, Reject, Accept…)
// tells the author once an hour at most per quote while they have not read it: within the hour,
// the unread notification already given is pointed at the newest answer instead (tellQuoteAnswer),
// so it says what the post shows; a change after the author read it is told anew.
import { and, eq, gt, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, notifications, outbox, type OutboxObject } from '../../../../db/schema';
import { NotFoundError } from '../../errors';
import { httpUrl, idOf, typeOf, type Json } from '../ap';
import { queuePostUpdate, type ApObject } from '../outbox';
import { quoteStateOf } from '../quoting';
import { drop, originOf, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { fetchRemoteObject } from './fetch';
import { findOutbox, persistActivity } from './store';

/** Our QuoteRequest an Accept or Reject answers (by id, embedded or not), or undefined. */
export function answeredQuoteRequest(deps: Pick<ProcessDeps, 'db'>, activity: Json): OutboxObject | undefined {
  const id = idOf(activity.object);
  const ours = id === null ? undefined : findOutbox(deps.db, id);
  return ours?.apType === 'QuoteRequest' ? ours : undefined;
}

export async function onQuoteAnswered(deps: ProcessDeps, r: Received, request: OutboxObject, answer: 'Accept' | 'Reject'): Promise<ProcessOutcome> {
  const asked = request.apObject as Json;
  const quoted = idOf(asked.object);
  const quoting = request.relatesToOutboxObjectId;
  // Only the author of the quoted post may answer (the one we asked).
  const askedWhom = idOf((asked.to as unknown[] | undefined)?.[0]);
  if (!sameId(askedWhom, r.actor.apId)) drop(`${answer} from ${r.actor.apId} of a QuoteRequest sent to ${askedWhom ?? 'nobody'}`);

  const stamp = answer === 'Accept' ? await verifiedAuthorization(deps, r, { quoted, quotingId: quoting }) : null;
  const outcome = deps.db.transaction((tx) => {
    const post = quoting === null ? undefined : tx.select().from(outbox).where(eq(outbox.id, quoting)).get();
    const live = post !== undefined && !post.isDeleted ? post : undefined;
    const was = live && quoteStateOf(tx, deps.identity.id, live, r.now);
    const row = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: request.apId, relatesToOutboxObjectId: request.id, relatesToInboxObjectId: null });
    if (live === undefined) return processed(row.id);
    let answered = live;
    if (stamp !== null) {
      const object = { ...(live.apObject as ApObject), quoteAuthorization: stamp };
      tx.update(outbox).set({ apObject: object, updatedAt: r.now }).where(eq(outbox.id, live.id)).run();
      // Not an edit by the author: the post keeps its `updated`; the Update is stamped now.
      queuePostUpdate(tx, deps.identity, { post: live, object, stamp: r.now.toISOString(), now: r.now });
      answered = { ...live, apObject: object };
    }
    const becomes = quoteStateOf(tx, deps.identity.id, answered, r.now);
    // Refused after an approval (Mastodon reads that as a revocation: Quote#reject!): the
    // authorization no longer stands, and is neither served nor sent with an edit.
    if (becomes === 'rejected' && idOf((live.apObject as Json).quoteAuthorization) !== null) {
      const { quoteAuthorization: _refused, ...object } = live.apObject as ApObject;
      tx.update(outbox).set({ apObject: object, updatedAt: r.now }).where(eq(outbox.id, live.id)).run();
    }
    if (becomes !== was && (becomes === 'approved' || becomes === 'rejected')) tellQuoteAnswer(tx, { actorId: r.actor.id, answerId: row.id, post: live, now: r.now });
    return processed(row.id);
  });
  return outcome.status === 'processed' ? { ...outcome, quoteAnswered: true } : outcome;
}

/** At most one notification of the answers to one quote of ours in this long. */
export const QUOTE_ANSWER_TOLD_EVERY_MS = 60 * 60 * 1000;

/** The activities a typeless notification of an answer to our quote is on: an Accept, a Reject,
 * or the Delete of an authorization (process/quote-revocation.ts). */
const ANSWER_TYPES = ['Accept', 'Reject', 'Delete'];

/**
 * Tells the author that the answer to their quote `post` changed what it shows: a typeless
 * notification on `answerId` (an inbox row of one of ANSWER_TYPES) — or, when one was given
 * about this post less than QUOTE_ANSWER_TOLD_EVERY_MS ago and is still unread, that one now
 * points at this answer: a quoted author flipping between Accept and Reject does not ring once
 * per flip, and what the notification says is still what the post shows. One the author has
 * read is left as it is, and the change gets a notification of its own (else a refusal or a
 * revocation right after an approval the author read would come unannounced).
 */
export function tellQuoteAnswer(tx: DbOrTx, told: { actorId: number; answerId: number; post: Pick<OutboxObject, 'id'>; now: Date }): void {
  const since = new Date(told.now.getTime() - QUOTE_ANSWER_TOLD_EVERY_MS);
  const recent = tx
    .select({ id: notifications.id })
    .from(notifications)
    .innerJoin(inbox, eq(inbox.id, notifications.inboxObjectId))
    // Unread only (a read one is left as it is), which the (is_new, created_at) index cuts out.
    .where(and(eq(notifications.isNew, true), gt(notifications.createdAt, since), eq(notifications.outboxObjectId, told.post.id), isNull(notifications.notificationType), inArray(inbox.apType, ANSWER_TYPES)))
    .get();
  // Only one not read yet: once the author has read what it said, a change is news again.
  if (recent !== undefined) {
    tx.update(notifications).set({ actorId: told.actorId, inboxObjectId: told.answerId }).where(eq(notifications.id, recent.id)).run();
    return;
  }
  tx.insert(notifications).values({ createdAt: told.now, notificationType: null, isNew: true, actorId: told.actorId, inboxObjectId: told.answerId, outboxObjectId: told.post.id }).run();
}

/** The Accept's QuoteAuthorization URL once fetched and checked, or null (kept, no effect). */
async function verifiedAuthorization(deps: ProcessDeps, r: Received, quote: { quoted: string | null; quotingId: number | null }): Promise<string | null> {
  const url = httpUrl(idOf(r.activity.result));
  if (url === null || quote.quoted === null || quote.quotingId === null) return null;
  if (originOf(url) !== originOf(r.actor.apId)) return null;
  const quoting = deps.db.select({ apId: outbox.apId }).from(outbox).where(eq(outbox.id, quote.quotingId)).get();
  if (quoting === undefined) return null;
  let stamp: Json;
  try {
    stamp = await fetchRemoteObject(deps.fed, url);
  } catch (error) {
    // Gone or refused: nothing approves the quote. Network trouble: retried by the inbox loop.
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  if (typeOf(stamp) !== 'QuoteAuthorization') return null;
  if (!sameId(idOf(stamp.attributedTo), r.actor.apId)) return null;
  if (!sameId(idOf(stamp.interactingObject), quoting.apId)) return null;
  if (!sameId(idOf(stamp.interactionTarget), quote.quoted)) return null;
  return url;
}
