// The Micropub endpoint on the listener: reads the bearer token (header or access_token in the
// body, never both), checks it, decodes the body (form, multipart without files, or JSON) and
// hands the request to micropub/. Errors are Micropub's JSON shapes with the status the spec
// names (400 invalid_request, 401 unauthorized, 403 insufficient_scope).
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { BadInputError, ConflictError, NotFoundError, UnavailableError } from '../errors';
import { OAuthError } from '../indieauth/clients';
import { hasScope } from '../indieauth/scopes';
import { configQuery, fromForm, fromJson, MicropubError, runMicropub, sourceQuery, type MicropubRequest } from '../micropub/micropub';
import { problem, type ListenerCore, type ListenerEnv } from './context';
import { INDIEAUTH_PATHS } from './indieauth-routes';
import { BodyError, decodeBody } from './request-body';

const MICROPUB_BODY_BYTES = 1024 * 1024;
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Location, WWW-Authenticate' };

function answer(c: Context<ListenerEnv>, status: 400 | 401 | 403 | 404 | 413 | 415 | 503, error: string, description: string, scope?: string): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...CORS };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer error="invalid_token"';
  if (status === 403) headers['WWW-Authenticate'] = `Bearer error="insufficient_scope"${scope ? `, scope="${scope}"` : ''}`;
  return c.body(JSON.stringify({ error, error_description: description, ...(scope ? { scope } : {}) }), status, headers);
}

function bearerOf(header: string | undefined): string | null | undefined {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S{1,200})\s*$/i.exec(header);
  return match ? match[1]! : undefined;
}

const queryParams = z.object({
  q: z.enum(['config', 'source', 'syndicate-to']),
  url: z.string().url().max(2048).optional(),
});

export function mountMicropubRoute(app: Hono<ListenerEnv>, core: ListenerCore): void {
  const handle = async (c: Context<ListenerEnv>): Promise<Response> => {
    const indieauth = core.services?.indieauth;
    const author = core.services?.author;
    if (!indieauth || !author) return problem(c, 503, 'Micropub is not available on this Tern');
    try {
      const header = bearerOf(c.req.header('authorization'));
      if (header === undefined) return answer(c, 401, 'unauthorized', 'Authorization must be "Bearer <token>"');
      let request: MicropubRequest | null = null;
      let bodyToken: string | null = null;
      if (c.req.method === 'POST') {
        const body = await decodeBody(c.req.raw, MICROPUB_BODY_BYTES, { multipart: true });
        if (body.kind === 'json') request = fromJson(body.value);
        else if (body.kind === 'form' || body.kind === 'multipart') {
          const entries: [string, string][] = [];
          for (const [key, value] of body.kind === 'form' ? body.params : body.form) {
            if (typeof value !== 'string') return answer(c, 400, 'invalid_request', 'Tern has no media endpoint yet: give photos by URL');
            if (key === 'access_token') bodyToken = value;
            entries.push([key, value]);
          }
          request = fromForm(entries);
        } else return answer(c, 400, 'invalid_request', 'the body is empty');
      }
      if (header !== null && bodyToken !== null) return answer(c, 400, 'invalid_request', 'send the token in the header or the body, not both');
      const token = header ?? bodyToken;
      if (token === null) return answer(c, 401, 'unauthorized', 'an access token is required');
      const grant = indieauth.verifyToken(token);

      if (request === null) {
        const parsed = queryParams.safeParse(c.req.query());
        if (!parsed.success) return answer(c, 400, 'invalid_request', 'q must be config, source or syndicate-to');
        const { q, url } = parsed.data;
        if (q === 'config') return c.json(configQuery(), 200, CORS);
        if (q === 'syndicate-to') return c.json({ 'syndicate-to': [] }, 200, CORS);
        if (!url) return answer(c, 400, 'invalid_request', 'q=source needs url');
        // The source of any post, direct and followers-only ones too: only for a token that may
        // write posts, not for one granted profile or media alone.
        if (!hasScope(grant.scope, 'create') && !hasScope(grant.scope, 'update')) {
          return answer(c, 403, 'insufficient_scope', 'q=source needs a token with the create or update scope', 'update');
        }
        const wanted = [...c.req.queries('properties[]') ?? [], ...c.req.queries('properties') ?? []];
        return c.json(sourceQuery(core.db, url, wanted), 200, CORS);
      }
      const result = await runMicropub({ db: core.db, author }, request, grant.scope);
      if (result.status === 204) return c.body(null, 204, CORS);
      const location: Record<string, string> = result.location ? { Location: result.location } : {};
      if (result.status === 201) return c.body(null, 201, { ...CORS, ...location });
      return c.json({ url: result.location }, 200, { ...CORS, ...location });
    } catch (error) {
      if (error instanceof MicropubError) return answer(c, error.status, error.code, error.message, error.scope);
      if (error instanceof OAuthError) return answer(c, 401, 'unauthorized', error.message);
      if (error instanceof BodyError) return answer(c, error.status, 'invalid_request', error.message);
      if (error instanceof BadInputError || error instanceof NotFoundError || error instanceof ConflictError) return answer(c, 400, 'invalid_request', error.message);
      if (error instanceof UnavailableError) return answer(c, 503, 'temporarily_unavailable', error.message);
      throw error;
    }
  };
  app.get(INDIEAUTH_PATHS.micropub, handle);
  app.post(INDIEAUTH_PATHS.micropub, handle);
}
