// IndieAuth as Tern runs it. The listener's authorization endpoint is open to the whole
// internet, so it never approves anything itself: it checks the request, keeps it pending (in
// memory; a request lives ten minutes) and shows a page that waits. The AUTHOR approves or
// denies in the app (Electron window or headless UI), choosing which of the requested scopes to
// grant; approval writes an indieauth_authorization_request row with a one-time code, and the
// waiting page then sends the browser back to the client with the code, its state and `iss`.
// The token endpoint exchanges a code once, within ten minutes, for the client and redirect URI
// it was issued to, with the PKCE verifier (S256) checked — what the service behind the spec
// stored and never checked. Codes, tokens and client secrets are stored as SHA-256 hashes.
import { BlockList, isIP } from 'node:net';
import { embeddedIPv4 } from '../net/address-guard';
import { randomInt } from 'node:crypto';
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { viewsOf } from '../../../db/readable-rows';
import { indieauthAccessToken, indieauthAuthorizationRequest, oauthClient, type IndieauthAccessToken, type OauthClient } from '../../../db/schema';
import type { LocalActor } from '../federation/identity';
import type { HttpClient } from '../net/http-client';
import { BadInputError, NotFoundError } from '../errors';
import {
  APP_TOKEN_REDIRECT,
  authenticateClient,
  isPublicClient,
  fetchClientInfo,
  registerClient,
  registerMastodonApp,
  findRegisteredClient,
  isIndieAuthClientId,
  OAuthError,
  redirectUriAllowed,
  registeredClientInfo,
  type ClientInfo,
  type MastodonAppRequest,
  type RegistrationRequest,
} from './clients';
import { hasScope, joinScopes, knownScopes, type Scope } from './scopes';
import { hashSecret, matchesHash, randomSecret, verifyPkce } from './secrets';
import { withoutTrailingSlashes } from '../trailing-slashes';

/** How long a code (and a request waiting for the author) lives. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;
/** Access tokens live 30 days (expires_in, seconds); there are no refresh tokens (the spec's
 * token record has no column for one), so a client asks the author again afterwards. */
export const TOKEN_LIFETIME_S = 30 * 24 * 60 * 60;
/** expires_in of a token that lives until revoked: Mastodon apps assume tokens never expire
 * (they have no way to sign in again by themselves). */
export const UNTIL_REVOKED = 0;
/** At most this many requests wait for the author at once; more are refused until some are
 * answered or expire. Anyone can open /auth, and each pending request is shown in the app; none
 * is ever pushed out by a newer one (strangers' requests evicted the author's own). */
export const MAX_PENDING = 20;
/** Of those, at most this many for one redirect host: one stranger's flood through one client
 * (20 GETs of /auth every ten minutes) no longer fills every place. */
export const MAX_PENDING_PER_HOST = 5;
/** And at most this many from one caller (an IPv4 address, an IPv6 /64): a stranger naming four
 * redirect hosts filled every place from one machine, repeatably, and the author's own sign-in was
 * refused. Strangers with many addresses can still fill the places: the app says so (refusals())
 * and the author clears them in one click (declineAll). */
export const MAX_PENDING_PER_CALLER = 4;
/** URL clients' metadata fetched at once: anyone can open /auth with any client_id, and each
 * fetch reads up to 512 KiB and parses it. More at once are refused (try again shortly). */
export const MAX_CLIENT_FETCHES = 4;
/** A URL client's metadata is reused this long (a client retrying, or a flood naming one URL). */
export const CLIENT_INFO_CACHE_MS = 60_000;
const MAX_CACHED_CLIENTS = 100;

export interface AuthorizationParams {
  clientId: string;
  redirectUri: string;
  /** '' when the client sent none (Mastodon apps may omit it). */
  state: string;
  /** null: no PKCE, allowed only for a registered client, which authenticates with its secret. */
  codeChallenge: string | null;
  scope: string | null;
  me: string | null;
}

/** A request waiting for the author, as the consent screen shows it. */
export interface PendingAuthorization {
  id: string;
  createdAt: string;
  expiresAt: string;
  client: Omit<ClientInfo, 'redirectUris'>;
  redirectUri: string;
  /** Known scopes asked for; empty: sign-in only (the app learns who you are, nothing more). */
  scopes: Scope[];
  /** Shown on the waiting page and on the consent screen: anyone can open /auth naming a real
   * app, so the author approves only a request whose page (in their own browser) shows it. */
  pairingCode: string;
  /** The host the answer goes to (its scheme, for a custom one): the places are counted by it,
   * and the author can decline every waiting request for one host at once. */
  redirectHost: string;
}

interface Pending {
  view: PendingAuthorization;
  /** Unguessable: the waiting page's address, the only way to collect the code. */
  handle: string;
  /** Who opened /auth (callerKey), null when the listener cannot tell (a tunnel that does not
   * forward the address, a browser on this machine). */
  caller: string | null;
  params: AuthorizationParams;
  created: number;
  outcome: { kind: 'approved'; code: string } | { kind: 'denied' } | null;
}

/** Sign-ins refused because the places were full, for the app's notice. */
export interface SignInRefusals {
  /** Refused in the last ten minutes (since the author last cleared the waiting requests). */
  count: number;
  /** ISO-8601; null: none. */
  lastAt: string | null;
}

export type WaitOutcome = { kind: 'waiting'; pending: PendingAuthorization } | { kind: 'redirect'; location: string } | { kind: 'gone' };

export interface AppAccess {
  /** indieauth_access_token.id */
  id: number;
  clientId: string;
  clientName: string;
  clientUrl: string | null;
  registered: boolean;
  scopes: string[];
  createdAt: string;
  /** null: until revoked. */
  expiresAt: string | null;
}

export interface TokenGrant {
  token: IndieauthAccessToken;
  clientId: string | null;
  scope: string;
  /** null: until revoked. */
  expiresAt: Date | null;
}

export interface IndieAuthDeps {
  db: Db;
  fed: { client: HttpClient };
  clock: () => Date;
  identity: () => LocalActor | null;
  displayName: () => string;
  /** A sign-in began waiting for the author (the window shows it at once). */
  onWaiting?: () => void;
}

/** The canonical profile URL (`me`): the actor id with the slash IndieAuth's URL rules add. */
export const profileUrl = (local: LocalActor) => `${local.id}/`;
export const issuerOf = profileUrl;

export type IndieAuthService = ReturnType<typeof createIndieAuthService>;

function withQuery(uri: string, params: Record<string, string>): string {
  // Built with URL, so a redirect_uri that has a query keeps it (the service behind the spec
  // concatenated strings).
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

const PAIRING_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Six unambiguous characters, as XXX-XXX. */
export function pairingCode(): string {
  const chars = Array.from({ length: 6 }, () => PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)]!);
  return `${chars.slice(0, 3).join('')}-${chars.slice(3).join('')}`;
}

const REFUSAL_TELL_MS = 5000;

/** What the author is told on the refused page, after the reason. */
export const CLEAR_HINT = 'If you are the author, open Tern (Apps): decline the waiting requests you do not recognise, or all of them at once, then try again.';

export function createIndieAuthService(deps: IndieAuthDeps) {
  const pending = new Map<string, Pending>();
  let refused: { count: number; last: number } | null = null;
  const now = () => deps.clock().getTime();
  const local = (): LocalActor => {
    const actor = deps.identity();
    if (!actor) throw new OAuthError('invalid_request', 'this Tern has no public identity yet');
    return actor;
  };

  const sweep = () => {
    for (const [id, entry] of pending) if (now() - entry.created >= CODE_LIFETIME_MS) pending.delete(id);
    if (refused && now() - refused.last >= CODE_LIFETIME_MS) refused = null;
  };

  /** A sign-in refused for want of a place: counted for the app's notice, then thrown. */
  const refuse = (reason: string): never => {
    // The app is told at the first refusal, then at most every few seconds (a flood is many).
    const tell = refused === null || now() - refused.last >= REFUSAL_TELL_MS;
    refused = { count: (refused?.count ?? 0) + 1, last: now() };
    if (tell) deps.onWaiting?.();
    throw new OAuthError('temporarily_unavailable', `${reason} ${CLEAR_HINT}`, 429);
  };

  const fetchedClients = new Map<string, { info: Promise<ClientInfo>; at: number }>();
  let clientFetches = 0;

  async function clientInfo(clientId: string): Promise<ClientInfo> {
    const registered = findRegisteredClient(deps.db, clientId);
    if (registered) return registeredClientInfo(registered);
    if (!isIndieAuthClientId(clientId)) throw new OAuthError('invalid_client', 'client_id is neither a registered client nor an http(s) URL');
    const cached = fetchedClients.get(clientId);
    if (cached && now() - cached.at < CLIENT_INFO_CACHE_MS) return cached.info;
    if (clientFetches >= MAX_CLIENT_FETCHES) {
      throw new OAuthError('invalid_request', 'Too many sign-in requests are being checked at once; try again in a moment.');
    }
    clientFetches++;
    const info = fetchClientInfo(deps.fed.client, clientId).finally(() => clientFetches--);
    fetchedClients.delete(clientId);
    fetchedClients.set(clientId, { info, at: now() });
    while (fetchedClients.size > MAX_CACHED_CLIENTS) fetchedClients.delete(fetchedClients.keys().next().value!);
    return info;
  }

  function profile(scope: string) {
    const me = profileUrl(local());
    return hasScope(scope, 'profile') ? { me, profile: { name: deps.displayName() || local().username, url: me } } : { me };
  }

  /** The code's request row, checked for everything but PKCE; throws invalid_grant. */
  function findCode(code: string, clientId: string, redirectUri: string) {
    const row = deps.db.select().from(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.code, hashSecret(code))).get();
    if (!row || !matchesHash(code, row.code)) throw new OAuthError('invalid_grant', 'unknown authorization code');
    if (row.isUsed) {
      // RFC 6749 §4.1.2: a code used twice may be stolen; what it gave is taken back.
      deps.db.update(indieauthAccessToken).set({ isRevoked: true }).where(eq(indieauthAccessToken.indieauthAuthorizationRequestId, row.id)).run();
      throw new OAuthError('invalid_grant', 'this authorization code was already used');
    }
    if (now() - row.createdAt.getTime() >= CODE_LIFETIME_MS) throw new OAuthError('invalid_grant', 'this authorization code has expired');
    if (row.clientId !== clientId) throw new OAuthError('invalid_grant', 'the code was issued to another client_id');
    if (row.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    return row;
  }

  function checkVerifier(verifier: string | null, row: { codeChallenge: string | null }) {
    if (verifier === null) throw new OAuthError('invalid_grant', 'code_verifier is missing');
    if (row.codeChallenge === null || !verifyPkce(verifier, row.codeChallenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }

  /** Marks the code used; false if another request used it first. */
  function useCode(tx: Pick<Db, 'update'>, id: number): boolean {
    const done = tx
      .update(indieauthAuthorizationRequest)
      .set({ isUsed: true })
      .where(and(eq(indieauthAuthorizationRequest.id, id), eq(indieauthAuthorizationRequest.isUsed, false)))
      .returning({ id: indieauthAuthorizationRequest.id })
      .get();
    return done !== undefined;
  }

  function grantOf(token: IndieauthAccessToken): TokenGrant {
    const request = token.indieauthAuthorizationRequestId
      ? deps.db.select().from(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.id, token.indieauthAuthorizationRequestId)).get()
      : undefined;
    const expiresAt = token.expiresIn === UNTIL_REVOKED ? null : new Date(token.createdAt.getTime() + token.expiresIn * 1000);
    return { token, clientId: request?.clientId ?? null, scope: token.scope, expiresAt };
  }

  function findToken(secret: string): TokenGrant | null {
    const token = deps.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, hashSecret(secret))).get();
    if (!token || !matchesHash(secret, token.accessToken)) return null;
    return grantOf(token);
  }

  /** The clients of the sign-ins waiting for the author (or for their app to collect the code). */
  const waitingClients = () => {
    sweep();
    return [...pending.values()].map((p) => p.params.clientId);
  };

  const isActive = (grant: TokenGrant) => !grant.token.isRevoked && (grant.expiresAt === null || grant.expiresAt.getTime() > now());

  return {
    /** The authorization endpoint's GET, first step: the client and its redirect URI. Problems
     * here and in startAuthorization are shown on Tern's own page: only the author's answer
     * sends the browser to the redirect URI (RFC 9700 §4.11.2). */
    async checkClient(clientId: string, redirectUri: string): Promise<ClientInfo> {
      local();
      const client = await clientInfo(clientId);
      if (!redirectUriAllowed(client, redirectUri)) {
        throw new OAuthError('invalid_redirect_uri', 'redirect_uri is not one this client registered or published, nor on its own origin');
      }
      return client;
    },

    /** After checkClient: keeps the request waiting for the author. `from`: the address that
     * opened /auth as the listener knows it (client-address.ts), null if it does not. */
    startAuthorization(params: AuthorizationParams, client: ClientInfo, from: string | null = null): { handle: string; pending: PendingAuthorization } {
      const actor = local();
      if (params.me !== null && withoutTrailingSlashes(params.me) !== actor.id) {
        throw new OAuthError('invalid_request', `me must be this Tern's profile URL, ${profileUrl(actor)}`);
      }
      if (params.codeChallenge === null && (!client.registered || isPublicClient(client.clientId))) throw new OAuthError('invalid_request', 'code_challenge is required');
      sweep();
      // Only requests still waiting for the author count: answered ones wait for their page to
      // collect the answer, and there are no more of them than the author answered.
      const undecided = [...pending.values()].filter((p) => p.outcome === null);
      const caller = callerKey(from);
      if (caller !== null && undecided.filter((p) => p.caller === caller).length >= MAX_PENDING_PER_CALLER) {
        refuse(`${MAX_PENDING_PER_CALLER} sign-ins from your address are already waiting for the author; try again in a few minutes.`);
      }
      if (undecided.length >= MAX_PENDING) refuse(`${MAX_PENDING} sign-ins are already waiting for the author; try again in a few minutes.`);
      const host = hostOf(params.redirectUri);
      if (undecided.filter((p) => p.view.redirectHost === host).length >= MAX_PENDING_PER_HOST) {
        refuse(`${MAX_PENDING_PER_HOST} sign-ins for ${host} are already waiting for the author; try again in a few minutes.`);
      }
      const created = now();
      const { redirectUris: _unused, ...shown } = client;
      const view: PendingAuthorization = {
        id: randomSecret().slice(0, 16),
        createdAt: new Date(created).toISOString(),
        expiresAt: new Date(created + CODE_LIFETIME_MS).toISOString(),
        client: shown,
        redirectUri: params.redirectUri,
        scopes: knownScopes(params.scope),
        pairingCode: pairingCode(),
        redirectHost: host,
      };
      const handle = randomSecret();
      pending.set(handle, { view, handle, caller, params, created, outcome: null });
      deps.onWaiting?.();
      return { handle, pending: view };
    },

    /** The waiting page's question: has the author answered? A code is handed over once. */
    wait(handle: string): WaitOutcome {
      sweep();
      const entry = pending.get(handle);
      if (!entry) return { kind: 'gone' };
      if (entry.outcome === null) return { kind: 'waiting', pending: entry.view };
      pending.delete(handle);
      const iss = issuerOf(local());
      const { redirectUri } = entry.params;
      const state: Record<string, string> = entry.params.state === '' ? {} : { state: entry.params.state };
      return entry.outcome.kind === 'approved'
        ? { kind: 'redirect', location: withQuery(redirectUri, { code: entry.outcome.code, ...state, iss }) }
        : { kind: 'redirect', location: withQuery(redirectUri, { error: 'access_denied', error_description: 'The author did not allow it.', ...state, iss }) };
    },

    /** RFC 7591 registration; the secret is in the answer only. A full table drops unused
     * registrations, never one whose sign-in waits for the author. */
    register: (request: RegistrationRequest) => registerClient(deps.db, request, deps.clock(), waitingClients()),

    /** POST /api/v1/apps: a Mastodon app, registered as an oauth_client row. */
    registerMastodonApp: (request: MastodonAppRequest) => registerMastodonApp(deps.db, request, deps.clock(), waitingClients()),

    /** A registered client, checked with its secret (the Mastodon API's /oauth/revoke). */
    authenticate(clientId: string, clientSecret: string | null): OauthClient {
      const client = findRegisteredClient(deps.db, clientId);
      if (!client) throw new OAuthError('invalid_client', 'unknown client', 401);
      authenticateClient(client, clientSecret);
      return client;
    },

    /** The registered client a token was issued to, if any. */
    clientOf: (grant: TokenGrant): OauthClient | null => (grant.clientId === null ? null : findRegisteredClient(deps.db, grant.clientId)),

    /** Requests waiting for the author, newest first. */
    pending(): PendingAuthorization[] {
      sweep();
      return [...pending.values()].filter((p) => p.outcome === null).map((p) => p.view).reverse();
    },

    /** Sign-ins refused lately because the places were full (the app's notice). */
    refusals(): SignInRefusals {
      sweep();
      return { count: refused?.count ?? 0, lastAt: refused ? new Date(refused.last).toISOString() : null };
    },

    /** The author declines many waiting requests at once: those of `ids` (the ones the app
     * showed them; one that came since is not declined unseen), or every one without `ids`.
     * Strangers' requests had to be declined one by one while they held every place. Their pages
     * send their browsers back with access_denied, as for one declined. The notice of refusals
     * starts again from nothing. */
    declineAll(filter: { ids?: readonly string[] } = {}): { declined: number } {
      sweep();
      const only = filter.ids === undefined ? null : new Set(filter.ids);
      let declined = 0;
      for (const entry of pending.values()) {
        if (entry.outcome !== null || (only !== null && !only.has(entry.view.id))) continue;
        entry.outcome = { kind: 'denied' };
        declined++;
      }
      refused = null;
      return { declined };
    },

    /** The author's answer. Granted scopes must be among those asked for. */
    decide(id: string, decision: { approve: boolean; scopes: string[] }): { redirectUri: string } {
      sweep();
      const entry = [...pending.values()].find((p) => p.view.id === id && p.outcome === null);
      if (!entry) throw new NotFoundError('This request has expired or was answered already. Ask the app to sign in again.');
      if (!decision.approve) {
        entry.outcome = { kind: 'denied' };
        return { redirectUri: entry.params.redirectUri };
      }
      const extra = decision.scopes.filter((s) => !(entry.view.scopes as string[]).includes(s));
      if (extra.length > 0) throw new BadInputError(`The app did not ask for ${extra.join(', ')}.`);
      const code = randomSecret();
      deps.db
        .insert(indieauthAuthorizationRequest)
        .values({
          createdAt: deps.clock(),
          code: hashSecret(code),
          scope: joinScopes(knownScopes(decision.scopes.join(' '))),
          redirectUri: entry.params.redirectUri,
          clientId: entry.params.clientId,
          codeChallenge: entry.params.codeChallenge,
          codeChallengeMethod: entry.params.codeChallenge === null ? null : 'S256',
          isUsed: false,
        })
        .run();
      entry.outcome = { kind: 'approved', code };
      return { redirectUri: entry.params.redirectUri };
    },

    /** The authorization endpoint's POST: a code redeemed for the profile only (IndieAuth §5.3). */
    redeemForProfile(input: { code: string; clientId: string; redirectUri: string; codeVerifier: string | null }) {
      local();
      const row = findCode(input.code, input.clientId, input.redirectUri);
      checkVerifier(input.codeVerifier, row);
      if (!useCode(deps.db, row.id)) throw new OAuthError('invalid_grant', 'this authorization code was already used');
      return profile(row.scope);
    },

    /** The token endpoint: a code for an access token. A registered client authenticates with
     * its secret; an IndieAuth (URL) client is public and proves itself with PKCE alone. A code
     * asked for without PKCE (a registered Mastodon app may) needs no verifier. `untilRevoked`:
     * the Mastodon API's tokens, which never expire. */
    exchangeCode(input: { code: string; clientId: string; redirectUri: string; codeVerifier: string | null; clientSecret: string | null }, options: { untilRevoked?: boolean } = {}) {
      local();
      const registered = findRegisteredClient(deps.db, input.clientId);
      // A public client (a URL client, or one registered with token_endpoint_auth_method none)
      // has no secret: PKCE is its only proof, always checked.
      const isPublic = !registered || isPublicClient(registered.clientId);
      if (registered && !isPublic) authenticateClient(registered, input.clientSecret);
      else if (input.clientSecret !== null) throw new OAuthError('invalid_client', registered ? 'this client registered as public: it has no secret' : 'unknown client', 401);
      const row = findCode(input.code, input.clientId, input.redirectUri);
      if (row.codeChallenge !== null || isPublic) checkVerifier(input.codeVerifier, row);
      if (row.scope === '') throw new OAuthError('invalid_grant', 'this code grants no scope: redeem it at the authorization endpoint for the profile');
      const secret = randomSecret();
      // Only registered apps (Mastodon's) get tokens without an end; a URL client keeps IndieAuth's 30 days.
      const expiresIn = options.untilRevoked && registered ? UNTIL_REVOKED : TOKEN_LIFETIME_S;
      const createdAt = deps.clock();
      deps.db.transaction((tx) => {
        if (!useCode(tx, row.id)) throw new OAuthError('invalid_grant', 'this authorization code was already used');
        tx.insert(indieauthAccessToken)
          .values({ createdAt, indieauthAuthorizationRequestId: row.id, accessToken: hashSecret(secret), expiresIn, scope: row.scope, isRevoked: false })
          .run();
      });
      return {
        access_token: secret,
        token_type: 'Bearer' as const,
        scope: row.scope,
        ...(expiresIn === UNTIL_REVOKED ? {} : { expires_in: expiresIn }),
        created_at: Math.floor(createdAt.getTime() / 1000),
        ...profile(row.scope),
      };
    },

    /** client_credentials (the Mastodon API's app token): a registered client, authenticated,
     * gets a token that acts for the app only — no scope, so it reads nothing of the author's
     * and writes nothing; it verifies the app and reads what is public. Lives until revoked.
     * Anyone can register and ask, so each client has one app token, its row reused: asking
     * again gives a new secret and the previous one stops working (only hashes are stored). */
    appToken(input: { clientId: string; clientSecret: string | null }) {
      local();
      const client = findRegisteredClient(deps.db, input.clientId);
      if (!client) throw new OAuthError('invalid_client', 'unknown client', 401);
      authenticateClient(client, input.clientSecret);
      const secret = randomSecret();
      const createdAt = deps.clock();
      deps.db.transaction((tx) => {
        // A used request row ties the token to its client (the token row has no client column).
        const isAppRequest = and(eq(indieauthAuthorizationRequest.clientId, client.clientId), eq(indieauthAuthorizationRequest.redirectUri, APP_TOKEN_REDIRECT));
        const request =
          tx.select({ id: indieauthAuthorizationRequest.id }).from(indieauthAuthorizationRequest).where(isAppRequest).get() ??
          tx
            .insert(indieauthAuthorizationRequest)
            .values({ createdAt, code: hashSecret(randomSecret()), scope: '', redirectUri: APP_TOKEN_REDIRECT, clientId: client.clientId, codeChallenge: null, codeChallengeMethod: null, isUsed: true })
            .returning({ id: indieauthAuthorizationRequest.id })
            .get();
        const token = { createdAt, indieauthAuthorizationRequestId: request.id, accessToken: hashSecret(secret), expiresIn: UNTIL_REVOKED, scope: '', isRevoked: false };
        const reused = tx.update(indieauthAccessToken).set(token).where(eq(indieauthAccessToken.indieauthAuthorizationRequestId, request.id)).returning({ id: indieauthAccessToken.id }).all();
        if (reused.length === 0) tx.insert(indieauthAccessToken).values(token).run();
      });
      return { access_token: secret, token_type: 'Bearer' as const, scope: '', created_at: Math.floor(createdAt.getTime() / 1000) };
    },

    /** A bearer token that is known, not revoked and not expired; else invalid_token. */
    verifyToken(secret: string): TokenGrant {
      const grant = findToken(secret);
      if (!grant) throw new OAuthError('invalid_token', 'unknown access token', 401);
      if (grant.token.isRevoked) throw new OAuthError('invalid_token', 'this access token was revoked', 401);
      if (!isActive(grant)) throw new OAuthError('invalid_token', 'this access token has expired', 401);
      return grant;
    },

    /** RFC 7009: revoking an unknown or revoked token is no error. */
    revokeToken(secret: string): void {
      const grant = findToken(secret);
      if (grant) deps.db.update(indieauthAccessToken).set({ isRevoked: true }).where(eq(indieauthAccessToken.id, grant.token.id)).run();
    },

    /** RFC 7662. `caller` is the authenticated client or a bearer: either learns only about its
     * own tokens (a bearer: itself, or its client's), never another app's. */
    introspect(secret: string, caller: { clientId: string; clientSecret: string | null } | { bearer: string }) {
      let bearer: TokenGrant | null = null;
      if ('bearer' in caller) bearer = this.verifyToken(caller.bearer);
      else {
        const client = findRegisteredClient(deps.db, caller.clientId);
        if (!client) throw new OAuthError('invalid_client', 'unknown client', 401);
        authenticateClient(client, caller.clientSecret);
      }
      const grant = findToken(secret);
      if (!grant || !isActive(grant)) return { active: false as const };
      if (!('bearer' in caller) && grant.clientId !== caller.clientId) return { active: false as const };
      if (bearer && grant.token.id !== bearer.token.id && (bearer.clientId === null || grant.clientId !== bearer.clientId)) return { active: false as const };
      return {
        active: true as const,
        me: profileUrl(local()),
        client_id: grant.clientId,
        scope: grant.scope,
        token_type: 'Bearer',
        iat: Math.floor(grant.token.createdAt.getTime() / 1000),
        ...(grant.expiresAt === null ? {} : { exp: Math.floor(grant.expiresAt.getTime() / 1000) }),
      };
    },

    /** Apps holding a live token, newest first (Settings → Apps with access). App tokens
     * (client_credentials: no scope, nothing of the author's, never approved) are not access. */
    apps(): AppAccess[] {
      const tokens = deps.db
        .select()
        .from(indieauthAccessToken)
        .where(and(eq(indieauthAccessToken.isRevoked, false), ne(indieauthAccessToken.scope, '')))
        .orderBy(desc(indieauthAccessToken.id))
        .all();
      const live = tokens.map(grantOf).filter(isActive);
      const ids = [...new Set(live.map((g) => g.clientId).filter((c): c is string => c !== null))];
      const clients = ids.length === 0 ? [] : deps.db.select().from(oauthClient).where(inArray(oauthClient.clientId, ids)).all();
      // A token that cannot be read is left out (viewsOf), not the list.
      return viewsOf(live, (grant) => {
        const clientId = grant.clientId ?? '';
        const client = clients.find((c) => c.clientId === clientId);
        return {
          id: grant.token.id,
          clientId,
          clientName: client?.clientName ?? (isIndieAuthClientId(clientId) ? new URL(clientId).host : clientId || 'Unknown app'),
          clientUrl: client?.clientUri ?? (isIndieAuthClientId(clientId) ? clientId : null),
          registered: client !== undefined,
          scopes: grant.scope.split(' ').filter(Boolean),
          createdAt: grant.token.createdAt.toISOString(),
          expiresAt: grant.expiresAt?.toISOString() ?? null,
        };
      }, (grant) => `indieauth_access_token row ${grant.token.id}`);
    },

    /** The author takes an app's access back. */
    revokeApp(id: number): { revoked: number } {
      const done = deps.db.update(indieauthAccessToken).set({ isRevoked: true }).where(and(eq(indieauthAccessToken.id, id), eq(indieauthAccessToken.isRevoked, false))).returning().all();
      if (done.length === 0) throw new NotFoundError('That app has no access any more.');
      return { revoked: done.length };
    },
  };
}

// Addresses that name a machine on the way rather than a caller: loopback, private networks
// (RFC 1918, unique local), shared address space (CGNAT, and Tailscale's tunnels), link-local.
const ON_THE_WAY = new BlockList();
for (const [net, prefix] of [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['169.254.0.0', 16], ['0.0.0.0', 8]] as const) ON_THE_WAY.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::1', 128], ['::', 128], ['fc00::', 7], ['fe80::', 10]] as const) ON_THE_WAY.addSubnet(net, prefix, 'ipv6');

/**
 * One caller, as the places are counted: an IPv4 address, or an IPv6 address's /64 (one machine,
 * or one home, gets a whole /64, and picks any address in it at will); an IPv4-mapped IPv6 address
 * is its IPv4 address. Null for unknown, loopback and private addresses: behind a tunnel that does
 * not forward the caller's address every request comes from 127.0.0.1, behind a reverse proxy on
 * the LAN, in a container or on a VPN from the proxy's private address; counting them as one
 * caller would let one stranger take every place, the author's included (the total and per-host
 * caps still hold).
 */
export function callerKey(address: string | null): string | null {
  if (address === null) return null;
  const written = address.slice(0, 100).trim().toLowerCase().replace(/^\[|\]$/g, '').split('%')[0]!;
  // An IPv6 address that carries an IPv4 one (mapped in any notation, NAT64, 6to4) is that address.
  const bare = isIP(written) === 6 ? (embeddedIPv4(written) ?? written) : written;
  const family = isIP(bare);
  if (family === 0 || ON_THE_WAY.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return null;
  if (family === 4) return bare;
  const [head = '', tail = ''] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = bare.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The host a sign-in sends its answer to (a custom scheme's whole prefix when it has no host). */
export function hostOf(redirectUri: string): string {
  try {
    const url = new URL(redirectUri);
    return url.host === '' ? url.protocol : url.host;
  } catch {
    return redirectUri;
  }
}
