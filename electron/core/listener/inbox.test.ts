// POST /inbox over real HTTP: a Follow delivered by a Fedify peer is queued (202, one row with
// the right columns, the processor told); every kind of bad request is refused with its status
// and leaves no incoming_activity row. Valid requests are signed by the peer (Fedify's own
// delivery or signRequest); bad ones are peer-signed requests refused for a reason, or requests
// signed with Fedify's signRequest by "mallory" (a loopback actor whose key the test holds) and
// then tampered with.
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { incomingActivity } from '../../../db/schema';
import type { QueuedActivity } from '../federation/inbox-events';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { incomingCount, refused, newRsaKeys, openListeningCore, send, startMallory, type ListeningCore, type Mallory } from './test-support';

let t: ListeningCore;
let peer: Peer;
let other: Peer;
let mallory: Mallory;
let inboxUrl: string;
const queued: QueuedActivity[] = [];

beforeAll(async () => {
  [t, peer, other, mallory] = await Promise.all([openListeningCore(), startPeer({ name: 'bob' }), startPeer({ name: 'carol' }), startMallory()]);
  inboxUrl = `${t.url}/inbox`;
  t.core.inboxEvents.onQueued((q) => queued.push(q));
});

afterAll(async () => {
  await Promise.all([peer?.close(), other?.close(), mallory?.server.close()]);
  await t?.close();
});

beforeEach(() => {
  t.setClockOffset(0);
  t.core.settings.update({ blockedServers: [], listener: { ...t.core.settings.get().listener, behindProxy: false } });
});

const follow = (actor: string, extra: Record<string, unknown> = {}) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor}/follows/${crypto.randomUUID()}`,
  type: 'Follow',
  actor,
  object: t.url,
  ...extra,
});

describe('POST /inbox accepts', () => {
  it('a Follow delivered by a Fedify peer: 202 and exactly one row with the right columns', async () => {
    const before = incomingCount(t.core);
    const followId = await peer.follow(t.url);
    expect(incomingCount(t.core)).toBe(before + 1);
    const rows = t.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, followId)).all();
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      sentByApActorId: peer.actorId,
      apId: followId,
      tries: 0,
      isProcessed: false,
      isErrored: false,
      error: null,
      lastTry: null,
      webmentionSource: null,
    });
    expect(row.apObject).toMatchObject({ id: followId, type: 'Follow', actor: peer.actorId });
    expect(row.nextTry?.getTime()).toBe(row.createdAt.getTime());
    expect(Math.abs(row.createdAt.getTime() - Date.now())).toBeLessThan(10_000);
    expect(queued.at(-1)).toEqual({ id: row.id, apId: followId, type: 'Follow', sentBy: peer.actorId });
  });

  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('an activity signed with %s', async (spec) => {
    const res = await peer.postSigned(inboxUrl, follow(peer.actorId), { spec });
    expect(res.status).toBe(202);
  });

  it('an actor given as an object or an array of one (Prismo: [{type, id}]): queued, its id the signer checked', async () => {
    for (const actor of [{ type: 'Person', id: peer.actorId }, [{ type: 'Person', id: peer.actorId }], [peer.actorId]]) {
      const res = await peer.postSigned(inboxUrl, follow(peer.actorId, { actor }));
      expect(res.status, JSON.stringify(actor)).toBe(202);
    }
  });

  it('a Create forwarded by someone else whose object lives on its actor’s server: queued with the forwarder as signer', async () => {
    const createId = `${other.actorId}/statuses/9/activity`;
    const forwarded = { ...follow(other.actorId), id: createId, type: 'Create', object: { id: `${other.actorId}/statuses/9`, type: 'Note', attributedTo: other.actorId } };
    const before = incomingCount(t.core);
    const res = await peer.postSigned(inboxUrl, forwarded);
    expect(res.status).toBe(202);
    expect(incomingCount(t.core)).toBe(before + 1);
    const row = t.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, createId)).get();
    // The processor sees signer ≠ actor and fetches the object from its server (process/create.ts).
    expect(row).toMatchObject({ sentByApActorId: peer.actorId, isProcessed: false });
    expect(queued.at(-1)).toMatchObject({ apId: createId, type: 'Create', sentBy: peer.actorId });
  });

  it('behind a tunnel: a request signed for the public base URL, arriving on the loopback address', async () => {
    const loopbackBase = t.core.settings.get().baseUrl!;
    t.core.settings.update({ baseUrl: 'https://tern.example', listener: { ...t.core.settings.get().listener, behindProxy: true } });
    try {
      const signed = await mallory.sign('https://tern.example/inbox', JSON.stringify(follow(mallory.actorId)));
      const res = await send(signed, { url: inboxUrl, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'tern.example' } });
      expect(res.status).toBe(202);
      // A delivery signed for another server's /inbox cannot be replayed here by naming that host.
      const replay = await mallory.sign('https://elsewhere.example/inbox', JSON.stringify(follow(mallory.actorId)));
      const refusedReplay = await send(replay, { url: inboxUrl, headers: { 'x-forwarded-host': 'elsewhere.example' } });
      expect(refusedReplay.status).toBe(401);
    } finally {
      t.core.settings.update({ baseUrl: loopbackBase, listener: { ...t.core.settings.get().listener, behindProxy: false } });
    }
  });
});

describe('POST /inbox refuses, storing nothing,', () => {
  it('an unsigned request (401)', async () => {
    const body = JSON.stringify(follow(peer.actorId));
    const result = await refused(t.core, fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }));
    expect(result).toEqual({ status: 401, error: 'unsigned' });
  });

  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('a %s signature made with a key that is not the one named (401)', async (spec) => {
    const wrongKey = (await newRsaKeys()).privateKey;
    const signed = await mallory.sign(inboxUrl, JSON.stringify(follow(peer.actorId)), { spec, privateKey: wrongKey, keyId: peer.keyId });
    expect(await refused(t.core, send(signed))).toEqual({ status: 401, error: 'signature does not verify' });
  });

  it('a replayed request whose Date is outside the window (401)', async () => {
    const signed = await mallory.sign(inboxUrl, JSON.stringify(follow(mallory.actorId)));
    expect((await send(signed)).status).toBe(202);
    t.setClockOffset(2 * 3600_000);
    expect(await refused(t.core, send(signed))).toEqual({ status: 401, error: 'signature expired' });
  });

  it.each(['rfc9421', 'draft-cavage-http-signatures-12'] as const)('a %s request whose body does not match its digest (401)', async (spec) => {
    const signed = await mallory.sign(inboxUrl, JSON.stringify(follow(mallory.actorId)), { spec });
    const swapped = JSON.stringify(follow(mallory.actorId, { object: 'https://elsewhere.example/' }));
    expect(await refused(t.core, send(signed, { body: swapped }))).toEqual({ status: 401, error: 'digest mismatch' });
  });

  it('an activity signed with the key of another actor (401)', async () => {
    const result = await refused(t.core, peer.postSigned(inboxUrl, follow(other.actorId)));
    expect(result).toEqual({ status: 401, error: 'key does not belong to actor (forwarded activity: no LD signature)' });
  });

  it('a forwarded activity other than a Create (401)', async () => {
    const forwarded = { ...follow(other.actorId), type: 'Like', object: `${other.actorId}/notes/1` };
    expect(await refused(t.core, peer.postSigned(inboxUrl, forwarded))).toEqual({ status: 401, error: 'key does not belong to actor (forwarded activity: no LD signature)' });
  });

  it('a forwarded Create whose object is not on its actor’s server, or whose id is elsewhere (401)', async () => {
    const offsite = { ...follow(other.actorId), type: 'Create', object: { id: `${peer.actorId}/notes/1`, type: 'Note', attributedTo: other.actorId } };
    expect(await refused(t.core, peer.postSigned(inboxUrl, offsite))).toEqual({ status: 401, error: 'key does not belong to actor (forwarded activity: no LD signature)' });
    const idElsewhere = { ...offsite, id: `${peer.actorId}/activities/1`, object: { ...offsite.object, id: `${other.actorId}/notes/1` } };
    expect(await refused(t.core, peer.postSigned(inboxUrl, idElsewhere))).toEqual({ status: 401, error: 'key does not belong to actor (forwarded activity: no LD signature)' });
  });

  it('behind no proxy, a request signed for another host, whatever X-Forwarded-Host says (401)', async () => {
    const signed = await mallory.sign('https://tern.example/inbox', JSON.stringify(follow(mallory.actorId)));
    const result = await refused(t.core, send(signed, { url: inboxUrl, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'tern.example' } }));
    expect(result.status).toBe(401);
  });

  it('a body over 1 MiB, by Content-Length (413)', async () => {
    const big = JSON.stringify(follow(peer.actorId, { padding: 'x'.repeat(1024 * 1024) }));
    const result = await refused(t.core, peer.postSigned(inboxUrl, big));
    expect(result.status).toBe(413);
  });

  it('a body over 1 MiB sent in chunks without Content-Length (413)', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const result = await refused(t.core, 
      fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body, duplex: 'half' } as RequestInit),
    );
    expect(result.status).toBe(413);
  });

  it('a body that is not JSON (400)', async () => {
    expect(await refused(t.core, peer.postSigned(inboxUrl, '{"type": "Follow", '))).toEqual({ status: 400, error: 'body is not JSON' });
  });

  it.each([
    ['actor', { type: 'Follow', object: 'x' }],
    ['type', { actor: 'ACTOR', object: 'x' }],
    ['actor', { type: 'Follow', actor: ['ACTOR', 'ACTOR'], object: 'x' }],
    ['actor', { type: 'Follow', actor: [], object: 'x' }],
  ])('JSON without %s (400)', async (missing, shape) => {
    const body = JSON.parse(JSON.stringify(shape).replace('ACTOR', peer.actorId)) as Record<string, unknown>;
    const result = await refused(t.core, peer.postSigned(inboxUrl, body));
    expect(result.status).toBe(400);
    expect(result.error).toContain(missing);
  });

  it('an activity from a blocked server, before fetching any key (403)', async () => {
    t.core.settings.update({ blockedServers: [new URL(peer.origin).host] });
    const fetchesBefore = t.core.fed.keyCache.stats.fetches;
    expect(await refused(t.core, peer.postSigned(inboxUrl, follow(peer.actorId)))).toEqual({ status: 403, error: 'server is blocked' });
    expect(t.core.fed.keyCache.stats.fetches).toBe(fetchesBefore);
  });

  it('a Delete of an unknown actor by itself whose key is gone: 202, as the service behind the spec answers', async () => {
    const orphanKey = (await newRsaKeys()).privateKey;
    const del = { id: `${mallory.ghostId}#delete`, type: 'Delete', actor: mallory.ghostId, object: mallory.ghostId };
    const signed = await mallory.sign(inboxUrl, JSON.stringify(del), { privateKey: orphanKey, keyId: mallory.ghostKeyId });
    const before = incomingCount(t.core);
    expect((await send(signed)).status).toBe(202);
    expect(incomingCount(t.core)).toBe(before);
  });

  it('any other activity of an actor whose key is gone (401)', async () => {
    const orphanKey = (await newRsaKeys()).privateKey;
    const signed = await mallory.sign(inboxUrl, JSON.stringify(follow(mallory.ghostId)), { privateKey: orphanKey, keyId: mallory.ghostKeyId });
    expect(await refused(t.core, send(signed))).toEqual({ status: 401, error: 'key unavailable' });
  });
});

/** Writes `request` as raw HTTP/1.1 on a new connection, then half-closes it (FIN: "nothing more
 * from me", as `nc -N` and some HTTP/1.0 clients do) and reads what comes back until the server
 * closes. `cut` bytes are left off the end of the body. */
async function sendThenHalfClose(request: Request, cut = 0): Promise<string> {
  const body = Buffer.from(await request.arrayBuffer());
  const url = new URL(inboxUrl);
  const head = [`POST ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  request.headers.forEach((value, name) => {
    if (name !== 'host' && name !== 'connection') head.push(`${name}: ${value}`);
  });
  head.push(`Content-Length: ${body.length}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body.subarray(0, body.length - cut)]));
  });
}

describe('POST /inbox from a client that half-closes its side after sending', () => {
  it('is answered 202, and the activity is stored', async () => {
    const activity = follow(mallory.actorId);
    const before = incomingCount(t.core);
    const answer = await sendThenHalfClose(await mallory.sign(inboxUrl, JSON.stringify(activity)));
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    expect(incomingCount(t.core)).toBe(before + 1);
    expect(t.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, activity.id)).all()).toHaveLength(1);
  });

  it('is refused 400 when its body ends early, storing nothing', async () => {
    const before = incomingCount(t.core);
    const answer = await sendThenHalfClose(await mallory.sign(inboxUrl, JSON.stringify(follow(mallory.actorId))), 10);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(incomingCount(t.core)).toBe(before);
  });
});

/** Sends headers with `Expect: 100-continue` and waits for the server's first answer before any
 * body: what a client such as curl does for a large upload. Then sends `body` if the server said
 * 100, and returns everything it answered. */
async function expectContinue(path: string, headers: string[], declared: number, body?: Buffer): Promise<string> {
  const url = new URL(inboxUrl);
  const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', `Content-Length: ${declared}`, 'Expect: 100-continue', ...headers];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      const first = seen === '';
      seen += chunk.toString('latin1');
      if (first && seen.startsWith('HTTP/1.1 100 ') && body) socket.write(body);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(seen));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
  });
}

describe('Expect: 100-continue', () => {
  it('a body declared larger than the route can read is refused 413 at once, never invited with 100 Continue', async () => {
    const before = incomingCount(t.core);
    for (const [path, declared] of [
      ['/inbox', 2 * 1024 * 1024], // the inbox reads 1 MiB
      ['/inbox', 1024 ** 3],
      ['/micropub', 1024 ** 3], // no route reads a gigabyte
      ['/api/v2/media', 1024 ** 3],
    ] as const) {
      const answer = await expectContinue(path, ['Content-Type: application/activity+json'], declared);
      expect([path, answer.slice(0, 13), answer.includes('100 Continue')]).toEqual([path, 'HTTP/1.1 413 ', false]);
      expect(answer).toMatch(/"error":"body larger than \d+ bytes"/);
    }
    expect(incomingCount(t.core)).toBe(before);
  });

  it('a body within the cap is invited with 100 Continue, then read and answered as any other', async () => {
    const activity = follow(mallory.actorId);
    const signed = await mallory.sign(inboxUrl, JSON.stringify(activity));
    const body = Buffer.from(await signed.arrayBuffer());
    const headers: string[] = [];
    signed.headers.forEach((value, name) => {
      if (!['host', 'connection', 'content-length'].includes(name)) headers.push(`${name}: ${value}`);
    });
    const answer = await expectContinue(new URL(inboxUrl).pathname, headers, body.length, body);
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 202 /);
    expect(t.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, activity.id)).all()).toHaveLength(1);
    // The other routes too (the Hono app): Micropub reads the form, then wants a token.
    const form = Buffer.from('h=entry&content=hello');
    expect(await expectContinue('/micropub', ['Content-Type: application/x-www-form-urlencoded'], form.length, form)).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  });
});
