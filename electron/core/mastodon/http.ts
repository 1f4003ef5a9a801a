// The Mastodon API's plumbing: its error shape ({"error": "..."} with Mastodon's statuses),
// bearer tokens checked against the scopes a route needs, request parameters read the way
// Rails reads them (JSON, form or multipart; `a[]` and `a[b]` nesting; query arrays), checked by
// zod, and Link headers for pages. Every rule about tokens lives in indieauth/service.ts.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { BadInputError, ConflictError, NotFoundError, UnavailableError } from '../errors';
import { OAuthError } from '../indieauth/clients';
import type { TokenGrant } from '../indieauth/service';
import type { MastodonScope } from '../indieauth/scopes';
import { MediaRejectedError } from '../media/errors';
import type { ListenerCore, ListenerEnv } from '../listener/context';
import { BodyError, decodeBody } from '../listener/request-body';

export type C = Context<ListenerEnv>;

/** A refusal in Mastodon's shape. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 410 | 413 | 415 | 422 | 429 | 503,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = () => new ApiError(404, 'Record not found');

/** CORS for browser clients (Elk, Phanpy): /api and /oauth/token only. */
export const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'Access-Control-Expose-Headers': 'Link, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining',
};

export function json(c: C, body: unknown, status: ContentfulStatusCode = 200, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(body), status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store', ...CORS, ...headers });
}

export function errorResponse(c: C, status: ContentfulStatusCode, error: string, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {};
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer error="invalid_token"';
  if (status === 403) headers['WWW-Authenticate'] = 'Bearer error="insufficient_scope"';
  return json(c, { error, ...extra }, status, headers);
}

/** Maps what the core throws to Mastodon's answers; anything else is the listener's 500. */
export function failure(c: C, error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(c, error.status, error.message);
  if (error instanceof BodyError) return errorResponse(c, error.status, error.status === 413 ? 'Request body is too large' : error.message);
  if (error instanceof OAuthError) return errorResponse(c, error.status === 401 ? 401 : error.status, error.status === 401 ? 'The access token is invalid' : error.message, { error_description: error.message });
  if (error instanceof MediaRejectedError) return errorResponse(c, error.reason === 'too_large' ? 413 : 422, error.message);
  if (error instanceof NotFoundError) return errorResponse(c, 404, error.message || 'Record not found');
  if (error instanceof BadInputError || error instanceof ConflictError) return errorResponse(c, 422, `Validation failed: ${error.message}`);
  if (error instanceof UnavailableError) return errorResponse(c, 503, error.message);
  throw error;
}

/** Wraps a handler so every refusal has Mastodon's shape. */
export const handler =
  (fn: (c: C) => Promise<Response> | Response) =>
  async (c: C): Promise<Response> => {
    try {
      return await fn(c);
    } catch (error) {
      return failure(c, error);
    }
  };

// ---- tokens and scopes ---------------------------------------------------------------------------

function bearerOf(c: C): string | null {
  const header = c.req.header('authorization');
  if (header === undefined) return null;
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,200})\s*$/i.exec(header);
  if (!match) throw new ApiError(401, 'The access token is invalid');
  return match[1]!;
}

/** A token is needed, with one of these scopes (Mastodon: `read` covers `read:*`). */
export function requireToken(core: ListenerCore, c: C, ...anyOf: (MastodonScope | 'profile')[]): TokenGrant {
  const indieauth = core.services?.indieauth;
  if (!indieauth) throw new ApiError(503, 'The Mastodon API is not available on this Tern');
  const secret = bearerOf(c);
  if (secret === null) throw new ApiError(401, 'The access token is invalid');
  const grant = indieauth.verifyToken(secret);
  const granted = grant.scope.split(' ');
  if (anyOf.length > 0 && !anyOf.some((s) => granted.includes(s))) throw new ApiError(403, 'This action is outside the authorized scopes');
  return grant;
}

// ---- parameters ------------------------------------------------------------------------------------

type Params = Record<string, unknown>;

/** How deep a parameter's brackets may nest: far past any client's `a[b][]`; Rack, the parser
 * Mastodon runs on, bounds the depth too. */
const MAX_DEPTH = 32;

/** `a[b][]` → ['a', 'b', '']. A bracket holds no other `[`: with `[^\]]*`, a key of 15,000
 * `[` and no `]` was scanned to its end from every one of them (300 ms for one 15 KB key). */
function pathOf(key: string): string[] {
  const head = /^[^[]+/.exec(key)?.[0] ?? key;
  const rest = [...key.slice(head.length).matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
  if (rest.length > MAX_DEPTH) throw new BodyError(`parameter ${head.slice(0, 100)} is nested deeper than ${MAX_DEPTH} levels`, 400);
  return [head, ...rest];
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function assign(target: Params, key: string, value: unknown): void {
  const path = pathOf(key);
  if (path.some((p) => FORBIDDEN_KEYS.has(p))) throw new BodyError(`parameter ${key} is not accepted`, 400);
  let node: Record<string, unknown> = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    const last = i === path.length - 1;
    const nextIsArray = path[i + 1] === '';
    if (part === '') return; // `[]` handled by the parent
    if (last) {
      node[part] = value;
      return;
    }
    if (nextIsArray && i + 1 === path.length - 1) {
      const list = Array.isArray(node[part]) ? (node[part] as unknown[]) : [];
      if (list.length >= 100) throw new BodyError(`too many values for ${key}`, 400);
      list.push(value);
      node[part] = list;
      return;
    }
    const child = node[part];
    node[part] = typeof child === 'object' && child !== null && !Array.isArray(child) ? child : {};
    node = node[part] as Record<string, unknown>;
  }
}

/** Parameters a request may have: Mastodon's busiest form (a status with a poll and media ids)
 * has tens. Counted on the body's bytes before it is parsed too (bodyParams). */
const MAX_PARAMS = 500;

export function nested(entries: Iterable<[string, unknown]>): Params {
  const out: Params = {};
  let n = 0;
  for (const [key, value] of entries) {
    if (++n > MAX_PARAMS) throw new BodyError(`more than ${MAX_PARAMS} parameters`, 400);
    assign(out, key, value);
  }
  return out;
}

/** Query parameters, nested. */
export function queryParams(c: C): Params {
  const url = new URL(c.req.url);
  return nested(url.searchParams.entries());
}

export const SMALL_BODY = 64 * 1024;

/** The body's parameters (merged over the query's, as Rails does), nested. A form's fields or a
 * multipart body's parts are counted before the parser runs: it takes no limit, and the 500th
 * part would otherwise be refused only after all of them — 40 MiB of tiny parts is seconds. */
export async function bodyParams(c: C, cap = SMALL_BODY, multipart = false): Promise<Params> {
  const body = await decodeBody(c.req.raw, cap, { multipart: true, fields: MAX_PARAMS });
  const query = queryParams(c);
  if (body.kind === 'empty') return query;
  if (body.kind === 'json') {
    if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) throw new ApiError(422, 'Validation failed: the JSON body must be an object');
    return { ...query, ...(body.value as Params) };
  }
  if (body.kind === 'form') return { ...query, ...nested(body.params.entries()) };
  if (!multipart && body.form.some(([, v]) => typeof v !== 'string')) throw new ApiError(422, 'Validation failed: this endpoint takes no files');
  return { ...query, ...nested(body.form) };
}

/** Parses with zod; the first problem as Mastodon's 422. */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ApiError(422, `Validation failed: ${issue ? `${issue.path.join('.') || 'request'} ${issue.message}` : 'bad request'}`);
}

/** Rails-style booleans ("true", "1", "on"…) and real ones. */
export const bool = z.preprocess((v) => (typeof v === 'string' ? ['true', '1', 'on', 't', 'yes'].includes(v.toLowerCase()) : v), z.boolean());
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A `limit` as Mastodon's limit_param reads it: absent, the default; else its absolute value, at
 * most `max` ([limit.to_i.abs, max].min: 0 is an empty page, 200 is `max`, not a refusal — Tern
 * refused both with 422, and a client asking for more than Tern's cap got nothing). Not a whole
 * number: 422. */
export const limitParam = (fallback: number, max: number) =>
  z.coerce
    .number()
    .int()
    .transform((n) => Math.min(Math.abs(n), max))
    .default(fallback);
/** An id, as a string (some clients send numbers in JSON). */
export const idString = z.preprocess((v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v), z.string().regex(/^\d{1,30}$/, 'is not an id'));
/** A single value or a list: `ids[]=1`, `ids=1`, JSON arrays, or Rails' indexed `ids[0]=1`. */
export const list = <T extends z.ZodType>(item: T, max: number) =>
  z.preprocess((v) => {
    if (v === undefined || Array.isArray(v)) return v;
    if (typeof v === 'object' && v !== null && Object.keys(v).every((k) => /^\d{1,3}$/.test(k))) {
      return Object.entries(v).sort(([a], [b]) => Number(a) - Number(b)).map(([, x]) => x as unknown);
    }
    return [v];
  }, z.array(item).max(max));

// ---- pages -----------------------------------------------------------------------------------------

export const pageQuery = z.object({
  max_id: idString.optional(),
  since_id: idString.optional(),
  min_id: idString.optional(),
  limit: limitParam(20, 80),
});
export type PageQuery = z.output<typeof pageQuery>;

/** How many batches a filtered page reads at most before it answers with what it has. */
const MAX_BATCHES = 5;

/**
 * A page of the rows a filter keeps, read in batches of `limit` rows until it is full or the rows
 * run out, so a filter cannot make a page look like the last. `read` answers a batch newest first,
 * from a cursor (the last batch's row to go on from; null for the first). Without `climbing`
 * (max_id, since_id, or no bound) the batches go back in time and the page is the newest `limit`
 * matches; with it (min_id) they climb from the bound, and the page is the `limit` matches nearest
 * the bound — the oldest ones — still listed newest first, as Mastodon lists every page (a newer
 * batch's matches go before an older one's: appended, a two-batch page read [2, 4] for [4, 2]).
 * Statuses and notifications both page through this.
 */
export function filteredPage<Row, Item>(input: {
  limit: number;
  climbing: boolean;
  read: (cursor: Row | null) => Row[];
  keep: (rows: Row[]) => Item[];
  /** Told the last row read when the page answers short with its batches used up and rows left
   * (a run of rows the filter drops): the Link header goes on from there, or a client would take
   * the short page for the last, or ask for the same rows again. */
  stoppedAt?: (cursor: Row) => void;
}): Item[] {
  const { limit, climbing } = input;
  let out: Item[] = [];
  let cursor: Row | null = null;
  let more = false;
  for (let batch = 0; batch < MAX_BATCHES && out.length < limit; batch++) {
    const rows = input.read(cursor);
    const kept = input.keep(rows);
    out = climbing ? [...kept, ...out] : [...out, ...kept];
    more = rows.length >= limit;
    if (!more) break;
    cursor = climbing ? rows[0]! : rows.at(-1)!;
  }
  if (more && out.length < limit && cursor !== null) input.stoppedAt?.(cursor);
  return climbing ? out.slice(Math.max(0, out.length - limit)) : out.slice(0, limit);
}

/** The Link header of a page whose items have these ids (newest first). `bounds` replace the ids
 * the links go on from (filteredPage's stoppedAt: the rows read past the items). */
export function linkHeader(c: C, local: { baseUrl: string }, ids: string[], bounds: { next?: string; prev?: string } = {}): Record<string, string> {
  const next = bounds.next ?? ids.at(-1);
  const prev = bounds.prev ?? ids[0];
  if (next === undefined && prev === undefined) return {};
  const url = new URL(c.req.url);
  const at = (param: string, value: string) => {
    const link = new URL(`${local.baseUrl}${url.pathname}`);
    for (const [k, v] of url.searchParams) if (!['max_id', 'since_id', 'min_id'].includes(k)) link.searchParams.append(k, v);
    link.searchParams.set(param, value);
    return link.href;
  };
  const links = [...(next === undefined ? [] : [`<${at('max_id', next)}>; rel="next"`]), ...(prev === undefined ? [] : [`<${at('min_id', prev)}>; rel="prev"`])];
  return { Link: links.join(', ') };
}
