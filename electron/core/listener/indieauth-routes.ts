// The IndieAuth / OAuth 2.0 routes of the listener: server metadata (RFC 8414, also the
// profile's indieauth-metadata link), the authorization endpoint and its waiting page, the
// token endpoint, revocation (RFC 7009), introspection (RFC 7662) and dynamic client
// registration (RFC 7591). Thin: every rule lives in indieauth/service.ts. Nothing here can
// approve a request — the author does that in the app.
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { FRESH_CLIENT_MS, OAuthError, registrationSchema } from '../indieauth/clients';
import { INDIEAUTH_SCOPES } from '../indieauth/scopes';
import { issuerOf, type IndieAuthService } from '../indieauth/service';
import { S256_CHALLENGE } from '../indieauth/secrets';
import type { LocalActor } from '../federation/identity';
import { clientAddress } from './client-address';
import { html, problem, type ListenerCore, type ListenerEnv } from './context';
import { escapeHtml, page } from './pages';
import { BodyError, decodeBody, oauthParams } from './request-body';

export const INDIEAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  authorization: '/auth',
  token: '/token',
  revocation: '/token/revoke',
  introspection: '/token/introspect',
  registration: '/register',
  micropub: '/micropub',
  media: '/micropub/media',
} as const;

const OAUTH_BODY_BYTES = 16 * 1024;
/** The waiting page asks again this often (seconds): a meta refresh, since pages run no scripts. */
const WAIT_REFRESH_S = 2;
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'Location, WWW-Authenticate',
};
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function endpointsOf(local: LocalActor) {
  const at = (path: string) => `${local.id}${path}`;
  return {
    issuer: issuerOf(local),
    authorization_endpoint: at(INDIEAUTH_PATHS.authorization),
    token_endpoint: at(INDIEAUTH_PATHS.token),
    revocation_endpoint: at(INDIEAUTH_PATHS.revocation),
    introspection_endpoint: at(INDIEAUTH_PATHS.introspection),
    registration_endpoint: at(INDIEAUTH_PATHS.registration),
    micropub: at(INDIEAUTH_PATHS.micropub),
    media: at(INDIEAUTH_PATHS.media),
    metadata: at(INDIEAUTH_PATHS.metadata),
  };
}

/** RFC 8414 metadata with IndieAuth's additions. */
export function serverMetadata(local: LocalActor) {
  const e = endpointsOf(local);
  return {
    issuer: e.issuer,
    authorization_endpoint: e.authorization_endpoint,
    token_endpoint: e.token_endpoint,
    revocation_endpoint: e.revocation_endpoint,
    introspection_endpoint: e.introspection_endpoint,
    registration_endpoint: e.registration_endpoint,
    scopes_supported: [...INDIEAUTH_SCOPES],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'Bearer'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** The HTTP Link header the profile answers with, for clients that discover without HTML. */
export function discoveryLinkHeader(local: LocalActor): string {
  const e = endpointsOf(local);
  return [
    `<${e.metadata}>; rel="indieauth-metadata"`,
    `<${e.authorization_endpoint}>; rel="authorization_endpoint"`,
    `<${e.token_endpoint}>; rel="token_endpoint"`,
    `<${e.micropub}>; rel="micropub"`,
  ].join(', ');
}

type C = Context<ListenerEnv>;

function oauthError(c: C, error: OAuthError | BodyError, extra: Record<string, string> = {}): Response {
  if (error instanceof BodyError) {
    return c.body(JSON.stringify({ error: 'invalid_request', error_description: error.message }), error.status, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
  }
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NO_STORE, ...CORS, ...extra };
  if (error.status === 401) headers['WWW-Authenticate'] = error.code === 'invalid_client' ? 'Basic realm="tern"' : `Bearer error="${error.code}"`;
  return c.body(JSON.stringify({ error: error.code, error_description: error.message }), error.status, headers);
}

/** client_secret_basic (RFC 6749 §2.3.1: both parts form-encoded) or null. */
export function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const part = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return null;
    }
  };
  const [clientId, clientSecret] = [part(decoded.slice(0, colon)), part(decoded.slice(colon + 1))];
  return clientId === null || clientSecret === null ? null : { clientId, clientSecret };
}

function issues(error: z.ZodError): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || 'request'}: ${first.message}` : 'bad request';
}

const str = (max: number) => z.string().min(1).max(max);
const codeRequest = z.object({
  grant_type: z.literal('authorization_code').optional(),
  code: str(200),
  client_id: str(2048).optional(),
  redirect_uri: str(2048),
  code_verifier: str(200).optional(),
  client_secret: str(200).optional(),
});
const authorizationQuery = z.object({
  response_type: z.literal('code'),
  state: str(1024),
  code_challenge: z.string().regex(S256_CHALLENGE, 'must be the base64url SHA-256 of the verifier (43 characters)'),
  code_challenge_method: z.literal('S256', { error: 'only S256 is supported' }),
  scope: z.string().max(1000).optional(),
  me: str(2048).optional(),
});
const tokenOnly = z.object({ token: str(200), token_type_hint: z.string().max(50).optional() });

function waitingPage(clientName: string, pairingCode: string): string {
  return page(
    'Waiting for approval',
    `<meta http-equiv="refresh" content="${WAIT_REFRESH_S}">`,
    `<main><h1>Open Tern to approve</h1><p><strong>${escapeHtml(clientName)}</strong> asked to sign in as this site's author.</p>` +
      `<p>The author approves or refuses in the Tern app (Apps), which shows the code <strong class="pairing-code">${escapeHtml(pairingCode)}</strong> for this request: approve only if it is the same. ` +
      `This page moves on by itself once they have answered.</p></main>`,
  );
}

function errorPage(message: string): string {
  return page('Sign-in refused', '', `<main><h1>This sign-in cannot go on</h1><p>${escapeHtml(message)}</p></main>`);
}

export function mountIndieAuthRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const service = (): IndieAuthService | null => core.services?.indieauth ?? null;

  app.use('/', async (c, next) => {
    await next();
    if (c.req.method === 'GET' && c.res.status === 200) c.header('Link', discoveryLinkHeader(c.var.local), { append: true });
  });

  app.get(INDIEAUTH_PATHS.metadata, (c) => c.body(JSON.stringify(serverMetadata(c.var.local)), 200, { 'Content-Type': 'application/json', ...CORS }));

  for (const path of [INDIEAUTH_PATHS.token, INDIEAUTH_PATHS.revocation, INDIEAUTH_PATHS.introspection, INDIEAUTH_PATHS.registration, INDIEAUTH_PATHS.micropub, INDIEAUTH_PATHS.media, INDIEAUTH_PATHS.metadata]) {
    app.options(path, (c) => c.body(null, 204, { ...CORS, 'Access-Control-Max-Age': '600' }));
  }

  app.get(INDIEAUTH_PATHS.authorization, async (c) => {
    const indieauth = service();
    if (!indieauth) return html(c, errorPage('Sign-in is not available on this Tern.'), 503);
    const clientId = c.req.query('client_id');
    const redirectUri = c.req.query('redirect_uri');
    if (!clientId || !redirectUri || clientId.length > 2048 || redirectUri.length > 2048) return html(c, errorPage('client_id and redirect_uri are required.'), 400);
    // Every problem before the author has answered is shown here, on Tern's own page, never sent
    // to the redirect URI: anyone can name a URL client on any origin, and a redirect to it on an
    // error would make /auth an open redirector (RFC 9700 §4.11.2). Only the author's answer
    // sends the browser back to the client (the waiting page).
    const refuse = (error: OAuthError) => html(c, errorPage(error.message), error.status === 429 ? 429 : 400);
    try {
      const client = await indieauth.checkClient(clientId, redirectUri);
      const parsed = authorizationQuery.safeParse(c.req.query());
      if (!parsed.success) return refuse(new OAuthError('invalid_request', issues(parsed.error)));
      const q = parsed.data;
      const { handle } = indieauth.startAuthorization(
        { clientId, redirectUri, state: q.state, codeChallenge: q.code_challenge, scope: q.scope ?? null, me: q.me ?? null },
        client,
        clientAddress(c, core.settings.get().listener.behindProxy),
      );
      return c.redirect(`${INDIEAUTH_PATHS.authorization}/wait/${handle}`, 303);
    } catch (error) {
      if (error instanceof OAuthError) return refuse(error);
      throw error;
    }
  });

  app.get(`${INDIEAUTH_PATHS.authorization}/wait/:handle{[A-Za-z0-9_-]{43}}`, (c) => {
    const indieauth = service();
    if (!indieauth) return html(c, errorPage('Sign-in is not available on this Tern.'), 503);
    const outcome = indieauth.wait(c.req.param('handle'));
    if (outcome.kind === 'gone') return html(c, errorPage('This request has expired or was answered already. Start again from the app.'), 404);
    if (outcome.kind === 'redirect') return c.redirect(outcome.location, 302);
    c.header('Cache-Control', 'no-store');
    return html(c, waitingPage(outcome.pending.client.name, outcome.pending.pairingCode));
  });

  // IndieAuth §5.3: a code redeemed at the authorization endpoint gives the profile only.
  app.post(INDIEAUTH_PATHS.authorization, async (c) => {
    const indieauth = service();
    if (!indieauth) return problem(c, 503, 'sign-in is not available');
    try {
      const params = oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES));
      const parsed = codeRequest.safeParse(params);
      if (!parsed.success || !parsed.data.client_id) return oauthError(c, new OAuthError('invalid_request', parsed.success ? 'client_id is required' : issues(parsed.error)));
      const r = parsed.data;
      const result = indieauth.redeemForProfile({ code: r.code, clientId: r.client_id!, redirectUri: r.redirect_uri, codeVerifier: r.code_verifier ?? null });
      return c.body(JSON.stringify(result), 200, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
    } catch (error) {
      if (error instanceof OAuthError || error instanceof BodyError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(INDIEAUTH_PATHS.token, async (c) => {
    const indieauth = service();
    if (!indieauth) return problem(c, 503, 'tokens are not available');
    try {
      const params = oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES));
      if (params.grant_type !== undefined && params.grant_type !== 'authorization_code') {
        return oauthError(c, new OAuthError('unsupported_grant_type', 'only authorization_code is supported'));
      }
      const parsed = codeRequest.safeParse(params);
      if (!parsed.success) return oauthError(c, new OAuthError('invalid_request', issues(parsed.error)));
      const r = parsed.data;
      const basic = basicCredentials(c.req.header('authorization'));
      if (basic && r.client_secret) return oauthError(c, new OAuthError('invalid_request', 'use one client authentication method, not two'));
      if (basic && r.client_id && basic.clientId !== r.client_id) return oauthError(c, new OAuthError('invalid_request', 'client_id differs from the authenticated client'));
      const clientId = basic?.clientId ?? r.client_id;
      if (!clientId) return oauthError(c, new OAuthError('invalid_request', 'client_id is required'));
      const result = indieauth.exchangeCode({
        code: r.code,
        clientId,
        redirectUri: r.redirect_uri,
        codeVerifier: r.code_verifier ?? null,
        clientSecret: basic?.clientSecret ?? r.client_secret ?? null,
      });
      return c.body(JSON.stringify(result), 200, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
    } catch (error) {
      if (error instanceof OAuthError || error instanceof BodyError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(INDIEAUTH_PATHS.revocation, async (c) => {
    const indieauth = service();
    if (!indieauth) return problem(c, 503, 'tokens are not available');
    try {
      const parsed = tokenOnly.safeParse(oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES)));
      if (!parsed.success) return oauthError(c, new OAuthError('invalid_request', issues(parsed.error)));
      indieauth.revokeToken(parsed.data.token);
      return c.body('{}', 200, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
    } catch (error) {
      if (error instanceof OAuthError || error instanceof BodyError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(INDIEAUTH_PATHS.introspection, async (c) => {
    const indieauth = service();
    if (!indieauth) return problem(c, 503, 'tokens are not available');
    try {
      const params = oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES));
      const parsed = tokenOnly.extend({ client_id: str(2048).optional(), client_secret: str(200).optional() }).safeParse(params);
      if (!parsed.success) return oauthError(c, new OAuthError('invalid_request', issues(parsed.error)));
      const header = c.req.header('authorization') ?? '';
      const bearer = /^Bearer\s+(\S{1,200})\s*$/i.exec(header)?.[1];
      const basic = basicCredentials(header);
      const clientId = basic?.clientId ?? parsed.data.client_id;
      const caller = bearer ? { bearer } : clientId ? { clientId, clientSecret: basic?.clientSecret ?? parsed.data.client_secret ?? null } : null;
      if (!caller) return oauthError(c, new OAuthError('invalid_client', 'introspection needs client credentials or a bearer token', 401));
      return c.body(JSON.stringify(indieauth.introspect(parsed.data.token, caller)), 200, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
    } catch (error) {
      if (error instanceof OAuthError || error instanceof BodyError) return oauthError(c, error);
      throw error;
    }
  });

  app.post(INDIEAUTH_PATHS.registration, async (c) => {
    const indieauth = service();
    if (!indieauth) return problem(c, 503, 'registration is not available');
    try {
      const body = await decodeBody(c.req.raw, OAUTH_BODY_BYTES);
      if (body.kind !== 'json') return oauthError(c, new OAuthError('invalid_client_metadata', 'RFC 7591: the client metadata is a JSON object'));
      const parsed = registrationSchema.safeParse(body.value);
      if (!parsed.success) {
        const redirect = parsed.error.issues.some((i) => i.path[0] === 'redirect_uris');
        return oauthError(c, new OAuthError(redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata', issues(parsed.error)));
      }
      return c.body(JSON.stringify(indieauth.register(parsed.data)), 201, { 'Content-Type': 'application/json', ...NO_STORE, ...CORS });
    } catch (error) {
      if (error instanceof OAuthError && error.status === 429) return oauthError(c, error, { 'Retry-After': String(FRESH_CLIENT_MS / 1000) });
      if (error instanceof OAuthError || error instanceof BodyError) return oauthError(c, error);
      throw error;
    }
  });
}
