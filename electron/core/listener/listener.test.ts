// The listener's read side over real HTTP on 127.0.0.1: discovery, the actor (as ActivityPub,
// read back by a Fedify peer, and as an h-card), the collections and their pages, and who may
// read which object — with real signed GETs made by Fedify peers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mf2 } from 'microformats-parser';
import { Note, Person } from '@fedify/vocab';
import { exportPublicKeyPem } from '../net/signatures';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { signRequest } from '@fedify/fedify';
import { addFollower, addPost, openListeningCore, startMallory, type ListeningCore, type Mallory } from './test-support';
import { SIGNED_GET_KEY_MAX_BYTES } from './signed-get';
import { taggedOutboxObject } from '../../../db/schema';
import { MAX_KEYS_PER_DOCUMENT } from '../net/key-document';
import { AP_CONTEXT } from '../federation/outbox';

const AP = 'application/activity+json';
let t: ListeningCore;
let follower: Peer;
let stranger: Peer;

beforeAll(async () => {
  [t, follower, stranger] = await Promise.all([openListeningCore(), startPeer({ name: 'fan' }), startPeer({ name: 'stranger' })]);
  addFollower(t.core, follower.actorId, follower.inboxUrl, follower.sharedInboxUrl);
});

afterAll(async () => {
  await Promise.all([follower?.close(), stranger?.close()]);
  await t?.close();
});

const get = (path: string, accept?: string) => fetch(`${t.url}${path}`, { headers: accept ? { accept } : {} });
const getJson = async (path: string) => {
  const res = await get(path, AP);
  return { res, json: (await res.json()) as Record<string, unknown> };
};
const host = () => new URL(t.url).host;

interface CollectionJson {
  type: string;
  next?: string;
  prev?: string;
  orderedItems: { type: string; id: string; object: { id: string; '@context'?: unknown } }[];
}

describe('WebFinger, host-meta and NodeInfo', () => {
  it.each([
    ['acct:alice@HOST'],
    ['the actor URL'],
    ['the actor URL with a trailing slash'],
  ])('answers WebFinger for %s with a JRD pointing at the actor', async (form) => {
    const resource = form === 'acct:alice@HOST' ? `acct:alice@${host()}` : form === 'the actor URL' ? t.url : `${t.url}/`;
    const res = await get(`/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jrd+json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const jrd = (await res.json()) as { subject: string; links: { rel: string; type?: string; href?: string }[] };
    expect(jrd.subject).toBe(`acct:alice@${host()}`);
    expect(jrd.links).toContainEqual({ rel: 'self', type: AP, href: t.url });
    expect(jrd.links).toContainEqual({ rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: t.url });
  });

  it('answers 404 for someone else and 400 without a resource', async () => {
    expect((await get(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${host()}`)}`)).status).toBe(404);
    expect((await get(`/.well-known/webfinger?resource=${encodeURIComponent('https://elsewhere.example/')}`)).status).toBe(404);
    expect((await get('/.well-known/webfinger')).status).toBe(400);
  });

  it('serves host-meta with the lrdd template', async () => {
    const res = await get('/.well-known/host-meta');
    expect(res.headers.get('content-type')).toContain('application/xrd+xml');
    expect(await res.text()).toContain(`template="${t.url}/.well-known/webfinger?resource={uri}"`);
  });

  it('serves NodeInfo 2.1 counting only public, live posts', async () => {
    addPost(t.core, { visibility: 'PUBLIC' });
    addPost(t.core, { visibility: 'UNLISTED' });
    addPost(t.core, { visibility: 'PUBLIC', deleted: true });
    const links = (await (await get('/.well-known/nodeinfo')).json()) as { links: { rel: string; href: string }[] };
    expect(links.links).toEqual([{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${t.url}/nodeinfo/2.1` }]);
    const res = await get('/nodeinfo/2.1');
    expect(res.headers.get('content-type')).toContain('schema/2.1#');
    const info = (await res.json()) as { usage: { localPosts: number } };
    expect(info).toMatchObject({
      version: '2.1',
      software: { name: 'tern' },
      protocols: ['activitypub'],
      openRegistrations: false,
      usage: { users: { total: 1 } },
    });
    expect(info.usage.localPosts).toBeGreaterThanOrEqual(1);
    const before = info.usage.localPosts;
    addPost(t.core, { visibility: 'FOLLOWERS_ONLY' });
    addPost(t.core, { visibility: 'PUBLIC' });
    const after = ((await (await get('/nodeinfo/2.1')).json()) as { usage: { localPosts: number } }).usage.localPosts;
    expect(after).toBe(before + 1);
  });
});

describe('the actor', () => {
  it('is a Person with our RSA key, inbox, shared inbox and collections, for any Accept that lists ActivityPub', async () => {
    for (const accept of [AP, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"', `text/html, ${AP}`]) {
      const res = await get('/', accept);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(AP);
    }
    const { json: person } = await getJson('/');
    expect(person).toMatchObject({
      id: t.url,
      type: 'Person',
      preferredUsername: 'alice',
      name: 'Alice Example',
      inbox: `${t.url}/inbox`,
      outbox: `${t.url}/outbox`,
      followers: `${t.url}/followers`,
      following: `${t.url}/following`,
      featured: `${t.url}/featured`,
      endpoints: { sharedInbox: `${t.url}/inbox` },
      manuallyApprovesFollowers: false,
      url: t.url,
      // As the reference writes it: <actor id>#main-key, no slash added (identity.ts).
      publicKey: { id: `${t.url}#main-key`, owner: t.url },
    });
    expect(person.summary).toBe('<p>Writes <em>things</em>.</p>');
    const pem = await exportPublicKeyPem(t.core.fed.keys.rsa.publicKey);
    expect((person.publicKey as { publicKeyPem: string }).publicKeyPem).toBe(pem);
    expect(typeof person.published).toBe('string');
  });

  it('is read by a Fedify peer as a Person with our key and an Ed25519 assertion method', async () => {
    const found = await stranger.lookup(t.url, { signed: false });
    expect(found).toBeInstanceOf(Person);
    const person = found as Person;
    expect(person.id?.href.replace(/\/$/, '')).toBe(t.url);
    expect(person.inboxId?.href).toBe(`${t.url}/inbox`);
    expect(person.endpoints?.sharedInbox?.href).toBe(`${t.url}/inbox`);
    // Fedify reads `http://host#main-key` as a URL, which gains the path's slash.
    expect(person.publicKeyId?.href).toBe(new URL(`${t.url}#main-key`).href);
    expect(person.assertionMethodIds.map((u) => u.href)).toEqual([new URL(`${t.url}#ed25519-key`).href]);
  });

  it('is an HTML page with an h-card and an ActivityPub alternate for browsers', async () => {
    const res = await get('/', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain(`<link rel="alternate" type="application/activity+json" href="${t.url}">`);
    const parsed = mf2(html, { baseUrl: t.url });
    const card = parsed.items.find((i) => i.type?.includes('h-card'));
    expect(card?.properties.name).toEqual(['Alice Example']);
    expect(card?.properties.url).toEqual([t.url]);
    expect(card?.properties.note).toEqual(['Writes things.']);
  });

  it('refuses ActivityPub with q=0 and serves HTML to a plain GET', async () => {
    expect((await get('/', `${AP};q=0, text/html`)).headers.get('content-type')).toContain('text/html');
    expect((await get('/')).headers.get('content-type')).toContain('text/html');
  });
});

describe('collections', () => {
  it('pages the outbox 20 at a time, newest first, posts wrapped in Create', async () => {
    const fresh = await openListeningCore('paged');
    try {
      const start = Date.parse('2026-01-01T00:00:00Z');
      const rows = Array.from({ length: 45 }, (_, i) => addPost(fresh.core, { content: `<p>post ${i}</p>`, published: new Date(start + i * 60_000) }));
      addPost(fresh.core, { visibility: 'FOLLOWERS_ONLY', published: new Date(start + 99 * 60_000) });
      addPost(fresh.core, { visibility: 'DIRECT', published: new Date(start + 98 * 60_000) });
      const read = async (path: string) => (await (await fetch(`${fresh.url}${path}`, { headers: { accept: AP } })).json()) as CollectionJson;
      const outbox = await read('/outbox');
      expect(outbox).toMatchObject({ type: 'OrderedCollection', totalItems: 45, first: `${fresh.url}/outbox?page=1` });
      const p1 = await read('/outbox?page=1');
      expect(p1).toMatchObject({ type: 'OrderedCollectionPage', partOf: `${fresh.url}/outbox`, next: `${fresh.url}/outbox?page=2` });
      expect(p1.orderedItems).toHaveLength(20);
      expect(p1.orderedItems[0]).toMatchObject({
        type: 'Create',
        id: `${rows[44]!.apId}/activity`,
        actor: fresh.url,
        object: { id: rows[44]!.apId, type: 'Note', content: '<p>post 44</p>' },
      });
      expect(p1.orderedItems[0]?.object['@context']).toBeUndefined();
      const p3 = await read('/outbox?page=3');
      expect(p3.orderedItems).toHaveLength(5);
      expect(p3.next).toBeUndefined();
      expect(p3.prev).toBe(`${fresh.url}/outbox?page=2`);
      expect(p3.orderedItems.at(-1)?.object.id).toBe(rows[0]!.apId);
      expect((await fetch(`${fresh.url}/outbox?page=0`)).status).toBe(400);
      expect((await fetch(`${fresh.url}/outbox?page=abc`)).status).toBe(400);
    } finally {
      await fresh.close();
    }
  });

  it('lists followers and following as collections of actor ids', async () => {
    const followers = (await getJson('/followers')).json;
    expect(followers).toMatchObject({ type: 'OrderedCollection', totalItems: 1 });
    const page = (await getJson('/followers?page=1')).json;
    expect(page.orderedItems).toEqual([follower.actorId]);
    expect((await getJson('/following')).json).toMatchObject({ type: 'OrderedCollection', totalItems: 0 });
    expect((await getJson('/following?page=1')).json.orderedItems).toEqual([]);
  });

  it('features pinned posts visible to anyone: a Note as its bare object, an Article by its id (Mastodon reads only these two forms)', async () => {
    const pinned = addPost(t.core, { pinned: true, content: '<p>pinned</p>', published: new Date(Date.now() - 60_000) });
    const article = addPost(t.core, { pinned: true, type: 'Article', content: '<p>a long read</p>' });
    addPost(t.core, { pinned: true, visibility: 'FOLLOWERS_ONLY' });
    addPost(t.core, { pinned: true, deleted: true });
    const featured = (await getJson('/featured')).json;
    expect(featured).toMatchObject({ type: 'OrderedCollection', totalItems: 2, '@context': expect.arrayContaining([expect.objectContaining({ sensitive: 'as:sensitive' })]) });
    expect(featured.orderedItems).toEqual([article.apId, expect.objectContaining({ id: pinned.apId, type: 'Note' })]);
  });

  it('a hashtag’s link (/t/<tag>) lists the author’s public posts with it: their ids for ActivityPub, the posts as a page; 404 with none', async () => {
    const tagged = addPost(t.core, { content: '<p>about <a href="x">#Dunes</a></p>' });
    const secret = addPost(t.core, { visibility: 'FOLLOWERS_ONLY', content: '<p>for followers #dunes</p>' });
    for (const post of [tagged, secret]) t.core.db.insert(taggedOutboxObject).values({ outboxObjectId: post.id, tag: 'dunes' }).run();
    const collection = await get('/t/Dunes', 'application/activity+json');
    expect(collection.status).toBe(200);
    expect(await collection.json()).toMatchObject({ id: `${t.url}/t/dunes`, type: 'OrderedCollection', totalItems: 1, orderedItems: [tagged.apId] });
    const page = await get('/t/dunes', 'text/html');
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('<h1>#dunes</h1>');
    expect(body).toContain('about');
    expect(body).not.toContain('for followers');
    expect((await get('/t/nothing', 'application/activity+json')).status).toBe(404);
    expect((await get('/t/nothing', 'text/html')).status).toBe(404);
  });
});

describe('objects and who may read them', () => {
  it('serves a public post bare and in its Create, and as an h-entry page', async () => {
    const row = addPost(t.core, { content: '<p>Hello <script>x()</script>world</p>', inReplyTo: 'https://elsewhere.example/notes/1' });
    const { res, json } = await getJson(`/o/${row.publicId}`);
    expect(res.status).toBe(200);
    // Served with the context it is sent with, which defines sensitive, Hashtag and blurhash.
    expect(json).toMatchObject({ '@context': AP_CONTEXT, id: row.apId, type: 'Note' });
    const create = (await getJson(`/o/${row.publicId}/activity`)).json;
    expect(create).toMatchObject({ id: `${row.apId}/activity`, type: 'Create', actor: t.url, object: { id: row.apId } });

    const page = await get(`/o/${row.publicId}`, 'text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toContain('<script>');
    const entry = mf2(html, { baseUrl: t.url }).items.find((i) => i.type?.includes('h-entry'));
    expect(entry?.properties.url).toEqual([row.apId]);
    expect(entry?.properties['in-reply-to']).toEqual(['https://elsewhere.example/notes/1']);
    expect(entry?.properties.published).toEqual([(row.apObject as { published: string }).published]);
    expect(entry?.properties.content?.[0]).toMatchObject({ html: '<p>Hello world</p>' });
    expect(entry?.properties.author?.[0]).toMatchObject({ type: ['h-card'], properties: { name: ['Alice Example'], url: [t.url] } });
  });

  it('serves the Create at /activity even for an edited post, carrying the current version (edits are their own Update activities)', async () => {
    const row = addPost(t.core, { updated: '2026-02-01T00:00:00Z' });
    const { json } = await getJson(`/o/${row.publicId}/activity`);
    expect(json).toMatchObject({ type: 'Create', object: { updated: '2026-02-01T00:00:00Z' } });
    expect((json as { id: string }).id).toBe(`${row.apId}/activity`);
  });

  it('shows a followers-only post to a follower’s signed GET only: 404 unsigned, 404 to a non-follower', async () => {
    const row = addPost(t.core, { visibility: 'FOLLOWERS_ONLY', content: '<p>for fans</p>' });
    expect((await get(`/o/${row.publicId}`, AP)).status).toBe(404);
    expect((await get(`/o/${row.publicId}/activity`, AP)).status).toBe(404);
    expect(await stranger.lookup(row.apId)).toBeNull();
    const seen = await follower.lookup(row.apId);
    expect(seen).toBeInstanceOf(Note);
    expect(seen?.id?.href).toBe(row.apId);
  });

  it('shows a direct post to the addressed actor’s signed GET only', async () => {
    const row = addPost(t.core, { visibility: 'DIRECT', to: [stranger.actorId], content: '<p>just you</p>' });
    expect((await get(`/o/${row.publicId}`, AP)).status).toBe(404);
    expect(await follower.lookup(row.apId)).toBeNull();
    expect(await stranger.lookup(row.apId)).toBeInstanceOf(Note);
  });

  it('answers 410 with a Tombstone for a deleted post, and 404 for one that never was', async () => {
    const row = addPost(t.core, { deleted: true });
    const { res, json } = await getJson(`/o/${row.publicId}`);
    expect(res.status).toBe(410);
    expect(json).toMatchObject({ id: row.apId, type: 'Tombstone', formerType: 'Note' });
    const page = await get(`/o/${row.publicId}`, 'text/html');
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('deleted');
    expect((await get('/o/nope', AP)).status).toBe(404);
  });

  it('hides a deleted followers-only post from strangers (404, not 410)', async () => {
    const row = addPost(t.core, { visibility: 'FOLLOWERS_ONLY', deleted: true });
    expect((await get(`/o/${row.publicId}`, AP)).status).toBe(404);
  });
});

describe('what the listener does not serve', () => {
  it.each(['/ipc/app.status', '/admin', '/api/v1/admin/accounts', '/o/', '/outbox/extra'])('%s is 404', async (path) => {
    expect((await get(path)).status).toBe(404);
  });

  it('answers 404 to a POST anywhere but /inbox, without reading the body', async () => {
    expect((await fetch(`${t.url}/outbox`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

describe('signed GETs are checked on this thread, so the key documents they read are bounded', () => {
  const signedGet = async (m: Mallory, url: string) => {
    const request = await signRequest(new Request(url, { headers: { accept: AP } }), m.keys.privateKey, new URL(m.keyId), { spec: 'draft-cavage-http-signatures-12' });
    return fetch(request);
  };

  it(`a direct post is shown to its addressee's signed GET; not when the addressee's key document is past ${SIGNED_GET_KEY_MAX_BYTES} bytes`, async () => {
    const [small, big] = await Promise.all([startMallory(), startMallory({ summary: 'x'.repeat(SIGNED_GET_KEY_MAX_BYTES) })]);
    try {
      const toSmall = addPost(t.core, { visibility: 'DIRECT', to: [small.actorId], content: '<p>for you</p>' });
      const toBig = addPost(t.core, { visibility: 'DIRECT', to: [big.actorId], content: '<p>for you</p>' });
      expect((await signedGet(small, toSmall.apId)).status).toBe(200);
      expect((await signedGet(big, toBig.apId)).status).toBe(404);
    } finally {
      await Promise.all([small.server.close(), big.server.close()]);
    }
  });

  it(`not when the addressee's actor lists more than ${MAX_KEYS_PER_DOCUMENT} keys (Fedify would import each); a few keys are fine`, async () => {
    const multikeys = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `#m${i}`, type: 'Multikey', publicKeyMultibase: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }));
    const [few, many] = await Promise.all([startMallory({ assertionMethod: multikeys(2) }), startMallory({ assertionMethod: multikeys(680) })]);
    try {
      const toFew = addPost(t.core, { visibility: 'DIRECT', to: [few.actorId], content: '<p>for you</p>' });
      const toMany = addPost(t.core, { visibility: 'DIRECT', to: [many.actorId], content: '<p>for you</p>' });
      expect((await signedGet(few, toFew.apId)).status).toBe(200);
      expect((await signedGet(many, toMany.apId)).status).toBe(404);
    } finally {
      await Promise.all([few.server.close(), many.server.close()]);
    }
  });
});
