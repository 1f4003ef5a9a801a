// The quoted author takes back their approval of one of OUR quotes (FEP-044f revocation). Mastodon
// 4.5 revokes by sending a Delete whose object is the QuoteAuthorization — its id, or the
// authorization embedded (DeleteQuoteAuthorizationSerializer; its id is the authorization's with
// `#delete`) — from the quoted post's author, to the public and everyone the quote reached. It
// acts on it only when the actor is the quote's quoted account (activity/delete.rb revoke_quote:
// Quote.find_by(approval_uri:, quoted_account: @account)). So does Tern: the Delete counts when
// its actor is the one who accepted our QuoteRequest with that authorization as `result`, and the
// authorization is the one our post still holds as `quoteAuthorization`. Then their Accept is
// marked undone by the Delete (nothing of its own is stored: quoting.ts reads the quote as
// revoked from it), the post drops its `quoteAuthorization` — served without it from now on, and
// an edit sends no stale one — and the author is told (process/quote-answer.ts tellQuoteAnswer).
// Any other Delete is no revocation (process/delete.ts handles it as the Delete of a post).
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { inbox, outbox, type Actor, type InboxObject, type OutboxObject } from '../../../../db/schema';
import { idOf, originOf, type Json } from '../ap';
import type { ApObject } from '../outbox';
import { quoteStateOf } from '../quoting';
import { processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { tellQuoteAnswer } from './quote-answer';
import { persistActivity } from './store';

/** An authorization one of our quote posts holds, granted by an Accept of `actor`'s. */
export interface HeldAuthorization {
  stampUrl: string;
  post: OutboxObject;
  /** The Accepts (usually one) that named it as their `result`. */
  accepts: InboxObject[];
}

/** The authorization `stampUrl` that one of our live quote posts holds from `actor`'s Accept, or
 * null: an id on another server than the actor's, none of our requests asked them, or none of
 * their standing Accepts named it, or the post no longer holds it (revoked already, deleted). */
export function heldAuthorization(db: DbOrTx, actor: Pick<Actor, 'id' | 'apId'>, stampUrl: string): HeldAuthorization | null {
  // Verified on the answerer's server when accepted (quote-answer.ts verifiedAuthorization).
  if (originOf(stampUrl) === null || originOf(stampUrl) !== originOf(actor.apId)) return null;
  // Our requests to them: one per quote of theirs the author made (and each Ask again).
  const requests = db
    .select({ id: outbox.id, post: outbox.relatesToOutboxObjectId })
    .from(outbox)
    .where(and(eq(outbox.apType, 'QuoteRequest'), eq(outbox.relatesToActorId, actor.id)))
    .all();
  if (requests.length === 0) return null;
  const accepts = db
    .select()
    .from(inbox)
    .where(and(inArray(inbox.relatesToOutboxObjectId, requests.map((r) => r.id)), eq(inbox.apType, 'Accept'), eq(inbox.actorId, actor.id), isNull(inbox.undoneByInboxObjectId)))
    .all()
    .filter((accept) => idOf((accept.apObject as Json).result) === stampUrl);
  const postIds = new Set(accepts.map((accept) => requests.find((r) => r.id === accept.relatesToOutboxObjectId)?.post).filter((id): id is number => id != null));
  for (const postId of postIds) {
    const post = db.select().from(outbox).where(eq(outbox.id, postId)).get();
    if (post === undefined || post.isDeleted || idOf((post.apObject as Json).quoteAuthorization) !== stampUrl) continue;
    const granting = new Set(requests.filter((r) => r.post === postId).map((r) => r.id));
    return { stampUrl, post, accepts: accepts.filter((accept) => granting.has(accept.relatesToOutboxObjectId!)) };
  }
  return null;
}

/** The Delete of an authorization our post holds, by the actor who granted it: the quote is
 * revoked. */
export function onQuoteAuthorizationDeleted(deps: ProcessDeps, r: Received, held: HeldAuthorization): ProcessOutcome {
  const outcome = deps.db.transaction((tx) => {
    // Read again inside the transaction: an edit or another Delete may have come first.
    const post = tx.select().from(outbox).where(eq(outbox.id, held.post.id)).get();
    const row = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: held.stampUrl,
      relatesToInboxObjectId: held.accepts[0]!.id,
      relatesToOutboxObjectId: null,
    });
    if (post === undefined || post.isDeleted || idOf((post.apObject as Json).quoteAuthorization) !== held.stampUrl) return processed(row.id);
    const was = quoteStateOf(tx, deps.identity.id, post, r.now);
    tx.update(inbox)
      .set({ undoneByInboxObjectId: row.id, updatedAt: r.now })
      .where(inArray(inbox.id, held.accepts.map((accept) => accept.id)))
      .run();
    const { quoteAuthorization: _revoked, ...object } = post.apObject as ApObject;
    tx.update(outbox).set({ apObject: object, updatedAt: r.now }).where(eq(outbox.id, post.id)).run();
    const revoked = { ...post, apObject: object };
    if (quoteStateOf(tx, deps.identity.id, revoked, r.now) !== was) tellQuoteAnswer(tx, { actorId: r.actor.id, answerId: row.id, post, now: r.now });
    return processed(row.id);
  });
  return outcome.status === 'processed' ? { ...outcome, quoteAnswered: true } : outcome;
}
