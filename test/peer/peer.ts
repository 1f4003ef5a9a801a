// An independent ActivityPub server for Tern's interop tests, built on Fedify's own server API:
// Fedify signs, delivers, fetches and verifies. This file wires the server and the follow graph;
// posts.ts publishes and interacts. One actor per peer, plain http on 127.0.0.1, state in memory.
import { randomUUID } from 'node:crypto';
import { generateCryptoKeyPair, getDocumentLoader, signRequest, type Federation, type HttpMessageSignaturesSpec, type KvStore } from '@fedify/fedify';
import { Accept, Follow, isActor, QuoteAuthorization, Reject, Undo, type QuoteRequest, type Activity, type Actor, type Object as APObject, type Recipient } from '@fedify/vocab';
import { createPeerFederation, toRecipient } from './federation';
import { listenOnLoopback } from './http';
import { InboxLog, type ReceivedActivity, type ReceivedPredicate } from './inbox-log';
import * as posts from './posts';
import { fetchMedia, receivedAttachments, type ParsedAttachment } from './media';
import type { NoteInput, PeerRuntime, SentNote } from './posts';
import type { PeerContext, PeerState, RequestData } from './state';

export type { ReceivedActivity, ReceivedPredicate } from './inbox-log';
export type { AuthMethod, HttpSignatureReport, SignerReport } from './signer';
export type { Audience, NoteInput, SentNote } from './posts';
export type { ParsedAttachment } from './media';

export interface PeerOptions {
  /** The actor's preferredUsername and path segment; letters, digits, '_' and '-'. Default 'peer'. */
  name?: string;
  /** Only loopback is supported: the peer is for tests on this machine. */
  host?: '127.0.0.1';
  /** Default 0: the OS picks a free port. */
  port?: number;
  /** What the actor document advertises. Default: the opposite of autoAcceptFollows. */
  manuallyApprovesFollowers?: boolean;
  /** Accept every Follow at once (default), or keep it for acceptFollow()/rejectFollow(). */
  autoAcceptFollows?: boolean;
  /** Where to write one line per event; default silent (or stderr when TERN_PEER_LOG is set). */
  log?: (line: string) => void;
  /** "Authorized fetch", as GoToSocial always runs and Mastodon with AUTHORIZED_FETCH: the actor
   * and its notes are served only to a GET whose HTTP signature Fedify verifies (401 else). */
  authorizedFetch?: boolean;
  /** How a QuoteRequest of one of its notes is answered: Accept with a QuoteAuthorization the
   * peer serves (default), Reject, or not at all ('ignore', as a server without quotes).
   * Changed later with answerQuotesWith(). */
  quoteRequests?: 'accept' | 'reject' | 'ignore';
}

export interface Peer {
  readonly name: string;
  readonly origin: string;
  readonly actorId: string;
  readonly inboxUrl: string;
  readonly sharedInboxUrl: string;
  /** The RSA key's id (what HTTP signatures name as keyId). */
  readonly keyId: string;
  /** `@name@127.0.0.1:port`; WebFinger answers for it, but Fedify resolves acct: over https only. */
  readonly handle: string;
  /** Everything that arrived in either inbox, oldest first; live, never copied. */
  readonly received: ReceivedActivity[];
  /** Every request the peer's server answered, as `METHOD /path`, oldest first; live. */
  readonly served: string[];
  waitFor(predicate: ReceivedPredicate, timeoutMs?: number): Promise<ReceivedActivity>;
  /** Sends Follow; resolves with its id once delivered. following() lists the actor after Accept. */
  follow(actorUrl: string): Promise<string>;
  unfollow(actorUrl: string): Promise<string>;
  /** Manual mode: answer a Follow kept in pendingFollowRequests(). */
  acceptFollow(followerActorUrl: string): Promise<string>;
  rejectFollow(followerActorUrl: string): Promise<string>;
  pendingFollowRequests(): string[];
  /** How QuoteRequests arriving from now on are answered. */
  answerQuotesWith(kind: 'accept' | 'reject' | 'ignore'): void;
  /** The QuoteAuthorizations granted so far (their ids), oldest first. */
  quoteAuthorizations(): string[];
  createNote(input: NoteInput): Promise<SentNote>;
  updateNote(noteId: string, content: string): Promise<string>;
  deleteNote(noteId: string): Promise<string>;
  like(objectUrl: string, objectAuthorActorUrl: string): Promise<string>;
  unlike(objectUrl: string, objectAuthorActorUrl: string): Promise<string>;
  announce(objectUrl: string, authorActorUrl: string): Promise<string>;
  undoAnnounce(objectUrl: string, authorActorUrl: string): Promise<string>;
  updateProfile(profile: { name?: string; summary?: string }): Promise<string>;
  /** What the actor document lists as `alsoKnownAs` from now on (no Update is sent). */
  setAliases(actorUrls: string[]): void;
  /** A Mastodon-style poll vote: a Note with `name` = option and `inReplyTo` = the poll. */
  vote(questionUrl: string, authorActorUrl: string, optionName: string): Promise<SentNote>;
  /** Fetches and parses a remote object with Fedify (signed by this actor unless told not to); uncached. */
  lookup(url: string, options?: { signed?: boolean }): Promise<APObject | null>;
  /** Delivers any activity built by the test (use newId() for its id) to these actors' inboxes. */
  send(activity: Activity, recipientActorUrls: string[], options?: { preferSharedInbox?: boolean }): Promise<void>;
  /**
   * POSTs `body` (JSON as given, or a string sent byte for byte) with only an HTTP signature by
   * this actor's RSA key, made by Fedify's signRequest in the given spec (default RFC 9421): no
   * LD signature, no proof, no double knock. For replaying fixtures and probing a verifier.
   */
  postSigned(url: string, body: unknown, options?: { spec?: HttpMessageSignaturesSpec }): Promise<Response>;
  /** A fresh, unique id under this peer's actor: `${actorId}/${kind}/${uuid}`. */
  newId(kind: string): URL;
  /** Which HTTP signature spec the server at `url` last accepted from us (double knock), if any yet. */
  signatureSpecFor(url: string): Promise<HttpMessageSignaturesSpec | null>;
  followers(): string[];
  following(): string[];
  /** The attachments of a received Create/Update's object, as Fedify parses them (media.ts). */
  receivedAttachments(activityId: string): Promise<ParsedAttachment[]>;
  /** GETs a media URL: unsigned (as Mastodon fetches media) or signed by this actor. */
  fetchMedia(url: string, options?: { signed?: boolean }): Promise<Response>;
  close(): Promise<void>;
}

export async function startPeer(options: PeerOptions = {}): Promise<Peer> {
  const name = options.name ?? 'peer';
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new TypeError(`invalid peer name: ${name}`);
  const autoAcceptFollows = options.autoAcceptFollows ?? true;
  const log =
    options.log ?? (process.env.TERN_PEER_LOG ? (line: string) => console.error(`[peer ${name}] ${line}`) : () => {});

  const state: PeerState = {
    identifier: name,
    profile: { name: `Peer ${name}`, summary: `Fedify test peer ${name}`, updated: null },
    manuallyApprovesFollowers: options.manuallyApprovesFollowers ?? !autoAcceptFollows,
    autoAcceptFollows,
    aliases: [],
    // RSA for HTTP and LD signatures (what Mastodon-era servers verify), Ed25519 for FEP-8b32 proofs.
    keyPairs: await Promise.all([generateCryptoKeyPair('RSASSA-PKCS1-v1_5'), generateCryptoKeyPair('Ed25519')]),
    quoteAnswer: options.quoteRequests ?? 'accept',
    quoteAuthorizations: new Map(),
    followers: new Map(),
    followRequests: new Map(),
    pendingFollows: new Map(),
    following: new Map(),
    notes: new Map(),
    likes: new Map(),
    announces: new Map(),
    outbox: [],
    inbox: [],
  };
  const inboxLog = new InboxLog();

  // Work started by an incoming request but finished after its response (the auto-Accept).
  const tasks = new Set<Promise<void>>();
  const background = (what: string, task: () => Promise<unknown>): void => {
    const running: Promise<void> = task()
      .then(() => undefined, (error: unknown) => log(`${what} failed: ${errorText(error)}`))
      .finally(() => tasks.delete(running));
    tasks.add(running);
  };

  let wired: { federation: Federation<RequestData>; kv: KvStore } | null = null;
  const served: string[] = [];
  const server = await listenOnLoopback(async (request) => {
    served.push(`${request.method} ${new URL(request.url).pathname}`);
    if (wired == null) return new Response('peer starting', { status: 503 });
    // The copy lets listeners re-run Fedify's verifiers on the exact bytes that arrived.
    return await wired.federation.fetch(request, { contextData: { request: request.clone() } });
  }, options.port ?? 0);
  const origin = server.origin;
  const { federation, kv } = (wired = createPeerFederation({
    origin,
    state,
    inboxLog,
    log,
    authorizedFetch: options.authorizedFetch ?? false,
    onAutoAccept: (follow, follower) => background('Accept', () => answerFollow('accept', follow, follower)),
    onQuoteRequest: (request, requester) => background('quote answer', () => answerQuote(request, requester)),
  }));

  const context = (): PeerContext => federation.createContext(new URL(origin), { request: null });
  const me = (): URL => context().getActorUri(name);
  const newId = (kind: string): URL => new URL(`${me().href}/${kind}/${randomUUID()}`);

  async function deliver(activity: Activity, recipients: Recipient[], preferSharedInbox: boolean): Promise<void> {
    const unique = [...new Map(recipients.map((r) => [r.id?.href ?? '', r])).values()];
    if (unique.length === 0) return;
    await context().sendActivity({ identifier: name }, unique, activity, { preferSharedInbox });
    log(`sent ${activity.constructor.name} ${activity.id?.href ?? ''} to ${unique.map((r) => r.id?.href).join(', ')}`);
  }

  async function lookup(url: string, opts: { signed?: boolean } = {}): Promise<APObject | null> {
    const ctx = context();
    // Fedify's default loader caches documents for minutes; a test that just changed something
    // remotely must see the change, so look-ups go through uncached loaders.
    const documentLoader =
      opts.signed === false ? uncachedLoader() : await ctx.getDocumentLoader({ identifier: name });
    return await ctx.lookupObject(url, { documentLoader });
  }

  async function resolveActor(url: string): Promise<Actor> {
    const found = await lookup(url);
    if (!isActor(found) || found.id == null) throw new Error(`not an actor: ${url}`);
    return found;
  }

  /** Finds a map key for an actor URL as given, or as the actor's own id says (trailing slash…). */
  async function actorKey(map: Map<string, unknown>, url: string): Promise<string> {
    if (map.has(url)) return url;
    return (await resolveActor(url)).id?.href ?? url;
  }

  async function answerFollow(kind: 'accept' | 'reject', follow: Follow, follower: Recipient): Promise<string> {
    const values = { id: newId(kind === 'accept' ? 'accepts' : 'rejects'), actor: me(), object: follow, to: follower.id };
    const answer = kind === 'accept' ? new Accept(values) : new Reject(values);
    await deliver(answer, [follower], false);
    return values.id.href;
  }

  /** Answers a QuoteRequest as Mastodon 4.5 does: Accept whose `result` is the QuoteAuthorization
   * it now serves, or Reject; the request embedded either way. */
  async function answerQuote(request: QuoteRequest, requester: Recipient): Promise<string> {
    const quoting = request.instrumentId;
    const quoted = request.objectId;
    if (state.quoteAnswer === 'ignore') return '';
    if (state.quoteAnswer === 'reject' || quoting == null || quoted == null) {
      const reject = new Reject({ id: newId('rejects'), actor: me(), object: request, to: requester.id });
      await deliver(reject, [requester], false);
      return reject.id?.href ?? '';
    }
    const stampId = context().getObjectUri(QuoteAuthorization, { identifier: name, id: randomUUID() });
    state.quoteAuthorizations.set(stampId.href, { id: stampId, interactingObject: quoting, interactionTarget: quoted });
    const accept = new Accept({ id: newId('accepts'), actor: me(), object: request, to: requester.id, result: stampId });
    await deliver(accept, [requester], false);
    return accept.id?.href ?? '';
  }

  const runtime: PeerRuntime = { name, origin, state, context, me, newId, deliver, lookup, resolveActor, log };

  const peer: Peer = {
    name,
    origin,
    actorId: me().href,
    inboxUrl: context().getInboxUri(name).href,
    sharedInboxUrl: context().getInboxUri().href,
    keyId: (await context().getActorKeyPairs(name))[0]?.keyId.href ?? '',
    handle: `@${name}@${new URL(origin).host}`,
    received: inboxLog.entries,
    served,
    waitFor: (predicate, timeoutMs) => inboxLog.waitFor(predicate, timeoutMs),

    async follow(actorUrl) {
      const target = await resolveActor(actorUrl);
      const targetId = target.id as URL;
      const follow = new Follow({ id: newId('follows'), actor: me(), object: targetId, to: targetId });
      state.pendingFollows.set(targetId.href, follow);
      try {
        await deliver(follow, [toRecipient(target)], false);
      } catch (error) {
        state.pendingFollows.delete(targetId.href);
        throw error;
      }
      return follow.id?.href ?? '';
    },

    async unfollow(actorUrl) {
      const target = await resolveActor(actorUrl);
      const key = target.id?.href ?? actorUrl;
      const follow = state.following.get(key) ?? state.pendingFollows.get(key);
      if (follow == null) throw new Error(`not following ${actorUrl}`);
      const undo = new Undo({ id: newId('undos'), actor: me(), object: follow, to: target.id });
      await deliver(undo, [toRecipient(target)], false);
      state.following.delete(key);
      state.pendingFollows.delete(key);
      return undo.id?.href ?? '';
    },

    async acceptFollow(followerActorUrl) {
      const key = await actorKey(state.followRequests, followerActorUrl);
      const request = state.followRequests.get(key);
      if (request == null) throw new Error(`no follow request from ${followerActorUrl}`);
      state.followRequests.delete(key);
      state.followers.set(key, request.follower);
      return await answerFollow('accept', request.follow, request.follower);
    },

    async rejectFollow(followerActorUrl) {
      const key = await actorKey(state.followRequests, followerActorUrl);
      const request = state.followRequests.get(key);
      if (request == null) throw new Error(`no follow request from ${followerActorUrl}`);
      state.followRequests.delete(key);
      return await answerFollow('reject', request.follow, request.follower);
    },

    pendingFollowRequests: () => [...state.followRequests.keys()],
    answerQuotesWith(kind) {
      state.quoteAnswer = kind;
    },
    quoteAuthorizations: () => [...state.quoteAuthorizations.keys()],

    createNote: (input) => posts.createNote(runtime, input),
    updateNote: (noteId, content) => posts.updateNote(runtime, noteId, content),
    deleteNote: (noteId) => posts.deleteNote(runtime, noteId),
    like: (objectUrl, authorActorUrl) => posts.like(runtime, objectUrl, authorActorUrl),
    unlike: (objectUrl, authorActorUrl) => posts.unlike(runtime, objectUrl, authorActorUrl),
    announce: (objectUrl, authorActorUrl) => posts.announce(runtime, objectUrl, authorActorUrl),
    undoAnnounce: (objectUrl, authorActorUrl) => posts.undoAnnounce(runtime, objectUrl, authorActorUrl),
    updateProfile: (profile) => posts.updateProfile(runtime, profile),
    setAliases(actorUrls) {
      state.aliases = actorUrls.map((url) => new URL(url));
    },
    vote: (questionUrl, authorActorUrl, optionName) => posts.vote(runtime, questionUrl, authorActorUrl, optionName),

    lookup,

    async send(activity, recipientActorUrls, sendOptions = {}) {
      const recipients = await Promise.all(recipientActorUrls.map(resolveActor));
      await deliver(activity, recipients.map(toRecipient), sendOptions.preferSharedInbox ?? false);
    },

    newId,

    async postSigned(url, body, postOptions = {}) {
      const rsa = state.keyPairs[0];
      if (rsa == null) throw new Error('peer has no RSA key');
      const request = new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const signed = await signRequest(request, rsa.privateKey, new URL(peer.keyId), {
        spec: postOptions.spec ?? 'rfc9421',
      });
      return await fetch(signed);
    },

    async signatureSpecFor(url) {
      // Fedify remembers, per origin, the spec a server accepted (FederationKvPrefixes default).
      const spec = await kv.get<HttpMessageSignaturesSpec>(['_fedify', 'httpMessageSignaturesSpec', new URL(url).origin]);
      return spec ?? null;
    },

    followers: () => [...state.followers.keys()],
    following: () => [...state.following.keys()],
    receivedAttachments: (activityId) => receivedAttachments(state, activityId),
    fetchMedia: (url, mediaOptions = {}) => fetchMedia(state, peer.keyId, url, mediaOptions.signed ?? false),

    async close() {
      await Promise.allSettled([...tasks]);
      await server.close();
    },
  };

  log(`listening at ${peer.actorId}`);
  return peer;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function uncachedLoader() {
  return getDocumentLoader({ allowPrivateAddress: true });
}
