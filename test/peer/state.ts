// The in-memory state of one test peer, and the converters from that state to ActivityStreams
// objects (`toPerson`, `toNote`). Both the HTTP side (dispatchers, listeners) and the test-facing
// actions read and write this one object.
import type { Context } from '@fedify/fedify';
import {
  Endpoints,
  InteractionPolicy,
  InteractionRule,
  Note,
  Person,
  PUBLIC_COLLECTION,
  type Activity,
  type Announce,
  type Emoji,
  type Follow,
  type Hashtag,
  type Like,
  type Mention,
  type Recipient,
} from '@fedify/vocab';

/** Per-request data handed to Fedify: a copy of the incoming request, for re-verifying it. */
export interface RequestData {
  request: Request | null;
}

export type PeerContext = Context<RequestData>;

/** Fedify's Temporal.Instant, named without a global Temporal (Node 24 has none). */
export type Instant = NonNullable<Note['published']>;

export interface StoredNote {
  id: URL;
  content: string | null;
  /** Set for poll votes: the chosen option's name. */
  name: string | null;
  published: Instant;
  updated: Instant | null;
  to: URL[];
  cc: URL[];
  tags: (Mention | Hashtag | Emoji)[];
  inReplyTo: URL | null;
  /** Who got the Create; Update and Delete go to the same inboxes. */
  recipients: Recipient[];
  /** The FEP-044f quote policy it advertises: anyone approved at once ('public'), or everyone
   * asks and waits for the author ('manual'); none when unset. */
  quotePolicy?: 'public' | 'manual';
}

/** A QuoteAuthorization the peer granted (served at its id until revoked). */
export interface GrantedQuote {
  id: URL;
  interactingObject: URL;
  interactionTarget: URL;
}

export interface PeerState {
  identifier: string;
  profile: { name: string; summary: string; updated: Instant | null };
  manuallyApprovesFollowers: boolean;
  autoAcceptFollows: boolean;
  /** Other accounts this actor says it also is (`alsoKnownAs`), e.g. before a Move to it. */
  aliases: URL[];
  keyPairs: CryptoKeyPair[];
  /** Accepted followers by actor id. */
  followers: Map<string, Recipient>;
  /** Follow requests waiting for acceptFollow/rejectFollow (manual mode), by actor id. */
  followRequests: Map<string, { follow: Follow; follower: Recipient }>;
  /** Follows we sent, by target actor id, until Accept or Reject arrives. */
  pendingFollows: Map<string, Follow>;
  /** Accepted follows we sent, by target actor id (kept for Undo). */
  following: Map<string, Follow>;
  notes: Map<string, StoredNote>;
  likes: Map<string, Like>;
  announces: Map<string, Announce>;
  /** How QuoteRequests of our notes are answered (PeerOptions.quoteRequests). */
  quoteAnswer: 'accept' | 'reject' | 'ignore';
  /** QuoteAuthorizations granted, by id. */
  quoteAuthorizations: Map<string, GrantedQuote>;
  /** What we sent that belongs in the outbox (Creates, Announces), newest last. */
  outbox: Activity[];
  /** What arrived in the inboxes, as parsed activities, for the inbox collection. */
  inbox: Activity[];
}

export async function toPerson(ctx: PeerContext, state: PeerState): Promise<Person> {
  const keys = await ctx.getActorKeyPairs(state.identifier);
  return new Person({
    id: ctx.getActorUri(state.identifier),
    preferredUsername: state.identifier,
    name: state.profile.name,
    summary: state.profile.summary,
    url: ctx.getActorUri(state.identifier),
    inbox: ctx.getInboxUri(state.identifier),
    outbox: ctx.getOutboxUri(state.identifier),
    followers: ctx.getFollowersUri(state.identifier),
    following: ctx.getFollowingUri(state.identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    manuallyApprovesFollowers: state.manuallyApprovesFollowers,
    discoverable: true,
    aliases: state.aliases,
    updated: state.profile.updated,
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((key) => key.multikey),
  });
}

export function toNote(ctx: PeerContext, state: PeerState, note: StoredNote): Note {
  return new Note({
    id: note.id,
    attribution: ctx.getActorUri(state.identifier),
    content: note.content,
    name: note.name,
    published: note.published,
    updated: note.updated,
    tos: note.to,
    ccs: note.cc,
    tags: note.tags,
    replyTarget: note.inReplyTo,
    url: note.id,
    interactionPolicy: note.quotePolicy == null ? null : toQuotePolicy(ctx.getActorUri(state.identifier), note.quotePolicy),
  });
}

/** canQuote as Mastodon 4.5 writes it: 'public' approves everyone at once; 'manual' only the
 * author, everyone else waiting for their decision. */
function toQuotePolicy(author: URL, policy: 'public' | 'manual'): InteractionPolicy {
  const canQuote =
    policy === 'public'
      ? new InteractionRule({ automaticApprovals: [PUBLIC_COLLECTION] })
      : new InteractionRule({ automaticApprovals: [author], manualApprovals: [PUBLIC_COLLECTION] });
  return new InteractionPolicy({ canQuote });
}

export function isPublic(note: StoredNote): boolean {
  return [...note.to, ...note.cc].some((url) => url.href === PUBLIC_COLLECTION.href);
}

/**
 * Fedify wants Temporal.Instant values and Node 24 has no global Temporal. Rather than import
 * Fedify's polyfill as an undeclared dependency, let Fedify parse an ISO timestamp into one.
 */
export async function instant(date: Date = new Date()): Promise<Instant> {
  const probe = await Note.fromJsonLd({
    '@context': 'https://www.w3.org/ns/activitystreams',
    type: 'Note',
    published: date.toISOString(),
  });
  if (probe.published == null) throw new Error('Fedify did not parse a timestamp');
  return probe.published;
}

/** A short type name for an activity's type IRI: '…/activitystreams#Follow' → 'Follow'. */
export function shortTypeName(typeIri: URL): string {
  const text = typeIri.href;
  const cut = Math.max(text.lastIndexOf('#'), text.lastIndexOf('/'));
  return text.slice(cut + 1);
}
