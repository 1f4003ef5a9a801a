// Test support for IndieAuth: the steps a client and the author take, over real HTTP against a
// listening core. The client side is written by hand here (the end-to-end test uses an
// independent library); the author answers through the IPC dispatcher, as the app does.
import { createHash, randomBytes } from 'node:crypto';
import { count } from 'drizzle-orm';
import { indieauthAccessToken, indieauthAuthorizationRequest, oauthClient } from '../../../db/schema';
import type { Core } from '../core';
import { createHandlers, dispatch } from '../ipc/handlers';

export const REDIRECT = 'http://127.0.0.1:9/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function rowCounts(core: Core) {
  const n = (table: typeof oauthClient | typeof indieauthAccessToken | typeof indieauthAuthorizationRequest) => core.db.select({ n: count() }).from(table).get()?.n ?? 0;
  return { clients: n(oauthClient), tokens: n(indieauthAccessToken), codes: n(indieauthAuthorizationRequest), pending: core.services.indieauth.pending().length };
}

export async function register(base: string, metadata: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret: string }> {
  const response = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Writer', redirect_uris: [REDIRECT], ...metadata }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { client_id: string; client_secret: string };
}

export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${base}/auth`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

export async function getManual(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

/** Starts an authorization; returns the waiting page's URL. */
export async function startAuthorization(base: string, params: Record<string, string | undefined>): Promise<string> {
  const response = await getManual(authorizeUrl(base, { response_type: 'code', state: 'st4te', code_challenge_method: 'S256', ...params }));
  if (response.status !== 303) throw new Error(`authorization refused: ${response.status} ${response.headers.get('location')} ${await response.text()}`);
  return new URL(response.headers.get('location')!, base).href;
}

/** The author answers the newest waiting request through IPC, as the consent screen does. */
export async function answer(core: Core, approve: boolean, scopes: string[]): Promise<unknown> {
  const [request] = core.services.indieauth.pending();
  if (!request) throw new Error('nothing pending');
  const result = await dispatch(createHandlers(core), 'apps.decide', { id: request.id, approve, scopes });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

/** The waiting page after the author answered: the redirect back to the client. */
export async function collect(waitUrl: string): Promise<URL> {
  const response = await getManual(waitUrl);
  if (response.status !== 302) throw new Error(`no redirect yet: ${response.status}`);
  return new URL(response.headers.get('location')!);
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export async function postForm(url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A registered client's access token with `scopes`, through the whole flow. */
export async function issueToken(base: string, core: Core, scopes: string[]): Promise<string> {
  const client = await register(base);
  const { verifier, challenge } = pkce();
  const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: scopes.join(' '), code_challenge: challenge });
  await answer(core, true, scopes);
  const code = (await collect(wait)).searchParams.get('code')!;
  const { status, json } = await postForm(
    `${base}/token`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
    { authorization: basic(client.client_id, client.client_secret) },
  );
  if (status !== 200) throw new Error(`token refused: ${JSON.stringify(json)}`);
  return json.access_token as string;
}
