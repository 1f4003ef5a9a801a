// Signing in, Mastodon's way: POST /api/v1/apps registers an oauth_client row; GET
// /oauth/authorize checks the app and hands the request to the same pending-request flow as
// IndieAuth — the author approves in Tern's Apps view, never on the listener — and its waiting
// page sends the browser back with the code (or, out of band, shows the code to paste);
// POST /oauth/token exchanges it (PKCE checked when it was sent) for a token that lives until
// revoked; POST /oauth/revoke takes a token back. Thin: the rules live in indieauth/.
import type { Hono } from 'hono';
import { z } from 'zod';
import { isMastodonRedirectUri, OAuthError, OOB_REDIRECT } from '../indieauth/clients';
import { joinScopes, knownScopes } from '../indieauth/scopes';
import { S256_CHALLENGE } from '../indieauth/secrets';
import { clientAddress } from '../listener/client-address';
import { basicCredentials } from '../listener/indieauth-routes';
import { html, type ListenerCore, type ListenerEnv } from '../listener/context';
import { escapeHtml, page } from '../listener/pages';
import { BodyError, decodeBody, oauthParams } from '../listener/request-body';
import { ApiError, bodyParams, CORS, handler, json, parse, requireToken, type C } from './http';

const WAIT_REFRESH_S = 2;
const OAUTH_BODY_BYTES = 16 * 1024;
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const appRequest = z.object({
  client_name: z.string().trim().min(1).max(200),
  redirect_uris: z.union([z.string().max(4096), z.array(z.string().max(2048)).min(1).max(10)]),
  scopes: z.string().max(1000).optional(),
  website: z.string().max(2048).url().refine((u) => /^https?:/i.test(u), 'must be an http(s) URL').optional().or(z.literal('').transform(() => undefined)),
});

const authorizeQuery = z.object({
  response_type: z.literal('code'),
  client_id: z.string().min(1).max(200),
  redirect_uri: z.string().min(1).max(2048),
  scope: z.string().max(1000).optional(),
  state: z.string().max(1024).optional(),
  code_challenge: z.string().regex(S256_CHALLENGE, 'must be the base64url SHA-256 of the verifier').optional(),
  code_challenge_method: z.literal('S256', { error: 'only S256 is supported' }).optional(),
});

const tokenRequest = z.object({
  grant_type: z.literal('authorization_code', { error: 'only authorization_code is supported' }),
  code: z.string().min(1).max(200),
  client_id: z.string().min(1).max(200).optional(),
  client_secret: z.string().min(1).max(200).optional(),
  redirect_uri: z.string().min(1).max(2048),
  code_verifier: z.string().min(1).max(200).optional(),
  scope: z.string().max(1000).optional(),
});

const revokeRequest = z.object({ client_id: z.string().min(1).max(200), client_secret: z.string().min(1).max(200), token: z.string().min(1).max(200) });

const clientCredentials = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1).max(200).optional(),
  client_secret: z.string().min(1).max(200).optional(),
  scope: z.string().max(1000).optional(),
  redirect_uri: z.string().max(2048).optional(),
});

/** zod, with the first problem as OAuth's invalid_request. */
function parseOr<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new OAuthError('invalid_request', `${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'bad request'}`);
}

function splitUris(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : value.split(/\s+/)).map((u) => u.trim()).filter(Boolean);
}

function oauthFailure(c: C, error: unknown): Response {
  if (error instanceof OAuthError) return json(c, { error: error.code, error_description: error.message }, error.status, NO_STORE);
  if (error instanceof BodyError) return json(c, { error: 'invalid_request', error_description: error.message }, error.status, NO_STORE);
  if (error instanceof ApiError) return json(c, { error: error.status === 422 ? 'invalid_request' : error.message, error_description: error.message }, error.status === 422 ? 400 : error.status, NO_STORE);
  throw error;
}

function waitingPage(clientName: string, pairingCode: string): string {
  return page(
    'Waiting for approval',
    `<meta http-equiv="refresh" content="${WAIT_REFRESH_S}">`,
    `<main><h1>Open Tern to approve</h1><p><strong>${escapeHtml(clientName)}</strong> asked to sign in as this site's author.</p>` +
      `<p>The author approves or refuses in the Tern app (Apps), which shows the code <strong class="pairing-code">${escapeHtml(pairingCode)}</strong> for this request: approve only if it is the same. ` +
      `This page moves on by itself once they have answered.</p></main>`,
  );
}

const messagePage = (title: string, text: string) => page(title, '', `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>`);

function codePage(code: string): string {
  return page(
    'Authorization code',
    '',
    `<main><h1>Authorization code</h1><p>Copy this code and paste it into the app:</p><p><code class="oob-code">${escapeHtml(code)}</code></p></main>`,
  );
}

export function mountOAuthRoutes(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const indieauth = () => {
    const service = core.services?.indieauth;
    if (!service) throw new ApiError(503, 'The Mastodon API is not available on this Tern');
    return service;
  };

  app.post(
    '/api/v1/apps',
    handler(async (c) => {
      const input = parse(appRequest, await bodyParams(c, OAUTH_BODY_BYTES));
      const uris = splitUris(input.redirect_uris);
      if (uris.length === 0 || uris.length > 10) throw new ApiError(422, 'Validation failed: Redirect URI must be given (at most 10)');
      const bad = uris.find((u) => !isMastodonRedirectUri(u));
      if (bad !== undefined) throw new ApiError(422, `Validation failed: Redirect URI ${bad.slice(0, 100)} must be an absolute URI (https, http on localhost, an app's own scheme, or ${OOB_REDIRECT})`);
      const scopes = knownScopes(input.scopes ?? 'read');
      const { row, clientSecret } = indieauth().registerMastodonApp({ name: input.client_name, redirectUris: uris, scopes, website: input.website ?? null });
      return json(c, {
        id: String(row.id),
        name: row.clientName,
        website: row.clientUri,
        scopes,
        redirect_uri: uris.join('\n'),
        redirect_uris: uris,
        client_id: row.clientId,
        client_secret: clientSecret,
        client_secret_expires_at: 0,
        vapid_key: '',
      });
    }),
  );

  app.get(
    '/api/v1/apps/verify_credentials',
    handler((c) => {
      const grant = requireToken(core, c);
      const client = indieauth().clientOf(grant);
      return json(c, { name: client?.clientName ?? 'Unknown app', website: client?.clientUri ?? null, scopes: grant.scope.split(' ').filter(Boolean), redirect_uris: client?.redirectUris ?? [] });
    }),
  );

  app.get('/oauth/authorize', async (c) => {
    let service;
    try {
      service = indieauth();
    } catch {
      return html(c, messagePage('Sign-in is not available', 'Sign-in is not available on this Tern.'), 503);
    }
    const parsed = authorizeQuery.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return html(c, messagePage('This sign-in cannot go on', `${issue?.path.join('.') ?? 'request'}: ${issue?.message ?? 'bad request'}`), 400);
    }
    const q = parsed.data;
    try {
      const client = await service.checkClient(q.client_id, q.redirect_uri);
      const scope = joinScopes(knownScopes(q.scope ?? 'read'));
      const { handle } = service.startAuthorization(
        { clientId: q.client_id, redirectUri: q.redirect_uri, state: q.state ?? '', codeChallenge: q.code_challenge ?? null, scope, me: null },
        client,
        clientAddress(c, core.settings.get().listener.behindProxy),
      );
      return c.redirect(`/oauth/authorize/wait/${handle}`, 303);
    } catch (error) {
      if (error instanceof OAuthError) return html(c, messagePage('This sign-in cannot go on', error.message), error.status === 429 ? 429 : 400);
      throw error;
    }
  });

  app.get('/oauth/authorize/wait/:handle{[A-Za-z0-9_-]{43}}', (c) => {
    const service = core.services?.indieauth;
    if (!service) return html(c, messagePage('Sign-in is not available', 'Sign-in is not available on this Tern.'), 503);
    const outcome = service.wait(c.req.param('handle'));
    c.header('Cache-Control', 'no-store');
    if (outcome.kind === 'gone') return html(c, messagePage('This sign-in cannot go on', 'This request has expired or was answered already. Start again from the app.'), 404);
    if (outcome.kind === 'waiting') return html(c, waitingPage(outcome.pending.client.name, outcome.pending.pairingCode));
    if (outcome.location.startsWith(`${OOB_REDIRECT}?`)) {
      const params = new URLSearchParams(outcome.location.slice(OOB_REDIRECT.length + 1));
      const code = params.get('code');
      return code ? html(c, codePage(code)) : html(c, messagePage('Sign-in refused', 'The author did not allow it.'), 403);
    }
    return c.redirect(outcome.location, 302);
  });

  app.options('/oauth/token', (c) => c.body(null, 204, { ...CORS, 'Access-Control-Max-Age': '600' }));
  app.post('/oauth/token', async (c) => {
    try {
      const params = oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES, { multipart: true }).then((b) => (b.kind === 'multipart' ? { kind: 'form' as const, params: new URLSearchParams([...b.form].filter((e): e is [string, string] => typeof e[1] === 'string')) } : b)));
      if (params.grant_type === 'client_credentials') {
        const r = parseOr(clientCredentials, params);
        const basic = basicCredentials(c.req.header('authorization'));
        const clientId = basic?.clientId ?? r.client_id;
        if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
        const result = indieauth().appToken({ clientId, clientSecret: basic?.clientSecret ?? r.client_secret ?? null });
        return json(c, result, 200, NO_STORE);
      }
      if (params.grant_type !== undefined && params.grant_type !== 'authorization_code') {
        throw new OAuthError('unsupported_grant_type', 'authorization_code and client_credentials are supported');
      }
      const r = parseOr(tokenRequest, params);
      const basic = basicCredentials(c.req.header('authorization'));
      if (basic && r.client_id && basic.clientId !== r.client_id) throw new OAuthError('invalid_request', 'client_id differs from the authenticated client');
      const clientId = basic?.clientId ?? r.client_id;
      if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
      const result = indieauth().exchangeCode(
        { code: r.code, clientId, redirectUri: r.redirect_uri, codeVerifier: r.code_verifier ?? null, clientSecret: basic?.clientSecret ?? r.client_secret ?? null },
        { untilRevoked: true },
      );
      // A URL client's token ends (IndieAuth's 30 days): the client is told when.
      const expires = 'expires_in' in result ? { expires_in: result.expires_in } : {};
      return json(c, { access_token: result.access_token, token_type: 'Bearer', scope: result.scope, ...expires, created_at: result.created_at }, 200, NO_STORE);
    } catch (error) {
      return oauthFailure(c, error);
    }
  });

  app.post('/oauth/revoke', async (c) => {
    try {
      const params = oauthParams(await decodeBody(c.req.raw, OAUTH_BODY_BYTES));
      const basic = basicCredentials(c.req.header('authorization'));
      const parsed = revokeRequest.safeParse({ client_id: basic?.clientId, client_secret: basic?.clientSecret, ...params });
      if (!parsed.success) throw new OAuthError('invalid_request', `${parsed.error.issues[0]?.path.join('.') ?? 'request'}: ${parsed.error.issues[0]?.message ?? 'bad request'}`);
      const service = indieauth();
      const client = service.authenticate(parsed.data.client_id, parsed.data.client_secret);
      // RFC 7009 §2.1: only a token issued to this client is revoked; any other answers the same.
      const grant = (() => {
        try {
          return service.verifyToken(parsed.data.token);
        } catch {
          return null;
        }
      })();
      if (grant && grant.clientId === client.clientId) service.revokeToken(parsed.data.token);
      return c.body('{}', 200, { 'Content-Type': 'application/json', ...NO_STORE });
    } catch (error) {
      return oauthFailure(c, error);
    }
  });
}
