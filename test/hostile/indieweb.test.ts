// Hostile corpus, the IndieWeb endpoints: Webmention (bad parameters, sources at SSRF-ish
// addresses refused for good, hostile source pages: deep, huge, markup in the author's name and
// javascript:/data: photos and URLs), IndieAuth (/auth, /token, /token/revoke,
// /token/introspect, /register) and Micropub with its media endpoint.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incomingActivity } from '../../db/schema';
import { addPost, openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken, REDIRECT } from '../../electron/core/indieauth/test-flow';
import { SCRIPTS, nestedJson, reportStalls, runCase, type HostileCase } from './rig';
import { startHostilePeer, type HostilePeer } from './peers';

let t: ListeningCore;
let peer: HostilePeer;
let target: string;
let token: string;
let minute = 0;

beforeAll(async () => {
  [t, peer] = await Promise.all([openListeningCore(), startHostilePeer()]);
  target = addPost(t.core, { content: '<p>Target</p>' }).apId;
  token = await issueToken(t.url, t.core, ['create', 'media']);
});
afterAll(async () => {
  await peer?.close();
  await t?.close();
  reportStalls('indieweb');
});

// A post's Markdown source is the author's own text as written (outbox.source, and `source` in
// its object): kept as typed, escaped when rendered — everything else is checked.
const h = {
  sqlite: () => t.core.sqlite,
  markupExempt: ['incoming_activity.ap_object', 'incoming_activity.webmention_source', 'incoming_activity.error', 'outbox.source'],
  markupFilter: (table: string, column: string, value: string) =>
    table === 'outbox' && column === 'ap_object' ? JSON.stringify({ ...(JSON.parse(value) as object), source: undefined }) : value,
};
const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => () =>
  fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) });
const json = (path: string, body: string, headers: Record<string, string> = {}) => () =>
  fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const bearer = () => ({ authorization: `Bearer ${token}` });

/** After a webmention was queued: processed at once, refused for good (no retry), nothing stored. */
const refusedForGood = (reason: RegExp) => async () => {
  t.setClockOffset(++minute * 61_000); // a new rate-limit window for the next case
  await t.core.loops.inbox.drain();
  const row = t.core.db.select().from(incomingActivity).orderBy(incomingActivity.id).all().at(-1)!;
  expect(row, 'the queued webmention').toMatchObject({ isProcessed: true, tries: 1 });
  expect(row.error).toMatch(reason);
};

describe('webmention', () => {
  const send = (source: string) => form('/webmention', { source, target });
  const refusals: [string, HostileCase['send'], RegExp][] = [
    ['no source', form('/webmention', { target }), /source is missing/],
    ['no target', form('/webmention', { source: 'https://b.example/' }), /target is missing/],
    ['a javascript: source', send('javascript:alert(1)'), /absolute http\(s\) URL/],
    ['a data: source', send('data:text/html,<script>alert(1)</script>'), /absolute http\(s\) URL/],
    ['a file: source', send('file:///etc/passwd'), /absolute http\(s\) URL/],
    ['a source of markup', send(SCRIPTS[0]!), /absolute http\(s\) URL/],
    ['a JSON body', json('/webmention', JSON.stringify({ source: 'https://b.example/', target })), /Content-Type|form/i],
    ['a source of 10,000 characters (over the 8 KiB body cap)', send(`https://b.example/${'a'.repeat(10_000)}`), /larger than/],
    ['a target elsewhere', form('/webmention', { source: 'https://b.example/', target: 'https://elsewhere.example/o/1' }), /not one of this author/],
    ['source given twice', () => fetch(`${t.url}/webmention`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `source=https://a.example/&source=https://b.example/&target=${encodeURIComponent(target)}` }), /source/],
  ];
  it.each(refusals)('%s', (name, send, reason) => runCase(h, { name, send, status: [400, 413], reason }));

  // Sources the listener takes (they look like URLs) and the processor refuses for good; the
  // core of this file allows loopback (to reach the hostile peer), so names and addresses that
  // the guard refuses are those it refuses with private addresses allowed too.
  const ssrf: [string, string, RegExp][] = [
    ['a name with an empty label', 'http://a..b/x', /No such host|refused/i],
    ['a name under .invalid', 'http://nowhere.invalid/x', /No such host|refused/i],
    ['a page that is 50,000 elements deep', 'PEER/deep', /nested deeper than 400/],
    ['a page of 40,000 elements', 'PEER/wide', /more than 30000 HTML elements/],
    ['a page that does not link', 'PEER/nolink', /does not link/],
  ];
  it.each(ssrf)('a source at %s: 202, then refused for good', async (name, source, reason) => {
    peer.serve('/deep', `${'<div>'.repeat(50_000)}<a href="${target}">x</a>${'</div>'.repeat(50_000)}`, 'text/html');
    peer.serve('/wide', `<a href="${target}">x</a>${'<i></i>'.repeat(40_000)}`, 'text/html');
    peer.serve('/nolink', '<p>nothing here</p>', 'text/html');
    const url = source.replace('PEER', peer.origin);
    await runCase(h, { name, send: send(url), status: 202, changes: { incoming_activity: 1 }, after: refusedForGood(reason) });
  });

  const authors: [string, string][] = SCRIPTS.map((s, i) => [`an author name with markup #${i + 1}`, `<span class="p-name">${s.replace(/</g, '&lt;')}</span>`]);
  authors.push(['an author photo at javascript:', '<img class="u-photo" src="javascript:alert(1)"><span class="p-name">Eve</span>']);
  authors.push(['an author photo at data:', '<img class="u-photo" src="data:image/svg+xml,<svg onload=alert(1)>"><span class="p-name">Eve</span>']);
  authors.push(['an author url at javascript:', '<a class="u-url" href="javascript:alert(1)">Eve</a>']);
  authors.push(['content with script and onerror', '<span class="p-name">Eve</span></span><div class="e-content"><script>alert(1)</script><img src=x onerror=alert(1)></div><span>']);
  it.each(authors)('a source with %s: recorded without the markup', async (name, card) => {
    const path = `/entry-${minute}-${name.length}`;
    peer.serve(path, `<article class="h-entry"><span class="p-author h-card">${card}</span><a class="u-in-reply-to" href="${target}">re</a></article>`, 'text/html');
    await runCase(h, { name, send: send(`${peer.origin}${path}`), status: 202, changes: { incoming_activity: 1, webmention: 1, notifications: 'any' }, after: async () => {
      t.setClockOffset(++minute * 61_000);
      await t.core.loops.inbox.drain();
    } });
  });
});

describe('IndieAuth', () => {
  const auth = (params: Record<string, string>) => () => fetch(`${t.url}/auth?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const base = { response_type: 'code', client_id: 'https://app.example/', redirect_uri: 'https://app.example/cb', state: 's', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' };
  const cases: [string, HostileCase['send'], number | number[]][] = [
    ['/auth without parameters', auth({}), 400],
    ['/auth with a javascript: redirect_uri', auth({ ...base, redirect_uri: 'javascript:alert(1)' }), 400],
    ['/auth with a data: client_id', auth({ ...base, client_id: 'data:text/html,x' }), 400],
    ['/auth with a client_id at localhost.', auth({ ...base, client_id: 'https://localhost./' }), [400, 303]],
    ['/auth with a client_id at 169.254.169.254', auth({ ...base, client_id: 'http://169.254.169.254/' }), [400, 303]],
    ['/auth with a state of markup', auth({ ...base, state: SCRIPTS[0]! }), [303, 400]],
    // Errors with a usable redirect_uri go back to the client (RFC 6749 §4.1.2.1).
    ['/auth with response_type token', auth({ ...base, response_type: 'token' }), [302, 400]],
    ['/auth with a plain PKCE method', auth({ ...base, code_challenge_method: 'plain' }), [302, 400]],
    ['/auth POST of garbage', form('/auth', { code: 'nope', client_id: 'x', redirect_uri: 'y' }), 400],
    ['/token with an unknown code', form('/token', { grant_type: 'authorization_code', code: 'nope', redirect_uri: REDIRECT, code_verifier: 'v'.repeat(43) }), [400, 401]],
    ['/token with grant_type password', form('/token', { grant_type: 'password', username: 'a', password: 'b' }), [400, 401]],
    ['/token with a repeated parameter', () => fetch(`${t.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&grant_type=x' }), 400],
    ['/token with JSON nested 5,000 deep', json('/token', `{"grant_type":${nestedJson(5000)}}`), 400],
    ['/token with a body over 16 KiB', form('/token', { grant_type: 'authorization_code', code: 'x'.repeat(20_000) }), 413],
    ['/token with a wrong Basic header', form('/token', { grant_type: 'authorization_code', code: 'x' }, { authorization: 'Basic !!!' }), [400, 401]],
    ['/token/revoke of an unknown token', form('/token/revoke', { token: 'nope' }), [200, 400, 401]],
    ['/token/revoke of markup', form('/token/revoke', { token: SCRIPTS[0]! }), [200, 400, 401]],
    ['/token/introspect without credentials', form('/token/introspect', { token: 'nope' }), [400, 401]],
    ['/token/introspect with a bearer of markup', form('/token/introspect', { token: 'x' }, { authorization: `Bearer ${SCRIPTS[1]}` }), [400, 401]],
    ['/register without redirect_uris', json('/register', '{"client_name":"x"}'), 400],
    ['/register with a javascript: redirect', json('/register', JSON.stringify({ redirect_uris: ['javascript:alert(1)'] })), 400],
    ['/register with a data: logo', json('/register', JSON.stringify({ redirect_uris: ['https://a.example/cb'], logo_uri: 'data:image/svg+xml,<svg onload=alert(1)>' })), 400],
    ['/register with a file: client_uri', json('/register', JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_uri: 'file:///etc/passwd' })), 400],
    ['/register with JSON nested 5,000 deep', json('/register', `{"redirect_uris":${nestedJson(5000)}}`), 400],
    ['/register with a body that is not JSON', json('/register', '{redirect_uris:'), 400],
    ['/register with text/plain', () => fetch(`${t.url}/register`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), [400, 415]],
    ['/register with a __proto__ key', json('/register', '{"__proto__":{"polluted":1},"redirect_uris":"x"}'), 400],
  ];
  it.each(cases)('%s', (name, send, status) => runCase(h, { name, send, status }));

  it.each(SCRIPTS.map((s, i) => [`/register with a client_name of markup #${i + 1}`, s] as const))('%s: stored as plain text', (name, script) =>
    runCase(h, { name, send: json('/register', JSON.stringify({ client_name: `App ${script}`, redirect_uris: ['https://app.example/cb'] })), status: 201, changes: { oauth_client: 1 } }),
  );
});

describe('Micropub and its media endpoint', () => {
  const mp = (body: string, type = 'application/json', headers: Record<string, string> = bearer()) => () =>
    fetch(`${t.url}/micropub`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });
  const cases: [string, () => HostileCase['send'], number | number[]][] = [
    ['no token', () => mp('{"type":["h-entry"],"properties":{"content":["x"]}}', 'application/json', {}), 401],
    ['a token of markup', () => mp('{"type":["h-entry"]}', 'application/json', { authorization: `Bearer ${SCRIPTS[0]}` }), 401],
    ['JSON nested 10,000 deep', () => mp(`{"type":["h-entry"],"properties":{"content":${nestedJson(10_000)}}}`), 400],
    ['JSON that is not JSON', () => mp('{"type":'), 400],
    ['invalid UTF-8', () => () => fetch(`${t.url}/micropub`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer() }, body: new Uint8Array([0x7b, 0xff, 0x7d]) }), 400],
    ['a body over 1 MiB', () => mp(JSON.stringify({ type: ['h-entry'], properties: { content: ['x'.repeat(1_100_000)] } })), 413],
    ['text/xml', () => mp('<entry/>', 'text/xml'), 415],
    ['a type that is not h-entry', () => mp('{"type":["h-card"],"properties":{"name":["x"]}}'), 400],
    ['properties that are not arrays', () => mp('{"type":["h-entry"],"properties":{"content":"x"}}'), 400],
    ['an action of markup', () => mp(JSON.stringify({ action: SCRIPTS[0], url: target })), 400],
    ['delete of a post elsewhere', () => mp(JSON.stringify({ action: 'delete', url: 'https://elsewhere.example/o/1' })), [400, 403]],
    ['update of a javascript: url (this token may not update)', () => mp(JSON.stringify({ action: 'update', url: 'javascript:alert(1)', replace: { content: ['x'] } })), [400, 403]],
    ['a q of markup', () => () => fetch(`${t.url}/micropub?q=${encodeURIComponent(SCRIPTS[0]!)}`, { headers: bearer() }), 400],
    ['a source query of a local file', () => () => fetch(`${t.url}/micropub?q=source&url=${encodeURIComponent('file:///etc/passwd')}`, { headers: bearer() }), [400, 404]],
    ['media: not multipart', () => () => fetch(`${t.url}/micropub/media`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer() }, body: '{}' }), 415],
    ['media: no file part', () => () => { const f = new FormData(); f.set('x', 'y'); return fetch(`${t.url}/micropub/media`, { method: 'POST', headers: bearer(), body: f }); }, 400],
    ['media: an SVG with a script', () => () => { const f = new FormData(); f.set('file', new Blob(['<svg onload="alert(1)"><script>alert(1)</script></svg>'], { type: 'image/svg+xml' }), 'x.svg'); return fetch(`${t.url}/micropub/media`, { method: 'POST', headers: bearer(), body: f }); }, [400, 415]],
    ['media: an HTML file named .png', () => () => { const f = new FormData(); f.set('file', new Blob(['<script>alert(1)</script>'], { type: 'image/png' }), 'x.png'); return fetch(`${t.url}/micropub/media`, { method: 'POST', headers: bearer(), body: f }); }, [400, 415]],
    ['media: a file name with traversal', () => () => { const f = new FormData(); f.set('file', new Blob(['GIF89a'], { type: 'image/gif' }), '../../../etc/passwd'); return fetch(`${t.url}/micropub/media`, { method: 'POST', headers: bearer(), body: f }); }, [400, 415]],
    ['media: a broken multipart body', () => () => fetch(`${t.url}/micropub/media`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zz', ...bearer() }, body: '--zz\r\nbroken' }), 400],
  ];
  it.each(cases)('%s', (name, make, status) => runCase(h, { name, send: make(), status }));

  it.each(SCRIPTS.map((s, i) => [`a post with a category of markup #${i + 1}`, s] as const))('%s: refused with the reason', (name, script) =>
    runCase(h, { name, send: mp(JSON.stringify({ type: ['h-entry'], properties: { content: ['hello'], category: [script] } })), status: 400, reason: /cannot be a hashtag/ }),
  );

  it.each(SCRIPTS.map((s, i) => [`a post with markup in its content and name #${i + 1}`, s] as const))('%s: stored without it', (name, script) =>
    runCase(h, {
      name,
      send: mp(JSON.stringify({ type: ['h-entry'], properties: { content: [`hello ${script}`], name: [`title ${script}`] } })),
      status: 201,
      changes: { outbox: 'any', tagged_outbox_object: 'any', outgoing_activity: 'any' },
    }),
  );

  it('nothing in the stored posts links to javascript: or data:', () => {
    const rows = t.core.sqlite.prepare('SELECT ap_object FROM outbox').pluck().all() as string[];
    for (const row of rows) expect(JSON.stringify({ ...(JSON.parse(row) as object), source: undefined })).not.toMatch(/(?<!\\)"(javascript|data):/);
    expect(t.core.db.select().from(incomingActivity).where(eq(incomingActivity.isErrored, true)).all()).toEqual([]);
  });
});
