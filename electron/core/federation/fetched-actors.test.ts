// The actor document the inbox fetched while verifying a new actor's first activity goes to the
// processor with the row, and the processor stores the actor from it instead of fetching it
// again: one GET of the actor per new actor, over real HTTP with a Fedify peer. The hand-over is
// taken once, within a minute, only for that actor's own document served by its own server.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, wrapDrizzle } from '../../../db/client';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openListeningCore, type ListeningCore } from '../listener/test-support';
import { FETCHED_ACTOR_MAX_CHARS, FETCHED_ACTOR_TTL_MS, recordingLoader, rememberFetchedActor, shareFetchedActor, sharedFetchedActor, takeFetchedActor, type FetchedActor } from './fetched-actors';

describe('handing the fetched actor document to the processor', () => {
  let t: ListeningCore;
  let peer: Peer;

  beforeAll(async () => {
    [t, peer] = await Promise.all([openListeningCore(), startPeer({ name: 'dora' })]);
  });

  afterAll(async () => {
    await peer?.close();
    await t?.close();
  });

  it('a new actor is fetched once: by the key check while accepting, not again while processing', async () => {
    const actorPath = `GET ${new URL(peer.actorId).pathname}`;
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.actorId}/follows/1`, type: 'Follow', actor: peer.actorId, object: t.url };
    const res = await peer.postSigned(`${t.url}/inbox`, follow);
    expect(res.status).toBe(202);
    expect(peer.served.filter((r) => r === actorPath)).toHaveLength(1);
    await t.core.loops.inbox.drain();
    const stored = t.core.db.get<{ n: number; handle: string | null }>(sql`SELECT count(*) AS n, max(handle) AS handle FROM actor WHERE ap_id = ${peer.actorId}`);
    expect(stored.n).toBe(1);
    expect(stored.handle).toBe(peer.handle);
    const follower = t.core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM follower WHERE ap_actor_id = ${peer.actorId}`);
    expect(follower.n).toBe(1);
    // Still one GET of the actor document: the processor used the one the listener fetched.
    expect(peer.served.filter((r) => r === actorPath)).toHaveLength(1);
  });
});

describe('fetched-actors', () => {
  const db = () => wrapDrizzle(openSqlite(':memory:'));
  const person = (id: string) => ({ id, type: 'Person', inbox: `${id}/inbox`, preferredUsername: 'x' });

  it('hands a document over once, and only within the minute', () => {
    const d = db();
    rememberFetchedActor(d, { document: person('https://a.example/users/x'), documentUrl: 'https://a.example/users/x', at: 1_000 }, 1_000);
    expect(takeFetchedActor(d, 'https://a.example/users/x/', 1_000 + FETCHED_ACTOR_TTL_MS)?.document.id).toBe('https://a.example/users/x');
    expect(takeFetchedActor(d, 'https://a.example/users/x', 1_000)).toBeUndefined();
    rememberFetchedActor(d, { document: person('https://a.example/users/y'), documentUrl: 'https://a.example/users/y', at: 1_000 }, 1_000);
    expect(takeFetchedActor(d, 'https://a.example/users/y', 1_001 + FETCHED_ACTOR_TTL_MS)).toBeUndefined();
    // Per connection: another connection has nothing.
    rememberFetchedActor(d, { document: person('https://a.example/users/z'), documentUrl: 'https://a.example/users/z', at: 1_000 }, 1_000);
    expect(takeFetchedActor(db(), 'https://a.example/users/z', 1_000)).toBeUndefined();
  });

  it('keeps at most 256 small documents, dropping the expired and then the oldest', () => {
    const d = db();
    for (let i = 0; i < 257; i++) rememberFetchedActor(d, { document: person(`https://a.example/u/${i}`), documentUrl: `https://a.example/u/${i}`, at: 5 }, 5);
    expect(takeFetchedActor(d, 'https://a.example/u/0', 5)).toBeUndefined();
    expect(takeFetchedActor(d, 'https://a.example/u/1', 5)).toBeDefined();
    expect(takeFetchedActor(d, 'https://a.example/u/256', 5)).toBeDefined();
    // A later addition sweeps out what expired meanwhile, not only what is over the bound.
    const later = 6 + FETCHED_ACTOR_TTL_MS;
    rememberFetchedActor(d, { document: person('https://a.example/late'), documentUrl: 'https://a.example/late', at: later }, later);
    expect(takeFetchedActor(d, 'https://a.example/u/2', 5)).toBeUndefined();
    expect(takeFetchedActor(d, 'https://a.example/late', later)).toBeDefined();
    // A padded document is not kept at all.
    const big = { ...person('https://a.example/big'), summary: 'x'.repeat(FETCHED_ACTOR_MAX_CHARS) };
    rememberFetchedActor(d, { document: big, documentUrl: 'https://a.example/big', at: 5 }, 5);
    expect(takeFetchedActor(d, 'https://a.example/big', 5)).toBeUndefined();
  });

  it('notes only an actor document asked for at its own id, served by its own server, while recording', async () => {
    const docs: Record<string, { document: unknown; documentUrl: string }> = {
      'https://a.example/users/x#main-key': { document: person('https://a.example/users/x'), documentUrl: 'https://a.example/users/x' },
      'https://b.example/key': { document: { id: 'https://b.example/key', type: 'CryptographicKey', owner: 'https://b.example/users/y' }, documentUrl: 'https://b.example/key' },
      'https://c.example/users/z': { document: person('https://c.example/users/z'), documentUrl: 'https://evil.example/users/z' },
      // Same server, another path claiming to be d.example/users/s (shared hosting).
      'https://d.example/~x/k': { document: person('https://d.example/users/s'), documentUrl: 'https://d.example/~x/k' },
      'https://e.example/users/late': { document: person('https://e.example/users/late'), documentUrl: 'https://e.example/users/late' },
    };
    const recorder = recordingLoader(async (url) => ({ contextUrl: null, ...docs[url]! }), () => 42);
    for (const url of Object.keys(docs).slice(0, -1)) await recorder.loader(url);
    recorder.stop();
    await recorder.loader('https://e.example/users/late');
    expect(recorder.actorOf('https://a.example/users/x')).toMatchObject({ documentUrl: 'https://a.example/users/x', at: 42 });
    expect(recorder.actorOf('https://b.example/users/y')).toBeUndefined();
    expect(recorder.actorOf('https://c.example/users/z')).toBeUndefined();
    expect(recorder.actorOf('https://d.example/users/s')).toBeUndefined();
    expect(recorder.actorOf('https://e.example/users/late')).toBeUndefined();
    expect(recorder.actorOf('https://a.example/users/other')).toBeUndefined();
  });

  it('tells of an actor document as it loads (requests waiting on the same key fetch share it), and of nothing else', async () => {
    const told: FetchedActor[] = [];
    const recorder = recordingLoader(
      async (url) => ({ contextUrl: null, document: url.includes('key') ? { id: url, type: 'CryptographicKey' } : person(url), documentUrl: url }),
      () => 7,
      (actor) => told.push(actor),
    );
    await recorder.loader('https://a.example/users/x');
    await recorder.loader('https://a.example/key');
    expect(told.map((a) => a.document.id)).toEqual(['https://a.example/users/x']);
  });

  it('shares a document just loaded with the next 32 requests of that actor, within 5 s', () => {
    const d = db();
    const actor = { document: person('https://a.example/users/x'), documentUrl: 'https://a.example/users/x', at: 1_000 };
    shareFetchedActor(d, actor);
    expect(sharedFetchedActor(d, 'https://a.example/users/other', 1_000)).toBeUndefined();
    expect(sharedFetchedActor(db(), 'https://a.example/users/x', 1_000)).toBeUndefined();
    for (let i = 0; i < 32; i++) expect(sharedFetchedActor(d, 'https://a.example/users/x/', 1_001)).toBe(actor);
    expect(sharedFetchedActor(d, 'https://a.example/users/x', 1_001)).toBeUndefined();
    shareFetchedActor(d, actor);
    expect(sharedFetchedActor(d, 'https://a.example/users/x', 6_000)).toBe(actor);
    expect(sharedFetchedActor(d, 'https://a.example/users/x', 6_001)).toBeUndefined();
    // A padded document is not shared.
    shareFetchedActor(d, { ...actor, document: { ...person('https://a.example/big'), summary: 'x'.repeat(FETCHED_ACTOR_MAX_CHARS) } });
    expect(sharedFetchedActor(d, 'https://a.example/big', 1_000)).toBeUndefined();
  });

  it('shares at most 256 documents, dropping those older than 5 s and then the oldest', () => {
    const d = db();
    const share = (i: number, at: number) => shareFetchedActor(d, { document: person(`https://a.example/users/${i}`), documentUrl: `https://a.example/users/${i}`, at });
    share(0, 1_000);
    for (let i = 1; i <= 300; i++) share(i, 7_000 + i);
    // 0 was over 5 s old when 1 came; then 1..44 made way for the newest 256.
    expect(sharedFetchedActor(d, 'https://a.example/users/0', 1_000)).toBeUndefined();
    expect(sharedFetchedActor(d, 'https://a.example/users/44', 7_300)).toBeUndefined();
    expect(sharedFetchedActor(d, 'https://a.example/users/45', 7_300)?.documentUrl).toBe('https://a.example/users/45');
    expect(sharedFetchedActor(d, 'https://a.example/users/300', 7_300)?.documentUrl).toBe('https://a.example/users/300');
  });
});
