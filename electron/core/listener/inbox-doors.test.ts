// POST /inbox has two doors: the running listener answers it on node:http (inboxRequestListener),
// the Hono app (app.fetch) through its route. Both must answer every request alike — status,
// error, headers — and store the same rows. Each case is sent through both, signed afresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListenerApp } from './app';
import { incomingCount, openListeningCore, send, startMallory, type ListeningCore, type Mallory } from './test-support';

let t: ListeningCore;
let mallory: Mallory;
let inboxUrl: string;

beforeAll(async () => {
  [t, mallory] = await Promise.all([openListeningCore(), startMallory()]);
  inboxUrl = `${t.url}/inbox`;
});

afterAll(async () => {
  await mallory?.server.close();
  await t?.close();
});

const follow = () =>
  JSON.stringify({ id: `${mallory.actorId}/follows/${crypto.randomUUID()}`, type: 'Follow', actor: mallory.actorId, object: t.url });

interface Seen {
  status: number;
  body: string;
  nosniff: string | null;
  contentType: string | null;
  stored: number;
}

async function seen(response: Promise<Response>): Promise<Seen> {
  const before = incomingCount(t.core);
  const res = await response;
  const body = await res.text();
  return {
    status: res.status,
    body,
    nosniff: res.headers.get('x-content-type-options'),
    contentType: res.headers.get('content-type'),
    stored: incomingCount(t.core) - before,
  };
}

/** `make` builds the request (signed now); it is sent over HTTP, then (rebuilt) to app.fetch. */
async function bothDoors(make: () => Promise<Request>): Promise<[Seen, Seen]> {
  const overHttp = await seen(make().then((r) => send(r)));
  const app = createListenerApp(t.core);
  const viaApp = await seen(make().then(async (r) => app.fetch(new Request(r.url, { method: r.method, headers: r.headers, body: await r.text() }))));
  return [overHttp, viaApp];
}

describe('POST /inbox: node:http door and Hono door answer alike', () => {
  it.each([
    ['a valid signed Follow (202, one row)', () => mallory.sign(inboxUrl, follow()), 202],
    ['a draft-cavage signed Follow (202)', () => mallory.sign(inboxUrl, follow(), { spec: 'draft-cavage-http-signatures-12' }), 202],
    ['an unsigned Follow (401)', async () => new Request(inboxUrl, { method: 'POST', body: follow() }), 401],
    ['a body swapped under its signature (401)', async () => {
      const signed = await mallory.sign(inboxUrl, follow());
      return new Request(signed.url, { method: 'POST', headers: signed.headers, body: follow() });
    }, 401],
    ['a body that is not JSON (400)', () => mallory.sign(inboxUrl, '{"type": "Follow", '), 400],
    ['a signature for another host (401)', async () => {
      const signed = await mallory.sign('https://elsewhere.example/inbox', follow());
      return new Request(inboxUrl, { method: 'POST', headers: signed.headers, body: await signed.text() });
    }, 401],
    ['a body over 1 MiB by Content-Length (413)', () => mallory.sign(inboxUrl, JSON.stringify({ type: 'Follow', pad: 'x'.repeat(1024 * 1024) })), 413],
  ])('%s', async (_name, make, status) => {
    const [overHttp, viaApp] = await bothDoors(make);
    expect(overHttp.status).toBe(status);
    expect(overHttp.nosniff).toBe('nosniff');
    expect(overHttp.stored).toBe(status === 202 ? 1 : 0);
    expect(viaApp).toEqual(overHttp);
  });

  it('answers 503 on both doors while Tern has no identity', async () => {
    const { baseUrl, username } = t.core.settings.get();
    t.core.settings.update({ username: null } as never);
    try {
      const [overHttp, viaApp] = await bothDoors(() => mallory.sign(inboxUrl, follow()));
      expect(overHttp.status).toBe(503);
      expect(viaApp).toEqual(overHttp);
    } finally {
      t.core.settings.update({ baseUrl, username });
    }
  });
});
