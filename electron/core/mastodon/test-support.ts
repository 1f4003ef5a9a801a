// Test support for the Mastodon API: an author rig (real core, listener, loops) with a Fedify
// peer following it, and the author's side of signing in — approving the app's request through
// the same IPC call the Apps view makes. Not imported by production code.
import sharp from 'sharp';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { answer, pkce } from '../indieauth/test-flow';
import { startPeer, type Peer } from '../../../test/peer/peer';

export const APP_REDIRECT = 'com.example.phone.19300:/request_token';

export interface MastodonRig {
  rig: AuthorRig;
  peer: Peer;
  url: string;
  close(): Promise<void>;
}

export async function openMastodonRig(): Promise<MastodonRig> {
  const [rig, peer] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' })]);
  await peer.follow(rig.url);
  await peer.waitFor((x) => x.type === 'Accept');
  return {
    rig,
    peer,
    url: rig.url,
    async close() {
      await peer.close();
      await rig.close();
    },
  };
}

/** Opens the authorize URL as a browser would, lets the author approve in "the app", and
 * follows the waiting page back: the code the app receives on its redirect URI. */
export async function approveAndCollect(t: MastodonRig, authorizeUrl: string, scopes: string[]): Promise<string> {
  const start = await fetch(authorizeUrl, { redirect: 'manual' });
  if (start.status !== 303) throw new Error(`authorize refused: ${start.status} ${await start.text()}`);
  const wait = new URL(start.headers.get('location')!, t.url).href;
  const waiting = await fetch(wait, { redirect: 'manual' });
  if (waiting.status !== 200) throw new Error(`no waiting page: ${waiting.status}`);
  await answer(t.rig.core, true, scopes);
  const back = await fetch(wait, { redirect: 'manual' });
  const location = back.headers.get('location');
  if (back.status !== 302 || !location) throw new Error(`no redirect back: ${back.status}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

export async function pngBytes(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();
}

export interface SignedIn {
  token: string;
  clientId: string;
  clientSecret: string;
}

/** Registers an app and signs in with plain HTTP (no client library), PKCE sent. */
export async function signIn(t: MastodonRig, scopes: string[], name = 'Raw Client'): Promise<SignedIn> {
  const registered = await fetch(`${t.url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: APP_REDIRECT, scopes: scopes.join(' ') }),
  });
  const app = (await registered.json()) as { client_id: string; client_secret: string };
  const { verifier, challenge } = pkce();
  const url = new URL(`${t.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({ client_id: app.client_id, redirect_uri: APP_REDIRECT, response_type: 'code', scope: scopes.join(' '), code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' })) url.searchParams.set(k, v);
  const code = await approveAndCollect(t, url.href, scopes);
  const response = await fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: app.client_id, client_secret: app.client_secret, redirect_uri: APP_REDIRECT, code_verifier: verifier }),
  });
  const token = (await response.json()) as { access_token?: string };
  if (!token.access_token) throw new Error(`no token: ${JSON.stringify(token)}`);
  return { token: token.access_token, clientId: app.client_id, clientSecret: app.client_secret };
}

/** A request with the token, JSON in and out. */
export async function call(t: MastodonRig, token: string | null, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${t.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : null, headers: response.headers };
}

/** Polls `read` until it gives something (a notification the inbox processed, a status that
 * came): `tries` looks, `everyMs` apart (about 5 s by default); throws when nothing came. */
export async function eventually<T>(read: () => Promise<T | undefined>, { tries = 100, everyMs = 50 } = {}): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const found = await read();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error('never came');
}
