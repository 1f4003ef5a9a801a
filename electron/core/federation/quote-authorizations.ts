// FEP-044f approval stamps, derived from the records the exchange leaves (nothing of its own is
// stored): the QuoteRequest is an inbox row, our answer an outbox row (Accept or Reject, like a
// Follow's), and a QuoteAuthorization is what an Accept's `result` names —
// <the Accept's id>/authorization. It stands while every record it rests on does: the Accept,
// the QuoteRequest (not undone, not deleted — a Delete of its actor marks it too), the quoted
// post (not deleted by the author), and the quoting post (no Delete of it by its author received,
// its stored copy not deleted, or its server confirmed it gone when someone else said so), and
// until the author revokes it (the minting Accept marked undone by the Delete of the
// authorization that says so: actions/quote-approvals.ts). Otherwise it is gone (410), as the
// FEP's revocation makes it. A quote the author revoked is refused when asked again, until they
// allow it again (an Undo of that Delete, linked to it, kept as a record sent to no one — the
// Delete itself still goes out, and the old authorization stays gone): then a new request is
// approved by the post's policy, with a new authorization.
// Rows → ActivityPub: toQuoteAnswer, toQuoteAuthorization, toAuthorizationDelete.
import { and, asc, desc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from '../../../db/client';
import { inbox, outbox, type InboxObject, type OutboxObject } from '../../../db/schema';
import { idOf, isObject, PUBLIC, str, typeOf, type Json } from './ap';
import type { LocalActor } from './identity';
import { QUOTE_POLICY_TERMS } from './quote-policy';
import { findActivityAbout, findInbox } from './process/store';

const AS = 'https://www.w3.org/ns/activitystreams';

/** The context of our Accept and Reject of a QuoteRequest (FEP-044f's examples, Mastodon 4.5's
 * ContextHelper :quote_requests). */
export const QUOTE_REQUEST_CONTEXT = [AS, { QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest' }];

/** The context of a QuoteAuthorization: the FEP's type and GoToSocial's two terms (Mastodon 4.5's
 * ContextHelper :quote_authorizations, with the FEP's `@type: @id` so JSON-LD readers see ids). */
export const QUOTE_AUTHORIZATION_CONTEXT = [
  AS,
  {
    QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization',
    gts: QUOTE_POLICY_TERMS.gts,
    interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' },
    interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' },
  },
];

const AUTHORIZATION_SUFFIX = '/authorization';

/** Where the authorization an Accept grants is served. */
export const authorizationUrl = (local: LocalActor, acceptPublicId: string): string => `${local.objectUrl(acceptPublicId)}${AUTHORIZATION_SUFFIX}`;

/** What our answer says it answers: the request, its actor, the quoted post and the quoting one. */
export interface QuoteRequestRef {
  id: string;
  actor: string;
  quoted: string;
  quoting: string;
}

/**
 * Accept (with the authorization as `result`) or Reject of a QuoteRequest, to its actor. The
 * request is embedded with its id: Mastodon looks it up by id (its activity_uri), else reads
 * the embedded `object` and `instrument` (activity/accept.rb accept_embedded_quote_request).
 */
export function toQuoteAnswer(kind: 'Accept' | 'Reject', local: LocalActor, request: QuoteRequestRef, stampUrl?: string): Json {
  return {
    '@context': QUOTE_REQUEST_CONTEXT,
    type: kind,
    actor: local.id,
    to: [request.actor],
    object: { id: request.id, type: 'QuoteRequest', actor: request.actor, object: request.quoted, instrument: request.quoting },
    ...(kind === 'Accept' && stampUrl ? { result: stampUrl } : {}),
  };
}

/** The request an answer of ours embeds, read back from its stored object. */
export function answeredRequest(answer: Pick<OutboxObject, 'apObject'>): QuoteRequestRef | null {
  const object = (answer.apObject as Json).object;
  if (!isObject(object) || typeOf(object) !== 'QuoteRequest') return null;
  const [id, actor, quoted, quoting] = [str(object.id), str(object.actor), str(object.object), str(object.instrument)];
  return id && actor && quoted && quoting ? { id, actor, quoted, quoting } : null;
}

/** The QuoteAuthorization an Accept of ours grants. It names the quoting post, never embeds it
 * (FEP-044f: no leak of what the stamp is about). */
export function toQuoteAuthorization(local: LocalActor, accept: OutboxObject, request: QuoteRequestRef): Json {
  return {
    '@context': QUOTE_AUTHORIZATION_CONTEXT,
    id: authorizationUrl(local, accept.publicId),
    type: 'QuoteAuthorization',
    attributedTo: local.id,
    interactingObject: request.quoting,
    interactionTarget: request.quoted,
  };
}

export type AuthorizationLookup =
  | { status: 'live'; accept: OutboxObject; request: QuoteRequestRef }
  | { status: 'gone'; accept: OutboxObject; request: QuoteRequestRef; reason: string }
  | { status: 'none' };

/** The Accept that minted the authorization at /o/<publicId>/authorization, if there is one
 * (a later Accept that repeats an existing authorization for a repeated request mints none). */
function mintingAccept(db: DbOrTx, local: LocalActor, publicId: string): { accept: OutboxObject; request: QuoteRequestRef } | null {
  const accept = db.select().from(outbox).where(eq(outbox.apId, local.objectUrl(publicId))).get();
  if (accept === undefined || accept.apType !== 'Accept') return null;
  const request = answeredRequest(accept);
  if (request === null || idOf((accept.apObject as Json).result) !== authorizationUrl(local, publicId)) return null;
  return { accept, request };
}

/** The authorization served at /o/<publicId>/authorization: live, gone (with why), or none. */
export function findQuoteAuthorization(db: DbOrTx, local: LocalActor, publicId: string): AuthorizationLookup {
  const minted = mintingAccept(db, local, publicId);
  if (minted === null) return { status: 'none' };
  const reason = revocationOf(db, minted.accept, minted.request);
  return reason === null ? { status: 'live', ...minted } : { status: 'gone', ...minted, reason };
}

/** Why an authorization no longer stands, or null while it does. */
function revocationOf(db: DbOrTx, accept: OutboxObject, request: QuoteRequestRef): string | null {
  if (accept.isDeleted || accept.undoneByOutboxObjectId !== null) return 'the author revoked the approval';
  const asked = accept.relatesToInboxObjectId === null ? undefined : db.select().from(inbox).where(eq(inbox.id, accept.relatesToInboxObjectId)).get();
  if (asked === undefined || asked.undoneByInboxObjectId !== null) return 'the quote request was withdrawn';
  if (asked.isDeleted) return 'the quote request was deleted (or its author)';
  const quoted = accept.relatesToOutboxObjectId === null ? undefined : db.select().from(outbox).where(eq(outbox.id, accept.relatesToOutboxObjectId)).get();
  if (quoted === undefined || quoted.isDeleted) return 'the quoted post was deleted';
  if (findActivityAbout(db, 'Delete', asked.apActorId, request.quoting) !== undefined) return 'the quoting post was deleted';
  if (confirmedDeleteOf(db, request.quoting) !== undefined) return 'the quoting post was deleted';
  if (findInbox(db, request.quoting)?.isDeleted === true) return 'the quoting post was deleted';
  return null;
}

/** The authorization already standing for this quote (the same actor, quoting post and post of
 * ours): a repeated request is answered with it rather than a second one. */
export function standingAuthorization(db: DbOrTx, local: LocalActor, post: OutboxObject, request: Pick<QuoteRequestRef, 'actor' | 'quoting'>): string | null {
  const accepts = db
    .select()
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, post.id), eq(outbox.apType, 'Accept'), eq(outbox.isDeleted, false), isNull(outbox.undoneByOutboxObjectId)))
    .all();
  for (const accept of accepts) {
    const answered = answeredRequest(accept);
    if (answered === null || answered.actor !== request.actor || answered.quoting !== request.quoting) continue;
    if (idOf((accept.apObject as Json).result) !== authorizationUrl(local, accept.publicId)) continue;
    if (revocationOf(db, accept, answered) === null) return authorizationUrl(local, accept.publicId);
  }
  return null;
}

/** Whether the author revoked an approval of this very quote (this quoting post, of this post, by
 * this requester) and has not allowed it again since: asked again, it is refused, not approved
 * anew by the post's policy. */
export function revokedByAuthor(db: DbOrTx, post: OutboxObject, request: Pick<QuoteRequestRef, 'actor' | 'quoting'>): boolean {
  const revoked = db
    .select()
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, post.id), eq(outbox.apType, 'Accept'), isNotNull(outbox.undoneByOutboxObjectId)))
    .all();
  return revoked.some((accept) => {
    const answered = answeredRequest(accept);
    return answered !== null && answered.actor === request.actor && answered.quoting === request.quoting && allowanceOf(db, accept.undoneByOutboxObjectId!) === undefined;
  });
}

/** The author's leave to approve again a quote they revoked: an Undo of the revoking Delete
 * (actions/quote-approvals.ts allowQuoteAgain), or undefined. */
function allowanceOf(db: DbOrTx, revocationId: number): OutboxObject | undefined {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, revocationId), eq(outbox.apType, 'Undo')))
    .get();
}

/** A Delete of the quoting post said by someone else than its author (a relay's, a moderator's)
 * that its server confirmed (404, 410, a Tombstone): stored linked to a QuoteRequest for that post
 * (process/delete.ts), which a Delete is linked to on no other occasion. */
function confirmedDeleteOf(db: DbOrTx, quoting: string): InboxObject | undefined {
  const asked = alias(inbox, 'asked');
  return db
    .select({ del: inbox })
    .from(inbox)
    .innerJoin(asked, eq(asked.id, inbox.relatesToInboxObjectId))
    .where(and(eq(inbox.apType, 'Delete'), eq(inbox.activityObjectApId, quoting), eq(asked.apType, 'QuoteRequest')))
    .get()?.del;
}

/** The QuoteRequests (inbox rows) whose quoting post is `quoting`, oldest first. */
export function requestsQuoting(db: DbOrTx, quoting: string): InboxObject[] {
  const instrument = sql`coalesce(json_extract(${inbox.apObject}, '$.instrument.id'), json_extract(${inbox.apObject}, '$.instrument'))`;
  return db
    .select()
    .from(inbox)
    .where(and(eq(inbox.apType, 'QuoteRequest'), sql`${instrument} = ${quoting}`))
    .orderBy(asc(inbox.id))
    .all();
}

/** Where the approval of one quote stands: `standing` (its authorization is served), `revoked`
 * (by the author), `ended` (gone for another reason: the quoting or quoted post deleted, the
 * request withdrawn). */
export type ApprovalState = 'standing' | 'revoked' | 'ended';

export interface QuoteApproval {
  state: ApprovalState;
  /** Revoked, and the author allowed the quote again since (a new request is approved). */
  allowedAgain: boolean;
  stampUrl: string;
  /** The Accept that minted the authorization. */
  accept: OutboxObject;
  request: QuoteRequestRef;
}

/** The approval an answer of ours to this QuoteRequest (inbox row) gave, or null when it was
 * refused (a Reject) or never answered. A repeated request's Accept names the standing
 * authorization, minted by an earlier Accept: that one is looked at. */
export function approvalOfRequest(db: DbOrTx, requestRowId: number): QuoteApproval | null {
  const answer = db
    .select()
    .from(outbox)
    .where(and(eq(outbox.apType, 'Accept'), eq(outbox.relatesToInboxObjectId, requestRowId)))
    .orderBy(desc(outbox.id))
    .get();
  const stampUrl = answer === undefined ? null : idOf((answer.apObject as Json).result);
  if (stampUrl === null || !stampUrl.endsWith(AUTHORIZATION_SUFFIX)) return null;
  const accept = db.select().from(outbox).where(eq(outbox.apId, stampUrl.slice(0, -AUTHORIZATION_SUFFIX.length))).get();
  const request = accept === undefined || accept.apType !== 'Accept' ? null : answeredRequest(accept);
  if (accept === undefined || request === null || idOf((accept.apObject as Json).result) !== stampUrl) return null;
  const state: ApprovalState = accept.undoneByOutboxObjectId !== null ? 'revoked' : revocationOf(db, accept, request) === null ? 'standing' : 'ended';
  const allowedAgain = accept.undoneByOutboxObjectId !== null && allowanceOf(db, accept.undoneByOutboxObjectId) !== undefined;
  return { state, allowedAgain, stampUrl, accept, request };
}

/** A quoter's requests looked at for one post's approval (quoteApprovalField), newest first: an
 * actor asks once per quote, and again when the author revoked or did not answer. */
const REQUESTS_LOOKED_AT = 20;
/** A QuoteRequest longer than this (bytes of JSON) is not read for its instrument there: a real
 * one is a few KB, and its author may have sent thousands. */
const MAX_REQUEST_BYTES = 16 * 1024;
const INSTRUMENT_SQL = sql.raw(
  `CASE WHEN octet_length(ap_object) <= ${MAX_REQUEST_BYTES} THEN coalesce(json_extract(ap_object, '$.instrument.id'), json_extract(ap_object, '$.instrument')) END`,
);

/** A received post's quote (of `quoted`) of one of our posts, as the author may act on it (revoke,
 * allow again): the newest of its author's requests for it that we approved (one refused since,
 * because the author had revoked it, leaves the revoked one the newest); nothing when it quotes
 * none of our posts, or we never approved it. The post's view carries it (ipc PostView.quoteApproval).
 * Bounded whatever was received: only the quoter's own requests about that post of ours are
 * read (ix_inbox_relates_to_outbox_object_counts), the newest REQUESTS_LOOKED_AT of them. */
export function quoteApprovalField(
  db: DbOrTx,
  post: InboxObject,
  quoted: string,
  budget: { left: number },
): { quoteApproval?: { inboxObjectId: number; state: ApprovalState; allowedAgain: boolean } } {
  const ours = db.select({ id: outbox.id }).from(outbox).where(eq(outbox.apId, quoted)).get();
  if (ours === undefined || budget.left <= 0) return {};
  budget.left--;
  // Every column of the index equal (is_deleted too: the plan is then a covering seek with no
  // sort; without it, every stored QuoteRequest was walked through ix_inbox_ap_type).
  const asked = db
    .select({ id: inbox.id, instrument: sql<unknown>`${INSTRUMENT_SQL}` })
    .from(inbox)
    .where(and(eq(inbox.relatesToOutboxObjectId, ours.id), eq(inbox.apType, 'QuoteRequest'), eq(inbox.isDeleted, false), eq(inbox.actorId, post.actorId)))
    .orderBy(desc(inbox.id))
    .limit(REQUESTS_LOOKED_AT)
    .all();
  for (const request of asked) {
    if (request.instrument !== post.apId) continue;
    const approval = approvalOfRequest(db, request.id);
    if (approval !== null) return { quoteApproval: { inboxObjectId: request.id, state: approval.state, allowedAgain: approval.allowedAgain } };
  }
  return {};
}

/** The Delete of a QuoteAuthorization the author revokes, as Mastodon 4.5 sends it
 * (DeleteQuoteAuthorizationSerializer: the authorization's id as object, addressed to the public)
 * so servers that showed the quote drop it. Sent in Tern's usual context (AP_CONTEXT), LD-signed as
 * every public Delete of ours (Mastodon signs it too: always_sign). */
export function toAuthorizationDelete(local: LocalActor, stampUrl: string): Json {
  return { type: 'Delete', actor: local.id, to: [PUBLIC], object: stampUrl };
}
