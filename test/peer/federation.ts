// The peer's Fedify server side: dispatchers for the actor, its keys, notes and collections, and
// inbox listeners that record every verified activity and keep the follow graph. Fedify verifies
// every incoming activity before a listener runs (HTTP signature, LD signature or proof) and
// answers 401 when none verifies.
import { createFederation, MemoryKvStore, type Federation, type InboxContext, type KvStore, type RequestContext } from '@fedify/fedify';
import {
  Accept,
  Activity,
  Announce,
  Create,
  Delete,
  Follow,
  getTypeId,
  Like,
  Note,
  QuoteAuthorization,
  QuoteRequest,
  Reject,
  Undo,
  Update,
  type Actor,
  type Recipient,
} from '@fedify/vocab';
import type { InboxLog } from './inbox-log';
import { describeSigner, memoryKeyCache } from './signer';
import { shortTypeName, toNote, toPerson, type PeerState, type RequestData } from './state';

export interface PeerFederationDeps {
  origin: string;
  state: PeerState;
  inboxLog: InboxLog;
  log: (line: string) => void;
  /** Serve the actor and notes only to GETs signed by a key Fedify verifies (PeerOptions). */
  authorizedFetch: boolean;
  /** Called for a Follow of our actor that arrives while follows are auto-accepted. */
  onAutoAccept: (follow: Follow, follower: Recipient) => void;
  /** Called for a QuoteRequest of one of our notes, to answer it (PeerOptions.quoteRequests). */
  onQuoteRequest: (request: QuoteRequest, requester: Recipient) => void;
}

export interface PeerFederation {
  federation: Federation<RequestData>;
  kv: KvStore;
}

export function createPeerFederation(deps: PeerFederationDeps): PeerFederation {
  const { state, inboxLog, log } = deps;
  const kv = new MemoryKvStore();
  const keyCache = memoryKeyCache();
  const federation = createFederation<RequestData>({
    kv,
    // No queue: sendActivity() delivers before it resolves and throws if the recipient refuses,
    // and inbox listeners run inside the POST, so a test can await both.
    origin: deps.origin,
    // Test only: Fedify refuses loopback and private addresses (SSRF guard) unless told otherwise.
    allowPrivateAddress: true,
  });

  // Authorized fetch: Fedify verifies the GET's signature and fetches the signer's key (401 when
  // either fails). Every GET is logged with its verdict.
  const signedGet = async (ctx: RequestContext<RequestData>): Promise<boolean> => {
    if (!deps.authorizedFetch) return true;
    const owner = await ctx.getSignedKeyOwner();
    deps.log(`GET ${ctx.url.pathname}: ${owner === null ? 'refused, no verified signature' : `signed by ${owner.id?.href}`}`);
    return owner !== null;
  };

  federation
    .setActorDispatcher('/users/{identifier}', (ctx, identifier) =>
      identifier === state.identifier ? toPerson(ctx, state) : null,
    )
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier === state.identifier ? state.keyPairs : []))
    .authorize((ctx) => signedGet(ctx));

  federation
    .setObjectDispatcher(Note, '/users/{identifier}/notes/{id}', (ctx, values) => {
      const note = state.notes.get(ctx.getObjectUri(Note, values).href);
      return values.identifier === state.identifier && note != null ? toNote(ctx, state, note) : null;
    })
    .authorize((ctx) => signedGet(ctx));

  // The QuoteAuthorizations the peer granted, as Mastodon serves them (FEP-044f stamps).
  federation.setObjectDispatcher(QuoteAuthorization, '/users/{identifier}/quote-authorizations/{id}', (ctx, values) => {
    const granted = state.quoteAuthorizations.get(ctx.getObjectUri(QuoteAuthorization, values).href);
    if (values.identifier !== state.identifier || granted == null) return null;
    return new QuoteAuthorization({
      id: granted.id,
      attribution: ctx.getActorUri(state.identifier),
      interactingObject: granted.interactingObject,
      interactionTarget: granted.interactionTarget,
    });
  });

  federation.setOutboxDispatcher('/users/{identifier}/outbox', (_ctx, identifier) =>
    identifier === state.identifier ? { items: [...state.outbox].reverse() } : null,
  );
  federation.setInboxDispatcher('/users/{identifier}/inbox', (_ctx, identifier) =>
    identifier === state.identifier ? { items: [...state.inbox].reverse() } : null,
  );
  federation
    .setFollowersDispatcher('/users/{identifier}/followers', (_ctx, identifier) =>
      identifier === state.identifier ? { items: [...state.followers.values()] } : null,
    )
    .setCounter((_ctx, identifier) => (identifier === state.identifier ? state.followers.size : null));
  federation
    .setFollowingDispatcher('/users/{identifier}/following', (_ctx, identifier) =>
      identifier === state.identifier ? { items: [...state.following.keys()].map((id) => new URL(id)) } : null,
    )
    .setCounter((_ctx, identifier) => (identifier === state.identifier ? state.following.size : null));

  async function record(ctx: InboxContext<RequestData>, activity: Activity): Promise<void> {
    const request = ctx.data.request;
    let raw: unknown = null;
    if (request != null) {
      try {
        raw = JSON.parse(await request.clone().text());
      } catch {
        raw = null; // Fedify already answered 400 to bodies that are not JSON; this is belt and braces
      }
    }
    const actorId = activity.actorId?.href ?? null;
    const signer = await describeSigner({
      request,
      raw,
      actorId,
      loaders: { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader },
      keyCache,
    });
    let json: Record<string, unknown>;
    try {
      json = (await activity.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader })) as Record<string, unknown>;
    } catch (error) {
      // Still record what arrived; a test can read `raw` even when Fedify cannot re-serialize it.
      log(`could not compact ${activity.id?.href ?? 'an activity'}: ${error instanceof Error ? error.message : String(error)}`);
      json = typeof raw === 'object' && raw != null ? (raw as Record<string, unknown>) : {};
    }
    state.inbox.push(activity);
    const entry = inboxLog.record({
      type: shortTypeName(getTypeId(activity)),
      id: activity.id?.href ?? null,
      actorId,
      objectId: activity.objectId?.href ?? null,
      json,
      raw,
      inbox: ctx.recipient == null ? 'shared' : 'personal',
      signer,
      receivedAt: new Date(),
    });
    log(`received ${entry.type} ${entry.id ?? ''} from ${actorId ?? '?'} (${signer.verifiedBy ?? 'unverified'})`);
  }

  function isOurActor(ctx: InboxContext<RequestData>, uri: URL | null): boolean {
    const parsed = ctx.parseUri(uri);
    return parsed?.type === 'actor' && parsed.identifier === state.identifier;
  }

  // Each listener applies its effect first and records last, so that a test woken by waitFor()
  // already sees the effect (followers(), following()). Recording happens even if the effect fails.
  const effectThenRecord =
    <T extends Activity>(effect: (ctx: InboxContext<RequestData>, activity: T) => Promise<void>) =>
    async (ctx: InboxContext<RequestData>, activity: T): Promise<void> => {
      try {
        await effect(ctx, activity);
      } finally {
        await record(ctx, activity);
      }
    };

  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .on(
      Follow,
      effectThenRecord(async (ctx, follow: Follow) => {
        if (!isOurActor(ctx, follow.objectId)) return;
        const follower = await follow.getActor(ctx);
        if (follower?.id == null) return;
        const recipient = toRecipient(follower);
        if (state.autoAcceptFollows) {
          state.followers.set(follower.id.href, recipient);
          deps.onAutoAccept(follow, recipient);
        } else {
          state.followRequests.set(follower.id.href, { follow, follower: recipient });
        }
      }),
    )
    .on(
      Accept,
      effectThenRecord(async (_ctx, accept: Accept) => {
        const actorId = accept.actorId?.href;
        const pending = actorId == null ? undefined : state.pendingFollows.get(actorId);
        // The Accept must name our Follow (by id, or embedded with its id); a bare Accept is ignored.
        if (actorId != null && pending != null && accept.objectId?.href === pending.id?.href) {
          state.pendingFollows.delete(actorId);
          state.following.set(actorId, pending);
        }
      }),
    )
    .on(
      Reject,
      effectThenRecord(async (_ctx, reject: Reject) => {
        const actorId = reject.actorId?.href;
        if (actorId == null) return;
        state.pendingFollows.delete(actorId);
        state.following.delete(actorId);
      }),
    )
    .on(
      Undo,
      effectThenRecord(async (ctx, undo: Undo) => {
        const actorId = undo.actorId?.href;
        if (actorId == null) return;
        const object = await undo.getObject(ctx).catch(() => null);
        if (object instanceof Follow) {
          state.followers.delete(actorId);
          state.followRequests.delete(actorId);
        }
      }),
    )
    .on(
      Delete,
      effectThenRecord(async (_ctx, del: Delete) => {
        // A Delete whose object is its own actor is an account deletion: drop the relationship.
        const actorId = del.actorId?.href;
        if (actorId != null && del.objectId?.href === actorId) {
          state.followers.delete(actorId);
          state.following.delete(actorId);
        }
      }),
    )
    .on(
      QuoteRequest,
      effectThenRecord(async (ctx, request: QuoteRequest) => {
        const quoted = request.objectId?.href;
        if (quoted == null || !state.notes.has(quoted)) return;
        const requester = await request.getActor(ctx);
        if (requester?.id == null) return;
        deps.onQuoteRequest(request, toRecipient(requester));
      }),
    )
    .on(Create, record)
    .on(Update, record)
    .on(Like, record)
    .on(Announce, record)
    // Everything else (EmojiReact, Block, Move, Flag, Add, ...) is still recorded, never dropped.
    .on(Activity, record)
    .onError((_ctx, error) => {
      log(`inbox listener failed: ${error.message}`);
    });

  return { federation, kv };
}

export function toRecipient(actor: Actor): Recipient {
  return { id: actor.id, inboxId: actor.inboxId, endpoints: actor.endpoints };
}
