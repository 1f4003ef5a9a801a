// The author's own quote posts (FEP-044f, as Mastodon 4.5 writes them). A quoting post names the
// quoted one under every name the families of servers read (quotes.ts reads them back): `quote`
// (FEP-044f, Mastodon, GoToSocial), `quoteUrl` (Misskey, Akkoma, Pleroma), `quoteUri`
// (Fedibird) and `_misskey_quote` (Misskey, Sharkey); its content ends with Mastodon's
// "RE: <link>" paragraph (class quote-inline) so servers that show no quotes show the link.
//
// Approval is asked of the quoted post's author with a QuoteRequest (an outbox row linked to the
// quoting post by relates_to_outbox_object_id). Their Accept or Reject is an inbox row linked to
// the request the same way; an Accept's QuoteAuthorization, once verified, becomes the quoting
// post's `quoteAuthorization` (process/quote-answer.ts). Nothing of its own is stored: where a
// quote stands (quoteStateOf) is read from those rows, and from the request's deliveries — a
// request delivered a day ago and still unanswered is `unanswered`, and the author may ask again
// (actions/quote-requests.ts: a new QuoteRequest; an answer to any of them counts). The quoted
// author may take an approval back by deleting its authorization: their Accept is then marked
// undone by that Delete and the post loses its `quoteAuthorization` (process/quote-revocation.ts).
// Rows → ActivityPub: quoteFields, withQuoteFallback, toQuoteRequest.
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { actor, following, inbox, outbox, outgoingActivity, type JsonValue, type OutboxObject } from '../../../db/schema';
import { summarizeActor, type ActorSummary } from './actor-summary';
import { asArray, idOf, isObject, PUBLIC, type Json } from './ap';
import type { LocalActor } from './identity';
import { quotedIdOf } from './quotes';

/** The JSON-LD terms of a quoting post (Mastodon 4.5's ContextHelper :quote, with Misskey's and
 * Fedibird's names): part of AP_CONTEXT, or a JSON-LD reader (Fedify's) drops them. */
export const QUOTE_TERMS = {
  quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
  quoteAuthorization: { '@id': 'https://w3id.org/fep/044f#quoteAuthorization', '@type': '@id' },
  quoteUrl: 'as:quoteUrl',
  quoteUri: 'http://fedibird.com/ns#quoteUri',
  _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
} as const;

/** The context of a QuoteRequest of ours: the terms of the quoting post it embeds, and the type. */
export const quoteRequestContext = (apContext: JsonValue): JsonValue => [...(asArray(apContext) as JsonValue[]), { QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest' }];

/** The fields that make a post quote `quotedId`. */
export function quoteFields(quotedId: string): Record<string, string> {
  return { quote: quotedId, quoteUrl: quotedId, quoteUri: quotedId, _misskey_quote: quotedId };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The content with Mastodon's fallback paragraph for servers that show no quotes. */
export function withQuoteFallback(html: string, quotedUrl: string): string {
  const url = escapeHtml(quotedUrl);
  return `${html}<p class="quote-inline">RE: <a href="${url}">${url}</a></p>`;
}

/** The QuoteRequest asking `quotedAuthor` to approve our `quoting` post. A public or unlisted
 * post is embedded with its id, as FEP-044f's example does (the quoted server need not fetch it);
 * any other is named by its id only — its text is for its audience, which the quoted author need
 * not be in, and their server fetches it only if our object access lets it. Mastodon 4.5 reads
 * the request's `object` and `instrument` (activity/quote_request.rb), fetching an instrument
 * given by id. */
export function toQuoteRequest(local: LocalActor, quoting: Json, quotedId: string, quotedAuthor: string, apContext: JsonValue, embed: boolean): Json {
  const { '@context': _ignored, ...embedded } = quoting;
  const instrument = embed ? embedded : quoting.id;
  return { '@context': quoteRequestContext(apContext), type: 'QuoteRequest', actor: local.id, to: [quotedAuthor], object: quotedId, instrument };
}

/** Whether the quoted post's quote policy approves our quote without asking anyone:
 * `canQuote.automaticApproval` (or FEP-044f's plain `canQuote.always`) names the public, us, or
 * the followers of its author when we follow them. No policy approves nothing. */
export function quotesAutomatically(db: DbOrTx, localId: string, quoted: Json, authorFollowers: string | null, authorId: string | null): boolean {
  const policy = isObject(quoted.interactionPolicy) ? quoted.interactionPolicy : null;
  const canQuote = policy !== null && isObject(policy.canQuote) ? policy.canQuote : null;
  if (canQuote === null) return false;
  const allowed = [...asArray(canQuote.automaticApproval), ...asArray(canQuote.always)].map(idOf).filter((id): id is string => id !== null);
  if (allowed.some((id) => id === PUBLIC || id === 'as:Public' || id === 'Public' || id.replace(/\/+$/, '') === localId.replace(/\/+$/, ''))) return true;
  if (authorFollowers === null || authorId === null || !allowed.includes(authorFollowers)) return false;
  return db.select({ id: following.id }).from(following).where(eq(following.apActorId, authorId)).get() !== undefined;
}

/** Where the approval of one of the author's quotes stands: approved (its own post quoted, the
 * policy approves it, or an authorization was verified), pending (asked, not answered yet),
 * unanswered (asked, and no answer a day after the request reached the quoted author's server,
 * or it could not be delivered: the author may ask again), rejected (the quoted post's author
 * said no: the quote is not shown), or revoked (they approved it, then deleted the
 * authorization: process/quote-revocation.ts; not shown either, as Mastodon 4.5 shows it). */
export type QuoteState = 'approved' | 'pending' | 'unanswered' | 'rejected' | 'revoked';

/** How long after our QuoteRequest reached the quoted author's server a quote waits for their
 * answer before it shows as unanswered. Servers that approve by policy (Mastodon 4.5) answer in
 * seconds, a person approving by hand (GoToSocial) within a day or so; a server that knows no
 * quote requests (Misskey, Pleroma, older Mastodon) never answers. An answer that comes later
 * still counts. */
export const QUOTE_ANSWER_WAIT_MS = 24 * 60 * 60 * 1000;

/** The QuoteRequests of ours for this quoting post, newest first. */
export function ourQuoteRequests(db: DbOrTx, post: Pick<OutboxObject, 'id'>): OutboxObject[] {
  return db
    .select()
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, post.id), eq(outbox.apType, 'QuoteRequest')))
    .orderBy(desc(outbox.id))
    .all();
}

/** The state of the quote one of the author's posts makes, or null when it quotes nothing. */
export function quoteStateOf(db: DbOrTx, localId: string, post: OutboxObject, now: Date): QuoteState | null {
  return quoteStandingOf(db, localId, post, now)?.state ?? null;
}

interface QuoteStanding {
  state: QuoteState;
  /** Our newest QuoteRequest, when the quoted post is someone else's. */
  request: OutboxObject | null;
}

function quoteStandingOf(db: DbOrTx, localId: string, post: OutboxObject, now: Date): QuoteStanding | null {
  const object = post.apObject as Json;
  const quoted = quotedIdOf(object);
  if (quoted === null) return null;
  const requests = ourQuoteRequests(db, post);
  const [request] = requests;
  if (request === undefined) return { state: 'approved', request: null };
  // The answer to the newest request answered (its newest): a late answer to an earlier request
  // counts while the later ones have none, and never outweighs an answer to a later one (a
  // server clearing a superseded request with a Reject after approving the new one).
  const answer = db
    .select({ type: inbox.apType, undoneBy: inbox.undoneByInboxObjectId })
    .from(inbox)
    .where(and(inArray(inbox.relatesToOutboxObjectId, requests.map((r) => r.id)), inArray(inbox.apType, ['Accept', 'Reject'])))
    .orderBy(desc(inbox.relatesToOutboxObjectId), desc(inbox.id))
    .get();
  if (answer?.type === 'Reject') return { state: 'rejected', request };
  // An Accept whose authorization its author deleted: revoked, whatever the policy says now.
  if (answer?.type === 'Accept' && answer.undoneBy !== null && undoneByDelete(db, answer.undoneBy)) return { state: 'revoked', request };
  if (idOf(object.quoteAuthorization) !== null) return { state: 'approved', request };
  const target = db.select().from(inbox).where(eq(inbox.apId, quoted)).get();
  if (target !== undefined && quotesAutomatically(db, localId, target.apObject as Json, followersOf(db, target.actorId), target.apActorId)) return { state: 'approved', request };
  return { state: waitedInVain(db, request, now) ? 'unanswered' : 'pending', request };
}

/** Whether the row that undid an answer is the Delete of its authorization (an Undo of the
 * Accept marks it undone too, and is no revocation Mastodon or the FEP knows). */
function undoneByDelete(db: DbOrTx, undoneBy: number): boolean {
  return db.select({ type: inbox.apType }).from(inbox).where(eq(inbox.id, undoneBy)).get()?.type === 'Delete';
}

/** When our QuoteRequest has waited long enough for an answer (ms since the epoch): delivered
 * QUOTE_ANSWER_WAIT_MS ago (or, never sent anywhere, written that long ago); -Infinity when the
 * delivery loop gave up on it; null while it is still on its way (offline, retrying): it waits. */
function answerDueAt(db: DbOrTx, request: OutboxObject): number | null {
  const deliveries = db
    .select({ isSent: outgoingActivity.isSent, isErrored: outgoingActivity.isErrored, lastTry: outgoingActivity.lastTry })
    .from(outgoingActivity)
    .where(eq(outgoingActivity.outboxObjectId, request.id))
    .all();
  if (deliveries.some((d) => d.isErrored)) return -Infinity;
  if (deliveries.some((d) => !d.isSent)) return null;
  const reached = Math.max(request.createdAt.getTime(), ...deliveries.map((d) => d.lastTry?.getTime() ?? 0));
  return reached + QUOTE_ANSWER_WAIT_MS;
}

function waitedInVain(db: DbOrTx, request: OutboxObject, now: Date): boolean {
  const due = answerDueAt(db, request);
  return due !== null && now.getTime() >= due;
}

/** When the author's quote `post`, pending now, turns unanswered if no answer comes; null when it
 * is not pending, or its request is still on its way (no time is set yet). */
export function unansweredAt(db: DbOrTx, localId: string, post: OutboxObject, now: Date): Date | null {
  const standing = quoteStandingOf(db, localId, post, now);
  if (standing?.state !== 'pending' || standing.request === null) return null;
  const due = answerDueAt(db, standing.request);
  return due === null ? null : new Date(due);
}

/** The followers collection an actor's document names. */
export function followersOf(db: DbOrTx, actorRowId: number): string | null {
  const row = db.select({ doc: actor.apActor }).from(actor).where(eq(actor.id, actorRowId)).get();
  return row ? idOf((row.doc as Json).followers) : null;
}

/** The quote state as optional fields of a post's view (ipc PostView.quoteState, and whom the
 * approval was asked of: PostView.quoteAskedOf). */
export function quoteStateField(db: DbOrTx, localId: string, post: OutboxObject, now: Date): { quoteState?: QuoteState; quoteAskedOf?: ActorSummary } {
  const standing = quoteStandingOf(db, localId, post, now);
  if (standing === null) return {};
  const askedId = standing.request?.relatesToActorId ?? null;
  const asked = askedId === null ? undefined : db.select().from(actor).where(eq(actor.id, askedId)).get();
  return { quoteState: standing.state, ...(asked ? { quoteAskedOf: summarizeActor(asked) } : {}) };
}
