// OAuth bodies as Mastodon-API clients send them (interop-notes): Mastodon.py posts form bodies
// to /api/v1/apps and /oauth/token, masto and megalodon post JSON to both. Each combination
// registers an app and turns an approved code into a working token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce } from '../indieauth/test-flow';
import { APP_REDIRECT, approveAndCollect, call, openMastodonRig, type MastodonRig } from './test-support';

let t: MastodonRig;

beforeAll(async () => {
  t = await openMastodonRig();
});
afterAll(async () => {
  await t?.close();
});

type Fields = Record<string, string>;
const encodings = {
  form: (fields: Fields) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }),
  json: (fields: Fields) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) }),
};
type Encoding = keyof typeof encodings;

async function post(path: string, encoding: Encoding, fields: Fields): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${t.url}${path}`, { method: 'POST', ...encodings[encoding](fields) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('app registration and token exchange, form or JSON', () => {
  it.each([
    ['form', 'form', 'Mastodon.py'],
    ['json', 'json', 'masto, megalodon'],
    ['form', 'json', 'mixed'],
    ['json', 'form', 'mixed'],
  ] as [Encoding, Encoding, string][])('/api/v1/apps as %s, /oauth/token as %s (%s)', async (apps, token, client) => {
    // The fields each client sends: scopes space-separated, redirect_uris a single string.
    const registered = await post('/api/v1/apps', apps, { client_name: `${client} app`, scopes: 'read write', redirect_uris: APP_REDIRECT, website: 'https://app.example/' });
    expect(registered.status).toBe(200);
    expect(registered.json).toMatchObject({ name: `${client} app`, redirect_uri: APP_REDIRECT, website: 'https://app.example/' });
    const clientId = String(registered.json.client_id);
    const clientSecret = String(registered.json.client_secret);

    const { verifier, challenge } = pkce();
    const url = new URL(`${t.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'read write', code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const code = await approveAndCollect(t, url.href, ['read', 'write']);

    const issued = await post('/oauth/token', token, { grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret, redirect_uri: APP_REDIRECT, code_verifier: verifier, scope: 'read write' });
    expect(issued.status).toBe(200);
    expect(issued.json).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    const me = await call(t, String(issued.json.access_token), 'GET', '/api/v1/accounts/verify_credentials');
    expect(me.status).toBe(200);
  });
});

describe('a URL client (IndieAuth client_id) through the Mastodon endpoints', () => {
  it('is told when its token ends: /oauth/token answers the expires_in the token was stored with (30 days)', async () => {
    const clientId = 'http://127.0.0.1:9/app';
    const redirectUri = 'http://127.0.0.1:9/cb';
    const { verifier, challenge } = pkce();
    const url = new URL(`${t.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'read', code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const code = await approveAndCollect(t, url.href, ['read']);
    const issued = await post('/oauth/token', 'json', { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: redirectUri, code_verifier: verifier });
    expect(issued).toMatchObject({ status: 200, json: { token_type: 'Bearer', scope: 'read', expires_in: 30 * 24 * 3600 } });
  });
});
