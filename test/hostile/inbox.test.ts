// Hostile corpus, POST /inbox: bodies (size, nesting, encoding, shapes, duplicate and
// prototype keys), signatures (missing, wrong, replayed, expired, query not covered, another
// actor's key, keys at SSRF-ish addresses), raw HTTP (header injection, oversized headers, slow
// and cut bodies) and markup in every plain field of what is accepted and processed. The inbox
// is checked and processed on its worker threads, as in the apps: the stall each case is held to
// is the main thread's (processing 10,000 hashtags with markup took the processor ≈ 100 ms).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openListeningCore, startMallory, type ListeningCore, type Mallory } from '../../electron/core/listener/test-support';
import { SCRIPTS, nestedJson, reportStalls, runCase, type HostileCase } from './rig';
import { rawHttp, signedPost, startHostilePeer, type HostilePeer } from './peers';

let t: ListeningCore;
let mallory: Mallory;
let peer: HostilePeer;
let inboxUrl: string;
let port: number;

beforeAll(async () => {
  [t, mallory, peer] = await Promise.all([openListeningCore('alice', { inboxWorker: true }), startMallory(), startHostilePeer()]);
  inboxUrl = `${t.url}/inbox`;
  port = Number(new URL(t.url).port);
  // Warm-up (not a case): the first verification loads what every later one reuses.
  await signedPost(inboxUrl, JSON.stringify(follow(mallory.actorId)), mallory.keyId, mallory.keys.privateKey);
  await t.core.loops.inbox.drain();
});
afterAll(async () => {
  await Promise.all([mallory?.server.close(), peer?.close()]);
  await t?.close();
  reportStalls('inbox');
});

const h = { sqlite: () => t.core.sqlite, markupExempt: ['incoming_activity.ap_object'] };
let n = 0;
const uid = () => `${Date.now()}-${n++}`;
function follow(actor: string, extra: Record<string, unknown> = {}) {
  return { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}/follows/${uid()}`, type: 'Follow', actor, object: t.url, ...extra };
}
const byMallory = (body: string | Uint8Array, options: Parameters<typeof signedPost>[4] = {}) => signedPost(inboxUrl, body, mallory.keyId, mallory.keys.privateKey, options);
const refusedBy = (status: number, reason: RegExp, send: HostileCase['send']): Omit<HostileCase, 'name'> => ({ status, reason, send });
const drain = async () => {
  await t.core.loops.inbox.drain();
};

/** A Note from a hostile actor to the local actor (a direct message: it is stored). */
function dm(actor: string, object: Record<string, unknown>) {
  const id = `${actor}/notes/${uid()}`;
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [t.url],
    object: { id, type: 'Note', attributedTo: actor, to: [t.url], content: '<p>hi</p>', published: new Date().toISOString(), ...object },
  };
}
const ACCEPTED = { incoming_activity: 1, inbox: 'any', actor: 'any', notifications: 'any', follower: 'any', outgoing_activity: 'any', outbox: 'any' } as const;

describe('bodies', () => {
  const cases: [string, Omit<HostileCase, 'name'>][] = [
    ['an empty body', refusedBy(400, /not JSON/, () => byMallory(''))],
    ['text that is not JSON', refusedBy(400, /not JSON/, () => byMallory('hello'))],
    ['truncated JSON', refusedBy(400, /not JSON/, () => byMallory('{"type":"Follow","actor":'))],
    ['invalid UTF-8', refusedBy(400, /not UTF-8/, () => byMallory(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])))],
    ['UTF-16 with a BOM', refusedBy(400, /not (UTF-8|JSON)/, () => byMallory(new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])))],
    ['a JSON array', refusedBy(400, /not an activity/, () => byMallory('[]'))],
    ['a JSON string', refusedBy(400, /not an activity/, () => byMallory('"Follow"'))],
    ['JSON null', refusedBy(400, /not an activity/, () => byMallory('null'))],
    ['10,000 levels of nesting', refusedBy(400, /nested deeper than 64/, () => byMallory(`{"type":"Create","actor":"${mallory.actorId}","object":${nestedJson(10_000)}}`))],
    ['65 levels of nesting', refusedBy(400, /nested deeper than 64/, () => byMallory(`{"type":"Create","actor":"${mallory.actorId}","object":${nestedJson(64)}}`))],
    ['100,000 unclosed brackets', refusedBy(400, /nested deeper than 64/, () => byMallory(`{"a":${'['.repeat(100_000)}`))],
    ['a body over 1 MiB', refusedBy(413, /larger than/, () => byMallory(JSON.stringify(follow(mallory.actorId, { pad: 'x'.repeat(1_100_000) }))))],
    ['no actor', refusedBy(400, /not an activity/, () => byMallory(JSON.stringify({ type: 'Follow', id: `${mallory.actorId}/x`, object: t.url })))],
    ['an actor that is not a URL', refusedBy(400, /not an activity/, () => byMallory(JSON.stringify(follow('not a url'))))],
    ['a javascript: actor', refusedBy(401, /key does not belong/, () => byMallory(JSON.stringify(follow('javascript:alert(1)'))))],
    ['a data: actor', refusedBy(401, /key does not belong/, () => byMallory(JSON.stringify(follow('data:text/plain,x'))))],
    ['a type that is a number', refusedBy(400, /not an activity/, () => byMallory(JSON.stringify(follow(mallory.actorId, { type: 7 }))))],
    ['an actor that is an array of objects', refusedBy(400, /not an activity|key does not belong/, () => byMallory(JSON.stringify(follow(mallory.actorId, { actor: [{}, {}] }))))],
    ['an actor of another server (signed by mallory)', { status: 401, reason: /key does not belong/, send: () => byMallory(JSON.stringify(follow(peer.actor('eve')))) }],
    ['a second Signature header', refusedBy(401, /signature|unsigned/, () => byMallory(JSON.stringify(follow(mallory.actorId)), { headers: { signature: 'a, b' } }))],
    ['a wrong content type (text/plain): the body is still read as what it is', { status: 202, changes: ACCEPTED, after: drain, send: () => byMallory(JSON.stringify(follow(mallory.actorId)), { contentType: 'text/plain' }) }],
    ['duplicate keys (the last one counts, as in every JSON parser)', { status: 202, changes: ACCEPTED, after: drain, send: () => byMallory(`{"type":"Delete","type":"Follow","id":"${mallory.actorId}/f/${uid()}","actor":"${mallory.actorId}","object":"${t.url}"}`) }],
    ['a __proto__ key', { status: [202, 400], changes: ACCEPTED, after: async () => { await drain(); if (({} as Record<string, unknown>).polluted !== undefined) throw new Error('Object.prototype was polluted'); }, send: () => byMallory(`{"__proto__":{"polluted":true},"type":"Follow","id":"${mallory.actorId}/f/${uid()}","actor":"${mallory.actorId}","object":"${t.url}"}`) }],
    ['constructor.prototype keys', { status: [202, 400], changes: ACCEPTED, after: async () => { await drain(); if (({} as Record<string, unknown>).polluted !== undefined) throw new Error('Object.prototype was polluted'); }, send: () => byMallory(`{"constructor":{"prototype":{"polluted":true}},"type":"Follow","id":"${mallory.actorId}/f/${uid()}","actor":"${mallory.actorId}","object":"${t.url}"}`) }],
    ['an object whose keys are all __proto__', { status: [202, 400], changes: ACCEPTED, after: drain, send: () => byMallory(JSON.stringify(dm(mallory.actorId, { tag: [JSON.parse('{"__proto__":{"x":1},"type":"Hashtag","name":"#a"}')] }))) }],
  ];
  it.each(cases)('%s', (name, c) => runCase(h, { name, ...c }));
});

describe('signatures', () => {
  const body = () => JSON.stringify(follow(mallory.actorId));
  const cases: [string, () => HostileCase['send'] extends () => infer R ? R : never, number, RegExp][] = [
    ['unsigned', () => fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: body() }), 401, /unsigned/],
    ['signed with another key under mallory’s keyId', async () => signedPost(inboxUrl, body(), mallory.keyId, (await peer.keys).privateKey), 401, /does not verify/],
    ['signed by a key whose actor is gone (410)', () => signedPost(inboxUrl, JSON.stringify(follow(mallory.ghostId)), mallory.ghostKeyId, mallory.keys.privateKey), 401, /key unavailable/],
    ['a keyId at 169.254.169.254', () => signedPost(inboxUrl, body(), 'http://169.254.169.254/latest/meta-data#k', mallory.keys.privateKey), 401, /key unavailable|does not verify/],
    ['a keyId at localhost. (trailing dot)', () => signedPost(inboxUrl, body(), 'http://localhost./users/x#k', mallory.keys.privateKey), 401, /key unavailable|does not verify/],
    ['a keyId at 0x7f000001', () => signedPost(inboxUrl, body(), 'http://0x7f000001/users/x#k', mallory.keys.privateKey), 401, /key unavailable|does not verify/],
    ['a keyId at [::1]', () => signedPost(inboxUrl, body(), 'http://[::1]:1/users/x#k', mallory.keys.privateKey), 401, /key unavailable|does not verify/],
    ['a draft-cavage signature over /inbox sent to /inbox?x=1', () => signedPost(inboxUrl, body(), mallory.keyId, mallory.keys.privateKey, { spec: 'draft-cavage-http-signatures-12', sendTo: `${inboxUrl}?x=1` }), 401, /does not cover the query/],
    ['an RFC 9421 signature over /inbox sent to /inbox?x=1', () => signedPost(inboxUrl, body(), mallory.keyId, mallory.keys.privateKey, { sendTo: `${inboxUrl}?x=1` }), 401, /does not verify|query/],
    ['a body swapped under a valid signature (digest)', async () => {
      const signed = await mallory.sign(inboxUrl, body());
      return fetch(inboxUrl, { method: 'POST', headers: signed.headers, body: JSON.stringify(follow(mallory.actorId)) });
    }, 401, /digest/],
    ['a Signature header of garbage', () => fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json', signature: '!!!', date: new Date().toUTCString() }, body: body() }), 401, /signature|unsigned/],
    ['a Signature-Input of garbage', () => fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json', signature: 'sig1=:AA==:', 'signature-input': '((((' }, body: body() }), 401, /signature/],
    ['an invalid Date header', () => signedPost(inboxUrl, body(), mallory.keyId, mallory.keys.privateKey, { spec: 'draft-cavage-http-signatures-12', headers: { date: 'yesterday' } }), 401, /signature/],
  ];
  it.each(cases)('%s', (name, send, status, reason) => runCase(h, { name, send, status, reason }));

  it('a replayed request: the first is taken, the same bytes again are not queued twice', async () => {
    const signed = await mallory.sign(inboxUrl, body());
    const bytes = await signed.clone().text();
    await runCase(h, { name: 'replay: first', status: 202, changes: ACCEPTED, after: drain, send: () => fetch(inboxUrl, { method: 'POST', headers: signed.headers, body: bytes }) });
    await runCase(h, { name: 'replay: again', status: [202, 401], send: () => fetch(inboxUrl, { method: 'POST', headers: signed.headers, body: bytes }), after: drain });
  });

  it.each([
    ['expired (two hours old)', -2 * 3600_000],
    ['from the future (two hours ahead)', 2 * 3600_000],
  ])('a signature %s', async (name, offset) => {
    t.setClockOffset(-offset);
    try {
      await runCase(h, { name, status: 401, reason: /expired/, send: () => byMallory(body()) });
    } finally {
      t.setClockOffset(0);
    }
  });
});

describe('raw HTTP', () => {
  const head = (lines: string[]) => [`POST /inbox HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...lines].join('\r\n');
  const cases: [string, () => Promise<{ status: number; text: string }>, number | number[]][] = [
    ['a header with an injected CRLF line', () => rawHttp(port, head(['Content-Type: application/activity+json\r\nX-Injected: 1\rBad: x', 'Content-Length: 2']), ['{}']), 400],
    ['a header name with a space', () => rawHttp(port, head(['Content Type: x', 'Content-Length: 2']), ['{}']), 400],
    ['a 64 KiB header (oversized)', () => rawHttp(port, head([`X-Big: ${'a'.repeat(64 * 1024)}`, 'Content-Length: 2']), ['{}']), 431],
    ['a Content-Length that is not a number', () => rawHttp(port, head(['Content-Length: abc']), ['{}']), 400],
    ['two different Content-Lengths', () => rawHttp(port, head(['Content-Length: 2', 'Content-Length: 3']), ['{}']), 400],
    ['Content-Length and chunked at once (smuggling)', () => rawHttp(port, head(['Content-Length: 4', 'Transfer-Encoding: chunked']), ['0\r\n\r\n']), 400],
    ['a declared 10 GB body', () => rawHttp(port, head(['Content-Type: application/activity+json', 'Content-Length: 10000000000']), ['{}']), 413],
    ['a body cut off half-way', () => rawHttp(port, head(['Content-Type: application/activity+json', 'Content-Length: 1000']), ['{"type":'], 0, true), [0, 400]],
    ['a body that is not JSON trickled in 20 pieces', () => rawHttp(port, head(['Content-Type: application/activity+json', 'Content-Length: 40']), Array.from({ length: 20 }, () => 'xx'), 15), 400],
    ['an unsigned activity trickled in 10 pieces', () => {
      const json = JSON.stringify({ type: 'Follow', actor: 'https://a.example/u', object: 'https://b.example/' }).padEnd(80, ' ');
      return rawHttp(port, head(['Content-Type: application/activity+json', `Content-Length: ${json.length}`]), json.match(/.{1,8}/g)!, 15);
    }, 401],
    ['a request line with a path traversal', () => rawHttp(port, ['POST /../../inbox HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Connection: close', 'Content-Length: 2'].join('\r\n'), ['{}']), [400, 401, 404]],
  ];
  it.each(cases)('%s', (name, send, status) => runCase(h, { name, send, status }));
});

describe('markup in every plain field of what is accepted, and non-http(s) URLs', () => {
  const fields: [string, (s: string) => Record<string, unknown>][] = [
    ['attachment name', (s) => ({ attachment: [{ type: 'Document', mediaType: 'image/png', url: 'https://x.example/a.png', name: s }] })],
    ['hashtag name', (s) => ({ tag: [{ type: 'Hashtag', name: s, href: 'https://x.example/tags/a' }] })],
    ['emoji name', (s) => ({ tag: [{ type: 'Emoji', name: s, icon: { type: 'Image', url: 'https://x.example/e.png' } }] })],
    ['the Note’s name', (s) => ({ name: s })],
    ['summary (a content warning)', (s) => ({ summary: s })],
    ['content', (s) => ({ content: s })],
  ];
  const cases: [string, () => HostileCase['send'] extends () => infer R ? R : never][] = [];
  for (const [field, make] of fields) {
    for (const [i, script] of SCRIPTS.entries()) cases.push([`${field} #${i + 1}: ${script.slice(0, 30)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, make(script))))]);
  }
  for (const [i, script] of SCRIPTS.entries()) {
    cases.push([`poll option name #${i + 1}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { type: 'Question', oneOf: [{ type: 'Note', name: script, replies: { totalItems: 0 } }, { type: 'Note', name: 'no' }], endTime: new Date(Date.now() + 86_400_000).toISOString() })))]);
  }
  for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'vbscript:msgbox(1)']) {
    cases.push([`url ${url.slice(0, 20)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { url })))]);
    cases.push([`attachment url ${url.slice(0, 20)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { attachment: [{ type: 'Document', mediaType: 'image/png', url }] })))]);
    cases.push([`attachment href ${url.slice(0, 20)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { attachment: [{ type: 'Link', href: url }] })))]);
    cases.push([`tag href ${url.slice(0, 20)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { tag: [{ type: 'Hashtag', name: '#x', href: url }] })))]);
    cases.push([`emoji icon url ${url.slice(0, 20)}`, () => byMallory(JSON.stringify(dm(mallory.actorId, { tag: [{ type: 'Emoji', name: ':x:', icon: { url } }] })))]);
  }
  it.each(cases)('%s', (name, send) => runCase(h, { name, send, status: 202, changes: ACCEPTED, after: drain }));

  // Big and deep remote HTML and long lists, within the 1 MiB body: processed without a stall.
  const heavy: [string, () => Record<string, unknown>][] = [
    ['content 50,000 elements deep', () => ({ content: `${'<div>'.repeat(50_000)}<script>alert(1)</script>deep${'</div>'.repeat(50_000)}` })],
    ['content of 900 KB of paragraphs', () => ({ content: '<p>hello <b>world</b> <img src=x onerror=alert(1)></p>'.repeat(16_000) })],
    ['a summary 20,000 elements deep', () => ({ summary: `${'<span>'.repeat(20_000)}cw${'</span>'.repeat(20_000)}` })],
    ['10,000 hashtags with markup in their names', () => ({ tag: Array.from({ length: 10_000 }, (_, i) => ({ type: 'Hashtag', name: `#t${i}<img src=x onerror=alert(1)>`, href: 'https://x.example/t' })) })],
    ['5,000 attachments with markup in their names', () => ({ attachment: Array.from({ length: 5_000 }, () => ({ type: 'Document', mediaType: 'image/png', url: 'https://x.example/a.png', name: '<script>alert(1)</script>x' })) })],
  ];
  it.each(heavy)('%s', (name, make) => runCase(h, { name, send: () => byMallory(JSON.stringify(dm(mallory.actorId, make()))), status: 202, changes: ACCEPTED, after: drain }));

  // The actor itself: fetched by the processor, stored in `actor`.
  const actorFields: [string, (s: string) => Record<string, unknown>][] = [
    ['preferredUsername', (s) => ({ preferredUsername: s })],
    ['name', (s) => ({ name: s })],
    ['summary', (s) => ({ summary: s })],
    ['a profile field name', (s) => ({ attachment: [{ type: 'PropertyValue', name: s, value: 'v' }] })],
    ['a profile field value', (s) => ({ attachment: [{ type: 'PropertyValue', name: 'n', value: s }] })],
  ];
  const actorCases: [string, Record<string, unknown>][] = [];
  for (const [field, make] of actorFields) for (const [i, script] of SCRIPTS.slice(0, 4).entries()) actorCases.push([`actor ${field} #${i + 1}`, make(script)]);
  actorCases.push(['actor icon url javascript:', { icon: { type: 'Image', url: 'javascript:alert(1)' } }]);
  actorCases.push(['actor image url data:', { image: { type: 'Image', url: 'data:image/svg+xml,<svg onload=alert(1)>' } }]);
  actorCases.push(['actor url javascript:', { url: 'javascript:alert(1)' }]);
  it.each(actorCases)('%s', async (name, fields) => {
    const actor = peer.actor(`u${uid().replace(/\W/g, '')}`, fields);
    await runCase(h, { name, status: 202, changes: ACCEPTED, after: drain, send: () => signedPost(inboxUrl, JSON.stringify(dm(actor, {})), `${actor}#main-key`, peer.keys.privateKey) });
  });
});
