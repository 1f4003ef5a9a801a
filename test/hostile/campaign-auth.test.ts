// Hostile campaign, who may do what and where the listener's core may reach: a core whose
// outbound guard is on (as in the apps) must never reach loopback, whatever a remote names —
// webmention sources, signature keyIds, IndieAuth client_ids, Mastodon and Micropub lookups —
// which a canary server on loopback counts; bearer tokens on the Mastodon API (missing, garbage,
// in odd places, revoked, expired, of other scopes); IndieAuth redirect URIs, PKCE verifiers
// and codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPost, newRsaKeys, openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { answer, basic, collect, issueToken, pkce, postForm, register, REDIRECT, startAuthorization } from '../../electron/core/indieauth/test-flow';
import type { LoopbackServer } from '../../electron/core/net/test-server';
import { REFUSED, startCanary } from './campaign';
import { SCRIPTS, reportStalls, runCase, type HostileCase } from './rig';
import { rawHttp, signedPost } from './peers';

let t: ListeningCore;
let canary: LoopbackServer;
let port: number;
let target: string;
const tokens: Record<string, string> = {};
let minute = 0;

beforeAll(async () => {
  [t, canary] = await Promise.all([openListeningCore('alice', { allowPrivateAddresses: false }), startCanary()]);
  port = Number(new URL(t.url).port);
  target = addPost(t.core, { content: '<p>Target</p>' }).apId;
  for (const [name, scopes] of Object.entries({ all: ['read', 'write', 'create', 'media'], read: ['read'], write: ['write'], create: ['create'], profile: ['profile'] })) {
    tokens[name] = await issueToken(t.url, t.core, scopes);
  }
});
afterAll(async () => {
  await Promise.all([canary?.close(), t?.close()]);
  reportStalls('campaign-auth');
});

const h = { sqlite: () => t.core.sqlite, markupExempt: ['incoming_activity.ap_object', 'incoming_activity.webmention_source', 'incoming_activity.error'] };
const auth = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });
/** Processes what was queued, in a new rate-limit window; the canary must have seen nothing. */
const drained = async () => {
  t.setClockOffset(++minute * 61_000);
  await t.core.loops.inbox.drain();
  expect(canary.seen.map((s) => `${s.method} ${s.path}`), 'requests that reached loopback').toEqual([]);
};
const POSTED = { outbox: 'any', tagged_outbox_object: 'any', outgoing_activity: 'any' } as const;

/** Loopback, written every way a URL parser or resolver may take it (PORT: the canary's). */
const LOOPBACKS = ['http://127.0.0.1:PORT', 'http://localhost:PORT', 'http://LOCALHOST.:PORT', 'http://127.1:PORT', 'http://2130706433:PORT', 'http://0x7f.0.0.1:PORT', 'http://0177.0.0.1:PORT', 'http://0.0.0.0:PORT', 'http://[::ffff:127.0.0.1]:PORT', 'http://[::ffff:7f00:1]:PORT', 'http://[::1]:PORT', 'http://127.0.0.1.nip.io:PORT'];
const at = (origin: string) => origin.replace('PORT', String(canary.port));
const loopbacks = () => LOOPBACKS.map((o) => [o] as const);

describe('nothing a remote names reaches loopback when the guard is on', () => {
  it.each(loopbacks())('a webmention source at %s: queued, then refused for good', async (template) => {
    const origin = at(template);
    await runCase(h, {
      name: `webmention from ${origin}`,
      send: () => fetch(`${t.url}/webmention`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ source: `${origin}/page`, target }) }),
      status: 202,
      changes: { incoming_activity: 1 },
      after: drained,
    });
  });

  it('a webmention source on the listener itself: refused for good, nothing recorded', () =>
    runCase(h, { name: 'webmention from the listener', send: () => fetch(`${t.url}/webmention`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ source: `${t.url}/o/x`, target }) }), status: 202, changes: { incoming_activity: 1 }, after: drained }));

  it.each(['gopher://127.0.0.1:70/x', 'ftp://127.0.0.1/x', 'ws://127.0.0.1/x', 'http:/x', 'http://user:pass@127.0.0.1/x', `//127.0.0.1:${1}/x`, 'https://[::1', 'http://%31%32%37.0.0.1/'])('a webmention source of %s: refused, or queued and refused for good', (source) =>
    runCase(h, { name: `webmention from ${source}`, send: () => fetch(`${t.url}/webmention`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ source, target }) }), status: [202, 400], changes: { incoming_activity: 'any' }, after: drained }));

  it.each(loopbacks())('an inbox POST signed with a keyId at %s: 401, the key never fetched', async (template) => {
    const origin = at(template);
    const keys = await newRsaKeys();
    const actor = `${origin}/users/x`;
    const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/f/1`, type: 'Follow', actor, object: t.url });
    await runCase(h, { name: `keyId at ${origin}`, send: () => signedPost(`${t.url}/inbox`, body, `${actor}#main-key`, keys.privateKey, { spec: 'draft-cavage-http-signatures-12' }), status: 401, after: drained });
  });

  it.each(loopbacks())('an IndieAuth client_id at %s: never fetched', (origin) =>
    runCase(h, { name: `client_id at ${origin}`, send: () => fetch(`${t.url}/auth?${new URLSearchParams({ response_type: 'code', client_id: `${at(origin)}/`, redirect_uri: `${at(origin)}/cb`, state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`, { redirect: 'manual' }), status: [303, 400], after: drained }));

  const lookups = (template: string): [string, string][] => {
    const o = at(template);
    return [
    ['v2 search, resolve', `/api/v2/search?resolve=true&q=${encodeURIComponent(`${o}/users/x`)}`],
    ['v2 search of statuses, resolve', `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(`${o}/o/1`)}`],
    ['v2 search of a handle, resolve', `/api/v2/search?resolve=true&q=${encodeURIComponent(`@x@${new URL(o).host}`)}`],
    ['account search, resolve', `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(`@x@${new URL(o).host}`)}`],
    ['account lookup of a handle', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`x@${new URL(o).host}`)}`],
    ['account lookup of a URL', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${o}/users/x`)}`],
    ];
  };
  const KINDS = ['v2 search, resolve', 'v2 search of statuses, resolve', 'v2 search of a handle, resolve', 'account search, resolve', 'account lookup of a handle', 'account lookup of a URL'];
  const mastodon = LOOPBACKS.flatMap((o) => KINDS.map((kind, i) => [`${kind} at ${o}`, o, i] as const));
  it.each(mastodon)('Mastodon %s: never fetched', (name, origin, i) =>
    runCase(h, { name, send: () => fetch(`${t.url}${lookups(origin)[i]![1]}`, { headers: auth('all') }), status: [200, 404, 422], after: drained }));

  it.each(LOOPBACKS.slice(0, 4).flatMap((o) => ['in-reply-to', 'like-of', 'repost-of', 'bookmark-of'].map((p) => [`${p} ${o}`, p, o] as const)))('Micropub %s: never fetched', (name, property, template) =>
    runCase(h, {
      name,
      send: () => fetch(`${t.url}/micropub`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth('all') }, body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'], [property]: [`${at(template)}/o/1`] } }) }),
      status: [201, 202, 400],
      changes: POSTED,
      after: async () => {
        await t.core.loops.delivery.drain();
        await drained();
      },
    }));
});

describe('a post naming thousands of people', () => {
  // Each handle was looked up at once: a query, a WebFinger request and its failure for every
  // one in the same turns — 3,000 held the main thread 600 ms.
  const named = (n: number, host: (i: number) => string) => Array.from({ length: n }, (_, i) => `@p${i}@${host(i)}`).join(' ');
  it.each([
    ['2,000 at hosts that do not resolve', () => named(2_000, (i) => `h${i}.invalid`)],
    ['2,000 at loopback addresses', () => named(2_000, (i) => `127.0.${i >> 8}.${(i & 255) || 1}:${canary.port}`)],
  ])('%s: taken, nobody fetched, the main thread free', (name, text) =>
    runCase(h, {
      name,
      send: () => fetch(`${t.url}/api/v1/statuses`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth('all') }, body: JSON.stringify({ status: text() }) }),
      status: 200,
      changes: { ...POSTED, actor: 'any' },
      after: drained,
    }),
  );
});

describe('bearer tokens on the Mastodon API', () => {
  // Headers are made when the case runs: the tokens are issued after the cases are listed.
  type Headers = Record<string, string> | (() => Record<string, string>);
  const made = (headers: Headers) => (typeof headers === 'function' ? headers() : headers);
  const get = (path: string, headers: Headers) => () => fetch(`${t.url}${path}`, { headers: made(headers) });
  const postStatus = (headers: Headers) => () => fetch(`${t.url}/api/v1/statuses`, { method: 'POST', headers: { 'content-type': 'application/json', ...made(headers) }, body: '{"status":"hello"}' });
  const as = (name: string) => () => auth(name);
  const home = '/api/v1/timelines/home';
  const rawAuth = (lines: () => string[]) => () => rawHttp(port, [`GET ${home} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...lines()].join('\r\n'));
  const cases: [string, HostileCase['send'], number | number[], RegExp?][] = [
    ['no Authorization', get(home, {}), 401, /token/],
    ['"Bearer" alone', get(home, { authorization: 'Bearer' }), 401, /token/],
    ['a garbage token', get(home, { authorization: 'Bearer garbage' }), 401, /token/],
    ['a token of 10 KB', get(home, { authorization: `Bearer ${'a'.repeat(10_000)}` }), 401, /token/],
    ['a token of markup', get(home, { authorization: `Bearer ${SCRIPTS[1]}` }), 401, /token/],
    ['Basic with the token as the user', get(home, () => ({ authorization: `Basic ${Buffer.from(`${tokens.all}:`).toString('base64')}` })), 401, /token/],
    ['a scheme of Token', () => fetch(`${t.url}${home}`, { headers: { authorization: `Token ${tokens.all}` } }), 401, /token/],
    ['the token in the query', () => fetch(`${t.url}${home}?access_token=${tokens.all}`), [200, 401]],
    ['the token as a form field of a GET', () => fetch(`${t.url}${home}?bearer=${tokens.all}`), 401, /token/],
    ['a valid token with a NUL after it', rawAuth(() => [`Authorization: Bearer ${tokens.all}\u0000`]), [400, 401]],
    ['a valid token twice in one header', () => fetch(`${t.url}${home}`, { headers: { authorization: `Bearer ${tokens.all}, Bearer ${tokens.all}` } }), 401, /token/],
    ['a garbage and a valid Authorization header', rawAuth(() => ['Authorization: Bearer garbage', `Authorization: Bearer ${tokens.all}`]), [400, 401]],
    ['a read token posting', postStatus(as('read')), 403, /scope/],
    ['a write token reading the home timeline', get(home, as('write')), 403, /scope/],
    ['a Micropub create token reading the home timeline', get(home, as('create')), 403, /scope/],
    ['a profile token posting', postStatus(as('profile')), 403, /scope/],
    ['a profile token uploading media', () => fetch(`${t.url}/api/v2/media`, { method: 'POST', headers: auth('profile'), body: new FormData() }), 403, /scope/],
    ['a read token deleting a post', () => fetch(`${t.url}/api/v1/statuses/1`, { method: 'DELETE', headers: auth('read') }), [403, 404]],
    ['a read token changing the profile', () => fetch(`${t.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...auth('read') }, body: '{"display_name":"Mallory"}' }), 403, /scope/],
    ['a read token on Micropub (no create scope)', () => fetch(`${t.url}/micropub`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth('read') }, body: '{"type":["h-entry"],"properties":{"content":["x"]}}' }), [401, 403]],
  ];
  it.each(cases)('%s', (name, send, status, reason) => runCase(h, { name, send, status, ...(reason ? { reason } : {}) }));

  it('a revoked token is refused, and revoking again changes nothing', async () => {
    const token = await issueToken(t.url, t.core, ['read', 'write']);
    // Mastodon's /oauth/revoke wants the client's credentials; IndieAuth's (RFC 7009) the token alone.
    const revoke = () => fetch(`${t.url}/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
    await runCase(h, { name: 'revoke', send: revoke, status: 200 });
    await runCase(h, { name: 'the revoked token', send: get(home, { authorization: `Bearer ${token}` }), status: 401, reason: /revoked/ });
    await runCase(h, { name: 'the revoked token posting', send: postStatus({ authorization: `Bearer ${token}` }), status: 401, reason: /revoked/ });
    await runCase(h, { name: 'revoked again', send: revoke, status: 200 });
  });

  it('a token past its lifetime is refused', async () => {
    const { expiresAt } = t.core.services.indieauth.verifyToken(tokens.create!);
    expect(expiresAt, 'a Micropub token has an end').not.toBeNull();
    t.setClockOffset(expiresAt!.getTime() - Date.now() + 60_000);
    try {
      await runCase(h, { name: 'an expired token', send: () => fetch(`${t.url}/micropub?q=config`, { headers: auth('create') }), status: 401, reason: /expired/ });
    } finally {
      t.setClockOffset(++minute * 61_000);
    }
  });
});

describe('IndieAuth redirect URIs, PKCE and codes', () => {
  const authorize = (params: Record<string, string>) => () =>
    fetch(`${t.url}/auth?${new URLSearchParams({ response_type: 'code', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', ...params })}`, { redirect: 'manual' });
  /** A refusal shown as a page: the browser is never sent to the untrusted redirect_uri. */
  const notSentTo = (host: string) => async (answer: Response | { status: number; text: string }) => {
    if ('headers' in answer) expect(answer.headers.get('location') ?? '', 'sent to the untrusted redirect_uri').not.toContain(host);
  };
  const redirects: [string, Record<string, string>][] = [
    ['a redirect_uri on another origin', { client_id: 'https://app.example/', redirect_uri: 'https://evil.example/cb' }],
    ['a redirect_uri on a sibling subdomain', { client_id: 'https://app.example/', redirect_uri: 'https://evil.app.example/cb' }],
    ['a redirect_uri with the client as its user part', { client_id: 'https://app.example/', redirect_uri: 'https://app.example@evil.example/cb' }],
    ['a redirect_uri on the client’s origin but another port', { client_id: 'https://app.example/', redirect_uri: 'https://app.example:8443/cb' }],
    ['a redirect_uri on the client’s host over http', { client_id: 'https://app.example/', redirect_uri: 'http://app.example/cb' }],
    ['a redirect_uri at a private address', { client_id: 'https://app.example/', redirect_uri: 'http://10.0.0.1/cb' }],
    ['a redirect_uri at javascript:', { client_id: 'https://app.example/', redirect_uri: 'javascript://app.example/%0aalert(1)' }],
    ['a registered client’s unregistered redirect_uri', { client_id: 'CLIENT', redirect_uri: 'https://evil.example/cb' }],
    ['a registered client’s redirect_uri with a query added', { client_id: 'CLIENT', redirect_uri: `${REDIRECT}?next=https://evil.example/` }],
    ['a registered client’s redirect_uri with a fragment', { client_id: 'CLIENT', redirect_uri: `${REDIRECT}#evil.example` }],
  ];
  it.each(redirects)('%s: refused on a page', async (name, params) => {
    const client = await register(t.url);
    const evil = new URL(params.redirect_uri!.replace(/^javascript:/, 'http:')).hostname;
    const send = authorize({ ...params, client_id: params.client_id === 'CLIENT' ? client.client_id : params.client_id! });
    await runCase(h, { name, send: async () => { const a = await send(); await notSentTo(evil === '127.0.0.1' ? 'evil.example' : evil)(a); return a; }, status: 400 });
  });

  const challenges: [string, Record<string, string>][] = [
    ['a challenge of 42 characters', { code_challenge: 'a'.repeat(42) }],
    ['a challenge of 129 characters', { code_challenge: 'a'.repeat(129) }],
    ['a challenge with characters outside base64url', { code_challenge: `${'a'.repeat(40)}+/=` }],
    ['a challenge method of S512', { code_challenge_method: 'S512' }],
    ['a challenge method of s256', { code_challenge_method: 's256' }],
    ['no challenge', { code_challenge: '' }],
    ['a scope with a newline', { scope: 'create\nadmin' }],
    ['a scope of 10,000 characters', { scope: 'create '.repeat(1500) }],
  ];
  it.each(challenges)('%s: refused, or sent back to the client as an error', async (name, params) => {
    const client = await register(t.url);
    await runCase(h, { name, send: authorize({ client_id: client.client_id, redirect_uri: REDIRECT, ...params }), status: [302, 303, 400] });
    t.core.services.indieauth.pending().splice(0); // nothing waits for the author from this case
  });

  /** A code for a fresh client, approved by the author; its verifier. */
  async function code(scopes = ['create']) {
    const client = await register(t.url);
    const { verifier, challenge } = pkce();
    const wait = await startAuthorization(t.url, { client_id: client.client_id, redirect_uri: REDIRECT, scope: scopes.join(' '), code_challenge: challenge });
    await answer(t.core, true, scopes);
    return { client, verifier, code: (await collect(wait)).searchParams.get('code')! };
  }
  const exchange = (c: Awaited<ReturnType<typeof code>>, fields: Record<string, string> = {}) => () =>
    fetch(`${t.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(c.client.client_id, c.client.client_secret) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier, ...fields }),
    });

  const verifiers: [string, string][] = [
    ['of 42 characters', 'a'.repeat(42)],
    ['of 129 characters', 'a'.repeat(129)],
    ['with characters outside the PKCE set', `${'a'.repeat(42)}!`],
    ['of 100 KB', 'a'.repeat(100_000)],
    ['that is the challenge itself', 'CHALLENGE'],
    ['empty', ''],
  ];
  it.each(verifiers)('a verifier %s: refused, the code still good for the right verifier', async (name, verifier) => {
    const c = await code();
    const challenge = pkce(); // a challenge of another request, never the code's
    await runCase(h, { name: `verifier ${name}`, send: exchange(c, { code_verifier: verifier === 'CHALLENGE' ? challenge.challenge : verifier }), status: [400, 413], reason: /verifier|larger|invalid/ });
    await runCase(h, { name: `the right verifier after one ${name}`, send: exchange(c), status: [200, 400], changes: { indieauth_access_token: 'any' } });
  });

  it('a code used twice: the second is refused and the first token is taken back', async () => {
    const c = await code(['create']);
    const first = await exchange(c)();
    const { access_token } = (await first.json()) as { access_token: string };
    expect(first.status).toBe(200);
    await runCase(h, { name: 'the code again', send: exchange(c), status: 400, reason: /already used/ });
    await runCase(h, { name: 'the first token afterwards', send: () => fetch(`${t.url}/micropub?q=config`, { headers: { authorization: `Bearer ${access_token}` } }), status: 401 });
  });

  it('a code redeemed by another registered client is refused, and stays good for its own', async () => {
    const c = await code();
    const other = await register(t.url);
    await runCase(h, { name: 'another client', send: exchange({ ...c, client: other }), status: [400, 401], reason: /client/ });
    const own = await postForm(`${t.url}/token`, { grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier }, { authorization: basic(c.client.client_id, c.client.client_secret) });
    expect([200, 400]).toContain(own.status);
  });

  it('a code with the redirect_uri changed at the token endpoint is refused', async () => {
    const c = await code();
    await runCase(h, { name: 'another redirect_uri', send: exchange(c, { redirect_uri: 'https://evil.example/cb' }), status: 400, reason: /redirect_uri/ });
  });

  it.each([['a code of markup', SCRIPTS[0]!], ['a code of 8 KB', 'c'.repeat(8_000)], ['a code with a NUL', 'abc\u0000def']])('%s at the token endpoint: refused', async (name, value) => {
    const c = await code();
    await runCase(h, { name, send: exchange({ ...c, code: value }), status: REFUSED });
  });
});
