// Hostile campaign, the listener's HTTP surface as a matrix: every route under every method
// (HEAD mirrors GET; the rest answer or refuse, never 5xx), every body route under odd content
// types, urlencoded forms with odd keys and percent-encodings, JSON bombs and odd encodings,
// framings node:http lets through (CL/TE combinations, pipelined leftovers, many headers), markup
// reflected from parameters, and the IPC transport's paths, which the listener never serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPost, openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { ANSWERED, POST_ROUTES, REFUSED, ROUTES, expectPrototypeClean } from './campaign';
import { SCRIPTS, nestedJson, reportStalls, runCase, tableCounts, type HostileCase } from './rig';
import { rawHttp } from './peers';

let t: ListeningCore;
let port: number;
let token: string;
let postId: string;

beforeAll(async () => {
  t = await openListeningCore('alice', { allowPrivateAddresses: false });
  port = Number(new URL(t.url).port);
  postId = new URL(addPost(t.core, { content: '<p>Hello</p>' }).apId).pathname.split('/').pop()!;
  token = await issueToken(t.url, t.core, ['read', 'write', 'create', 'media']);
});
afterAll(async () => {
  await t?.close();
  reportStalls('campaign-http');
});

const h = { sqlite: () => t.core.sqlite, markupExempt: ['outbox.source'] };
const path = (p: string) => p.replace('ID', postId);
const bearer = () => ({ authorization: `Bearer ${token}` });
const raw = (line: string, headers: string[] = [], body: string[] = []) => () =>
  rawHttp(port, [line, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headers].join('\r\n'), body);
/** What a post may add: the post, its hashtags, deliveries (none: nobody follows). */
const POSTED = { outbox: 'any', tagged_outbox_object: 'any', outgoing_activity: 'any' } as const;
/** rawHttp, reading past an interim 100 Continue to the final answer. */
const final = async (send: () => Promise<{ status: number; text: string }>) => {
  const answer = await send();
  if (answer.status !== 100) return answer;
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.text)?.[1] ?? 0), text: answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4) };
};
const post = (route: string, type: string | null, body: BodyInit, headers: Record<string, string> = bearer()) => () =>
  fetch(`${t.url}${route}`, { method: 'POST', headers: { ...(type === null ? {} : { 'content-type': type }), ...headers }, body });

describe('every route under every method', () => {
  const methods = ['OPTIONS', 'PATCH', 'PUT', 'DELETE', 'TRACE', 'PROPFIND', 'M-SEARCH', 'get'];
  const cases = ROUTES.flatMap((route) => methods.map((m) => [`${m} ${route}`, m, route] as const));
  it.each(cases)('%s: answered or refused with a reason, never a 5xx', (name, method, route) =>
    runCase(h, { name, send: raw(`${method} ${path(route)} HTTP/1.1`, ['Content-Length: 2', 'Content-Type: application/json'], ['{}']), status: ANSWERED }),
  );

  it.each(ROUTES)('HEAD %s answers as GET does, without a body', async (route) => {
    const before = tableCounts(t.core.sqlite);
    const [got, head] = [await fetch(`${t.url}${path(route)}`, { redirect: 'manual' }), await fetch(`${t.url}${path(route)}`, { method: 'HEAD', redirect: 'manual' })];
    await got.text();
    expect(head.status, `HEAD ${route}`).toBe(got.status);
    expect(await head.text()).toBe('');
    expect(tableCounts(t.core.sqlite)).toEqual(before);
  });
});

describe('the IPC transport is never on the listener', () => {
  const channels = ['app.status', 'settings.get', 'settings.update', 'backup.create', 'apps.decide', 'notifications.list'];
  const cases = channels.flatMap((ch) => [
    [`POST /ipc/${ch}`, post(`/ipc/${ch}`, 'application/json', '{}')],
    [`POST /ipc/${ch} with the bearer of an app`, post(`/ipc/${ch}`, 'application/json', '{}', bearer())],
    [`GET /ipc/${ch}`, () => fetch(`${t.url}/ipc/${ch}`)],
    [`POST /api/ipc/${ch}`, post(`/api/ipc/${ch}`, 'application/json', '{}')],
    [`POST //ipc/${ch} (a doubled slash)`, raw(`POST //ipc/${ch} HTTP/1.1`, ['Content-Length: 2'], ['{}'])],
    [`POST /%69pc/${ch} (an encoded letter)`, raw(`POST /%69pc/${ch} HTTP/1.1`, ['Content-Length: 2'], ['{}'])],
  ] as [string, HostileCase['send']][]);
  it.each(cases)('%s: 404', (name, send) => runCase(h, { name, send, status: 404 }));
});

describe('bodies under odd content types', () => {
  const types: [string, string | null][] = [
    ['none', null],
    ['empty', ''],
    ['JSON in UTF-16', 'application/json; charset=utf-16'],
    ['JSON-LD with a profile', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'],
    ['a form in latin1', 'application/x-www-form-urlencoded; charset=latin1'],
    ['multipart without a boundary', 'multipart/form-data'],
    ['multipart with an empty boundary', 'multipart/form-data; boundary='],
    ['multipart with an unclosed quoted boundary', 'multipart/form-data; boundary="abc'],
    ['multipart with a boundary of 300 characters', `multipart/form-data; boundary=${'b'.repeat(300)}`],
    ['multipart/mixed', 'multipart/mixed; boundary=zz'],
    ['upper-case JSON', 'APPLICATION/JSON'],
    ['a list of types', 'application/json, text/plain'],
    ['*/*', '*/*'],
    ['empty parameters', 'application/json;;;;'],
    ['a type of 6,000 characters', `application/${'x'.repeat(6000)}`],
  ];
  const bodies: [string, string][] = [
    ['junk', 'junk \u0000\u0001 junk'],
    ['a multipart body that never ends', '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nGIF89a'],
  ];
  const cases = POST_ROUTES.flatMap((route) => types.flatMap(([tn, type]) => bodies.map(([bn, body]) => [`${route}, ${tn}, ${bn}`, route, type, body] as const)));
  it.each(cases)('%s: refused with a reason', (name, route, type, body) => runCase(h, { name, send: post(route, type, body), status: REFUSED }));
});

describe('urlencoded forms with odd keys and encodings', () => {
  const forms: [string, string][] = [
    ['a percent-encoded NUL in a value', 'status=%00&content=%00&source=%00&target=%00&code=%00&grant_type=%00&client_name=%00'],
    ['a NUL in a key', 'sta%00tus=x&con%00tent=x'],
    ['a lone %', 'status=%&content=%&grant_type=%'],
    ['%zz', 'status=%zz&content=%zz&grant_type=%zz'],
    ['an overlong / (%c0%af)', 'status=%c0%af&content=%c0%af&source=http://a%c0%af.example/'],
    ['a lone surrogate (%ed%a0%80)', 'status=%ed%a0%80&content=%ed%a0%80'],
    ['%ff', 'status=%ff&content=%ff&grant_type=%ff'],
    ['every key twice', 'status=a&status=b&content=a&content=b&grant_type=a&grant_type=b&source=a&source=b'],
    ['array keys', 'status[]=a&status[]=b&content[]=x&grant_type[]=x&source[]=x&target[]=x'],
    ['object keys', 'status[a]=x&content[b]=x&grant_type[c]=x'],
    ['a __proto__ key', '__proto__[polluted]=1&__proto__.polluted=1&status=x'],
    ['constructor.prototype keys', 'constructor[prototype][polluted]=1&status=x'],
    ['10,000 keys', Array.from({ length: 10_000 }, (_, i) => `k${i}=v`).join('&')],
    ['10,000 empty pairs', '&'.repeat(10_000)],
    ['a key of 100,000 equals signs', '='.repeat(100_000)],
    ['+ and %20 mixed in a key', 'sta+tus=x&sta%20tus=y'],
  ];
  const routes = ['/webmention', '/token', '/token/revoke', '/micropub', '/oauth/token', '/oauth/revoke', '/api/v1/apps', '/auth'];
  const cases = routes.flatMap((route) => forms.map(([fn, body]) => [`${route}, ${fn}`, route, body] as const));
  it.each(cases)('%s: refused with a reason', async (name, route, body) => {
    await runCase(h, { name, send: post(route, 'application/x-www-form-urlencoded', body), status: REFUSED });
    expectPrototypeClean();
  });
  // A status is free text: what decodes to text is posted as that text (Mastodon's way), the rest refused.
  it.each(forms)('/api/v1/statuses, %s: posted as text or refused, never a 5xx', async (name, body) => {
    await runCase(h, { name: `/api/v1/statuses, ${name}`, send: post('/api/v1/statuses', 'application/x-www-form-urlencoded', body), status: [200, ...REFUSED], changes: POSTED });
    expectPrototypeClean();
  });
});

describe('JSON bombs and odd encodings', () => {
  const docs: [string, string | Uint8Array][] = [
    ['a number 1e999', '{"status":1e999,"type":1e999,"redirect_uris":1e999,"client_name":1e999}'],
    ['a number of 10,000 digits', `{"status":${'9'.repeat(10_000)},"limit":${'9'.repeat(10_000)}}`],
    ['an array of 200,000 zeros', `{"status":"x","media_ids":[${Array(200_000).fill(0).join(',')}],"redirect_uris":[${Array(200_000).fill('0').join(',')}]}`],
    ['a string of 900 KB', JSON.stringify({ status: 'x'.repeat(900_000), client_name: 'x'.repeat(900_000) })],
    ['a key of 500 KB', `{"${'k'.repeat(500_000)}":1}`],
    ['10,000 duplicate keys', `{${Array(10_000).fill('"status":"a"').join(',')}}`],
    ['a __proto__ key', '{"__proto__":{"polluted":true},"status":"","redirect_uris":"x"}'],
    ['a constructor.prototype key', '{"constructor":{"prototype":{"polluted":true}},"status":""}'],
    ['nested 100,000 deep', `{"status":${nestedJson(100_000)}}`],
    ['100,000 unclosed braces', `{"a":${'{"a":'.repeat(100_000)}`],
    ['a NUL escape', '{"status":"\\u0000","client_name":"\\u0000","redirect_uris":["\\u0000"]}'],
    ['a lone surrogate escape', '{"status":"\\ud800","client_name":"\\udfff"}'],
    ['an overlong / in a string', new Uint8Array([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
    ['a UTF-8 BOM before the object', new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('{"status":""}')])],
    ['a surrogate encoded as UTF-8 bytes', new Uint8Array([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])],
    ['two documents', '{"status":""}{"status":""}'],
    ['a trailing comma', '{"status":"",}'],
    ['NaN', '{"status":NaN}'],
  ];
  const routes = ['/register', '/micropub', '/token', '/oauth/token', '/api/v1/apps'];
  const cases = routes.flatMap((route) => docs.map(([dn, body]) => [`${route}, ${dn}`, route, body] as const));
  it.each(cases)('%s: refused with a reason', async (name, route, body) => {
    await runCase(h, { name, send: post(route, 'application/json', body as BodyInit), status: REFUSED });
    expectPrototypeClean();
  });
  // Routes where what parses is taken: a status (free text) and markers (unknown keys ignored).
  const lenient = ['/api/v1/statuses', '/api/v1/markers'].flatMap((route) => docs.map(([dn, body]) => [`${route}, ${dn}`, route, body] as const));
  it.each(lenient)('%s: taken or refused, never a 5xx', async (name, route, body) => {
    await runCase(h, { name, send: post(route, 'application/json', body as BodyInit), status: [200, ...REFUSED], changes: POSTED });
    expectPrototypeClean();
  });
});

describe('framings node:http lets through', () => {
  const routes = ['/token', '/micropub', '/api/v1/statuses', '/webmention', '/register'];
  const framings: [string, string[], string[], number[]][] = [
    ['a Content-Length shorter than the body (a pipelined leftover)', ['Content-Length: 2', 'Content-Type: application/json'], ['{}GET /ipc/settings.get HTTP/1.1\r\nHost: x\r\n\r\n'], REFUSED],
    ['chunked twice in one header', ['Transfer-Encoding: chunked, chunked', 'Content-Type: application/json'], ['2\r\n{}\r\n0\r\n\r\n'], REFUSED],
    ['chunked in two headers', ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked', 'Content-Type: application/json'], ['2\r\n{}\r\n0\r\n\r\n'], REFUSED],
    ['CHUNKED in capitals', ['Transfer-Encoding: CHUNKED', 'Content-Type: application/json'], ['2\r\n{}\r\n0\r\n\r\n'], REFUSED],
    ['Transfer-Encoding: identity', ['Transfer-Encoding: identity', 'Content-Type: application/json', 'Content-Length: 2'], ['{}'], REFUSED],
    ['a chunk extension of 20 KiB', ['Transfer-Encoding: chunked', 'Content-Type: application/json'], [`2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`], REFUSED],
    ['a trailer of markup', ['Transfer-Encoding: chunked', 'Content-Type: application/json'], [`2\r\n{}\r\n0\r\nX-T: ${SCRIPTS[0]}\r\n\r\n`], REFUSED],
    ['a chunk of 10 GB declared, 3 MiB sent', ['Transfer-Encoding: chunked', 'Content-Type: application/json'], ['2540BE400\r\n', ...Array<string>(3).fill('x'.repeat(1 << 20))], REFUSED],
    ['a folded header (obs-fold)', ['Content-Type: application/json', ' ; charset=utf-8', 'Content-Length: 2'], ['{}'], REFUSED],
    ['2,000 headers', [...Array.from({ length: 2000 }, (_, i) => `X-H${i}: v`), 'Content-Type: application/json', 'Content-Length: 2'], ['{}'], REFUSED],
    ['Expect: 100-continue with 1 GB declared', ['Expect: 100-continue', 'Content-Type: application/json', 'Content-Length: 1000000000'], [], REFUSED],
    ['Expect of garbage', ['Expect: teapot', 'Content-Type: application/json', 'Content-Length: 2'], ['{}'], REFUSED],
    ['a Content-Length with a sign', ['Content-Length: +2', 'Content-Type: application/json'], ['{}'], REFUSED],
    ['a Content-Length in hex', ['Content-Length: 0x2', 'Content-Type: application/json'], ['{}'], REFUSED],
    ['a Content-Length list', ['Content-Length: 2, 2', 'Content-Type: application/json'], ['{}'], REFUSED],
    ['a Content-Encoding of gzip over plain bytes', ['Content-Encoding: gzip', 'Content-Type: application/json', 'Content-Length: 2'], ['{}'], REFUSED],
    ['a Content-Encoding of br, deflate, gzip', ['Content-Encoding: br, deflate, gzip', 'Content-Type: application/json', 'Content-Length: 2'], ['{}'], REFUSED],
  ];
  const cases = routes.flatMap((route) => framings.map(([fn, headers, body, status]) => [`${route}, ${fn}`, route, headers, body, status] as const));
  it.each(cases)('%s', (name, route, headers, body, status) => runCase(h, { name, send: () => final(raw(`POST ${route} HTTP/1.1`, [`Authorization: Bearer ${token}`, ...headers], body)), status }));

  it.each([
    ['HTTP/1.0 without a Host', 'GET / HTTP/1.0', [], ANSWERED],
    ['no HTTP version (read as HTTP/1.1 by node)', 'GET /', [], [0, 200, ...REFUSED]],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0', ['', 'SM'], [0, ...REFUSED]],
    ['HTTP/3.0', 'GET / HTTP/3.0', [], [0, ...REFUSED]],
    ['a tab in the request line', 'GET\t/\tHTTP/1.1', [], [0, ...REFUSED]],
    ['a path of *', 'GET * HTTP/1.1', [], REFUSED],
    ['an absolute-form path of another host', 'POST http://evil.example/token HTTP/1.1', ['Content-Length: 2'], REFUSED],
  ] as const)('%s', (name, line, headers, status) =>
    runCase(h, { name, send: () => rawHttp(port, [line, ...(line.includes('1.0') ? [] : [`Host: 127.0.0.1:${port}`]), 'Connection: close', ...headers].join('\r\n'), headers.length > 0 ? ['{}'] : []), status: [...status] }),
  );
});

describe('markup in parameters is never reflected', () => {
  const payload = SCRIPTS[0]!;
  const e = encodeURIComponent(payload);
  const gets = [
    `/auth?response_type=code&client_id=${e}&redirect_uri=${e}&state=${e}&scope=${e}&me=${e}`,
    `/auth?response_type=${e}&client_id=https://app.example/&redirect_uri=https://app.example/cb&state=${e}&code_challenge=${e}&code_challenge_method=${e}`,
    `/oauth/authorize?response_type=code&client_id=${e}&redirect_uri=${e}&state=${e}&scope=${e}`,
    `/oauth/authorize?response_type=${e}&client_id=x&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=${e}`,
    `/.well-known/webfinger?resource=${e}`,
    `/.well-known/webfinger?resource=acct:${e}@127.0.0.1`,
    `/o/${e}`,
    `/media/${e}/${e}`,
    `/${e}`,
    `/micropub?q=${e}`,
    `/api/v1/accounts/${e}`,
    `/api/v1/statuses/${e}`,
    `/api/v1/accounts/lookup?acct=${e}`,
    `/api/v2/search?q=${e}&type=${e}`,
    `/api/v1/timelines/home?limit=${e}&max_id=${e}`,
  ];
  it.each(gets)('GET %s', async (route) => {
    const res = await fetch(`${t.url}${route}`, { headers: bearer(), redirect: 'manual' });
    const text = await res.text();
    expect(res.status, text).toBeLessThan(500);
    // JSON errors may quote it (Mastodon's do; nosniff keeps them data); a page never does.
    if (!/json/.test(res.headers.get('content-type') ?? '')) expect(text, 'the payload as markup').not.toContain(payload);
    expect(res.headers.get('location') ?? '', 'the payload in a redirect').not.toContain(payload);
  });
});
