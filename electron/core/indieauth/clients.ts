// The apps that ask for access: clients registered through OAuth 2.0 dynamic client
// registration (RFC 7591, rows of oauth_client), and IndieAuth clients, whose client_id is a URL
// that publishes who they are (an h-app / h-x-app, or a JSON client metadata document) and
// where they may be sent back to. Fetching that URL goes through the one outbound client, so
// the SSRF guard holds; a client that publishes nothing is still shown by its host name.
import { and, asc, count, eq, gte, inArray, lt, ne, notExists, notInArray, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../../db/client';
import { indieauthAccessToken, indieauthAuthorizationRequest, oauthClient, type OauthClient } from '../../../db/schema';
import type { HttpClient } from '../net/http-client';
import { constantTimeEqual, hashSecret, randomSecret } from './secrets';
import { joinScopes, knownScopes } from './scopes';
import { parseBoundedJson } from '../net/bounded-json';
import { linkValues } from '../net/link-header';
import { sanitizePlainText } from '../federation/sanitize';
import { readClientPage } from '../webmention/source-parse';
import { httpUrlOrNull } from './client-page';

/** What the consent screen shows about a client. */
export interface ClientInfo {
  clientId: string;
  name: string;
  /** The app's home page, when it says. */
  url: string | null;
  logoUrl: string | null;
  /** Registered here (RFC 7591), rather than identified by its URL. */
  registered: boolean;
  /** Redirect URIs the client published or registered (same-origin ones need not be listed). */
  redirectUris: string[];
}

export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly code: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope' | 'invalid_client_metadata' | 'invalid_redirect_uri' | 'access_denied' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable',
    message: string,
    readonly status: 400 | 401 | 403 | 404 | 429 = 400,
  ) {
    super(message);
  }
}

const isLoopbackHost = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** A URL a client may be sent back to: https, or http on a loopback address (RFC 8252 §7.3,
 * native apps); never with a fragment or credentials. */
export function isAcceptableRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** IndieAuth §4.2: a client identifier is an http(s) URL with a path, no fragment, no credentials. */
export function isIndieAuthClientId(value: string): boolean {
  // The URL parser drops tabs and newlines anywhere (`a/.\t./b` is `a/../b`), and trims spaces
  // and controls at the ends: an identifier with any of them is not the URL it reads as.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
  // The raw path: the URL parser has already resolved `a/../b` (and `%2e%2e`, and `\` as `/`)
  // in url.pathname, so the segments the client sent are read from the string itself.
  const rawPath = value.replace(/^[a-z][a-z0-9+.-]*:[/\\]*[^/\\?#]*/i, '').split(/[?#]/)[0]!;
  return !rawPath.split(/[/\\]/).some((segment) => {
    const dots = segment.replace(/%2e/gi, '.');
    return dots === '.' || dots === '..';
  });
}

// ---- registration (RFC 7591) -----------------------------------------------------------------

const httpsOrLoopback = z.string().max(2048).refine(isAcceptableRedirectUri, 'must be an https URL (or http on localhost) without a fragment');
const webUrl = z.string().max(2048).url().refine((u) => /^https?:/i.test(u), 'must be an http(s) URL');

/** The client metadata Tern reads (RFC 7591 §2); other fields are ignored, as §2 asks. */
export const registrationSchema = z.object({
  redirect_uris: z.array(httpsOrLoopback).min(1).max(10),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: webUrl.optional(),
  logo_uri: webUrl.optional(),
  scope: z.string().max(500).optional(),
  // none: a public client (a browser or native app that cannot keep a secret), proving itself with PKCE.
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'none']).optional(),
  grant_types: z.array(z.literal('authorization_code')).min(1).optional(),
  response_types: z.array(z.literal('code')).min(1).optional(),
});
export type RegistrationRequest = z.infer<typeof registrationSchema>;

/** Beyond this many registered clients, registration is refused: the endpoint is open to the
 * internet and each row is kept. */
export const MAX_REGISTERED_CLIENTS = 500;

export interface RegisteredClient {
  client_id: string;
  /** Returned once; only its hash is stored. None for a public client. */
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: 0;
  client_name: string;
  redirect_uris: string[];
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  token_endpoint_auth_method: string;
  grant_types: ['authorization_code'];
  response_types: ['code'];
}

/** A registration never used for a sign-in the author approved is forgotten after a day, when
 * room is needed: anonymous registrations cannot fill the table for good. */
export const UNUSED_CLIENT_MS = 24 * 60 * 60 * 1000;
/** A registration this fresh is never dropped to make room: its app is on its way to the sign-in
 * page (registering and opening /auth take seconds). A table full of fresh ones refuses (429)
 * until they age, rather than letting a flood push the author's own app out before the author
 * sees its request. */
export const FRESH_CLIENT_MS = 10 * 60 * 1000;

/** The request row client_credentials writes to tie an app token to its client (the token row
 * has no client column): no redirect URI, no scope. The author approved nothing: it does not make
 * the client "used". */
export const APP_TOKEN_REDIRECT = '';

/** Registered public clients (RFC 7591 token_endpoint_auth_method "none") are told apart by their
 * client_id: the oauth_client row has no column for it, and its client_secret is required (a
 * random one, never given out, is stored). */
const PUBLIC_CLIENT_PREFIX = 'tern-public-';
export const isPublicClient = (clientId: string) => clientId.startsWith(PUBLIC_CLIENT_PREFIX);

function registeredCount(db: DbOrTx): number {
  return db.select({ n: count() }).from(oauthClient).get()?.n ?? 0;
}

/**
 * Makes room for one more registration, or refuses. A registration is used when the author
 * approved a sign-in for it (a code was issued); an app token (client_credentials) needs no
 * approval and does not count. Unused registrations a day old go first; if the table is still
 * full, the oldest unused ones older than FRESH_CLIENT_MS. A used registration is never dropped,
 * nor a fresh one, nor one in `keep` (a sign-in waiting for the author): a table full of those
 * refuses — 429 while fresh ones will age, 400 when all are used. A dropped client's app token
 * goes with it.
 */
function checkRoom(db: DbOrTx, now: Date, keep: readonly string[]): void {
  if (registeredCount(db) < MAX_REGISTERED_CLIENTS) return;
  const used = db
    .select({ clientId: indieauthAuthorizationRequest.clientId })
    .from(indieauthAuthorizationRequest)
    .where(and(eq(indieauthAuthorizationRequest.clientId, oauthClient.clientId), ne(indieauthAuthorizationRequest.redirectUri, APP_TOKEN_REDIRECT)));
  const unused = and(notExists(used), notInArray(oauthClient.clientId, [...keep]));
  const dropped: string[] = [];
  const drop = (where: SQL | undefined) => dropped.push(...db.delete(oauthClient).where(where).returning({ clientId: oauthClient.clientId }).all().map((r) => r.clientId));
  drop(and(lt(oauthClient.createdAt, new Date(now.getTime() - UNUSED_CLIENT_MS)), unused));
  const over = registeredCount(db) - MAX_REGISTERED_CLIENTS + 1;
  if (over > 0) {
    const oldest = db
      .select({ id: oauthClient.id })
      .from(oauthClient)
      .where(and(unused, lt(oauthClient.createdAt, new Date(now.getTime() - FRESH_CLIENT_MS))))
      .orderBy(asc(oauthClient.createdAt), asc(oauthClient.id))
      .limit(over);
    drop(inArray(oauthClient.id, oldest));
  }
  forgetAppTokens(db, dropped);
  if (registeredCount(db) < MAX_REGISTERED_CLIENTS) return;
  const waiting = db.select({ n: count() }).from(oauthClient).where(and(unused, gte(oauthClient.createdAt, new Date(now.getTime() - FRESH_CLIENT_MS)))).get()?.n ?? 0;
  if (waiting > 0) {
    throw new OAuthError('temporarily_unavailable', `Too many apps registered in the last ${FRESH_CLIENT_MS / 60_000} minutes; try again in a few minutes.`, 429);
  }
  throw new OAuthError('invalid_client_metadata', 'this Tern accepts no more client registrations');
}

/** The app tokens (and their request rows) of clients no longer registered. */
function forgetAppTokens(db: DbOrTx, clientIds: string[]): void {
  for (let i = 0; i < clientIds.length; i += 500) {
    const ids = clientIds.slice(i, i + 500);
    const requests = and(inArray(indieauthAuthorizationRequest.clientId, ids), eq(indieauthAuthorizationRequest.redirectUri, APP_TOKEN_REDIRECT));
    const rows = db.select({ id: indieauthAuthorizationRequest.id }).from(indieauthAuthorizationRequest).where(requests);
    db.delete(indieauthAccessToken).where(inArray(indieauthAccessToken.indieauthAuthorizationRequestId, rows)).run();
    db.delete(indieauthAuthorizationRequest).where(requests).run();
  }
}

/** `keep`: client ids not to drop to make room (checkRoom). */
export function registerClient(db: DbOrTx, request: RegistrationRequest, now: Date, keep: readonly string[] = []): RegisteredClient {
  checkRoom(db, now, keep);
  const isPublic = request.token_endpoint_auth_method === 'none';
  const clientId = `${isPublic ? PUBLIC_CLIENT_PREFIX : 'tern-client-'}${randomSecret().slice(0, 22)}`;
  const secret = randomSecret();
  // A name is plain text, shown on the sign-in page and in Settings: no markup kept.
  const name = sanitizePlainText(request.client_name ?? '').trim() || new URL(request.redirect_uris[0]!).host;
  const scope = request.scope === undefined ? undefined : joinScopes(knownScopes(request.scope));
  db.insert(oauthClient)
    .values({
      createdAt: now,
      clientName: name,
      redirectUris: request.redirect_uris,
      clientUri: request.client_uri ?? null,
      logoUri: request.logo_uri ?? null,
      scope: scope ?? null,
      clientId,
      clientSecret: hashSecret(secret),
    })
    .run();
  return {
    client_id: clientId,
    ...(isPublic ? {} : { client_secret: secret, client_secret_expires_at: 0 as const }),
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: request.redirect_uris,
    ...(request.client_uri ? { client_uri: request.client_uri } : {}),
    ...(request.logo_uri ? { logo_uri: request.logo_uri } : {}),
    ...(scope !== undefined ? { scope } : {}),
    token_endpoint_auth_method: request.token_endpoint_auth_method ?? 'client_secret_basic',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
}

// ---- Mastodon apps (POST /api/v1/apps) ---------------------------------------------------------

/** Out-of-band: the code is shown on a page for the author to paste into the app. */
export const OOB_REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'filesystem:', 'ws:', 'wss:', 'ftp:']);

/** A Mastodon app may be sent back to what RFC 7591 clients may, to the out-of-band URN, or to
 * a native app's private-use scheme (RFC 8252 §7.1: `com.tapbots.Ivory.19300:/request_token`). */
export function isMastodonRedirectUri(value: string): boolean {
  if (value === OOB_REDIRECT || isAcceptableRedirectUri(value)) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:' || UNSAFE_SCHEMES.has(url.protocol)) return false;
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && url.hash === '' && url.username === '' && url.password === '';
}

export interface MastodonAppRequest {
  name: string;
  redirectUris: string[];
  /** Known scopes only (knownScopes). */
  scopes: string[];
  website: string | null;
}

/** Registers a Mastodon app as an oauth_client row; the secret is in the answer only. */
export function registerMastodonApp(db: DbOrTx, request: MastodonAppRequest, now: Date, keep: readonly string[] = []): { row: OauthClient; clientSecret: string } {
  checkRoom(db, now, keep);
  const secret = randomSecret();
  const row = db
    .insert(oauthClient)
    .values({
      createdAt: now,
      clientName: request.name,
      redirectUris: request.redirectUris,
      clientUri: request.website,
      logoUri: null,
      scope: joinScopes(request.scopes),
      clientId: `tern-app-${randomSecret().slice(0, 22)}`,
      clientSecret: hashSecret(secret),
    })
    .returning()
    .get();
  return { row, clientSecret: secret };
}

export function findRegisteredClient(db: DbOrTx, clientId: string): OauthClient | null {
  return db.select().from(oauthClient).where(eq(oauthClient.clientId, clientId)).get() ?? null;
}

/** Client authentication at the token and introspection endpoints (client_secret_basic or
 * client_secret_post), the secret compared with the stored hash in constant time. */
export function authenticateClient(client: OauthClient, secret: string | null): void {
  if (isPublicClient(client.clientId)) throw new OAuthError('invalid_client', 'this client registered as public (token_endpoint_auth_method none): it has no secret to authenticate with', 401);
  if (secret === null) throw new OAuthError('invalid_client', 'this client must authenticate with its client_secret', 401);
  if (!constantTimeEqual(hashSecret(secret), client.clientSecret)) throw new OAuthError('invalid_client', 'wrong client_secret', 401);
}

// ---- IndieAuth clients: published metadata ---------------------------------------------------

const metadataDocument = z.object({
  client_id: z.string().max(2048).optional(),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(2048).optional(),
  logo_uri: z.string().max(2048).optional(),
  redirect_uris: z.array(z.string().max(2048)).max(20).optional(),
});

const CLIENT_FETCH_MS = 5_000;
const CLIENT_BODY_BYTES = 512 * 1024;

function hostOf(clientId: string): string {
  return new URL(clientId).host;
}

/** `url` is a prefix of `clientId` on the same origin (the host ends where the URL says). */
function isPrefixOf(url: string, clientId: string): boolean {
  try {
    return new URL(url).origin === new URL(clientId).origin && clientId.startsWith(url);
  } catch {
    return false;
  }
}

/** `rel="redirect_uri"` targets of an HTTP Link header. */
export function linkHeaderRedirects(header: string | null, base: string): string[] {
  if (!header) return [];
  const found: string[] = [];
  for (const part of header.split(',')) {
    // The first `<uri>` followed by `;` and the rest of the part (its parameters). The `;…` is
    // optional in the regex so that it matches at each `<`, as linkValues needs to stay linear;
    // a `<uri>` without it is passed over, as before.
    const match = [...linkValues(part.trim(), /<([^>]*)>(?:\s*;(.*)$)?/)].find((value) => value[2] !== undefined);
    if (!match) continue;
    const rel = /rel\s*=\s*"?([^";]+)"?/i.exec(match[2] ?? '');
    if (rel && rel[1]!.split(/\s+/).includes('redirect_uri')) {
      const url = httpUrlOrNull(match[1], base);
      if (url) found.push(url);
    }
  }
  return found;
}

/** Fetches a URL client_id and reads its name, logo and redirect URIs: JSON client metadata
 * (the current IndieAuth draft) or an h-app / h-x-app (the older one). Never throws: a client
 * that cannot be read is shown by its host. */
export async function fetchClientInfo(client: HttpClient, clientId: string): Promise<ClientInfo> {
  const fallback: ClientInfo = { clientId, name: hostOf(clientId), url: null, logoUrl: null, registered: false, redirectUris: [] };
  try {
    const { response, text } = await client.fetchText(clientId, {
      headers: { Accept: 'application/json, text/html;q=0.9' },
      signal: AbortSignal.timeout(CLIENT_FETCH_MS),
      maxBodyBytes: CLIENT_BODY_BYTES,
    });
    if (!response.ok) return fallback;
    const base = response.url || clientId;
    const linked = linkHeaderRedirects(response.headers.get('link'), base);
    const type = response.headers.get('content-type') ?? '';
    if (/json/i.test(type)) {
      const parsed = metadataDocument.safeParse(parseBoundedJson(text));
      if (!parsed.success) return { ...fallback, redirectUris: linked };
      const doc = parsed.data;
      // A document naming another client_id is someone else's: only its host is trusted.
      if (doc.client_id !== undefined && doc.client_id !== clientId) return { ...fallback, redirectUris: linked };
      const redirectUris = [...linked, ...(doc.redirect_uris ?? []).map((u) => httpUrlOrNull(u, base)).filter((u): u is string => u !== null)];
      const url = httpUrlOrNull(doc.client_uri, base);
      // IndieAuth §4.2.2: client_uri MUST be a prefix of client_id. One that is not claims another
      // app's home page (https://evil.example/app saying it is Quill, of quill.p3k.io): nothing
      // the document says of who it is is shown then, only the client_id's host.
      if (url !== null && !isPrefixOf(url, clientId)) return { ...fallback, redirectUris };
      return {
        clientId,
        name: sanitizePlainText(doc.client_name ?? '').trim() || fallback.name,
        url,
        logoUrl: httpUrlOrNull(doc.logo_uri, base),
        registered: false,
        redirectUris,
      };
    }
    // Parsed on the page reader's thread, within its bounds and deadline; a page it cannot read
    // leaves the client known by its host (and the redirect URIs of its Link header).
    const page = await readClientPage(text, base);
    if (!page.ok) return { ...fallback, redirectUris: linked };
    const redirectUris = [...linked, ...page.page.redirectUris];
    // The h-app's url is its client_uri: the same prefix rule.
    if (page.page.url !== null && !isPrefixOf(page.page.url, clientId)) return { ...fallback, redirectUris };
    return {
      clientId,
      name: page.page.name ?? fallback.name,
      url: page.page.url,
      logoUrl: page.page.logoUrl,
      registered: false,
      redirectUris,
    };
  } catch {
    return fallback;
  }
}

export function registeredClientInfo(row: OauthClient): ClientInfo {
  return {
    clientId: row.clientId,
    name: row.clientName,
    url: row.clientUri,
    logoUrl: row.logoUri,
    registered: true,
    redirectUris: row.redirectUris ?? [],
  };
}

/** Whether `redirectUri` may receive this client's code: one the client registered or
 * published, or (for URL clients) on the client_id's own scheme, host and port. */
export function redirectUriAllowed(info: ClientInfo, redirectUri: string): boolean {
  const listed = info.redirectUris.some((uri) => sameRedirectUri(uri, redirectUri));
  // A registered client's URIs were checked when it registered (RFC 7591 or a Mastodon app).
  if (info.registered) return listed;
  if (!isAcceptableRedirectUri(redirectUri) && !sameOrigin(info.clientId, redirectUri)) return false;
  return listed || sameOrigin(info.clientId, redirectUri);
}

/** The loopback IP literals of RFC 8252 §7.3 (not the name localhost, §8.3). */
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);

/** The same string, or (RFC 8252 §7.3) an http redirect on a loopback IP literal that differs in
 * its port only: a native app listens on whatever port the system gives it at the time. */
function sameRedirectUri(listed: string, asked: string): boolean {
  if (listed === asked) return true;
  try {
    const [a, b] = [new URL(listed), new URL(asked)];
    if (a.protocol !== 'http:' || !LOOPBACK_IPS.has(a.hostname)) return false;
    a.port = b.port;
    return a.href === b.href && a.hostname === b.hostname;
  } catch {
    return false;
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.origin === y.origin && y.hash === '' && y.username === '' && y.password === '';
  } catch {
    return false;
  }
}
