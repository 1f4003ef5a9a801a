// Bad input on every route of the Mastodon API (listed from the listener app itself, so a new
// route is covered by being added): no token, a garbled one, a revoked one, one without the
// scope, malformed JSON, an oversized body — each a 4xx with Mastodon's {"error": …} body, and
// nothing stored. Then the validation and OAuth refusals one by one.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { indieauthAccessToken } from '../../../db/schema';
import { createListenerApp } from '../listener/app';
import { ErrorBody } from './entity-schemas';
import { call, openMastodonRig, pngBytes, signIn, type MastodonRig, type SignedIn } from './test-support';

let t: MastodonRig;
let full: SignedIn;
let readOnly: string;
let writeOnly: string;
let revoked: SignedIn;
let routes: { method: string; path: string }[];
const ids: Record<string, string> = {};

/** What a refused request must leave as it was. */
function snapshot(): unknown {
  return t.rig.core.sqlite
    .prepare(
      `SELECT (SELECT count(*) FROM outbox) o, (SELECT sum(length(ap_object)) FROM outbox) oj, (SELECT count(*) FROM outbox WHERE is_pinned OR is_deleted) of,
       (SELECT count(*) FROM inbox) i, (SELECT count(*) FROM inbox WHERE is_bookmarked OR liked_via_outbox_object_ap_id IS NOT NULL OR announced_via_outbox_object_ap_id IS NOT NULL) inf,
       (SELECT count(*) FROM upload) u, (SELECT count(*) FROM notifications) n, (SELECT count(*) FROM oauth_client) c,
       (SELECT count(*) FROM indieauth_access_token WHERE NOT is_revoked) tk, (SELECT count(*) FROM outgoing_activity) d, (SELECT count(*) FROM following) f`,
    )
    .get();
}

const PUBLIC = new Set(['POST /api/v1/apps', 'GET /api/v1/instance', 'GET /api/v2/instance', 'GET /api/v1/instance/peers', 'GET /api/v1/instance/activity', 'GET /api/v1/instance/rules', 'GET /api/v1/instance/extended_description', 'GET /api/v1/custom_emojis']);
const isPublic = (r: { method: string; path: string }) => PUBLIC.has(`${r.method} ${r.path}`) || r.path.startsWith('/oauth/');
const concrete = (path: string) =>
  path
    .replace('/statuses/:id', `/statuses/${ids.status}`)
    .replace('/polls/:id', `/polls/${ids.poll}`)
    .replace('/media/:id', `/media/${ids.media}`)
    .replace('/accounts/:id', '/accounts/0')
    .replace(':id', '1')
    .replace(':tag', 'birds');

beforeAll(async () => {
  t = await openMastodonRig();
  [full, revoked] = [await signIn(t, ['read', 'write', 'follow']), await signIn(t, ['read', 'write', 'follow'], 'Revoked')];
  readOnly = (await signIn(t, ['read'], 'Reader')).token;
  writeOnly = (await signIn(t, ['write'], 'Writer')).token;
  const form = new FormData();
  form.set('file', new File([new Uint8Array(await pngBytes())], 'x.png', { type: 'image/png' }));
  ids.media = ((await (await fetch(`${t.url}/api/v2/media`, { method: 'POST', headers: { authorization: `Bearer ${full.token}` }, body: form })).json()) as { id: string }).id;
  ids.status = ((await call(t, full.token, 'POST', '/api/v1/statuses', { status: 'Kept' })).json as { id: string }).id;
  ids.poll = ((await call(t, full.token, 'POST', '/api/v1/statuses', { status: 'Q', poll: { options: ['a', 'b'], expires_in: 600 } })).json as { id: string }).id;
  const r = await fetch(`${t.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: revoked.clientId, client_secret: revoked.clientSecret, token: revoked.token }) });
  expect(r.status).toBe(200);
  routes = createListenerApp(t.rig.core)
    .routes.filter((r) => r.method !== 'ALL' && r.method !== 'OPTIONS' && (r.path.startsWith('/api/') || r.path.startsWith('/oauth/')))
    .filter((r) => !r.path.includes('/wait/'))
    .map((r) => ({ method: r.method, path: r.path }));
});
afterAll(async () => {
  await t?.close();
});

async function refusedEach(token: string | null, pick: (r: { method: string; path: string }) => boolean, status: number, send: (r: { method: string; path: string }) => RequestInit = () => ({})) {
  const chosen = routes.filter(pick);
  expect(chosen.length).toBeGreaterThan(0);
  const wrong: string[] = [];
  for (const route of chosen) {
    const before = snapshot();
    const init = send(route);
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    const res = await fetch(`${t.url}${concrete(route.path)}`, { method: route.method, ...init, headers });
    const text = await res.text();
    const body = ErrorBody.safeParse(text ? JSON.parse(text) : null);
    if (res.status !== status || !body.success) wrong.push(`${route.method} ${route.path}: ${res.status} ${text.slice(0, 120)}`);
    expect(snapshot(), `${route.method} ${route.path} stored something`).toEqual(before);
  }
  expect(wrong).toEqual([]);
  return chosen.length;
}

describe('every route refuses what it must, in Mastodon’s shape, storing nothing', () => {
  it('lists the routes: at least the ones the clients need', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const needed of ['GET /api/v2/instance', 'GET /api/v1/preferences', 'GET /api/v1/accounts/:id', 'POST /api/v1/statuses', 'GET /api/v1/timelines/home', 'POST /api/v2/media', 'GET /api/v1/notifications', 'POST /oauth/token']) {
      expect(names).toContain(needed);
    }
  });

  it('no token: 401', async () => {
    expect(await refusedEach(null, (r) => !isPublic(r), 401)).toBeGreaterThan(50);
  });

  it('a garbled Authorization header, and an unknown token: 401', async () => {
    await refusedEach('not a token!', (r) => !isPublic(r), 401);
    await refusedEach('A'.repeat(43), (r) => !isPublic(r) && r.method === 'GET', 401);
  });

  it('a revoked token: 401', async () => {
    await refusedEach(revoked.token, (r) => !isPublic(r), 401);
  });

  it('a token without the scope: 403 (read-only writes, write-only reads)', async () => {
    await refusedEach(readOnly, (r) => !isPublic(r) && r.method !== 'GET', 403);
    await refusedEach(writeOnly, (r) => !isPublic(r) && r.method === 'GET' && !['/api/v1/media/:id', '/api/v1/apps/verify_credentials'].includes(r.path), 403);
  });

  it('malformed JSON: 400', async () => {
    await refusedEach(full.token, (r) => r.method !== 'GET' && !r.path.includes('/media'), 400, () => ({ headers: { 'content-type': 'application/json' }, body: '{"status": "x",' }));
  });

  it('an oversized body: 413', async () => {
    const big = JSON.stringify({ status: 'x'.repeat(300 * 1024) });
    await refusedEach(full.token, (r) => r.method !== 'GET' && !r.path.includes('/media') && r.path !== '/api/v1/accounts/update_credentials', 413, () => ({ headers: { 'content-type': 'application/json' }, body: big }));
  });
});

describe('validation', () => {
  const refused = async (status: number, method: string, path: string, body?: unknown, token = full.token) => {
    const before = snapshot();
    const res = await call(t, token, method, path, body);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    expect(ErrorBody.parse(res.json).error).toBeTruthy();
    expect(snapshot()).toEqual(before);
    return (res.json as { error: string }).error;
  };

  it('statuses: blank, a one-option poll, an unknown visibility, a scheduled post, a reply to nothing, files and a poll', async () => {
    expect(await refused(422, 'POST', '/api/v1/statuses', { status: '  ' })).toMatch(/blank/);
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', poll: { options: ['only'], expires_in: 600 } });
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', poll: { options: ['a', 'b'], expires_in: 10 } });
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', visibility: 'everyone' });
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', scheduled_at: '2030-01-01T00:00:00Z' });
    await refused(404, 'POST', '/api/v1/statuses', { status: 'q', in_reply_to_id: '1234567890123' });
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', media_ids: [ids.media], poll: { options: ['a', 'b'], expires_in: 600 } });
    await refused(422, 'POST', '/api/v1/statuses', { status: 'q', media_ids: ['999999'] });
    await refused(422, 'POST', '/api/v1/statuses', ['not', 'an', 'object']);
  });

  it('ids: unknown, malformed, or a real row id with the wrong time are 404', async () => {
    await refused(404, 'GET', '/api/v1/statuses/abc');
    await refused(404, 'GET', `/api/v1/statuses/${(BigInt(ids.status!) - (1n << 31n)).toString()}`);
    await refused(404, 'GET', `/api/v1/statuses/${(1n << 63n).toString()}`);
    await refused(404, 'GET', `/api/v1/statuses/1${'0'.repeat(25)}`);
    expect((await call(t, full.token, 'GET', `/api/v1/statuses/${BigInt(ids.status!).toString()}`)).status).toBe(200);
    await refused(404, 'GET', '/api/v1/accounts/987654');
    await refused(404, 'POST', `/api/v1/polls/${ids.status}/votes`, { choices: [0] });
    await refused(422, 'POST', `/api/v1/polls/${ids.poll}/votes`, { choices: [5] });
    await refused(404, 'GET', '/api/v1/notifications/424242');
  });

  it('editing: a post’s files or poll cannot change; another’s post is not found', async () => {
    await refused(422, 'PUT', `/api/v1/statuses/${ids.status}`, { status: 'x', media_ids: [ids.media] });
    await refused(422, 'PUT', `/api/v1/statuses/${ids.poll}`, { status: 'x', poll: { options: ['c', 'd'], expires_in: 600 } });
    await refused(422, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'X'.repeat(101) });
    await refused(422, 'PATCH', '/api/v1/accounts/update_credentials', { locked: 'perhaps', note: 5 });
  });

  it('media: not multipart, no file, a file that is not media, an oversized file', async () => {
    const post = async (body: BodyInit, headers: Record<string, string> = {}) => {
      const before = snapshot();
      const res = await fetch(`${t.url}/api/v2/media`, { method: 'POST', headers: { authorization: `Bearer ${full.token}`, ...headers }, body });
      expect(snapshot()).toEqual(before);
      return { status: res.status, body: ErrorBody.parse(await res.json()) };
    };
    expect((await post(JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' })).status).toBe(422);
    const noFile = new FormData();
    noFile.set('description', 'nothing');
    expect((await post(noFile)).status).toBe(422);
    const text = new FormData();
    text.set('file', new File(['plain text, not an image'], 'notes.txt', { type: 'text/plain' }));
    expect((await post(text)).status).toBe(422);
    const big = new FormData();
    big.set('file', new File([new Uint8Array(await pngBytes()), new Uint8Array(17 * 1024 * 1024)], 'big.png', { type: 'image/png' }));
    // Refused on its size, the file never copied: its pieces are the socket's chunks, and only
    // a delimiter's worth of two chunks is ever joined, to look for one. The reader used to copy
    // every chunk into a Blob (then the parts into a File): the bytes given to Blob, File and
    // Buffer.concat while the request is handled are counted.
    const copied = { blob: 0, concat: 0 };
    const sizeOf = (parts: unknown[] = []) => parts.reduce<number>((n, p) => n + (p instanceof Blob ? p.size : typeof p === 'string' ? p.length : (p as ArrayBufferView).byteLength), 0);
    class CountedBlob extends Blob {
      constructor(parts?: BlobPart[], options?: BlobPropertyBag) {
        super(parts, options);
        copied.blob += sizeOf(parts);
      }
    }
    class CountedFile extends File {
      constructor(parts: BlobPart[], name: string, options?: FilePropertyBag) {
        super(parts, name, options);
        copied.blob += sizeOf(parts);
      }
    }
    vi.stubGlobal('Blob', CountedBlob);
    vi.stubGlobal('File', CountedFile);
    const concat = vi.spyOn(Buffer, 'concat');
    let tooLarge: Awaited<ReturnType<typeof post>>;
    try {
      tooLarge = await post(big);
      copied.concat = Math.max(0, ...concat.mock.calls.map(([list]) => list.reduce((n, b) => n + b.byteLength, 0)));
    } finally {
      concat.mockRestore();
      vi.unstubAllGlobals();
    }
    expect([tooLarge.status, tooLarge.body.error]).toEqual([413, expect.stringMatching(/too large/)]);
    expect(copied.blob).toBeLessThan(1024);
    expect(copied.concat).toBeLessThan(1024);
    const huge = new FormData();
    huge.set('file', new File([new Uint8Array(41 * 1024 * 1024)], 'big.png', { type: 'image/png' }));
    expect((await post(huge)).status).toBe(413);
  });

  it('multipart with more than 500 parts (media, profile) is refused with 400 and a reason before it is parsed', async () => {
    // The Web Request's formData parsed a whole body, with no limit; parts are now counted as they arrive.
    const formData = vi.spyOn(Request.prototype, 'formData');
    try {
      const boundary = '----TernTestBoundary7MA4YWxkTrZu0gW';
      // 2 MiB of one-byte parts: about 160 ms of parsing (40 MiB: seconds) before the count came first.
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="k"\r\n\r\nv\r\n`.repeat(40_000) + `--${boundary}--\r\n`;
      for (const [method, path] of [['POST', '/api/v2/media'], ['PATCH', '/api/v1/accounts/update_credentials']] as const) {
        const before = snapshot();
        const res = await fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${full.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
        expect([res.status, ErrorBody.parse(await res.json()).error]).toEqual([400, 'the multipart body has more than 500 parts']);
        expect(snapshot()).toEqual(before);
      }
      expect(formData).not.toHaveBeenCalled();
    } finally {
      formData.mockRestore();
    }
  });
});

describe('signing in: refusals', () => {
  const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });

  it('apps: a javascript: or relative redirect URI, a missing name — 422, no client stored', async () => {
    for (const body of [{ client_name: 'Evil', redirect_uris: 'javascript:alert(1)' }, { client_name: 'Rel', redirect_uris: '/callback' }, { redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, { client_name: 'Data', redirect_uris: 'data:text/html,hi' }]) {
      const before = snapshot();
      const res = await call(t, null, 'POST', '/api/v1/apps', body);
      expect(res.status).toBe(422);
      ErrorBody.parse(res.json);
      expect(snapshot()).toEqual(before);
    }
  });

  it('authorize: an unknown client or an unregistered redirect URI gets a page, nothing pending', async () => {
    const pending = t.rig.core.services.indieauth.pending().length;
    const res = await fetch(`${t.url}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=urn:ietf:wg:oauth:2.0:oob`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    const other = await fetch(`${t.url}/oauth/authorize?response_type=code&client_id=${full.clientId}&redirect_uri=https://evil.example/cb`, { redirect: 'manual' });
    expect(other.status).toBe(400);
    expect(t.rig.core.services.indieauth.pending().length).toBe(pending);
  });

  it('token: unsupported grant, a wrong secret, an unknown code — 4xx with error, no token stored', async () => {
    const before = snapshot();
    const grant = await fetch(`${t.url}/oauth/token`, form({ grant_type: 'password', username: 'a', password: 'b', client_id: full.clientId, client_secret: full.clientSecret }));
    expect([grant.status, ((await grant.json()) as { error: string }).error]).toEqual([400, 'unsupported_grant_type']);
    const secret = await fetch(`${t.url}/oauth/token`, form({ grant_type: 'authorization_code', code: 'x'.repeat(43), client_id: full.clientId, client_secret: 'wrong', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' }));
    expect([secret.status, ((await secret.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const code = await fetch(`${t.url}/oauth/token`, form({ grant_type: 'authorization_code', code: 'x'.repeat(43), client_id: full.clientId, client_secret: full.clientSecret, redirect_uri: 'com.example.phone.19300:/request_token' }));
    expect([code.status, ((await code.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const malformed = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(malformed.status).toBe(400);
    expect(snapshot()).toEqual(before);
  });

  it('client_credentials: an app token verifies the app and reads what is public, nothing of the author’s', async () => {
    const res = await fetch(`${t.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: full.clientId, client_secret: full.clientSecret, scope: 'read' }));
    expect(res.status).toBe(200);
    const app = (await res.json()) as { access_token: string; token_type: string };
    expect(app.token_type).toBe('Bearer');
    expect((await call(t, app.access_token, 'GET', '/api/v1/apps/verify_credentials')).json).toMatchObject({ name: 'Raw Client', scopes: [] });
    expect((await call(t, app.access_token, 'GET', '/api/v2/instance')).status).toBe(200);
    await refusedEach(app.access_token, (r) => !isPublic(r) && r.path !== '/api/v1/apps/verify_credentials', 403);
    const wrong = await fetch(`${t.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: full.clientId, client_secret: 'nope' }));
    expect(wrong.status).toBe(401);
  });

  // client_credentials needs no approval: each call stored a token (and a request row), without
  // bound, and each was listed in the author's Apps with access.
  it('client_credentials asked again gives the app its one token anew (the earlier one stops working); none is listed as an app with access', async () => {
    const tokens = () => t.rig.core.db.select({ n: count() }).from(indieauthAccessToken).get()!.n;
    const listed = t.rig.core.services.indieauth.apps().length;
    const ask = async () => ((await (await fetch(`${t.url}/oauth/token`, form({ grant_type: 'client_credentials', client_id: full.clientId, client_secret: full.clientSecret }))).json()) as { access_token: string }).access_token;
    const first = await ask();
    const before = tokens();
    let last = first;
    for (let i = 0; i < 20; i++) last = await ask();
    expect(tokens()).toBe(before);
    expect(t.rig.core.services.indieauth.apps()).toHaveLength(listed);
    expect((await call(t, first, 'GET', '/api/v1/apps/verify_credentials')).status).toBe(401);
    expect((await call(t, last, 'GET', '/api/v1/apps/verify_credentials')).status).toBe(200);
  });

  it('revoke: another client cannot revoke a token that is not its own', async () => {
    const other = await signIn(t, ['read'], 'Other');
    const res = await fetch(`${t.url}/oauth/revoke`, form({ client_id: other.clientId, client_secret: other.clientSecret, token: full.token }));
    expect(res.status).toBe(200);
    expect((await call(t, full.token, 'GET', '/api/v1/accounts/verify_credentials')).status).toBe(200);
    expect((await fetch(`${t.url}/oauth/revoke`, form({ client_id: other.clientId, client_secret: 'wrong', token: other.token }))).status).toBe(401);
  });
});
