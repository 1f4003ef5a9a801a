// IndieAuth and OAuth over real HTTP against a listening core: metadata and discovery,
// registration (RFC 7591), the authorization request waiting for the author, the author's
// answer through IPC, the code exchange with PKCE and client authentication, revocation and
// introspection — and every refusal, each with its reason and nothing stored.
import { eq, inArray, like, or } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setSkipLog } from '../../../db/readable-rows';
import { indieauthAccessToken, indieauthAuthorizationRequest, oauthClient } from '../../../db/schema';
import { openListeningCore, type ListeningCore } from '../listener/test-support';
import { startServer, type LoopbackServer } from '../net/test-server';
import { hashSecret } from './secrets';
import { FRESH_CLIENT_MS, MAX_REGISTERED_CLIENTS, UNUSED_CLIENT_MS } from './clients';
import { CLIENT_INFO_CACHE_MS, MAX_CLIENT_FETCHES, MAX_PENDING, MAX_PENDING_PER_HOST } from './service';
import { answer, authorizeUrl, basic, collect, getManual, pkce, postForm, REDIRECT, register, rowCounts, startAuthorization } from './test-flow';

let t: ListeningCore;
let base: string;

beforeAll(async () => {
  t = await openListeningCore('alice');
  base = t.url;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => t.setClockOffset(0));

/** A registered client all the way to a code: register, authorize, the author approves. */
async function codeFor(scopes: string[], asked = 'create update delete profile') {
  const client = await register(base);
  const { verifier, challenge } = pkce();
  const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: asked, code_challenge: challenge });
  await answer(t.core, true, scopes);
  const back = await collect(wait);
  return { client, verifier, code: back.searchParams.get('code')!, back };
}

const exchange = (client: { client_id: string; client_secret: string }, code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
  postForm(`${base}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra }, { authorization: basic(client.client_id, client.client_secret) });

describe('discovery', () => {
  it('publishes RFC 8414 metadata with S256 only, the issuer being the profile URL', async () => {
    const response = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: `${base}/`,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/token/revoke`,
      introspection_endpoint: `${base}/token/introspect`,
      registration_endpoint: `${base}/register`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('the profile page names the metadata, authorization, token and micropub endpoints in its Link header', async () => {
    const response = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    const link = response.headers.get('link') ?? '';
    expect(link).toContain(`<${base}/.well-known/oauth-authorization-server>; rel="indieauth-metadata"`);
    expect(link).toContain(`<${base}/micropub>; rel="micropub"`);
    expect(link).toContain(`<${base}/token>; rel="token_endpoint"`);
  });
});

describe('registration (RFC 7591)', () => {
  it('answers 201 with a client_id and a secret shown once; only the secret’s hash is stored', async () => {
    const client = await register(base, { client_uri: 'https://writer.example/', scope: 'create bogus' });
    const row = t.core.db.select().from(oauthClient).where(eq(oauthClient.clientId, client.client_id)).get()!;
    expect(row.clientName).toBe('Test Writer');
    expect(row.redirectUris).toEqual([REDIRECT]);
    expect(row.scope).toBe('create');
    expect(row.clientSecret).not.toBe(client.client_secret);
    expect(row.clientSecret).toBe(hashSecret(client.client_secret));
  });

  it.each([
    ['no redirect_uris', { client_name: 'x' }, 400, 'invalid_redirect_uri'],
    ['an http redirect_uri off loopback', { redirect_uris: ['http://evil.example/cb'] }, 400, 'invalid_redirect_uri'],
    ['a redirect_uri with a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 400, 'invalid_redirect_uri'],
    ['a grant type other than authorization_code', { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 400, 'invalid_client_metadata'],
  ])('refuses %s, storing nothing', async (_name, body, status, error) => {
    const before = rowCounts(t.core).clients;
    const response = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error });
    expect(rowCounts(t.core).clients).toBe(before);
  });

  it('refuses a form body (415 is for unknown types; RFC 7591 metadata is JSON) and a body over 16 KiB', async () => {
    const before = rowCounts(t.core).clients;
    const form = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'redirect_uris=x' });
    expect(form.status).toBe(400);
    const big = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(20_000) }),
    });
    expect(big.status).toBe(413);
    expect(rowCounts(t.core).clients).toBe(before);
  });
});

describe('public clients (RFC 7591 token_endpoint_auth_method none, which the metadata advertises)', () => {
  const registerPublic = async () => {
    const response = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Browser App', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) });
    expect(response.status).toBe(201);
    return (await response.json()) as Record<string, unknown> & { client_id: string };
  };

  it('registers with no secret, and exchanges its code with PKCE alone; a secret it sends, or no verifier, is refused', async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint_auth_methods_supported: string[] };
    expect(meta.token_endpoint_auth_methods_supported).toContain('none');
    const client = await registerPublic();
    expect(client).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(client).not.toHaveProperty('client_secret');
    const { verifier, challenge } = pkce();
    const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: challenge });
    await answer(t.core, true, ['create']);
    const code = (await collect(wait)).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, client_id: client.client_id, redirect_uri: REDIRECT };
    expect(await postForm(`${base}/token`, { ...form, code_verifier: verifier, client_secret: 'guess' })).toMatchObject({ status: 401, json: { error: 'invalid_client' } });
    expect(await postForm(`${base}/token`, form)).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier is missing/) } });
    expect(await postForm(`${base}/token`, { ...form, code_verifier: verifier })).toMatchObject({ status: 200, json: { token_type: 'Bearer', scope: 'create' } });
  });

  it('cannot start a sign-in without PKCE (the Mastodon authorize endpoint, where PKCE is optional for apps with a secret)', async () => {
    const client = await registerPublic();
    const response = await getManual(`${base}/oauth/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=read`);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/code_challenge is required/);
  });
});

describe('registration when full', () => {
  it(`at ${MAX_REGISTERED_CLIENTS} clients, forgets first every registration a day old never used for a sign-in, then registers; used ones are kept, and fresh ones when that made room`, async () => {
    const now = t.core.clock();
    const old = new Date(now.getTime() - UNUSED_CLIENT_MS - 1000);
    const room = MAX_REGISTERED_CLIENTS - rowCounts(t.core).clients;
    const row = (i: number, createdAt: Date) => ({ createdAt, clientName: `flood ${i}`, redirectUris: [REDIRECT], clientId: `flood-${i}`, clientSecret: hashSecret(`flood-${i}`) });
    try {
      t.core.db.insert(oauthClient).values(Array.from({ length: room }, (_, i) => row(i, i < 10 ? old : now))).run();
      // flood-0 was used: a code was issued to it.
      t.core.db.insert(indieauthAuthorizationRequest).values({ createdAt: old, code: hashSecret('flood-code'), scope: 'create', redirectUri: REDIRECT, clientId: 'flood-0', codeChallenge: null, codeChallengeMethod: null, isUsed: true }).run();
      const response = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
      expect(response.status).toBe(201);
      const left = t.core.db.select({ clientId: oauthClient.clientId }).from(oauthClient).all().map((r) => r.clientId);
      expect(left).toContain('flood-0');
      expect(left.filter((id) => /^flood-[1-9]$/.test(id))).toEqual([]);
      expect(left).toContain('flood-10');
    } finally {
      t.core.db.delete(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.clientId, 'flood-0')).run();
      t.core.db.delete(oauthClient).where(like(oauthClient.clientId, 'flood-%')).run();
    }
  });
});

describe('registration when full of fresh registrations', () => {
  const FLOOD_REDIRECT = 'https://flood.invalid/cb';
  const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const clientIds = () => t.core.db.select({ clientId: oauthClient.clientId }).from(oauthClient).all().map((r) => r.clientId);
  const cleanUp = () => {
    t.core.db.delete(indieauthAuthorizationRequest).where(like(indieauthAuthorizationRequest.clientId, 'flood-%')).run();
    t.core.db.delete(oauthClient).where(or(like(oauthClient.clientId, 'flood-%'), like(oauthClient.clientName, 'junk %'))).run();
  };

  // Each junk registration takes an app token (client_credentials, which needs no approval) as
  // well: that token made every one "used", never dropped, and the table refused every
  // registration for good.
  it(`${MAX_REGISTERED_CLIENTS} junk registrations over HTTP, each with an app token, lock nobody out: a day later the author registers`, async () => {
    try {
      for (let i = 0; i < MAX_REGISTERED_CLIENTS; i++) {
        const response = await fetch(`${base}/api/v1/apps`, json({ client_name: `junk ${i}`, redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }));
        if (response.status !== 200) break;
        const app = (await response.json()) as { client_id: string; client_secret: string };
        expect((await postForm(`${base}/oauth/token`, { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret })).status).toBe(200);
      }
      expect(rowCounts(t.core).clients).toBe(MAX_REGISTERED_CLIENTS);
      t.setClockOffset(UNUSED_CLIENT_MS + 60_000);
      expect((await fetch(`${base}/api/v1/apps`, json({ client_name: 'junk Ivory', redirect_uris: 'com.tapbots.Ivory.19300:/request_token' }))).status).toBe(200);
      expect((await fetch(`${base}/register`, json({ client_name: 'junk Quill', redirect_uris: [REDIRECT] }))).status).toBe(201);
      // The dropped apps' tokens went with them.
      const appRequests = t.core.db.select().from(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.redirectUri, '')).all();
      expect(appRequests.filter((r) => !clientIds().includes(r.clientId))).toEqual([]);
    } finally {
      const gone = t.core.db.select({ id: indieauthAuthorizationRequest.id }).from(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.redirectUri, ''));
      t.core.db.delete(indieauthAccessToken).where(inArray(indieauthAccessToken.indieauthAuthorizationRequestId, gone)).run();
      t.core.db.delete(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.redirectUri, '')).run();
      cleanUp();
    }
  }, 60_000);

  it(`a flood of fresh registrations never pushes out one made minutes ago (the author's app on its way to sign in): more are refused with 429 and a reason, until ${FRESH_CLIENT_MS / 60_000} minutes have passed`, async () => {
    try {
      const authors = await register(base, { client_name: 'junk author' });
      let refused: Response | null = null;
      for (let i = 0; i <= MAX_REGISTERED_CLIENTS && refused === null; i++) {
        const junk = i % 2 === 0 ? await fetch(`${base}/api/v1/apps`, json({ client_name: `junk ${i}`, redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })) : await fetch(`${base}/register`, json({ client_name: `junk ${i}`, redirect_uris: [REDIRECT] }));
        if (junk.status !== 200 && junk.status !== 201) refused = junk;
      }
      expect(refused?.status).toBe(429);
      const rfc7591 = await fetch(`${base}/register`, json({ client_name: 'junk more', redirect_uris: [REDIRECT] }));
      expect(rfc7591.status).toBe(429);
      expect(rfc7591.headers.get('retry-after')).toBe(String(FRESH_CLIENT_MS / 1000));
      expect(await rfc7591.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/Too many apps registered/) });
      const mastodon = await fetch(`${base}/api/v1/apps`, json({ client_name: 'junk more', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }));
      expect(mastodon.status).toBe(429);
      expect(await mastodon.json()).toMatchObject({ error: expect.stringMatching(/Too many apps registered/) });
      expect(clientIds()).toContain(authors.client_id);
      // The author's app goes on to sign in.
      await startAuthorization(base, { client_id: authors.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge });
      await answer(t.core, false, []);
      t.setClockOffset(FRESH_CLIENT_MS + 1000);
      expect((await fetch(`${base}/register`, json({ client_name: 'junk later', redirect_uris: [REDIRECT] }))).status).toBe(201);
    } finally {
      cleanUp();
    }
  }, 60_000);

  it('the oldest unused registration goes first; one whose sign-in waits for the author is kept', async () => {
    const room = MAX_REGISTERED_CLIENTS - rowCounts(t.core).clients;
    const now = t.core.clock();
    const row = (i: number, createdAt: Date) => ({ createdAt, clientName: `flood ${i}`, redirectUris: [REDIRECT], clientId: `flood-${i}`, clientSecret: hashSecret(`flood-${i}`) });
    try {
      // Older than every other registration, less than a day old: first in line.
      t.setClockOffset(-2 * 60 * 60 * 1000);
      const waiting = await register(base, { client_name: 'junk waiting' });
      t.setClockOffset(-60 * 60 * 1000);
      const next = await register(base, { client_name: 'junk next' });
      t.setClockOffset(0);
      await startAuthorization(base, { client_id: waiting.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge });
      t.core.db.insert(oauthClient).values(Array.from({ length: room - 2 }, (_, i) => row(i, now))).run();
      expect(rowCounts(t.core).clients).toBe(MAX_REGISTERED_CLIENTS);
      expect((await fetch(`${base}/register`, json({ client_name: 'junk new', redirect_uris: [REDIRECT] }))).status).toBe(201);
      expect(clientIds()).toContain(waiting.client_id);
      expect(clientIds()).not.toContain(next.client_id);
    } finally {
      await answer(t.core, false, []);
      cleanUp();
    }
  });

  it('a table full of registrations that were all used still refuses, with its reason', async () => {
    const room = MAX_REGISTERED_CLIENTS - rowCounts(t.core).clients;
    const now = t.core.clock();
    try {
      t.core.db.insert(oauthClient).values(Array.from({ length: room }, (_, i) => ({ createdAt: now, clientName: `flood ${i}`, redirectUris: [REDIRECT], clientId: `flood-${i}`, clientSecret: hashSecret(`flood-${i}`) }))).run();
      // Every client, the earlier tests' too, is given a code: used.
      const used = clientIds().map((clientId, i) => ({ createdAt: now, code: hashSecret(`flood-code-${i}`), scope: 'create', redirectUri: FLOOD_REDIRECT, clientId, codeChallenge: null, codeChallengeMethod: null, isUsed: true }));
      t.core.db.insert(indieauthAuthorizationRequest).values(used).run();
      const refused = await fetch(`${base}/register`, json({ redirect_uris: [REDIRECT] }));
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/no more client registrations/) });
      expect(rowCounts(t.core).clients).toBe(MAX_REGISTERED_CLIENTS);
    } finally {
      t.core.db.delete(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.redirectUri, FLOOD_REDIRECT)).run();
      cleanUp();
    }
  });
});

describe('authorization: the author decides in the app', () => {
  it('the public page only waits; the request appears in the app with the client’s name and scopes', async () => {
    const client = await register(base);
    const codesBefore = rowCounts(t.core).codes;
    const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: 'create bogus', code_challenge: pkce().challenge });
    const page = await getManual(wait);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Open Tern to approve');
    expect(html).toContain('http-equiv="refresh"');
    const [pending] = t.core.services.indieauth.pending();
    expect(pending).toMatchObject({ client: { name: 'Test Writer', registered: true }, redirectUri: REDIRECT, scopes: ['create'] });
    // The pairing code the app shows is on this request's page (and only there): a request
    // someone else opened shows its code in their browser, not the author's.
    expect(pending!.pairingCode).toMatch(/^[A-HJ-NP-Z2-9]{3}-[A-HJ-NP-Z2-9]{3}$/);
    expect(html).toContain(`<strong class="pairing-code">${pending!.pairingCode}</strong>`);
    // Nothing a visitor can do on the listener approves it: only the app's answer does.
    expect((await getManual(wait)).status).toBe(200);
    expect(rowCounts(t.core).codes).toBe(codesBefore);
    await answer(t.core, false, []);
    const back = await collect(wait);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st4te', iss: `${base}/` });
    expect((await getManual(wait)).status).toBe(404);
  });

  it('approval stores a one-time code (hashed) with the scopes the author kept, and redirects with code, state and iss', async () => {
    const before = rowCounts(t.core).codes;
    const { code, back } = await codeFor(['create']);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('iss')).toBe(`${base}/`);
    expect(rowCounts(t.core).codes).toBe(before + 1);
    const row = t.core.db.select().from(indieauthAuthorizationRequest).where(eq(indieauthAuthorizationRequest.code, hashSecret(code))).get()!;
    expect(row).toMatchObject({ scope: 'create', redirectUri: REDIRECT, codeChallengeMethod: 'S256', isUsed: false });
  });

  // Our id is the bare origin; IndieAuth's URL rules add the slash (and Fedify-based clients
  // write it too, interop-notes): both are this Tern's `me`.
  it.each([
    ['without the slash', () => base],
    ['with the slash', () => `${base}/`],
  ])('takes our profile URL as `me` %s', async (_name, me) => {
    const client = await register(base);
    const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge, me: me() });
    expect((await getManual(wait)).status).toBe(200);
    await answer(t.core, false, []);
  });

  // microblog.pub appends `?code=…` to the redirect URI as a string, breaking one that has a
  // query already (microblogpub-behaviour §7): the client's own parameters must survive.
  it('a redirect_uri with a query of its own keeps it; code, state and iss are added to it', async () => {
    const withQuery = `${REDIRECT}?app=notes&lang=en`;
    const client = await register(base, { redirect_uris: [withQuery] });
    const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: withQuery, scope: 'create', code_challenge: pkce().challenge });
    await answer(t.core, true, ['create']);
    const back = await collect(wait);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('app')).toBe('notes');
    expect(back.searchParams.get('lang')).toBe('en');
    expect(back.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('iss')).toBe(`${base}/`);
  });

  it('the author cannot grant a scope the app did not ask for', async () => {
    const client = await register(base);
    await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge });
    const [request] = t.core.services.indieauth.pending();
    await expect(answer(t.core, true, ['create', 'delete'])).rejects.toThrow(/did not ask for delete/);
    t.core.services.indieauth.decide(request!.id, { approve: false, scopes: [] });
  });

  it.each([
    ['an unknown client_id that is not a URL', () => ({ client_id: 'nobody', redirect_uri: REDIRECT })],
    ['a redirect_uri the registered client did not register', async () => ({ client_id: (await register(base)).client_id, redirect_uri: 'http://127.0.0.1:9/elsewhere' })],
    // IndieAuth §3.2: no dot segments (the URL parser removes them: the string itself is read).
    ['a client_id URL with a .. segment', () => ({ client_id: 'http://127.0.0.1:9/a/../b', redirect_uri: 'http://127.0.0.1:9/cb' })],
    ['a client_id URL with a %2e%2e segment', () => ({ client_id: 'http://127.0.0.1:9/a/%2e%2E/b', redirect_uri: 'http://127.0.0.1:9/cb' })],
    ['a client_id URL with a . segment', () => ({ client_id: 'http://127.0.0.1:9/./b', redirect_uri: 'http://127.0.0.1:9/cb' })],
  ])('refuses %s on a page, without redirecting', async (_name, make) => {
    const before = rowCounts(t.core).pending;
    const params = await make();
    const url = new URL(`${base}/auth`);
    for (const [k, v] of Object.entries({ response_type: 'code', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', ...params })) url.searchParams.set(k, v);
    const response = await getManual(url.href);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('This sign-in cannot go on');
    expect(rowCounts(t.core).pending).toBe(before);
  });

  it.each([
    ['plain PKCE', { code_challenge_method: 'plain' }, /only S256/],
    ['no code_challenge', { code_challenge: undefined }, /code_challenge/],
    ['a hex challenge (indieauth-helper)', { code_challenge: 'a'.repeat(64) }, /base64url/],
    ['response_type=token', { response_type: 'token' }, /response_type/],
    ['no state', { state: undefined }, /state/],
    ['another me', { me: 'https://someone.else/' }, /profile URL/],
  ])('shows %s on Tern’s own page (400, the reason), never redirecting before the author answers; keeps nothing', async (_name, change, reason) => {
    const client = await register(base);
    const before = rowCounts(t.core).pending;
    const params: Record<string, string | undefined> = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', ...change };
    const url = new URL(`${base}/auth`);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    const response = await getManual(url.href);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const html = await response.text();
    expect(html).toContain('This sign-in cannot go on');
    expect(html).toMatch(reason);
    expect(rowCounts(t.core).pending).toBe(before);
  });

  // RFC 9700 §4.11.2: a URL client on any origin may send back to that origin, so redirecting its
  // errors made /auth an open redirector to any site, with Tern's address in the link.
  it('is no open redirector: a bad request naming a URL client on any origin gets a page, not a 302 there', async () => {
    const response = await getManual(`${base}/auth?client_id=${encodeURIComponent('https://evil.example/')}&redirect_uri=${encodeURIComponent('https://evil.example/phish')}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toMatch(/response_type/);
  });

  // RFC 8252 §7.3: a native app listens on whatever port it is given; only IP literals, not the
  // name localhost (§8.3).
  it.each([
    ['http://127.0.0.1/cb', 'http://127.0.0.1:51234/cb', 303],
    ['http://[::1]:8000/cb', 'http://[::1]:51234/cb', 303],
    ['http://localhost/cb', 'http://localhost:51234/cb', 400],
    ['http://127.0.0.1/cb', 'http://127.0.0.1:51234/other', 400],
  ])('a client registered with %s may be sent to %s: %i', async (registered, asked, status) => {
    const client = await register(base, { redirect_uris: [registered] });
    const response = await getManual(authorizeUrl(base, { response_type: 'code', client_id: client.client_id, redirect_uri: asked, state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    expect(response.status).toBe(status);
    if (status === 303) await answer(t.core, false, []);
  });

  // Anyone can open /auth: strangers' requests pushed out the author's, even one the author had
  // approved and whose page had not yet collected the code.
  it(`keeps at most ${MAX_PENDING} requests waiting, ${MAX_PENDING_PER_HOST} per redirect host, refusing more (429, with a reason): strangers never push out the author's, approved or not`, async () => {
    const mine = await register(base);
    const approved = await startAuthorization(base, { client_id: mine.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge });
    await answer(t.core, true, ['create']);
    await startAuthorization(base, { client_id: mine.client_id, redirect_uri: REDIRECT, scope: 'create', code_challenge: pkce().challenge });
    const waiting = t.core.services.indieauth.pending()[0]!.id;
    // One stranger's client gets MAX_PENDING_PER_HOST places; many get the rest, no more.
    const evil = await register(base, { redirect_uris: ['https://evil.example/cb'] });
    const flood = async (client = evil, redirect = 'https://evil.example/cb') =>
      getManual(authorizeUrl(base, { response_type: 'code', client_id: client.client_id, redirect_uri: redirect, state: 's', scope: 'create', code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < MAX_PENDING_PER_HOST + 1; i++) statuses.push((await flood()).status);
      expect(statuses).toEqual([...Array<number>(MAX_PENDING_PER_HOST).fill(303), 429]);
      const perHost = await flood();
      expect(await perHost.text()).toMatch(/for evil\.example are already waiting for the author/);
      // The author's undecided request takes one place; the approved one waits for its page only.
      for (let i = 0; t.core.services.indieauth.pending().length < MAX_PENDING; i++) {
        const redirect = `https://evil${i}.example/cb`;
        expect((await flood(await register(base, { redirect_uris: [redirect] }), redirect)).status).toBe(303);
      }
      const refused = await flood(await register(base, { redirect_uris: ['https://evil-last.example/cb'] }), 'https://evil-last.example/cb');
      expect(refused.status).toBe(429);
      expect(await refused.text()).toMatch(/20 sign-ins are already waiting for the author/);
      expect(t.core.services.indieauth.pending().some((p) => p.id === waiting)).toBe(true);
      expect((await collect(approved)).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      for (const p of t.core.services.indieauth.pending()) t.core.services.indieauth.decide(p.id, { approve: false, scopes: [] });
    }
  });

  it('a request the author leaves for ten minutes is gone', async () => {
    const client = await register(base);
    const wait = await startAuthorization(base, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    t.setClockOffset(10 * 60 * 1000);
    expect(t.core.services.indieauth.pending()).toHaveLength(0);
    expect((await getManual(wait)).status).toBe(404);
  });
});

describe('IndieAuth clients identified by their URL', () => {
  let app: LoopbackServer;
  let other: LoopbackServer;
  beforeAll(async () => {
    other = await startServer((_req, res) => res.writeHead(404).end());
    app = await startServer((req, res) => {
      if (req.url === '/json') {
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: `${app.origin}/json`, client_name: 'JSON Writer', redirect_uris: [`${other.origin}/json-cb`] }));
      }
      res.writeHead(200, { 'content-type': 'text/html', link: `<${other.origin}/header-cb>; rel="redirect_uri"` }).end(
        `<!doctype html><html><head><link rel="redirect_uri" href="${other.origin}/cb"></head>` +
          `<body><div class="h-app"><a class="u-url p-name" href="/">Quill-ish</a><img class="u-logo" src="/logo.png" alt=""></div></body></html>`,
      );
    });
  });
  afterAll(async () => {
    await Promise.all([app?.close(), other?.close()]);
  });

  it('shows the h-app’s name and logo, fetched through the guarded client; same-origin redirects need no listing', async () => {
    await startAuthorization(base, { client_id: `${app.origin}/`, redirect_uri: `${app.origin}/callback`, scope: 'create', code_challenge: pkce().challenge });
    const [pending] = t.core.services.indieauth.pending();
    expect(pending!.client).toMatchObject({ name: 'Quill-ish', url: `${app.origin}/`, logoUrl: `${app.origin}/logo.png`, registered: false });
    await answer(t.core, false, []);
  });

  // IndieAuth §4.2.2: client_uri MUST be a prefix of client_id. A page on any host could say it
  // is Quill, with Quill's home page and logo, and the consent screen showed just that.
  it.each([
    ['JSON metadata', 'json'],
    ['an h-app', 'html'],
  ])('%s claiming another app’s home page shows nothing of its claim: only the client_id’s host', async (_name, kind) => {
    const liar = await startServer((_req, res) => {
      if (kind === 'json') {
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: `${liar.origin}/app`, client_name: 'Quill', client_uri: 'https://quill.p3k.io/', logo_uri: 'https://quill.p3k.io/images/quill-icon.png' }));
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<div class="h-app"><a class="u-url p-name" href="https://quill.p3k.io/">Quill</a><img class="u-logo" src="https://quill.p3k.io/logo.png" alt=""></div>');
    });
    try {
      await startAuthorization(base, { client_id: `${liar.origin}/app`, redirect_uri: `${liar.origin}/cb`, scope: 'create', code_challenge: pkce().challenge });
      const [pending] = t.core.services.indieauth.pending();
      expect(pending!.client).toMatchObject({ clientId: `${liar.origin}/app`, name: new URL(liar.origin).host, url: null, logoUrl: null });
    } finally {
      await answer(t.core, false, []);
      await liar.close();
    }
  });

  it('accepts a redirect_uri on another origin only when the client publishes it (link rel, Link header or JSON metadata)', async () => {
    for (const [clientId, redirect] of [
      [`${app.origin}/`, `${other.origin}/cb`],
      [`${app.origin}/`, `${other.origin}/header-cb`],
      [`${app.origin}/json`, `${other.origin}/json-cb`],
    ] as const) {
      await startAuthorization(base, { client_id: clientId, redirect_uri: redirect, code_challenge: pkce().challenge });
      await answer(t.core, false, []);
    }
    expect(t.core.services.indieauth.pending()[0]?.client.name).toBeUndefined();
    const refused = await getManual(`${base}/auth?response_type=code&client_id=${encodeURIComponent(`${app.origin}/`)}&redirect_uri=${encodeURIComponent(`${other.origin}/unlisted`)}&state=s&code_challenge=${pkce().challenge}&code_challenge_method=S256`);
    expect(refused.status).toBe(400);
  });

  it(`fetches at most ${MAX_CLIENT_FETCHES} client_ids at once (others: 400 with a reason) and reuses what it fetched`, async () => {
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = await startServer(async (_req, res) => {
      fetches++;
      await gate;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<div class="h-app"><span class="p-name">Slow</span></div>');
    });
    try {
      const authUrl = (clientId: string) =>
        `${base}/auth?response_type=code&client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(`${slow.origin}/cb`)}&state=s&code_challenge=${pkce().challenge}&code_challenge_method=S256`;
      const waiting = Array.from({ length: MAX_CLIENT_FETCHES }, (_, i) => getManual(authUrl(`${slow.origin}/app${i}`)));
      await expect.poll(() => fetches).toBe(MAX_CLIENT_FETCHES);
      const refused = await getManual(authUrl(`${slow.origin}/one-more`));
      expect(refused.status).toBe(400);
      expect(await refused.text()).toMatch(/Too many sign-in requests/);
      release();
      for (const response of await Promise.all(waiting)) expect(response.status).toBe(303);
      // Answered, they leave their places (MAX_PENDING_PER_HOST for one host) to the asks below.
      while (t.core.services.indieauth.pending().some((p) => p.client.clientId.startsWith(slow.origin))) await answer(t.core, false, []);
      // Asked again within the minute: answered from what was fetched.
      expect((await getManual(authUrl(`${slow.origin}/app0`))).status).toBe(303);
      expect(fetches).toBe(MAX_CLIENT_FETCHES);
      t.setClockOffset(CLIENT_INFO_CACHE_MS);
      expect((await getManual(authUrl(`${slow.origin}/app0`))).status).toBe(303);
      expect(fetches).toBe(MAX_CLIENT_FETCHES + 1);
    } finally {
      while (t.core.services.indieauth.pending().length > 0) await answer(t.core, false, []);
      await slow.close();
    }
  });

  it('a URL client is public: it exchanges its code with PKCE alone, and a secret it sends is refused', async () => {
    const { verifier, challenge } = pkce();
    const wait = await startAuthorization(base, { client_id: `${app.origin}/`, redirect_uri: `${app.origin}/callback`, scope: 'create', code_challenge: challenge });
    await answer(t.core, true, ['create']);
    const code = (await collect(wait)).searchParams.get('code')!;
    const withSecret = await postForm(`${base}/token`, { grant_type: 'authorization_code', code, client_id: `${app.origin}/`, redirect_uri: `${app.origin}/callback`, code_verifier: verifier, client_secret: 'guess' });
    expect(withSecret).toMatchObject({ status: 401, json: { error: 'invalid_client' } });
    const ok = await postForm(`${base}/token`, { grant_type: 'authorization_code', code, client_id: `${app.origin}/`, redirect_uri: `${app.origin}/callback`, code_verifier: verifier });
    expect(ok).toMatchObject({ status: 200, json: { token_type: 'Bearer', scope: 'create', me: `${base}/` } });
  });
});

describe('token endpoint', () => {
  it('exchanges a code once for a token with expires_in in seconds, the granted scope and me; the token is stored hashed', async () => {
    const { client, verifier, code } = await codeFor(['create', 'profile']);
    const { status, json } = await exchange(client, code, verifier);
    expect(status).toBe(200);
    expect(json).toMatchObject({ token_type: 'Bearer', scope: 'profile create', me: `${base}/`, expires_in: 30 * 24 * 3600, profile: { name: 'Alice Example', url: `${base}/` } });
    const token = json.access_token as string;
    const row = t.core.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, hashSecret(token))).get();
    expect(row).toMatchObject({ scope: 'profile create', isRevoked: false, expiresIn: 2_592_000 });
    expect(t.core.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, token)).get()).toBeUndefined();
  });

  it('accepts client_secret_post as well as client_secret_basic', async () => {
    const { client, verifier, code } = await codeFor(['create']);
    const { status } = await postForm(`${base}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: client.client_id, client_secret: client.client_secret });
    expect(status).toBe(200);
  });

  const refusals: [string, (c: Awaited<ReturnType<typeof codeFor>>) => Promise<{ status: number; json: Record<string, unknown> }>, number, string, RegExp][] = [
    ['a wrong code_verifier', (c) => exchange(c.client, c.code, pkce().verifier), 400, 'invalid_grant', /code_verifier does not match/],
    ['no code_verifier', (c) => exchange(c.client, c.code, undefined), 400, 'invalid_grant', /code_verifier is missing/],
    ['a mismatched redirect_uri', (c) => exchange(c.client, c.code, c.verifier, { redirect_uri: 'http://127.0.0.1:9/other' }), 400, 'invalid_grant', /redirect_uri/],
    ['a bad client secret', (c) => postForm(`${base}/token`, { code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier }, { authorization: basic(c.client.client_id, 'wrong') }), 401, 'invalid_client', /wrong client_secret/],
    ['no client secret', (c) => postForm(`${base}/token`, { code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier, client_id: c.client.client_id }), 401, 'invalid_client', /must authenticate/],
    ['another client’s credentials', async (c) => {
      const other = await register(base);
      return exchange(other, c.code, c.verifier);
    }, 400, 'invalid_grant', /another client_id/],
    ['an unknown code', (c) => exchange(c.client, 'x'.repeat(43), c.verifier), 400, 'invalid_grant', /unknown authorization code/],
    ['grant_type=refresh_token', (c) => exchange(c.client, c.code, c.verifier, { grant_type: 'refresh_token' }), 400, 'unsupported_grant_type', /authorization_code/],
  ];
  it.each(refusals)('refuses %s with a reason, issuing nothing and leaving the code usable', async (_name, send, status, error, reason) => {
    const c = await codeFor(['create']);
    const before = rowCounts(t.core).tokens;
    const refused = await send(c);
    expect(refused.status).toBe(status);
    expect(refused.json.error).toBe(error);
    expect(String(refused.json.error_description)).toMatch(reason);
    expect(rowCounts(t.core).tokens).toBe(before);
    expect((await exchange(c.client, c.code, c.verifier)).status).toBe(200);
  });

  it('refuses an expired code (ten minutes), issuing nothing', async () => {
    const c = await codeFor(['create']);
    const before = rowCounts(t.core).tokens;
    t.setClockOffset(10 * 60 * 1000 + 1);
    const refused = await exchange(c.client, c.code, c.verifier);
    expect(refused).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.stringMatching(/expired/) } });
    expect(rowCounts(t.core).tokens).toBe(before);
  });

  it('refuses a reused code and revokes the token the code gave (RFC 6749 §4.1.2)', async () => {
    const c = await codeFor(['create']);
    const first = await exchange(c.client, c.code, c.verifier);
    expect(first.status).toBe(200);
    const before = rowCounts(t.core).tokens;
    const again = await exchange(c.client, c.code, c.verifier);
    expect(again).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.stringMatching(/already used/) } });
    expect(rowCounts(t.core).tokens).toBe(before);
    const row = t.core.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, hashSecret(first.json.access_token as string))).get();
    expect(row?.isRevoked).toBe(true);
  });

  it('a sign-in-only code gives just `me` at the authorization endpoint, and no token at the token endpoint', async () => {
    const c = await codeFor([], '');
    const before = rowCounts(t.core).tokens;
    const token = await exchange(c.client, c.code, c.verifier);
    expect(token).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.stringMatching(/no scope/) } });
    expect(rowCounts(t.core).tokens).toBe(before);
    const profile = await postForm(`${base}/auth`, { code: c.code, client_id: c.client.client_id, redirect_uri: REDIRECT, code_verifier: c.verifier });
    expect(profile).toEqual({ status: 200, json: { me: `${base}/` } });
    const twice = await postForm(`${base}/auth`, { code: c.code, client_id: c.client.client_id, redirect_uri: REDIRECT, code_verifier: c.verifier });
    expect(twice.json.error).toBe('invalid_grant');
  });

  it('redeeming at the authorization endpoint checks PKCE too', async () => {
    const c = await codeFor(['profile'], 'profile');
    const wrong = await postForm(`${base}/auth`, { code: c.code, client_id: c.client.client_id, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
    expect(wrong).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const right = await postForm(`${base}/auth`, { code: c.code, client_id: c.client.client_id, redirect_uri: REDIRECT, code_verifier: c.verifier });
    expect(right).toEqual({ status: 200, json: { me: `${base}/`, profile: { name: 'Alice Example', url: `${base}/` } } });
  });
});

describe('revocation and introspection', () => {
  it('introspection tells the client about its own live token, then nothing once it is revoked', async () => {
    const c = await codeFor(['create']);
    const token = (await exchange(c.client, c.code, c.verifier)).json.access_token as string;
    const auth = { authorization: basic(c.client.client_id, c.client.client_secret) };
    const live = await postForm(`${base}/token/introspect`, { token }, auth);
    expect(live).toMatchObject({ status: 200, json: { active: true, client_id: c.client.client_id, scope: 'create', me: `${base}/` } });
    expect((live.json.exp as number) - (live.json.iat as number)).toBe(30 * 24 * 3600);

    const stranger = await register(base);
    expect((await postForm(`${base}/token/introspect`, { token }, { authorization: basic(stranger.client_id, stranger.client_secret) })).json).toEqual({ active: false });
    expect(await postForm(`${base}/token/introspect`, { token })).toMatchObject({ status: 401, json: { error: 'invalid_client' } });
    expect(await postForm(`${base}/token/introspect`, { token }, { authorization: basic(c.client.client_id, 'nope') })).toMatchObject({ status: 401 });
    // A bearer learns about itself, never about another app's token.
    expect((await postForm(`${base}/token/introspect`, { token }, { authorization: `Bearer ${token}` })).json).toMatchObject({ active: true, client_id: c.client.client_id });
    const other = await codeFor(['create']);
    const otherToken = (await exchange(other.client, other.code, other.verifier)).json.access_token as string;
    expect((await postForm(`${base}/token/introspect`, { token }, { authorization: `Bearer ${otherToken}` })).json).toEqual({ active: false });

    expect(await postForm(`${base}/token/revoke`, { token })).toEqual({ status: 200, json: {} });
    expect((await postForm(`${base}/token/introspect`, { token }, auth)).json).toEqual({ active: false });
    // RFC 7009 §2.2: an unknown token is no error.
    expect((await postForm(`${base}/token/revoke`, { token: 'unknown' })).status).toBe(200);
  });

  it('the Apps view lists live tokens with the client’s name, and revoking one there ends it', async () => {
    const c = await codeFor(['create', 'update']);
    const token = (await exchange(c.client, c.code, c.verifier)).json.access_token as string;
    const row = t.core.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, hashSecret(token))).get()!;
    const listed = t.core.services.indieauth.apps().find((a) => a.id === row.id);
    expect(listed).toMatchObject({ clientId: c.client.client_id, clientName: 'Test Writer', registered: true, scopes: ['create', 'update'] });
    t.core.services.indieauth.revokeApp(row.id);
    expect(t.core.services.indieauth.apps().some((a) => a.id === row.id)).toBe(false);
    expect(() => t.core.services.indieauth.verifyToken(token)).toThrow(/revoked/);
    expect(() => t.core.services.indieauth.revokeApp(row.id)).toThrow(/no access/);
  });

  it('a token whose date cannot be read (written past the CHECK) is left out of the Apps view, not the whole view', async () => {
    const tokens = [];
    for (let i = 0; i < 2; i++) {
      const c = await codeFor(['create']);
      tokens.push((await exchange(c.client, c.code, c.verifier)).json.access_token as string);
    }
    const [bad, good] = tokens.map((token) => t.core.db.select().from(indieauthAccessToken).where(eq(indieauthAccessToken.accessToken, hashSecret(token))).get()!.id);
    t.core.sqlite.pragma('ignore_check_constraints = ON');
    t.core.sqlite.prepare("UPDATE indieauth_access_token SET created_at = '2025-01-xxT00:00:00.000Z', expires_in = 0 WHERE id = ?").run(bad);
    t.core.sqlite.pragma('ignore_check_constraints = OFF');
    const previous = setSkipLog(() => {});
    try {
      const ids = t.core.services.indieauth.apps().map((a) => a.id);
      expect(ids).toContain(good);
      expect(ids).not.toContain(bad);
    } finally {
      setSkipLog(previous);
      t.core.sqlite.prepare('UPDATE indieauth_access_token SET is_revoked = 1 WHERE id = ?').run(bad);
    }
  });

  it('a token past its expires_in is refused and no longer listed', async () => {
    const c = await codeFor(['create']);
    const token = (await exchange(c.client, c.code, c.verifier)).json.access_token as string;
    expect(t.core.services.indieauth.verifyToken(token).scope).toBe('create');
    t.setClockOffset(30 * 24 * 3600 * 1000 + 1000);
    expect(() => t.core.services.indieauth.verifyToken(token)).toThrow(/expired/);
    expect(t.core.services.indieauth.apps()).toEqual([]);
  });
});

describe('the Apps channels (IPC)', () => {
  it('validate their input and answer with typed errors', async () => {
    const { createHandlers, dispatch } = await import('../ipc/handlers');
    const handlers = createHandlers(t.core);
    expect(await dispatch(handlers, 'apps.decide', { id: '../../etc', approve: true })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(handlers, 'apps.decide', { id: 'a'.repeat(16), approve: true, scopes: ['admin'] })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(await dispatch(handlers, 'apps.decide', { id: 'a'.repeat(16), approve: true })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await dispatch(handlers, 'apps.revoke', { id: 999_999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await dispatch(handlers, 'apps.pending', {})).toMatchObject({ ok: true, value: expect.any(Array) });
    expect(await dispatch(handlers, 'apps.list', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'bad_input' } });
  });
});
