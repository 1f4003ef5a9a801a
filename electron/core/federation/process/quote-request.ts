// QuoteRequest (FEP-044f): someone asks to quote one of the author's posts. Answered at once, by
// the policy the post advertises (quote-policy.ts): a live public or unlisted post of ours is
// quoted with approval — our Accept, whose `result` is the QuoteAuthorization it grants
// (quote-authorizations.ts), saved as an outbox row and queued to the requester's own inbox, as
// a Follow's Accept is; anything else (followers-only, direct, deleted, not ours, or a quoting
// post that does not quote it) gets a Reject. The request itself is kept as an inbox row, which
// the authorization rests on: an Undo of it, or a Delete of the quoting post, revokes it.
//
// Checked as Mastodon 4.5 checks it (activity/quote_request.rb): the request and the quoting
// post live on the requester's server; the quoting post — embedded, else fetched from there —
// is the requester's and quotes the post asked about. (A request relayed by someone else without
// the requester's signature never gets here: the preamble drops it, process/index.ts.)
//
// The author is told with a typeless notification (actor: the quoter, inbox object: the request,
// outbox object: the quoted post): the spec's types have no QUOTE, and a quote is not a MENTION
// (Mastodon's quote posts need not tag the quoted author; it has a `quote` notification of its
// own); as a Move's or a report's, the views word it by what the inbox object is
// (notifications/service.ts).
import { NotFoundError } from '../../errors';
import { notifications, type OutboxObject } from '../../../../db/schema';
import type { DbOrTx } from '../../../../db/client';
import { enqueueDeliveries } from '../../delivery/queue';
import { httpUrl, idOf, inboxOf, isObject, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { isCreatedBy } from '../objects';
import { allocatePublicId, saveOutboxObject } from '../outbox-store';
import { quoteRefusal } from '../quote-policy';
import { authorizationUrl, revokedByAuthor, standingAuthorization, toQuoteAnswer, type QuoteRequestRef } from '../quote-authorizations';
import { quotedIdOf } from '../quotes';
import { drop, originOf, processed, sameId, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { fetchRemoteObject } from './fetch';
import { findActivityAbout, findInbox, findOutbox, persistActivity } from './store';

export async function onQuoteRequested(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const quoted = httpUrl(idOf(r.activity.object));
  if (quoted === null) drop('QuoteRequest without the post it asks to quote (object)');
  const quoting = httpUrl(idOf(r.activity.instrument));
  if (quoting === null) drop('QuoteRequest without the quoting post (instrument)');
  const home = originOf(r.actor.apId);
  if (originOf(r.id) !== home) drop(`QuoteRequest ${r.id} is not on the server of its actor ${r.actor.apId}`);
  if (originOf(quoting) !== home) drop(`the quoting post ${quoting} is not on the server of ${r.actor.apId}`);
  const request: QuoteRequestRef = { id: r.id, actor: r.actor.apId, quoted, quoting };

  // Decided before the transaction, which cannot wait on the network.
  const refusal = quoteRefusal(findOutbox(deps.db, quoted)) ?? (await quotingRefusal(deps, r, request));
  return deps.db.transaction((tx) => {
    if (findInbox(tx, r.id)) drop('duplicate: already processed');
    const asked = persistActivity(tx, { object: r.activity, apId: r.id, actor: r.actor, now: r.now, activityObjectApId: quoted });
    const post = findOutbox(tx, quoted);
    // A Delete of the quoting post may have come first: there is nothing left to approve.
    const gone = findActivityAbout(tx, 'Delete', r.actor.apId, quoting) !== undefined ? 'the quoting post was deleted' : null;
    // The author took back the approval of this quote: asking again does not bring it back.
    const revoked = post !== undefined && revokedByAuthor(tx, post, request) ? 'the author revoked their approval of this quote' : null;
    const reason = refusal ?? gone ?? revoked;
    const answer = { local: deps.identity, request, requestRowId: asked.id, post, now: r.now, inbox: inboxOf(r.actor.apActor, false) };
    if (reason !== null || post === undefined) {
      answerQuoteRequest(tx, 'Reject', answer);
      return processed(asked.id);
    }
    // Asked again (a new request for the same quote): the standing authorization, no second one.
    const standing = standingAuthorization(tx, deps.identity, post, request);
    answerQuoteRequest(tx, 'Accept', { ...answer, stampUrl: standing ?? undefined });
    if (standing === null) {
      tx.insert(notifications).values({ createdAt: r.now, notificationType: null, isNew: true, actorId: r.actor.id, inboxObjectId: asked.id, outboxObjectId: post.id }).run();
    }
    return processed(asked.id);
  });
}

/** Why the quoting post does not qualify, or null: it is the requester's and quotes `quoted`.
 * Embedded, it is read as sent (the request is signed by its author); else fetched from its
 * server. One that cannot be had is refused; network trouble is retried. */
async function quotingRefusal(deps: ProcessDeps, r: Received, request: QuoteRequestRef): Promise<string | null> {
  let post: Json;
  if (isObject(r.activity.instrument) && sameId(idOf(r.activity.instrument), request.quoting)) {
    post = r.activity.instrument;
  } else {
    try {
      post = await fetchRemoteObject(deps.fed, request.quoting);
    } catch (error) {
      if (error instanceof NotFoundError) return `the quoting post is unavailable (${error.message})`;
      throw error;
    }
  }
  if (!isCreatedBy(post, request.actor)) return `the quoting post is not by ${request.actor}`;
  if (!sameId(quotedIdOf(post), request.quoted)) return `the quoting post does not quote ${request.quoted}`;
  return null;
}

interface AnswerInput {
  local: LocalActor;
  request: QuoteRequestRef;
  requestRowId: number;
  post: OutboxObject | undefined;
  now: Date;
  /** The requester's own inbox (never a shared one, as for a Follow's answer). */
  inbox: string | null;
  /** Accept: the standing authorization to repeat; without one, this Accept grants a new one. */
  stampUrl?: string;
}

/** Saves our Accept or Reject and queues it to the requester. */
function answerQuoteRequest(tx: DbOrTx, kind: 'Accept' | 'Reject', input: AnswerInput): OutboxObject {
  const publicId = allocatePublicId();
  const stampUrl = kind === 'Accept' ? (input.stampUrl ?? authorizationUrl(input.local, publicId)) : undefined;
  const answer = saveOutboxObject(tx, input.local, {
    publicId,
    apObject: toQuoteAnswer(kind, input.local, input.request, stampUrl),
    visibility: 'DIRECT',
    now: input.now,
    activityObjectApId: input.request.id,
    relatesToInboxObjectId: input.requestRowId,
    relatesToOutboxObjectId: input.post?.id ?? null,
  });
  if (input.inbox) enqueueDeliveries(tx, { outboxObjectId: answer.id, recipients: [input.inbox], now: input.now });
  return answer;
}
