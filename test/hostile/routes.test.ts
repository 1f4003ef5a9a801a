// Hostile corpus, the listener's reading routes: actor and pages, outbox and collections,
// objects, media, WebFinger, NodeInfo, host-meta, the avatar and the IndieAuth metadata — odd
// queries, path traversal (encoded and raw), markup in parameters, SSRF-ish resources, unknown
// methods, Host and X-Forwarded headers, oversized URLs and headers. Reading stores nothing.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { addPost, openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { SCRIPTS, reportStalls, runCase } from './rig';
import { rawHttp } from './peers';

let t: ListeningCore;
let port: number;
let publicId: string;

beforeAll(async () => {
  t = await openListeningCore();
  port = Number(new URL(t.url).port);
  publicId = new URL(addPost(t.core, { content: '<p>Hello</p>' }).apId).pathname.split('/').pop()!;
  await fetch(`${t.url}/`); // warm-up, not a case
});
afterAll(async () => {
  await t?.close();
  reportStalls('routes');
});

const h = { sqlite: () => t.core.sqlite };
const get = (path: string, headers: Record<string, string> = {}) => () => fetch(`${t.url}${path}`, { headers });
const raw = (line: string, headers: string[] = []) => () => rawHttp(port, [line, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headers].join('\r\n'));
const AP = { accept: 'application/activity+json' };
const enc = encodeURIComponent;

type Row = [name: string, send: () => Promise<Response | { status: number; text: string }>, status: number | number[]];
const cases: Row[] = [
  ['the actor as HTML with a script in the query', get(`/?q=${enc(SCRIPTS[0]!)}`), 200],
  ['the actor with a 4 KiB Accept header', get('/', { accept: `application/activity+json, ${'x/y;q=0.1, '.repeat(300)}` }), 200],
  ['the actor with an Accept of markup', get('/', { accept: SCRIPTS[0]! }), [200, 406]],
  ['the outbox page -1', get('/outbox?page=-1', AP), [200, 400]],
  ['the outbox page abc', get('/outbox?page=abc', AP), [200, 400]],
  ['the outbox page 1e309', get('/outbox?page=1e309', AP), [200, 400]],
  ['the outbox page of 40 digits', get(`/outbox?page=${'9'.repeat(40)}`, AP), [200, 400]],
  ['the outbox page given twice', get('/outbox?page=1&page=2', AP), [200, 400]],
  ['the outbox page as an array', get('/outbox?page[]=1', AP), [200, 400]],
  ['the outbox page of markup', get(`/outbox?page=${enc(SCRIPTS[1]!)}`, AP), [200, 400]],
  ['followers page -5', get('/followers?page=-5', AP), [200, 400]],
  ['followers page NaN', get('/followers?page=NaN', AP), [200, 400]],
  ['following page 0x10', get('/following?page=0x10', AP), [200, 400]],
  ['featured with a query of markup', get(`/featured?x=${enc(SCRIPTS[2]!)}`, AP), 200],
  ['an unknown object', get('/o/nope', AP), 404],
  ['an object id of markup', get(`/o/${enc(SCRIPTS[0]!)}`, AP), 404],
  ['an object id with NUL', get('/o/%00', AP), 404],
  ['an object id with encoded traversal', get('/o/..%2f..%2fetc%2fpasswd', AP), 404],
  ['an object id of 8,000 characters', get(`/o/${'a'.repeat(8000)}`, AP), [404, 414]],
  ['an object’s activity, unknown', get('/o/nope/activity', AP), 404],
  ['a real object with a query of markup', () => fetch(`${t.url}/o/${publicId}?x=${enc(SCRIPTS[3]!)}`, { headers: AP }), 200],
  ['media with an unknown hash', get('/media/abc/def.png'), 404],
  ['media with encoded traversal', get('/media/..%2f..%2fetc/passwd'), 404],
  ['media with double-encoded traversal', get('/media/%252e%252e%252f/passwd'), 404],
  ['a thumbnail of markup', get(`/media/thumbnails/${enc(SCRIPTS[0]!)}`), 404],
  ['a thumbnail with a NUL', get('/media/thumbnails/%00'), 404],
  ['a raw ../ path to /etc/passwd', raw('GET /media/../../../../etc/passwd HTTP/1.1'), [400, 404]],
  ['a raw backslash traversal', raw('GET /media/..\\..\\etc\\passwd HTTP/1.1'), [400, 404]],
  ['a raw absolute-form request to another host', raw('GET http://169.254.169.254/latest/meta-data HTTP/1.1'), [400, 404]],
  ['a raw path of 100 KiB', raw(`GET /${'a'.repeat(100 * 1024)} HTTP/1.1`), [400, 404, 414, 431]],
  ['a raw header of 64 KiB', raw('GET / HTTP/1.1', [`X-Big: ${'b'.repeat(64 * 1024)}`]), 431],
  ['a raw header with a bare CR', raw('GET / HTTP/1.1', ['X-A: 1\rX-B: 2']), 400],
  ['a raw TRACE', raw('TRACE / HTTP/1.1'), [404, 405]],
  ['a raw CONNECT', raw('CONNECT 127.0.0.1:22 HTTP/1.1'), 405],
  ['PUT on the inbox', () => fetch(`${t.url}/inbox`, { method: 'PUT', body: '{}' }), [404, 405]],
  ['DELETE on an object', () => fetch(`${t.url}/o/${publicId}`, { method: 'DELETE' }), [404, 405]],
  ['PATCH on the outbox', () => fetch(`${t.url}/outbox`, { method: 'PATCH', body: '{}' }), [404, 405]],
  ['POST on the outbox (C2S is not offered)', () => fetch(`${t.url}/outbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{}' }), [404, 405]],
  ['a Host header of another server', get('/', { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'gopher' }), 200],
  ['X-Forwarded-For of markup', get('/', { 'x-forwarded-for': SCRIPTS[0]! }), 200],
  ['webfinger without a resource', get('/.well-known/webfinger'), 400],
  ['webfinger of markup', get(`/.well-known/webfinger?resource=${enc(`acct:${SCRIPTS[0]}@127.0.0.1`)}`), [400, 404]],
  ['webfinger at localhost.', get(`/.well-known/webfinger?resource=${enc('acct:alice@localhost.')}`), [400, 404]],
  ['webfinger of a metadata address', get(`/.well-known/webfinger?resource=${enc('http://169.254.169.254/latest/meta-data')}`), [400, 404]],
  ['webfinger of javascript:', get(`/.well-known/webfinger?resource=${enc('javascript:alert(1)')}`), [400, 404]],
  ['webfinger of file:', get(`/.well-known/webfinger?resource=${enc('file:///etc/passwd')}`), [400, 404]],
  ['webfinger of data:', get(`/.well-known/webfinger?resource=${enc('data:text/html,<script>alert(1)</script>')}`), [400, 404]],
  ['webfinger of 0x7f000001', get(`/.well-known/webfinger?resource=${enc('acct:alice@0x7f000001')}`), [400, 404]],
  ['webfinger of [::1]', get(`/.well-known/webfinger?resource=${enc('acct:alice@[::1]')}`), [400, 404]],
  ['webfinger with a resource of 20,000 characters', get(`/.well-known/webfinger?resource=acct:${'a'.repeat(20_000)}@x`), [400, 404, 414, 431]],
  ['webfinger with two resources', get(`/.well-known/webfinger?resource=acct:a@b&resource=acct:c@d`), [400, 404]],
  ['webfinger with rel of markup', get(`/.well-known/webfinger?resource=acct:alice@${new URL('http://x').host}&rel=${enc(SCRIPTS[1]!)}`), [400, 404]],
  ['host-meta with a query of markup', get(`/.well-known/host-meta?x=${enc(SCRIPTS[0]!)}`), 200],
  ['nodeinfo discovery with a query', get('/.well-known/nodeinfo?x=1'), 200],
  ['nodeinfo 2.1 with a query of markup', get(`/nodeinfo/2.1?x=${enc(SCRIPTS[0]!)}`), 200],
  ['nodeinfo 2.0 (not offered)', get('/nodeinfo/2.0'), 404],
  ['the avatar with a query of markup', get(`/avatar.svg?${enc(SCRIPTS[2]!)}`), [200, 404]],
  ['IndieAuth metadata with a query', get('/.well-known/oauth-authorization-server?x=<script>'), 200],
  ['a dotfile', get('/.env'), 404],
  ['a .git path', get('/.git/config'), 404],
  ['an unknown well-known', get('/.well-known/security.txt'), 404],
  ['the actor with Accept-Encoding of a bomb', get('/', { 'accept-encoding': 'gzip;q=1, '.repeat(200) }), 200],
  ['a Range header past the end', get('/avatar.svg', { range: 'bytes=999999999-' }), [200, 404, 416]],
  ['If-None-Match of markup', get('/', { 'if-none-match': SCRIPTS[0]! }), [200, 304]],
];

describe('reading routes', () => {
  it.each(cases)('%s', (name, send, status) => runCase(h, { name, send, status }));
});
