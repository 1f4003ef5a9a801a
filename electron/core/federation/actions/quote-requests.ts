// The author asks again for the approval of one of their quotes (FEP-044f) when the quoted post's
// author never answered (quoting.ts: `unanswered`, a day after the request reached their server,
// or a request that could not be delivered): a new QuoteRequest, with an id of its own, to the
// same person, as the first was sent (compose.ts requestQuote). An answer to either counts.
// A quote still waiting, approved, refused or revoked is not asked about again.
import { eq } from 'drizzle-orm';
import { actor, inbox, type OutboxObject } from '../../../../db/schema';
import { ConflictError } from '../../errors';
import { inboxOf, type Json } from '../ap';
import { ourQuoteRequests, quoteStateOf } from '../quoting';
import { quotedIdOf } from '../quotes';
import { findOwnPost, requestQuote } from './compose';
import { requireLocal, type ActionDeps } from './deps';

/** Asked again at most this often: a request refused at once by a server that knows no quote
 * requests (an HTTP 4xx, given up on) leaves the quote unanswered at once, and each click would
 * send another. */
export const ASK_AGAIN_EVERY_MS = 60 * 60 * 1000;

const NOT_NOW = {
  approved: 'This quote is already approved: there is nothing to ask.',
  rejected: 'The quoted post’s author refused this quote; Tern does not ask them again.',
  pending: 'Tern is still waiting for an answer to this quote; you can ask again if none comes within a day.',
  revoked: 'The quoted post’s author approved this quote, then took their approval back; Tern does not ask them again.',
} as const;

/** Sends a new QuoteRequest for the author's quote post `apId`; returns the post. */
export function askQuoteAgain(deps: ActionDeps, apId: string): OutboxObject {
  const local = requireLocal(deps);
  const now = deps.clock();
  const post = deps.db.transaction((tx) => {
    const post = findOwnPost(tx, apId);
    const state = quoteStateOf(tx, local.id, post, now);
    const [last] = ourQuoteRequests(tx, post);
    if (state === null) throw new ConflictError('That post quotes nothing.');
    if (last === undefined) throw new ConflictError('That post quotes one of your own: there is no one to ask.');
    if (state !== 'unanswered') throw new ConflictError(NOT_NOW[state]);
    if (now.getTime() - last.createdAt.getTime() < ASK_AGAIN_EVERY_MS) {
      throw new ConflictError('Tern asked for this quote’s approval less than an hour ago; try again later.');
    }
    const quoted = quotedIdOf(post.apObject as Json)!;
    const quotedRow = tx.select({ isDeleted: inbox.isDeleted }).from(inbox).where(eq(inbox.apId, quoted)).get();
    if (quotedRow?.isDeleted) throw new ConflictError('The quoted post was deleted: there is nothing to ask about.');
    const author = last.relatesToActorId === null ? undefined : tx.select().from(actor).where(eq(actor.id, last.relatesToActorId)).get();
    if (author === undefined) throw new ConflictError('The author of the quoted post is no longer known to Tern: quote it anew.');
    const target = { apId: quoted, own: false, author: { apId: author.apId, rowId: author.id, inbox: inboxOf(author.apActor as Json, false) }, inboxRowId: last.relatesToInboxObjectId };
    requestQuote(tx, local, { post, quoted: target, now });
    return post;
  });
  deps.wake();
  return post;
}
