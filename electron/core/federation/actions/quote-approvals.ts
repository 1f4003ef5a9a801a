// The author takes back the approval of one quote (FEP-044f revocation, Mastodon 4.5's
// RevokeQuoteService): a Delete of the QuoteAuthorization is saved as an outbox row and queued,
// and the Accept that minted the authorization is marked undone by it — which is what makes its
// URL answer 410 (quote-authorizations.ts) and keeps a not-yet-delivered Accept from going out
// (withheld.ts). Nothing of its own is stored.
//
// The Delete goes where Mastodon sends it: to the quoting post's author (their own inbox, as our
// Accept did) and to everyone our quoted post reaches (its audience: followers, mentions), so
// servers that show the quote under our post drop it too.
//
// A revoked quote stays refused when its author asks again (process/quote-request.ts), until the
// author allows it again (allowQuoteAgain): an Undo of the revoking Delete, addressed to no one
// and never sent, records it; the next request for that quote is approved by the post's policy,
// with a new authorization. The revoked one stays gone.
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../../db/client';
import { actor, inbox, outbox, type InboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { ConflictError, NotFoundError } from '../../errors';
import { inboxOf, type Json } from '../ap';
import { saveOutboxObject } from '../outbox-store';
import { approvalOfRequest, toAuthorizationDelete, type ApprovalState, type QuoteApproval } from '../quote-authorizations';
import { computeRecipients } from '../recipients';
import { requireLocal, type ActionDeps } from './deps';

export interface RevokedQuote {
  /** `revoked` (now, or already before: revoking twice changes nothing), or `ended` (it no
   * longer stood for another reason; nothing was sent). */
  approval: Exclude<ApprovalState, 'standing'>;
  /** Deliveries of the Delete queued by this call. */
  queued: number;
}

/** Revokes the approval our answer to this QuoteRequest (an inbox row id, the one the "quoted
 * your post" notification points at) gave. */
export function revokeQuoteApproval(deps: ActionDeps, requestRowId: number): RevokedQuote {
  const local = requireLocal(deps);
  const now = deps.clock();
  const result = deps.db.transaction((tx): RevokedQuote => {
    const { asked, approval } = approvalAsked(tx, requestRowId);
    if (approval === null) throw new ConflictError('This quote was never approved, so there is no approval to revoke.');
    if (approval.state !== 'standing') return { approval: approval.state, queued: 0 };

    const del = saveOutboxObject(tx, local, {
      apObject: toAuthorizationDelete(local, approval.stampUrl),
      visibility: 'PUBLIC',
      now,
      activityObjectApId: approval.stampUrl,
      relatesToInboxObjectId: approval.accept.relatesToInboxObjectId,
      relatesToOutboxObjectId: approval.accept.id,
    });
    // Every Accept naming this authorization (a repeated request's too): none of them may still
    // go out after the Delete.
    const postId = approval.accept.relatesToOutboxObjectId ?? -1;
    for (const accept of tx.select().from(outbox).where(and(eq(outbox.apType, 'Accept'), eq(outbox.relatesToOutboxObjectId, postId))).all()) {
      if ((accept.apObject as Json).result !== approval.stampUrl || accept.undoneByOutboxObjectId !== null) continue;
      tx.update(outbox).set({ undoneByOutboxObjectId: del.id, updatedAt: now }).where(eq(outbox.id, accept.id)).run();
    }
    const quoter = tx.select().from(actor).where(eq(actor.id, asked.actorId)).get();
    const quoted = tx.select().from(outbox).where(eq(outbox.id, postId)).get();
    const recipients = [
      ...(quoter ? [inboxOf(quoter.apActor as Json, false)] : []),
      ...(quoted ? computeRecipients(tx, local, quoted.apObject as Json) : []),
    ].filter((r): r is string => r !== null);
    return { approval: 'revoked', queued: enqueueDeliveries(tx, { outboxObjectId: del.id, recipients, now }) };
  });
  if (result.queued > 0) deps.wake();
  return result;
}

/** The QuoteRequest (an inbox row) a notification or a post's view names, and the approval our
 * answer to it gave (null: refused, or never answered). */
function approvalAsked(tx: DbOrTx, requestRowId: number): { asked: InboxObject; approval: QuoteApproval | null } {
  const asked = tx.select().from(inbox).where(eq(inbox.id, requestRowId)).get();
  if (asked === undefined || asked.apType !== 'QuoteRequest') throw new NotFoundError('There is no such quote.');
  return { asked, approval: approvalOfRequest(tx, asked.id) };
}

export interface AllowedQuote {
  /** False when the quote was already allowed again: nothing changed. */
  changed: boolean;
}

/** Lets a quote whose approval the author revoked (this QuoteRequest's, as quotes.revoke names
 * it) be approved again when its author asks anew. Nothing is sent: the quoter asks again. */
export function allowQuoteAgain(deps: ActionDeps, requestRowId: number): AllowedQuote {
  const local = requireLocal(deps);
  const now = deps.clock();
  return deps.db.transaction((tx): AllowedQuote => {
    const { asked, approval } = approvalAsked(tx, requestRowId);
    if (approval?.state !== 'revoked') throw new ConflictError('You did not revoke your approval of this quote, so there is nothing to allow again.');
    if (approval.allowedAgain) return { changed: false };
    const revocationId = approval.accept.undoneByOutboxObjectId;
    const revocation = revocationId === null ? undefined : tx.select().from(outbox).where(eq(outbox.id, revocationId)).get();
    // A revocation whose Delete is no longer stored (the user's own tools): nothing to undo.
    if (revocation === undefined) throw new NotFoundError('The revocation of this quote’s approval is no longer stored: it cannot be allowed again.');
    saveOutboxObject(tx, local, {
      // Addressed to no one, transient: never sent, never served (object-access.ts).
      apObject: { type: 'Undo', actor: local.id, to: [], object: revocation.apId },
      visibility: 'DIRECT',
      isTransient: true,
      now,
      activityObjectApId: revocation.apId,
      relatesToOutboxObjectId: revocation.id,
      relatesToInboxObjectId: asked.id,
    });
    return { changed: true };
  });
}
