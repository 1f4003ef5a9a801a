// Accept or Reject of one of OUR QuoteRequests (FEP-044f): the quoted post's author answers the
// author's quote. The answer is kept as an inbox row linked to our request; that is all a Reject
// does (the quote shows as not approved: quoting.ts quoteStateOf). An Accept names, as `result`,
// the QuoteAuthorization its server serves; it is fetched and checked as Mastodon 4.5 checks it
// (activity/accept.rb accept_quote!, VerifyQuoteService): a QuoteAuthorization on the answerer's
// server, attributed to them, whose interactingObject is our quoting post and interactionTarget
// the quoted one. Then it becomes the quoting post's `quoteAuthorization`, and an Update tells
// everyone the post reached, so their servers show the quote as approved.
import { eq } from 'drizzle-orm';
import { outbox, type OutboxObject } from '../../../../db/schema';
import { NotFoundError } from '../../errors';
import { httpUrl, idOf, typeOf, type Json } from '../ap';
import { queuePostUpdate, type ApObject } from '../outbox';
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
  return deps.db.transaction((tx) => {
    const row = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: request.apId, relatesToOutboxObjectId: request.id, relatesToInboxObjectId: null });
    const post = quoting === null ? undefined : tx.select().from(outbox).where(eq(outbox.id, quoting)).get();
    if (stamp === null || post === undefined || post.isDeleted) return processed(row.id);
    const object = { ...(post.apObject as ApObject), quoteAuthorization: stamp };
    tx.update(outbox).set({ apObject: object, updatedAt: r.now }).where(eq(outbox.id, post.id)).run();
    // Not an edit by the author: the post keeps its `updated`; the Update is stamped now.
    queuePostUpdate(tx, deps.identity, { post, object, stamp: r.now.toISOString(), now: r.now });
    return processed(row.id);
  });
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
