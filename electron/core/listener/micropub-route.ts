// The Micropub endpoint and its media endpoint on the listener: read the bearer token (header or
// access_token in a form body, never both), check it, decode the body (form, multipart, or JSON)
// under a cap and hand the request to micropub/. The token comes before the body: with the
// header, it is checked before a byte is read; without it, no more than 64 KiB are read to find
// access_token, so a stranger can make Tern neither buffer megabytes nor parse them (65 MiB of
// tiny multipart parts held the main thread for 6 s when bodies were parsed first). Errors are
// Micropub's JSON shapes with the status the spec names (400 invalid_request, 401 unauthorized,
// 403 insufficient_scope, 413 for a file over the media limits).
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { BadInputError, ConflictError, NotFoundError, UnavailableError } from '../errors';
import { OAuthError } from '../indieauth/clients';
import type { TokenGrant } from '../indieauth/service';
import { hasScope } from '../indieauth/scopes';
import { cleanFilename, mediaUrl } from '../media/attachments';
import { MediaRejectedError } from '../media/errors';
import { MAX_ATTACHMENTS, MAX_AV_BYTES, MAX_IMAGE_BYTES } from '../media/limits';
import { UploadedFile } from '../media/uploaded-file';
import { declaredType } from '../micropub/media';
import { configQuery, fromForm, fromJson, MAX_FORM_FIELDS, MicropubError, requireScope, runMicropub, sourceQuery, type MicropubRequest } from '../micropub/micropub';
import { problem, type ListenerCore, type ListenerEnv } from './context';
import { endpointsOf, INDIEAUTH_PATHS } from './indieauth-routes';
import type { FormEntry } from './multipart';
import { BodyError, decodeBody, type DecodedBody } from './request-body';

const MiB = 1024 * 1024;
const MICROPUB_BODY_BYTES = MiB;
/** A multipart create may carry as many full-size images as a post can have, plus its fields. */
export const MICROPUB_MULTIPART_BYTES = MAX_ATTACHMENTS * MAX_IMAGE_BYTES + MiB;
/** The media endpoint takes one file: the largest Tern accepts (video), plus the multipart framing. */
export const MEDIA_BODY_BYTES = MAX_AV_BYTES + 64 * 1024;
/** Without an Authorization header, the token can only be access_token in a form body: this much
 * is read to find it — a post's text and fields, or a small file; larger bodies need the header. */
const BODY_BEFORE_TOKEN_BYTES = 64 * 1024;
/** Parts of a multipart create: its files (at most MAX_ATTACHMENTS) and its fields — tens in the
 * busiest real client; a hundred leaves room and keeps the parser's work small. */
const MULTIPART_PARTS = 100;
/** The media endpoint's form is one file and maybe the token; a few more parts are read so that
 * mediaForm can refuse them by name. */
const MEDIA_PARTS = 10;
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

const isMultipart = (c: Context<ListenerEnv>) => /^multipart\/form-data\s*(;|$)/i.test(c.req.header('content-type') ?? '');
const isForm = (c: Context<ListenerEnv>) => /^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header('content-type') ?? '');

/**
 * A body read before any token was checked, because none came in the header: form-encoded or
 * multipart (where access_token can be), at most BODY_BEFORE_TOKEN_BYTES. Anything else is
 * refused unread with 401, saying where the token goes.
 */
async function bodyBeforeToken(c: Context<ListenerEnv>, parts: number): Promise<DecodedBody> {
  const needHeader = 'send the token in the Authorization header ("Bearer <token>")';
  if (!isForm(c) && !isMultipart(c)) throw new MicropubError('unauthorized', `an access token is required: ${needHeader}`, 401);
  try {
    return await decodeBody(c.req.raw, BODY_BEFORE_TOKEN_BYTES, { multipart: true, fields: isMultipart(c) ? parts : MAX_FORM_FIELDS });
  } catch (error) {
    if (error instanceof BodyError && error.status === 413) {
      throw new MicropubError('unauthorized', `a body over ${BODY_BEFORE_TOKEN_BYTES / 1024} KiB is read only once its token is known: ${needHeader}`, 401);
    }
    throw error;
  }
}

/** The fields of a form or multipart body, and the access_token among them. */
function formOf(body: DecodedBody): { entries: FormEntry[]; token: string | null } | null {
  if (body.kind !== 'form' && body.kind !== 'multipart') return null;
  const entries = [...(body.kind === 'form' ? body.params : body.form)];
  let token: string | null = null;
  for (const [key, value] of entries) if (key === 'access_token' && typeof value === 'string') token = value;
  return { entries, token };
}

/** The media endpoint's form: one file part named file, and maybe the token. */
const mediaForm = z
  .object({
    file: z.array(z.instanceof(UploadedFile), { message: 'a file part named "file" is required' }).length(1, 'send exactly one file part named "file"'),
    access_token: z.array(z.string().max(200)).max(1).optional(),
  })
  .strict();

function grouped(form: FormEntry[]): Record<string, FormEntry[1][]> {
  const out: Record<string, FormEntry[1][]> = {};
  for (const [key, value] of form) (out[key] ??= []).push(value);
  return out;
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
      // A token in the header is checked before the body is read.
      let grant: TokenGrant | null = header === null ? null : indieauth.verifyToken(header);
      let request: MicropubRequest | null = null;
      if (c.req.method === 'POST') {
        const body =
          grant === null
            ? await bodyBeforeToken(c, MULTIPART_PARTS)
            : await decodeBody(c.req.raw, isMultipart(c) ? MICROPUB_MULTIPART_BYTES : MICROPUB_BODY_BYTES, { multipart: true, fields: isMultipart(c) ? MULTIPART_PARTS : MAX_FORM_FIELDS });
        const form = formOf(body);
        const bodyToken = form?.token ?? null;
        if (header !== null && bodyToken !== null) return answer(c, 400, 'invalid_request', 'send the token in the header or the body, not both');
        if (grant === null) {
          if (bodyToken === null) return answer(c, 401, 'unauthorized', 'an access token is required');
          grant = indieauth.verifyToken(bodyToken);
        }
        if (body.kind === 'json') request = fromJson(body.value);
        else if (form) request = fromForm(form.entries);
        else return answer(c, 400, 'invalid_request', 'the body is empty');
      }
      if (grant === null) return answer(c, 401, 'unauthorized', 'an access token is required');

      if (request === null) {
        const parsed = queryParams.safeParse(c.req.query());
        if (!parsed.success) return answer(c, 400, 'invalid_request', 'q must be config, source or syndicate-to');
        const { q, url } = parsed.data;
        if (q === 'config') return c.json(configQuery(endpointsOf(c.var.local).media), 200, CORS);
        if (q === 'syndicate-to') return c.json({ 'syndicate-to': [] }, 200, CORS);
        if (!url) return answer(c, 400, 'invalid_request', 'q=source needs url');
        // The source of any post, direct and followers-only ones too: only for a token that may
        // write posts, not for one granted profile or media alone.
        if (!hasScope(grant.scope, 'create') && !hasScope(grant.scope, 'update')) {
          return answer(c, 403, 'insufficient_scope', 'q=source needs a token with the create or update scope', 'update');
        }
        const wanted = [...c.req.queries('properties[]') ?? [], ...c.req.queries('properties') ?? []];
        return c.json(sourceQuery(core.db, c.var.local, url, wanted), 200, CORS);
      }
      const result = await runMicropub({ db: core.db, author, local: c.var.local, media: core.services?.media ?? null }, request, grant.scope);
      if (result.status === 204) return c.body(null, 204, CORS);
      const location: Record<string, string> = result.location ? { Location: result.location } : {};
      if (result.status === 201) return c.body(null, 201, { ...CORS, ...location });
      return c.json({ url: result.location }, 200, { ...CORS, ...location });
    } catch (error) {
      return failure(c, error);
    }
  };
  app.get(INDIEAUTH_PATHS.micropub, handle);
  app.post(INDIEAUTH_PATHS.micropub, handle);

  // The media endpoint (Micropub §3.6): one file through the upload pipeline, answered with
  // 201 and its URL. The file is served publicly only once a post uses it (media/access.ts):
  // until then its URL answers 404, as for Compose uploads — the name is the hash of the
  // author's bytes, and anyone holding a copy could otherwise learn that the author uploaded it.
  app.post(INDIEAUTH_PATHS.media, async (c) => {
    const indieauth = core.services?.indieauth;
    const media = core.services?.media;
    if (!indieauth || !media) return problem(c, 503, 'the media endpoint is not available on this Tern');
    try {
      const header = bearerOf(c.req.header('authorization'));
      if (header === undefined) return answer(c, 401, 'unauthorized', 'Authorization must be "Bearer <token>"');
      let grant: TokenGrant | null = null;
      if (header !== null) {
        grant = indieauth.verifyToken(header);
        requireScope(grant.scope, 'media');
      }
      if (!isMultipart(c)) return answer(c, 415, 'invalid_request', 'the media endpoint takes multipart/form-data with one file part named "file"');
      const body = grant === null ? await bodyBeforeToken(c, MEDIA_PARTS) : await decodeBody(c.req.raw, MEDIA_BODY_BYTES, { multipart: true, fields: MEDIA_PARTS });
      const bodyToken = formOf(body)?.token ?? null;
      if (header !== null && bodyToken !== null) return answer(c, 400, 'invalid_request', 'send the token in the header or the body, not both');
      if (grant === null) {
        if (bodyToken === null) return answer(c, 401, 'unauthorized', 'an access token is required');
        grant = indieauth.verifyToken(bodyToken);
        requireScope(grant.scope, 'media');
      }
      if (body.kind !== 'multipart') return answer(c, 400, 'invalid_request', 'the body is empty');
      const parsed = mediaForm.safeParse(grouped(body.form));
      if (!parsed.success) return answer(c, 400, 'invalid_request', parsed.error.issues[0]?.message ?? 'send one file part named "file"');
      const file = parsed.data.file[0]!;
      const { upload: row } = await media.store({ file: file.pieces, contentType: declaredType(file) });
      return c.body(null, 201, { ...CORS, Location: mediaUrl(c.var.local, row.contentHash, cleanFilename(file.name, row.contentType)) });
    } catch (error) {
      return failure(c, error);
    }
  });
}

function failure(c: Context<ListenerEnv>, error: unknown): Response {
  if (error instanceof MicropubError) return answer(c, error.status, error.code, error.message, error.scope);
  if (error instanceof OAuthError) return answer(c, 401, 'unauthorized', error.message);
  if (error instanceof BodyError) return answer(c, error.status, 'invalid_request', error.message);
  if (error instanceof MediaRejectedError && error.reason === 'too_large') return answer(c, 413, 'invalid_request', error.message);
  if (error instanceof BadInputError || error instanceof NotFoundError || error instanceof ConflictError) return answer(c, 400, 'invalid_request', error.message);
  if (error instanceof UnavailableError) return answer(c, 503, 'temporarily_unavailable', error.message);
  throw error;
}
