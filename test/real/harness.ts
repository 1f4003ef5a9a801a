// The "real payloads" rig: one real core with its listener on 127.0.0.1 (a temp data folder,
// loopback allowed), and loopback HTTP servers standing in for the servers a fixture of
// test/fixtures/real/ names. Each fixture's hosts (every `*.example` host in it; `tern.example` is
// Tern's side) are rewritten to origins of their own — one port per (fixture, host), all served by
// one handler — so two captures of the same server never share an actor or an object id. Every
// actor the fixture carries gets an RSA key of the test's (substituted in its publicKey), its
// activities are signed with it (draft-cavage, as most servers sign) and POSTed to the real
// /inbox, and the core's own inbox loop is drained. Not imported by production code.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signRequest } from '@fedify/fedify';
import { desc, eq } from 'drizzle-orm';
import { following, incomingActivity, outbox, type IncomingActivity } from '../../db/schema';
import { getOrFetchActor } from '../../electron/core/federation/actors';
import { idsOf, isObject, str, type Json } from '../../electron/core/federation/ap';
import { saveOutboxObject } from '../../electron/core/federation/outbox-store';
import { openListeningCore, newRsaKeys, type ListeningCore } from '../../electron/core/listener/test-support';
import { exportPublicKeyPem } from '../../electron/core/net/signatures';
import type { Core } from '../../electron/core/core';

export const REAL_DIR = new URL('../fixtures/real/', import.meta.url);

/** What a fixture file holds (see test/fixtures/real/SOURCES.md). */
export interface RealFixture {
  source: string;
  activity: Json;
  actors: Json[];
  objects?: Json[];
  /** Activities of our own making sent first (the Create an Update or Delete is about…). */
  before?: Json[];
  given?: {
    /** Actors the author follows before the activity arrives (default: the activity's actor
     * when a stream view is expected). */
    follow?: string[];
    /** Our posts (https://tern.example/o/<publicId>) that the activity is about. */
    ourPosts?: string[];
    /** Our pending Follow an Accept answers: its id and whom it follows. */
    ourFollow?: { id: string; object: string };
    /** One of our polls (public, open for a day) that a vote answers. */
    ourPoll?: { id: string; oneOf?: string[]; anyOf?: string[] };
  };
  expect: Json;
  /** A bug of Tern's this capture shows (the test expects it to fail until fixed). */
  knownBug?: string;
  /** How it shows: a part of the failure's message. */
  knownBugShows?: string;
}

export const fixtureNames = (): string[] => readdirSync(REAL_DIR).filter((n) => n.endsWith('.json')).sort();

export function readFixture(name: string): RealFixture {
  return JSON.parse(readFileSync(new URL(name, REAL_DIR), 'utf8')) as RealFixture;
}

const HOST_RE = /\b((?:[a-z0-9-]+\.)*[a-z0-9-]+\.example)\b/gi;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rewrites hosts to origins: `https://host`/`http://host` to the origin, a bare `host` (in
 * `@user@host`) to the origin's host:port. Longest hosts first, so a subdomain wins. */
export function hostRewriter(map: Map<string, string>): (text: string) => string {
  const hosts = [...map.keys()].sort((a, b) => b.length - a.length);
  if (hosts.length === 0) return (t) => t;
  const alternation = hosts.map(escape).join('|');
  const re = new RegExp(`(https?://)?(?<![\\w.-])(${alternation})(?![\\w-]|\\.[\\w])`, 'gi');
  return (text) =>
    text.replace(re, (_m, scheme: string | undefined, host: string) => {
      const origin = map.get(host.toLowerCase())!;
      return scheme ? origin : new URL(origin).host;
    });
}

export interface Sent {
  status: number;
  error: string | null;
  /** The incoming_activity row the listener wrote (undefined when refused at the door). */
  row: IncomingActivity | undefined;
}

export interface Prepared {
  name: string;
  fixture: RealFixture;
  /** The fixture's JSON (activity, actors, objects, before, given, expect) with hosts rewritten. */
  live: RealFixture;
  rewrite(text: string): string;
}

export interface CorpusRig {
  core: Core;
  /** The listener's URL: our actor id. */
  url: string;
  prepare(name: string): Promise<Prepared>;
  /** Signs with the activity's actor's key, POSTs to /inbox, drains the inbox loop. */
  send(p: Prepared, activity: Json): Promise<Sent>;
  /** The `given` part: follows, our posts, our pending Follow. */
  arrange(p: Prepared): Promise<void>;
  close(): Promise<void>;
}

/** Key material is pooled (2048-bit RSA takes long to make on a busy machine); every actor still
 * publishes its own key id, so Tern fetches and caches one key per actor. */
const KEY_POOL_SIZE = 4;

export async function openCorpusRig(): Promise<CorpusRig> {
  const t: ListeningCore = await openListeningCore('author');
  const { core, url } = t;
  const pool = await Promise.all(Array.from({ length: KEY_POOL_SIZE }, async () => {
    const keys = await newRsaKeys();
    return { keys, pem: await exportPublicKeyPem(keys.publicKey) };
  }));
  const docs = new Map<string, Json>(); // origin + path → document
  const keysOf = new Map<string, { keyId: string; privateKey: CryptoKey }>(); // actor id → key
  const servers: http.Server[] = [];
  let keyTurn = 0;

  const handler: http.RequestListener = (req, res) => {
    const origin = `http://${req.headers.host ?? ''}`;
    const path = (req.url ?? '/').split('?')[0];
    const doc = docs.get(`${origin}${path}`);
    if (!doc) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(doc));
  };
  const newOrigin = async (): Promise<string> => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const bare = (id: string) => {
    const u = new URL(id);
    return `${u.origin}${u.pathname}`;
  };
  const serve = (id: unknown, doc: Json, override: boolean) => {
    if (typeof id !== 'string' || !id.startsWith('http://127.0.0.1:') || id.startsWith(url)) return;
    const key = bare(id);
    if (override || !docs.has(key)) docs.set(key, doc);
  };

  async function prepare(name: string): Promise<Prepared> {
    const fixture = readFixture(name);
    const text = JSON.stringify(fixture);
    const hosts = new Set([...text.matchAll(HOST_RE)].map((m) => m[1]!.toLowerCase()));
    hosts.delete('tern.example');
    const map = new Map<string, string>([['tern.example', url]]);
    for (const host of hosts) map.set(host, await newOrigin());
    const rewrite = hostRewriter(map);
    const live = JSON.parse(rewrite(text)) as RealFixture;
    // Actors first (their key substituted), then objects, then whatever the activities embed.
    for (const actor of live.actors) {
      const id = str(actor.id)!;
      const { keys, pem } = pool[keyTurn++ % pool.length]!;
      const published = Array.isArray(actor.publicKey) ? actor.publicKey[0] : actor.publicKey;
      const keyId = (isObject(published) && str(published.id)) || `${id}#main-key`;
      const publicKey = { ...(isObject(published) ? published : {}), id: keyId, owner: id, publicKeyPem: pem };
      actor.publicKey = Array.isArray(actor.publicKey) ? [publicKey, ...actor.publicKey.slice(1)] : publicKey;
      keysOf.set(id, { keyId, privateKey: keys.privateKey });
      serve(id, actor, true);
      // A key published at a path of its own (GoToSocial's …/main-key): serve the key there.
      if (bare(keyId) !== bare(id)) {
        serve(keyId, { '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: keyId, type: 'CryptographicKey', owner: id, publicKeyPem: pem }, true);
      }
    }
    for (const object of live.objects ?? []) serve(object.id, object, false);
    // A context an instance serves itself (Pleroma's litepub-0.1.jsonld…), moved to a fixture
    // host: a stand-in importing ActivityStreams and security (as those contexts do), enough for
    // JSON-LD processing of the terms Tern reads.
    for (const doc of [...live.actors, ...(live.objects ?? []), ...(live.before ?? []), live.activity]) {
      for (const c of [doc['@context']].flat()) if (typeof c === 'string') serve(c, { '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'] }, false);
    }
    // What the activities embed is served at its id too, as its server would (a Lemmy group's
    // Announce{Create{Page}}: the Create and the Page).
    for (let doc of [...(live.before ?? []), live.activity] as unknown[]) {
      while (isObject(doc)) {
        serve(doc.id, doc, false);
        doc = doc.object;
      }
    }
    return { name, fixture, live, rewrite };
  }

  async function send(p: Prepared, activity: Json): Promise<Sent> {
    const actorId = idsOf(activity.actor)[0] ?? '';
    const key = keysOf.get(actorId);
    if (!key) throw new Error(`${p.name}: no actor document for ${actorId}`);
    const before = lastIncomingId(core);
    const request = new Request(`${url}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(activity) });
    const signed = await signRequest(request, key.privateKey, new URL(key.keyId), { spec: 'draft-cavage-http-signatures-12' });
    const res = await fetch(signed);
    const error = res.status === 202 ? null : ((await res.json()) as { error: string }).error;
    await core.loops.inbox.drain();
    const newest = core.db.select().from(incomingActivity).orderBy(desc(incomingActivity.id)).limit(1).get();
    return { status: res.status, error, row: newest && newest.id > before ? newest : undefined };
  }

  async function arrange(p: Prepared): Promise<void> {
    const local = core.identity()!;
    const now = core.clock();
    const given = p.live.given ?? {};
    const follows = given.follow ?? (p.live.expect.stream ? idsOf(p.live.activity.actor).slice(0, 1) : []);
    for (const actorId of follows) {
      const row = await getOrFetchActor({ db: core.db, fed: core.fed, clock: core.clock }, actorId);
      if (core.db.select().from(following).where(eq(following.actorId, row.id)).get()) continue;
      const ours = saveOutboxObject(core.db, local, {
        apObject: { type: 'Follow', actor: local.id, object: row.apId },
        visibility: 'DIRECT',
        now,
        activityObjectApId: row.apId,
        relatesToActorId: row.id,
      });
      core.db.insert(following).values({ actorId: row.id, apActorId: row.apId, outboxObjectId: ours.id, createdAt: now, updatedAt: now }).run();
    }
    for (const apId of given.ourPosts ?? []) {
      if (core.db.select().from(outbox).where(eq(outbox.apId, apId)).get()) continue;
      saveOutboxObject(core.db, local, {
        publicId: apId.split('/').pop()!,
        apObject: { id: apId, type: 'Note', attributedTo: local.id, content: '<p>A post by the author</p>', to: ['https://www.w3.org/ns/activitystreams#Public'], cc: [local.followers] },
        visibility: 'PUBLIC',
        now,
      });
    }
    if (given.ourPoll && !core.db.select().from(outbox).where(eq(outbox.apId, given.ourPoll.id)).get()) {
      const { id, oneOf, anyOf } = given.ourPoll;
      const options = (names: string[]) => names.map((name) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 0 } }));
      saveOutboxObject(core.db, local, {
        publicId: id.split('/').pop()!,
        apObject: {
          id,
          type: 'Question',
          attributedTo: local.id,
          content: '<p>A poll by the author</p>',
          ...(oneOf ? { oneOf: options(oneOf) } : { anyOf: options(anyOf ?? []) }),
          endTime: new Date(now.getTime() + 86_400_000).toISOString(),
          to: ['https://www.w3.org/ns/activitystreams#Public'],
          cc: [local.followers],
        },
        visibility: 'PUBLIC',
        now,
      });
    }
    if (given.ourFollow) {
      const target = await getOrFetchActor({ db: core.db, fed: core.fed, clock: core.clock }, given.ourFollow.object);
      saveOutboxObject(core.db, local, {
        apObject: { id: given.ourFollow.id, type: 'Follow', actor: local.id, object: target.apId },
        visibility: 'DIRECT',
        now,
        activityObjectApId: target.apId,
        relatesToActorId: target.id,
      });
    }
  }

  return {
    core,
    url,
    prepare,
    send,
    arrange,
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      })));
      await t.close();
    },
  };
}

function lastIncomingId(core: Core): number {
  return core.db.select({ id: incomingActivity.id }).from(incomingActivity).orderBy(desc(incomingActivity.id)).limit(1).get()?.id ?? 0;
}

