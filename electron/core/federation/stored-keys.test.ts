// Keys of known actors survive a restart (stored-keys.ts): after Tern starts again, an actor it
// already stored is verified from its stored document, with no fetch of its key, on the inbox
// checks worker as the apps run it. A key rotated since is fetched again (Fedify retries a failed
// signature once with a fresh key); a document stored too long ago, or one that lists a key as
// someone else's, is not used. The peer is Fedify's (test/peer), over real HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { openCore, type Core } from '../core';
import { createKeyCache } from '../net/key-cache';
import { exportPublicKeyPem } from '../net/signatures';
import { createSettingsService } from '../settings-service';
import { saveActor, setActorHandle } from './actors';
import type { InboxWorkerHost } from './inbox-worker-host';
import { keyInDocument, ownerCandidates, STORED_KEY_MAX_AGE_MS, storedActorKeys } from './stored-keys';

const DAY = 24 * 60 * 60 * 1000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A core on `dir` listening on `port` (0: any), the inbox checks and processor on their
 * workers as the apps run them (or, `inboxWorker` false, on the main thread, which checks while
 * the checks worker starts). Stopped by stop(); the folder outlives it. */
async function startCore(dir: string, port = 0, inboxWorker = true): Promise<{ core: Core; url: string; stop: () => Promise<void> }> {
  const core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true, inboxWorker, listen: { host: '127.0.0.1', port } });
  const url = core.listener.status().url ?? '';
  await createSettingsService(core).update({ baseUrl: url, username: 'alice' });
  core.loops.inbox.start();
  if (inboxWorker) {
    const workers = core.loops.inbox as InboxWorkerHost;
    workers.startChecks();
    await workers.ready();
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await core.listener.stop();
    await core.loops.inbox.stop();
    await core.loops.delivery.stop({ graceMs: 0 });
    core.close();
  };
  cleanups.push(stop);
  return { core, url, stop };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tern-stored-keys-'));
  cleanups.unshift(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function newPeer(name: string): Promise<Peer> {
  const peer = await startPeer({ name });
  cleanups.push(() => peer.close());
  return peer;
}

const note = (peer: Peer, url: string, n: number) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${peer.actorId}/creates/${n}`,
  type: 'Create',
  actor: peer.actorId,
  to: [url],
  object: { id: `${peer.actorId}/notes/${n}`, type: 'Note', attributedTo: peer.actorId, to: [url], content: `<p>note ${n}</p>`, published: new Date().toISOString() },
});

const actorGets = (peer: Peer) => peer.served.filter((line) => line === `GET ${new URL(peer.actorId).pathname}`).length;
const storedRows = (core: Core, apId: string) => core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM inbox WHERE ap_id = ${apId}`).n;

async function processed(core: Core, apId: string): Promise<void> {
  for (let i = 0; i < 200 && storedRows(core, apId) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(storedRows(core, apId)).toBe(1);
}

describe('keys of known actors after a restart', () => {
  it.each([
    ['on the inbox checks worker', true],
    ['on the main thread', false],
  ])('an actor stored before Tern stopped is verified from its stored document (%s): its key is not fetched again', async (_, worker) => {
    const dir = tempDir();
    const peer = await newPeer('dora');
    const first = await startCore(dir, 0, worker);
    const before = note(peer, first.url, 1);
    expect((await peer.postSigned(`${first.url}/inbox`, before)).status).toBe(202);
    await processed(first.core, before.id);
    const gets = actorGets(peer);
    expect(gets).toBe(1); // the key check fetched it once; the processor used that document
    const port = Number(new URL(first.url).port);
    await first.stop();

    // Started again (the same folder, the same address): the key cache is empty.
    const second = await startCore(dir, port, worker);
    const after = note(peer, second.url, 2);
    expect((await peer.postSigned(`${second.url}/inbox`, after)).status).toBe(202);
    await processed(second.core, after.id);
    expect(actorGets(peer)).toBe(gets);
    expect(await second.core.inboxKeyStats()).toMatchObject({ fetches: 0 });
  });

  it('a key rotated since it was stored is fetched again, and the activity is taken', async () => {
    const dir = tempDir();
    const peer = await newPeer('erin');
    const { core, url } = await startCore(dir);
    // The stored document names the peer's key id with a key the peer no longer uses.
    const old = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    const doc = { id: peer.actorId, type: 'Person', preferredUsername: 'erin', inbox: peer.inboxUrl, publicKey: { id: peer.keyId, owner: peer.actorId, publicKeyPem: await exportPublicKeyPem(old.publicKey) } };
    saveActor(core.db, doc, null, new Date());
    const activity = note(peer, url, 1);
    expect((await peer.postSigned(`${url}/inbox`, activity)).status).toBe(202);
    await processed(core, activity.id);
    expect(actorGets(peer)).toBeGreaterThanOrEqual(1);
  });

  it('a document stored longer ago than STORED_KEY_MAX_AGE_MS is not used: the key is fetched', async () => {
    const dir = tempDir();
    const peer = await newPeer('fern');
    const { core, url } = await startCore(dir);
    const res = await fetch(peer.actorId, { headers: { accept: 'application/activity+json' } });
    const doc = (await res.json()) as Record<string, unknown>;
    const servedBefore = actorGets(peer);
    saveActor(core.db, doc, null, new Date(Date.now() - STORED_KEY_MAX_AGE_MS - DAY));
    const activity = note(peer, url, 1);
    expect((await peer.postSigned(`${url}/inbox`, activity)).status).toBe(202);
    expect(actorGets(peer)).toBe(servedBefore + 1);
  });
});

describe('ownerCandidates', () => {
  it.each([
    ['https://mastodon.example/users/a#main-key', ['https://mastodon.example/users/a', 'https://mastodon.example/users/a#main-key']],
    ['https://gts.example/users/a/main-key', ['https://gts.example/users/a', 'https://gts.example/users/a/main-key']],
    ['https://solo.example/actor', ['https://solo.example/actor']],
    ['https://solo.example/', ['https://solo.example/']],
    ['mailto:a@b.example', []],
    ['not a url', []],
  ])('%s', (keyId, expected) => {
    expect(ownerCandidates(keyId)).toEqual(expected);
  });
});

describe('keyInDocument', () => {
  const actor = 'https://peer.example/users/a';
  const pem = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';

  it('takes the key the document lists as its own, alone or among others', () => {
    const key = { id: `${actor}#main-key`, owner: actor, publicKeyPem: pem };
    for (const publicKey of [key, [{ id: `${actor}#other`, owner: actor, publicKeyPem: 'x' }, key]]) {
      expect(JSON.parse(keyInDocument({ id: actor, publicKey }, actor, `${actor}#main-key`) ?? 'null')).toMatchObject({ id: `${actor}#main-key`, owner: actor, publicKeyPem: pem });
    }
  });

  it('refuses a key the document says is owned by someone else, and a key it does not list', () => {
    const publicKey = { id: `${actor}#main-key`, owner: 'https://peer.example/users/b', publicKeyPem: pem };
    expect(keyInDocument({ id: actor, publicKey }, actor, `${actor}#main-key`)).toBeNull();
    expect(keyInDocument({ id: actor, publicKey: { id: `${actor}#main-key`, publicKeyPem: pem } }, actor, `${actor}#other`)).toBeNull();
    expect(keyInDocument({ id: actor, publicKey: `${actor}#main-key` }, actor, `${actor}#main-key`)).toBeNull();
  });

  it('takes the key of a bare-origin actor, asked for as the URL Fedify makes of it', () => {
    const origin = 'https://tern.example';
    const doc = { id: origin, publicKey: { id: `${origin}#main-key`, owner: origin, publicKeyPem: pem } };
    expect(JSON.parse(keyInDocument(doc, origin, `${origin}/#main-key`) ?? 'null')).toMatchObject({ id: `${origin}/#main-key`, publicKeyPem: pem });
    expect(ownerCandidates(`${origin}/#main-key`)[0]).toBe(`${origin}/`);
  });

  it('takes a Multikey of assertionMethod controlled by the actor', () => {
    const assertionMethod = [{ id: `${actor}#ed25519-key`, type: 'Multikey', controller: actor, publicKeyMultibase: 'z6Mk' }];
    expect(JSON.parse(keyInDocument({ id: actor, assertionMethod }, actor, `${actor}#ed25519-key`) ?? 'null')).toMatchObject({ type: 'Multikey', controller: actor });
    const foreign = [{ ...assertionMethod[0], controller: 'https://elsewhere.example/users/z' }];
    expect(keyInDocument({ id: actor, assertionMethod: foreign }, actor, `${actor}#ed25519-key`)).toBeNull();
  });
});

describe('storedActorKeys in the key cache', () => {
  it("a GoToSocial-style key (…/main-key) comes with its owner confirmed, so the owner's document is not fetched", async () => {
    const dir = tempDir();
    const { core } = await startCore(dir);
    const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    const actor = 'https://gts.example/users/a';
    const keyId = `${actor}/main-key`;
    saveActor(core.db, { id: actor, type: 'Person', inbox: `${actor}/inbox`, publicKey: { id: keyId, owner: actor, publicKeyPem: await exportPublicKeyPem(pair.publicKey) } }, null, new Date());
    const cache = createKeyCache({ store: storedActorKeys(core.db, () => new Date()) });
    const key = await cache.get(new URL(keyId));
    expect(key?.id?.href).toBe(keyId);
    expect(cache.confirmedOwner(keyId)).toBe(actor);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 0 });
    // Eight days on, the same row is too old to be believed.
    const later = createKeyCache({ store: storedActorKeys(core.db, () => new Date(Date.now() + 8 * DAY)) });
    expect(await later.get(new URL(keyId))).toBeUndefined();
    // A bare-origin actor (Tern, microblog.pub): its key id as published, as Fedify asks for it.
    const bare = 'https://bare.example';
    saveActor(core.db, { id: bare, type: 'Person', inbox: `${bare}/inbox`, publicKey: { id: `${bare}#main-key`, owner: bare, publicKeyPem: await exportPublicKeyPem(pair.publicKey) } }, null, new Date());
    expect((await cache.get(new URL(`${bare}#main-key`)))?.id?.href).toBe(`${bare}/#main-key`);
  });

  it('an actor that sent the Delete of itself is not verified from its stored document any more', async () => {
    const dir = tempDir();
    const peer = await newPeer('gail');
    const { core, url } = await startCore(dir);
    const activity = note(peer, url, 1);
    expect((await peer.postSigned(`${url}/inbox`, activity)).status).toBe(202);
    await processed(core, activity.id);
    const store = () => createKeyCache({ store: storedActorKeys(core.db, () => new Date()) });
    expect((await store().get(new URL(peer.keyId)))?.id?.href).toBe(peer.keyId);
    const del = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.actorId}#delete`, type: 'Delete', actor: peer.actorId, object: peer.actorId, to: ['https://www.w3.org/ns/activitystreams#Public'] };
    expect((await peer.postSigned(`${url}/inbox`, del)).status).toBe(202);
    await processed(core, del.id);
    expect(await store().get(new URL(peer.keyId))).toBeUndefined();
  });

  it('a handle confirmed later (lookup.ts) does not re-date a stale document as checked', async () => {
    const dir = tempDir();
    const { core } = await startCore(dir);
    const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    const actor = 'https://old.example/users/ida';
    const stale = new Date(Date.now() - STORED_KEY_MAX_AGE_MS - DAY);
    const row = saveActor(core.db, { id: actor, type: 'Person', preferredUsername: 'ida', inbox: `${actor}/inbox`, publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem: await exportPublicKeyPem(pair.publicKey) } }, null, stale);
    const named = setActorHandle(core.db, row, '@ida@old.example');
    expect(named).toMatchObject({ handle: '@ida@old.example', updatedAt: stale, apActor: row.apActor });
    expect(setActorHandle(core.db, named, 'not a handle')).toBe(named);
    const cache = createKeyCache({ store: storedActorKeys(core.db, () => new Date()) });
    expect(await cache.get(new URL(`${actor}#main-key`))).toBeUndefined();
  });
});
