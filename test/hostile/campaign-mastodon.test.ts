// Hostile campaign, the Mastodon client API with a token of every scope: every route the
// listener mounts (listed from the app itself, so a new route is in the campaign at once) with
// ids of every odd shape, odd page parameters and bodies of wrong shapes. The answer is a
// success or a refusal in Mastodon's shape, never a 5xx; a refusal stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListenerApp } from '../../electron/core/listener/app';
import { openListeningCore, type ListeningCore } from '../../electron/core/listener/test-support';
import { issueToken } from '../../electron/core/indieauth/test-flow';
import { REFUSED, expectPrototypeClean } from './campaign';
import { SCRIPTS, reportStalls, runCase, tableCounts } from './rig';
import { rawHttp } from './peers';

let t: ListeningCore;
let port: number;
let token: string;
let status: string;

beforeAll(async () => {
  t = await openListeningCore('alice', { allowPrivateAddresses: false });
  port = Number(new URL(t.url).port);
  token = await issueToken(t.url, t.core, ['read', 'write', 'follow', 'push', 'create', 'media', 'profile']);
  const res = await fetch(`${t.url}/api/v1/statuses`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"status":"Kept","poll":{"options":["a","b"],"expires_in":600}}' });
  status = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  await t?.close();
  reportStalls('campaign-mastodon');
});

const h = { sqlite: () => t.core.sqlite };
/** The app's own list of its Mastodon routes with an id in their path. */
function routesWithIds(): { method: string; path: string }[] {
  // Listed from an app over no core: mounting touches nothing until a request comes.
  const app = createListenerApp({} as Parameters<typeof createListenerApp>[0]);
  const seen = new Set<string>();
  return app.routes
    // A hashtag is any text (fuzz-findings.test.ts has its odd encodings).
    .filter((r) => r.path.startsWith('/api/') && r.path.includes(':') && !r.path.includes(':tag') && r.method !== 'ALL' && r.method !== 'OPTIONS')
    .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`));
}
const ROUTES = routesWithIds();

const IDS: [string, string][] = [
  ['0', '0'],
  ['-1', '-1'],
  ['30 nines', '9'.repeat(30)],
  ['31 nines', '9'.repeat(31)],
  ['2^64', '18446744073709551616'],
  ['1e3', '1e3'],
  ['0x10', '0x10'],
  ['1.5', '1.5'],
  ['a space before', '%201'],
  ['fullwidth digits', encodeURIComponent('１２３')],
  ['a NUL', '1%00'],
  ['an encoded slash', '1%2F..%2F..'],
  ['markup', encodeURIComponent(SCRIPTS[0]!)],
  ['5,000 characters', 'a'.repeat(5_000)],
  ['a lone %', '%'],
  ['%ff', '%ff'],
];

describe('every route with an id, under ids of odd shapes', () => {
  it('lists the routes', () => expect(ROUTES.length).toBeGreaterThan(15));
  const cases = ROUTES.flatMap((r) => IDS.map(([name, id]) => [`${r.method} ${r.path} with an id of ${name}`, r.method, r.path, id] as const));
  it.each(cases)('%s: refused with a reason', (name, method, path, id) =>
    runCase(h, {
      name,
      send: () => rawHttp(port, [`${method} ${path.replace(/:[a-z_]+(\{[^}]*\})?/g, id)} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', `Authorization: Bearer ${token}`, 'Content-Type: application/json', 'Content-Length: 2'].join('\r\n'), ['{}']),
      // Account 0 is the author's own.
      status: id === '0' && path.startsWith('/api/v1/accounts/:id') && method === 'GET' ? 200 : REFUSED,
    }),
  );
});

describe('page parameters of odd shapes on every list', () => {
  const lists = ['/api/v1/timelines/home', '/api/v1/timelines/public', '/api/v1/timelines/tag/x', '/api/v1/notifications', '/api/v2/notifications', '/api/v1/bookmarks', '/api/v1/favourites', '/api/v1/accounts/0/statuses', '/api/v1/accounts/0/followers', '/api/v1/accounts/0/following', '/api/v1/follow_requests', '/api/v2/search?q=x'];
  const queries = ['limit=-1', 'limit=0', 'limit=1e999', 'limit=99999999999999999999', 'limit=NaN', 'limit[]=1', 'max_id=abc', `max_id=${'9'.repeat(31)}`, 'max_id=-1', 'since_id[a]=1', 'min_id=1&min_id=2', 'types[]=<script>', 'exclude_types[]=mention&exclude_types[]=x&exclude_types[]=' + 'y'.repeat(2000), 'types=' + encodeURIComponent(SCRIPTS[0]!), 'account_id=-1', 'offset=-1', 'offset=1e9', 'only_media=maybe', 'pinned=2', 'local=%00', 'exclude_replies[]=true'];
  const cases = lists.flatMap((l) => queries.map((q) => [`${l} ${q}`, `${l}${l.includes('?') ? '&' : '?'}${q}`] as const));
  it.each(cases)('%s: a page or a refusal, never a 5xx', (name, path) =>
    runCase(h, { name, send: () => fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } }), status: [200, 404, ...REFUSED] }),
  );
});

describe('bodies of wrong shapes on every write', () => {
  const writes: [string, string][] = [
    ['POST', '/api/v1/statuses'],
    ['PUT', '/api/v1/statuses/STATUS'],
    ['POST', '/api/v1/polls/STATUS/votes'],
    ['PATCH', '/api/v1/accounts/update_credentials'],
    ['POST', '/api/v1/markers'],
    ['POST', '/api/v1/apps'],
    ['POST', '/api/v1/notifications/clear'],
  ];
  const bodies: [string, unknown][] = [
    ['an array', []],
    ['a string', 'status'],
    ['every field null', { status: null, poll: null, media_ids: null, choices: null, display_name: null, home: null, client_name: null }],
    ['every field an object', { status: {}, poll: {}, media_ids: {}, choices: {}, display_name: {}, note: {}, home: {}, client_name: {}, redirect_uris: {}, visibility: {} }],
    ['a poll of 10,000 options', { status: 'q', poll: { options: Array.from({ length: 10_000 }, (_, i) => `o${i}`), expires_in: 600 } }],
    ['a poll that expires at 1e999', { status: 'q', poll: { options: ['a', 'b'], expires_in: 1e308 * 10 } }],
    ['a poll expiring in -1 s', { status: 'q', poll: { options: ['a', 'b'], expires_in: -1 } }],
    ['media ids of others', { status: 'x', media_ids: ['1', '2', '99999999999999999'] }],
    ['choices out of range', { choices: [-1, 99, '1e3', 'x'] }],
    ['100 choices', { choices: Array.from({ length: 100 }, (_, i) => i) }],
    ['a reply to a status that does not exist', { status: 'x', in_reply_to_id: '12345' }],
    ['a reply to an id of markup', { status: 'x', in_reply_to_id: SCRIPTS[0] }],
    ['a visibility of markup', { status: 'x', visibility: SCRIPTS[0] }],
    ['scheduled in the year 275760', { status: 'x', scheduled_at: '+275760-09-13T00:00:00.000Z' }],
    ['a language of 5,000 characters', { status: 'x', language: 'x'.repeat(5_000) }],
    ['fields_attributes of 1,000 fields', { fields_attributes: Array.from({ length: 1_000 }, (_, i) => ({ name: `n${i}`, value: 'v' })) }],
    ['fields_attributes as a map with odd keys', { fields_attributes: { '-1': { name: 'a', value: 'b' }, '999': { name: 'c', value: 'd' }, x: { name: 'e' } } }],
    ['a marker of markup', { home: { last_read_id: SCRIPTS[0] }, notifications: { last_read_id: '9'.repeat(40) } }],
    ['redirect_uris of 100 javascript: URLs', { client_name: 'x', redirect_uris: Array(100).fill('javascript:alert(1)').join('\n') }],
  ];
  const cases = writes.flatMap(([m, p]) => bodies.map(([bn, body]) => [`${m} ${p}, ${bn}`, m, p, body] as const));
  it.each(cases)('%s: taken as it can be or refused, never a 5xx', async (name, method, path, body) => {
    const before = tableCounts(t.core.sqlite);
    const res = await fetch(`${t.url}${path.replace('STATUS', status)}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, `${name}: ${text.slice(0, 300)}`).toBeLessThan(500);
    if (res.status >= 400) {
      expect(text.trim().length, 'a refusal says why').toBeGreaterThan(0);
      expect(tableCounts(t.core.sqlite), 'a refusal stores nothing').toEqual(before);
    }
    expectPrototypeClean();
  });
});
