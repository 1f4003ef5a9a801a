// Hostile campaign, signature headers: a request validly signed by mallory (draft-cavage and RFC
// 9421), then one part of its signature headers changed — each parameter removed, emptied,
// doubled, made huge or of the wrong kind, its Date moved far away, its keyId pointed at
// documents that hold no key, another actor's key or no document at all. Every change is a 401
// with a reason, stores nothing, and the unchanged request is still taken afterwards. (What
// verifiers ignore is not a change: draft-cavage's `algorithm` — the key decides, as for
// Mastodon's hs2019 — and unquoted parameters.)
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openListeningCore, startMallory, type ListeningCore, type Mallory } from '../../electron/core/listener/test-support';
import { nestedJson, reportStalls, runCase } from './rig';
import { rawHttp, startHostilePeer, type HostilePeer } from './peers';

let t: ListeningCore;
let mallory: Mallory;
let peer: HostilePeer;
let inboxUrl: string;

beforeAll(async () => {
  [t, mallory, peer] = await Promise.all([openListeningCore(), startMallory(), startHostilePeer()]);
  inboxUrl = `${t.url}/inbox`;
  const pem = (await (await fetch(mallory.actorId)).json()) as { publicKey: { publicKeyPem: string } };
  peer.serve('/html', '<html><body>no key here</body></html>', 'text/html');
  peer.serve('/person-without-key', JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.origin}/person-without-key`, type: 'Person', inbox: `${peer.origin}/inbox` }));
  peer.serve('/garbage-pem', JSON.stringify({ '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: `${peer.origin}/garbage-pem`, type: 'Person', publicKey: { id: `${peer.origin}/garbage-pem#k`, owner: `${peer.origin}/garbage-pem`, publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' } }));
  // mallory's own key, published by the peer under an actor of its own: the key verifies, but its
  // owner is not the activity's actor.
  peer.serve('/stolen', JSON.stringify({ '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: `${peer.origin}/stolen`, type: 'Person', inbox: `${peer.origin}/inbox`, publicKey: { id: `${peer.origin}/stolen#k`, owner: `${peer.origin}/stolen`, publicKeyPem: pem.publicKey.publicKeyPem } }));
  peer.serve('/key-owned-by-mallory', JSON.stringify({ '@context': 'https://w3id.org/security/v1', id: `${peer.origin}/key-owned-by-mallory`, type: 'Key', owner: mallory.actorId, publicKeyPem: pem.publicKey.publicKeyPem }));
  // 680 keys, none the one asked for: Fedify would import every PEM, the listener's thread held
  // 118–201 ms a request (refused before, key-document.ts MAX_KEYS_PER_DOCUMENT).
  peer.serve('/many-keys', JSON.stringify({ '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: `${peer.origin}/many-keys`, type: 'Person', inbox: `${peer.origin}/inbox`, publicKey: Array.from({ length: 680 }, (_, i) => ({ id: `${peer.origin}/many-keys#k${i}`, owner: `${peer.origin}/many-keys`, publicKeyPem: pem.publicKey.publicKeyPem })) }));
  peer.serve('/deep', `{"id":"${peer.origin}/deep","publicKey":${nestedJson(20_000)}}`);
  peer.serve('/huge', JSON.stringify({ id: `${peer.origin}/huge`, type: 'Person', pad: 'x'.repeat(3 << 20) }));
  peer.serve('/array', '[]');
  peer.serve('/null', 'null');
  // Warm-up (not a case): the first verification loads what every later one reuses.
  await send(await mallory.sign(inboxUrl, body()), {});
  await t.core.loops.inbox.drain();
});
afterAll(async () => {
  await Promise.all([mallory?.server.close(), peer?.close()]);
  await t?.close();
  reportStalls('campaign-signatures');
});

const h = { sqlite: () => t.core.sqlite, markupExempt: ['incoming_activity.ap_object'] };
let n = 0;
const body = () => JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${mallory.actorId}/follows/${Date.now()}-${n++}`, type: 'Follow', actor: mallory.actorId, object: t.url });

/** Sends a signed request with some of its headers changed (null: removed), over a raw socket:
 * fetch would not send a Host of its own. */
async function send(signed: Request, change: Record<string, string | null>): Promise<{ status: number; text: string }> {
  const headers = new Headers(signed.headers);
  headers.set('host', new URL(inboxUrl).host);
  for (const [k, v] of Object.entries(change)) {
    if (v === null) headers.delete(k);
    else headers.set(k, v);
  }
  // A clone: a case run twice (the rig retries one that stalled) sends the same request again.
  const bytes = await signed.clone().text();
  headers.set('content-length', String(Buffer.byteLength(bytes)));
  headers.set('connection', 'close');
  return rawHttp(Number(new URL(inboxUrl).port), ['POST /inbox HTTP/1.1', ...[...headers].map(([k, v]) => `${k}: ${v}`)].join('\r\n'), [bytes]);
}
/** A Signature header of draft-cavage with one parameter replaced (undefined: removed). */
function cavageWith(header: string, param: string, value: string | undefined): string {
  const kept = header.split(/,(?=\s*[a-zA-Z]+=)/).filter((p) => !p.trim().startsWith(`${param}=`));
  return [...kept, ...(value === undefined ? [] : [`${param}=${value}`])].join(',');
}

const ACCEPTED = { incoming_activity: 1, inbox: 'any', actor: 'any', notifications: 'any', follower: 'any', outgoing_activity: 'any', outbox: 'any' } as const;

type Mutation = [name: string, change: (headers: Headers) => Record<string, string | null>];

const cavage: Mutation[] = [
  ['no keyId', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', undefined) })],
  ['an empty keyId', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', '""') })],
  ['a keyId of 10 KB', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', `"${mallory.actorId}#${'k'.repeat(10_000)}"`) })],
  ['a keyId that is not a URL', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', '"main-key"') })],
  ['a keyId of javascript:', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', '"javascript:alert(1)"') })],
  ['a keyId given twice (the peer’s last)', (hd) => ({ signature: `${hd.get('signature')!},keyId="${peer.origin}/stolen#k"` })],
  ['no headers list', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'headers', undefined) })],
  ['an empty headers list', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'headers', '""') })],
  ['a headers list without (request-target)', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'headers', '"host date digest"') })],
  ['a headers list without digest', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'headers', '"(request-target) host date"') })],
  ['a headers list of 5,000 names', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'headers', `"${'(request-target) host date digest '.repeat(1250).trim()}"`) })],
  ['an empty signature', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'signature', '""') })],
  ['a signature that is not base64', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'signature', '"!!!***"') })],
  ['a signature of 100 KB', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'signature', `"${'A'.repeat(100_000)}"`) })],
  ['a created of letters', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'created', '"abc"') })],
  ['a created of 1e999', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'created', '"1e999"') })],
  ['a created a day behind', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'created', `"${Math.floor(Date.now() / 1000) - 86_400}"`) })],
  ['an expires of 0', (hd) => ({ signature: cavageWith(hd.get('signature')!, 'expires', '0') })],
  ['an unclosed quote', (hd) => ({ signature: hd.get('signature')!.replace(/"$/, '') + ',x="' })],
  ['20 KB of commas', (hd) => ({ signature: `${hd.get('signature')!}${','.repeat(20_000)}` })],
  ['20 KB of nested parentheses', (hd) => ({ signature: `${hd.get('signature')!},x=${'('.repeat(20_000)}` })],
  ['no Date', () => ({ date: null })],
  ['a Date in 1970', () => ({ date: 'Thu, 01 Jan 1970 00:00:00 GMT' })],
  ['a Date in the year 9999', () => ({ date: 'Fri, 31 Dec 9999 23:59:59 GMT' })],
  ['a Date one day ahead', () => ({ date: new Date(Date.now() + 86_400_000).toUTCString() })],
  ['a Date one day behind', () => ({ date: new Date(Date.now() - 86_400_000).toUTCString() })],
  ['a Date of two dates', (hd) => ({ date: `${hd.get('date')!}, ${hd.get('date')!}` })],
  ['a Date of 1e999', () => ({ date: '1e999' })],
  ['no Digest', () => ({ digest: null })],
  ['a Digest of MD5', () => ({ digest: 'MD5=1B2M2Y8AsgTpgAmY7PhCfg==' })],
  ['a Digest that is not base64', () => ({ digest: 'SHA-256=!!!' })],
  ['a Digest list of 1,000 unknown algorithms', (hd) => ({ digest: `${'X=abc,'.repeat(1000)}${hd.get('digest')!}` })],
];
const keyIds = ['/html', '/person-without-key', '/garbage-pem', '/stolen#k', '/key-owned-by-mallory', '/many-keys#other', '/deep', '/huge', '/array', '/null', '/missing'];
for (const path of keyIds) cavage.push([`a keyId at the peer’s ${path}`, (hd) => ({ signature: cavageWith(hd.get('signature')!, 'keyId', `"${peer.origin}${path}"`) })]);

const rfc9421: Mutation[] = [
  ['a Signature label that does not match', (hd) => ({ signature: hd.get('signature')!.replace(/^sig1=/, 'other=') })],
  ['a Signature-Input label that does not match', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/^sig1=/, 'other=') })],
  ['a Signature that is not a byte sequence', (hd) => ({ signature: hd.get('signature')!.replace(/:/g, '') })],
  ['an empty Signature', () => ({ signature: 'sig1=::' })],
  ['no keyid', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;keyid="[^"]*"/, '') })],
  ['an empty keyid', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;keyid="[^"]*"/, ';keyid=""') })],
  ['a keyid of javascript:', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;keyid="[^"]*"/, ';keyid="javascript:alert(1)"') })],
  ['an alg of ed25519 over an RSA key', (hd) => ({ 'signature-input': `${hd.get('signature-input')!};alg="ed25519"` })],
  ['a created of letters', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;created=\d+/, ';created=abc') })],
  ['no created', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;created=\d+/, '') })],
  ['a created a day ahead', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;created=\d+/, `;created=${Math.floor(Date.now() / 1000) + 86_400}`) })],
  ['a created a day behind', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;created=\d+/, `;created=${Math.floor(Date.now() / 1000) - 86_400}`) })],
  ['an expires in the past', (hd) => ({ 'signature-input': `${hd.get('signature-input')!};expires=1` })],
  ['no components', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/=\([^)]*\)/, '=()') })],
  ['5,000 components', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/=\(/, `=(${'"x" '.repeat(5000)}`) })],
  ['components without content-digest', (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/\s*"content-digest"/, '') })],
  ['a second member of garbage', (hd) => ({ 'signature-input': `${hd.get('signature-input')!}, sig2=("@method");keyid="x";created=1`, signature: `${hd.get('signature')!}, sig2=:AAAA:` })],
  ['20 KB of nested parentheses', (hd) => ({ 'signature-input': `${hd.get('signature-input')!}, x=${'('.repeat(20_000)}` })],
  ['an unclosed quote', (hd) => ({ 'signature-input': `${hd.get('signature-input')!};keyid="` })],
  ['no Content-Digest', () => ({ 'content-digest': null })],
  ['a Content-Digest of md5', () => ({ 'content-digest': 'md5=:1B2M2Y8AsgTpgAmY7PhCfg==:' })],
  ['a Content-Digest that is not a byte sequence', (hd) => ({ 'content-digest': hd.get('content-digest')!.replace(/:/g, '') })],
  ['a Signature-Input beside a draft-cavage Signature', () => ({ signature: `keyId="${mallory.keyId}",headers="(request-target) host date",signature="AAAA"` })],
];
for (const path of keyIds) rfc9421.push([`a keyid at the peer’s ${path}`, (hd) => ({ 'signature-input': hd.get('signature-input')!.replace(/;keyid="[^"]*"/, `;keyid="${peer.origin}${path}"`) })]);

describe.each([
  ['draft-cavage', 'draft-cavage-http-signatures-12', cavage],
  ['RFC 9421', 'rfc9421', rfc9421],
] as const)('%s signatures with one part changed', (_name, spec, mutations) => {
  it.each(mutations)('%s: 401 with a reason, nothing stored', async (name, change) => {
    const signed = await mallory.sign(inboxUrl, body(), { spec });
    const changed = change(signed.headers);
    // 431: a header past node:http's 16 KiB, refused before the route.
    await runCase(h, { name: `${spec}: ${name}`, send: () => send(signed.clone(), changed), status: [400, 401, 431], reason: /signature|signed|key|expired|digest|query|host|too large/i });
  });

  // The listener checks a signature against its own public host, whatever Host a tunnel passes:
  // a request signed for another server is refused, one signed for this one is taken.
  it('a request signed for another server, replayed here: 401', async () => {
    const signed = await mallory.sign('http://other.example/inbox', body(), { spec });
    await runCase(h, { name: `${spec}: signed for another server`, send: () => send(signed, {}), status: 401, reason: /signature/ });
  });

  it('a request signed for this server, under a Host of another: taken', async () => {
    const signed = await mallory.sign(inboxUrl, body(), { spec });
    await runCase(h, { name: `${spec}: Host of another server`, send: () => send(signed, { host: 'evil.example' }), status: 202, changes: ACCEPTED, after: async () => void (await t.core.loops.inbox.drain()) });
  });

  // Every entry of a digest list was hashed, here and again in Fedify: the right digest 200 times
  // over a 1 MiB body cost 130–370 ms of CPU. The list is signed, so only its length gives it away.
  it.each([
    ['the right sha-256 200 times', 'sha256', 200],
    ['the right sha-512 140 times', 'sha512', 140],
    ['the right sha-256 twice', 'sha256', 2],
  ] as const)('a validly signed digest list of %s: 401 saying so, nothing stored', async (name, algorithm, copies) => {
    const text = body();
    const digest = createHash(algorithm).update(text).digest('base64');
    const label = algorithm === 'sha256' ? 'sha-256' : 'sha-512';
    const headers: Record<string, string> =
      spec === 'rfc9421' ? { 'content-digest': Array(copies).fill(`${label}=:${digest}:`).join(',') } : { digest: Array(copies).fill(`${label.toUpperCase()}=${digest}`).join(',') };
    const signed = await mallory.sign(inboxUrl, text, { spec, headers });
    await runCase(h, { name: `${spec}: a digest list of ${name}`, send: () => send(signed, {}), status: 401, reason: /digest header lists one algorithm twice or more than/ });
  });

  it('the same request unchanged is taken', async () => {
    const signed = await mallory.sign(inboxUrl, body(), { spec });
    await runCase(h, { name: `${spec}: unchanged`, send: () => send(signed, {}), status: 202, changes: ACCEPTED, after: async () => void (await t.core.loops.inbox.drain()) });
  });
});
