// Posting, editing and reading without peers: a real core (SQLite, loopback stubs where a
// remote server is needed), offline by default so nothing can reach the network by accident.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { actor, inbox, outbox, outgoingActivity, storedValue } from '../../../../db/schema';
import { manualSource, type ManualSource } from '../../connectivity/watch';
import { openCore, type Core } from '../../core';
import { startServer, type LoopbackServer } from '../../net/test-server';
import { PUBLIC } from '../ap';
import { findActor, getOrFetchActor } from '../actors';
import { lookup } from '../lookup';
import { saveOutboxObject } from '../outbox-store';
import { persistInboxObject } from '../process/store';
import { computeRecipients, targetOfActor } from '../recipients';
import { deliveryPayload } from '../outbox';
import type { AuthorService } from '.';

let dir: string;
let core: Core;
let author: AuthorService;
let net: ManualSource;
const servers: LoopbackServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-compose-'));
  core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice', displayName: 'Alice' });
  net = manualSource(false);
  core.connectivity.setSource(net);
  author = core.services.author;
});

afterEach(async () => {
  await core.loops.delivery.stop({ graceMs: 0 });
  await Promise.all(servers.splice(0).map((s) => s.close()));
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const local = () => core.identity()!;
const stored = (id: number) => core.db.select().from(outbox).where(eq(outbox.id, id)).get()!;
const rows = (id: number) => core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, id)).all();

function cacheActor(doc: Record<string, unknown>, handle: string | null = null) {
  const now = new Date();
  return core.db.insert(actor).values({ apId: String(doc.id), apActor: doc as never, apType: 'Person', handle, createdAt: now, updatedAt: now }).returning().get();
}

describe('posting', () => {
  it('takes U+0000 out of everything the author wrote, in the post as stored and as sent (Postgres-based peers refuse it)', async () => {
    const nul = '\u0000';
    const post = await author.createPost({ content: `hel${nul}lo`, title: `On${nul} terns`, summary: `bi${nul}rds`, visibility: 'PUBLIC' });
    const row = stored(post.id);
    expect(JSON.stringify(row)).not.toContain('\\u0000');
    expect([row.source, row.apObject.name, row.apObject.summary]).toEqual(['hello', 'On terns', 'birds']);
    await author.editPost({ apId: row.apId, content: `bye${nul}` });
    expect(stored(post.id).source).toBe('bye');
    const poll = await author.createPost({ content: 'Tea?', visibility: 'PUBLIC', poll: { options: [`ye${nul}s`, 'no'], durationSeconds: 600, multiple: false, hideTotals: false } });
    expect(JSON.stringify(stored(poll.id).apObject)).not.toContain('\\u0000');
  });

  it('an Article: a title makes the type and the name; a content warning marks it sensitive', async () => {
    const post = await author.createPost({ content: 'Long *read*', title: 'On terns', summary: 'birds', visibility: 'UNLISTED' });
    const object = stored(post.id).apObject;
    expect(object).toMatchObject({ type: 'Article', name: 'On terns', summary: 'birds', sensitive: true, to: [local().followers], cc: [PUBLIC] });
    expect(object.context).toMatch(/^http:\/\/127\.0\.0\.1:9\/contexts\/[0-9a-f]{32}$/);
    expect(stored(post.id).apContext).toBe(object.context);
    expect(post).toMatchObject({ title: 'On terns', delivery: { state: 'local', total: 0 } });
  });

  it('reaches an actor whose `endpoints` is a string IRI at its own inbox (activitypub-express)', () => {
    const doc = JSON.parse(readFileSync(new URL('../../../../test/fixtures/actors/activitypub-express-actor.json', import.meta.url), 'utf8'));
    cacheActor(doc);
    expect(computeRecipients(core.db, local(), { to: [PUBLIC], cc: [doc.id] })).toEqual(['https://apex.example/inbox/dana']);
  });

  // Every reader of an actor's inbox goes through ap.ts inboxOf; each form `endpoints` takes in
  // the wild (activitypub-express: a string IRI, interop-notes) gives an inbox, none a crash.
  it.each([
    ['an object with sharedInbox', { sharedInbox: 'https://far.example/inbox' }, 'https://far.example/inbox'],
    ['an object whose sharedInbox is a Link-like object', { sharedInbox: { id: 'https://far.example/inbox' } }, 'https://far.example/inbox'],
    ['an array of one such object (compacted JSON-LD)', [{ sharedInbox: 'https://far.example/inbox' }], 'https://far.example/inbox'],
    ['a string IRI (activitypub-express)', 'https://far.example/users/zed#endpoints', 'https://far.example/users/zed/inbox'],
    ['an object without sharedInbox', { oauthAuthorizationEndpoint: 'https://far.example/oauth' }, 'https://far.example/users/zed/inbox'],
    ['a sharedInbox that is not an http(s) URL', { sharedInbox: 'javascript:alert(1)' }, 'https://far.example/users/zed/inbox'],
    ['an empty array', [], 'https://far.example/users/zed/inbox'],
    ['null', null, 'https://far.example/users/zed/inbox'],
    ['missing', undefined, 'https://far.example/users/zed/inbox'],
  ])('`endpoints` as %s: posts reach its shared inbox or else the own one; personal activities the own one', (_name, endpoints, shared) => {
    const doc = { id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox', ...(endpoints === undefined ? {} : { endpoints }) };
    cacheActor(doc);
    expect(computeRecipients(core.db, local(), { to: [PUBLIC], cc: [doc.id] })).toEqual([shared]);
    expect(targetOfActor(core.db, doc.id, true)).toBe('https://far.example/users/zed/inbox');
  });

  it.each([
    ['its actor id', () => local().id],
    ['its actor id with the slash Fedify adds', () => `${local().id}/`],
  ])('a direct message naming the author by %s alone is refused; nothing is queued to the author', async (_name, self) => {
    await expect(author.createPost({ content: 'note to self', visibility: 'DIRECT', mentions: [self()] })).rejects.toThrow(/needs someone/);
    expect(core.db.select().from(outgoingActivity).all()).toEqual([]);
  });

  it('the author’s own handle in a public post queues nothing to the author, offline or online', async () => {
    const offline = await author.createPost({ content: 'hi @alice@127.0.0.1:9', visibility: 'PUBLIC' });
    expect(rows(offline.id)).toEqual([]);
    net.set(true);
    const online = await author.createPost({ content: 'hi @Alice@127.0.0.1:9', visibility: 'PUBLIC' });
    expect(rows(online.id)).toEqual([]);
  });

  it('a post still waiting when the base URL changes is not sent under the new address (its ids name the old host: Mastodon refuses the mix)', async () => {
    cacheActor({ id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox' }, '@zed@far.example');
    const post = await author.createPost({ content: 'written before the move', visibility: 'DIRECT', mentions: ['https://far.example/users/zed'] });
    const [row] = rows(post.id);
    expect(deliveryPayload(core.db, local(), row!)).toMatchObject({ kind: 'send' });
    core.settings.update({ baseUrl: 'https://moved.example' });
    expect(deliveryPayload(core.db, local(), row!)).toEqual({
      kind: 'cancel',
      reason: "Written when Tern's address was http://127.0.0.1:9, before it became https://moved.example; not sent.",
    });
  });

  it('the author named beside someone else: only the other person is addressed, tagged and queued', async () => {
    cacheActor({ id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox' }, '@zed@far.example');
    const post = await author.createPost({ content: 'us two', visibility: 'DIRECT', mentions: [`${local().id}/`, 'https://far.example/users/zed'] });
    const object = stored(post.id).apObject;
    expect(object).toMatchObject({ to: ['https://far.example/users/zed'], cc: [] });
    expect((object.tag as { href: string }[]).map((t) => t.href)).toEqual(['https://far.example/users/zed']);
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['https://far.example/users/zed/inbox']);
  });

  it('offline, an uncached actor named by URL is tagged and queued by address, without waiting', async () => {
    const started = Date.now();
    const post = await author.createPost({ content: 'hello', visibility: 'DIRECT', mentions: ['https://far.example/users/zed'] });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(stored(post.id).apObject).toMatchObject({ to: ['https://far.example/users/zed'], cc: [], tag: [{ type: 'Mention', href: 'https://far.example/users/zed' }] });
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['actor:https://far.example/users/zed']);
    expect(post.delivery.state).toBe('queued');
  });

  it('offline, a handle that is not cached stays text and is queued as acct:', async () => {
    const post = await author.createPost({ content: 'hi @zed@far.example', visibility: 'PUBLIC' });
    expect(post.contentHtml).toBe('<p>hi @zed@far.example</p>');
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['acct:zed@far.example']);
  });

  it('a cached handle is linked at once, offline', async () => {
    cacheActor({ id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox', endpoints: { sharedInbox: 'https://far.example/inbox' } }, '@zed@far.example');
    const post = await author.createPost({ content: 'hi @zed@far.example', visibility: 'PUBLIC' });
    expect(post.contentHtml).toContain('href="https://far.example/users/zed"');
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['https://far.example/inbox']);
  });

  it('a reply to an unknown post, offline, keeps inReplyTo, stores a conversation key, and is hidden from the homepage', async () => {
    const post = await author.createPost({ content: 're', visibility: 'PUBLIC', inReplyTo: 'https://far.example/notes/1' });
    const row = stored(post.id);
    expect(row.apObject.inReplyTo).toBe('https://far.example/notes/1');
    expect(row.apContext).toBe('microblogpub:root:https://far.example/notes/1');
    expect(row.isHiddenFromHomepage).toBe(true);
  });
});

describe('following a microblog.pub author', () => {
  // microblog.pub's id is the bare origin and it drops a Follow whose object is not that exact
  // string (interop-notes): the Follow names the id the actor document gives, however it was typed.
  const mbp = JSON.parse(readFileSync(new URL('../../../../test/fixtures/real/microblogpub-follow.json', import.meta.url), 'utf8')) as { actors: Record<string, unknown>[] };

  it.each([
    ['the bare origin', (origin: string) => origin],
    ['the origin with a slash', (origin: string) => `${origin}/`],
  ])('typed as %s: the Follow’s object and to are the id exactly, queued to its inbox', async (_name, typed) => {
    const s = await startServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] !== '/') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(mbp.actors[0]).replaceAll('https://quill.example', s.origin));
    });
    servers.push(s);
    net.set(true);
    const { actor: person } = await author.follow(typed(s.origin));
    expect(person.apId).toBe(s.origin);
    const [follow] = core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).all();
    expect(follow?.apObject).toMatchObject({ type: 'Follow', actor: local().id, object: s.origin, to: [s.origin] });
    expect(rows(follow!.id).map((r) => r.recipient)).toEqual([`${s.origin}/inbox`]);
  });

  it('once stored, the actor is found under either spelling of its origin: not fetched again', async () => {
    let gets = 0; // of the actor document (its handle's WebFinger is asked besides)
    const s = await startServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] !== '/') return res.writeHead(404).end();
      gets++;
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(mbp.actors[0]).replaceAll('https://quill.example', s.origin));
    });
    servers.push(s);
    net.set(true);
    const deps = { db: core.db, fed: core.fed, clock: core.clock };
    const stored = await getOrFetchActor(deps, s.origin);
    expect([stored.apId, gets]).toEqual([s.origin, 1]);
    // Fedify peers write a bare origin with the slash: the same row, no second GET.
    expect((await getOrFetchActor(deps, `${s.origin}/`)).id).toBe(stored.id);
    expect(findActor(core.db, `${s.origin}/`)?.id).toBe(stored.id);
    expect(gets).toBe(1);
    expect(core.db.select().from(actor).all().filter((a) => a.apId.startsWith(s.origin))).toHaveLength(1);
  });
});

describe('editing', () => {
  it('keeps a poll’s fields and type, appends revisions as new lists, refreshes tags, and queues an Update', async () => {
    const question = saveOutboxObject(core.db, local(), {
      apObject: { type: 'Question', attributedTo: local().id, content: '<p>Tea?</p>', oneOf: [{ type: 'Note', name: 'Yes' }], endTime: '2031-01-01T00:00:00Z', to: [PUBLIC], cc: [local().followers], published: '2030-01-01T00:00:00.000Z' },
      visibility: 'PUBLIC',
      now: new Date('2030-01-01T00:00:00Z'),
      source: 'Tea?',
    });
    const first = await author.editPost({ apId: question.apId, content: 'Tea or #coffee?' });
    const afterFirst = stored(question.id);
    await author.editPost({ apId: question.apId, content: 'Tea, or coffee?' });
    const row = stored(question.id);
    expect(row.apObject).toMatchObject({ type: 'Question', oneOf: [{ type: 'Note', name: 'Yes' }], endTime: '2031-01-01T00:00:00Z', content: '<p>Tea, or coffee?</p>' });
    expect(row.apObject.updated).toEqual(expect.any(String));
    const revisions = storedValue(row.revisions) as { ap_object: { content: string }; source: string; updated: string }[];
    expect(revisions.map((r) => [r.source, r.ap_object.content, r.updated])).toEqual([
      ['Tea?', '<p>Tea?</p>', '2030-01-01T00:00:00.000Z'],
      ['Tea or #coffee?', afterFirst.apObject.content, afterFirst.apObject.updated],
    ]);
    expect(storedValue(afterFirst.revisions)).toHaveLength(1); // the earlier list was not mutated in place
    expect(first.delivery.activity).toBe('Update');
    const updates = core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, question.id)).all();
    expect(updates.map((u) => u.apType)).toEqual(['Update', 'Update']);
  });
});

describe('an edit that gives only new text', () => {
  // microblog.pub's send_update rebuilds the object without the Article's name (§13.8).
  it('keeps an Article’s title, content warning and addressing', async () => {
    const post = await author.createPost({ content: 'Long *read*', title: 'On terns', summary: 'birds', visibility: 'UNLISTED' });
    await author.editPost({ apId: stored(post.id).apId, content: 'Longer *read*' });
    expect(stored(post.id).apObject).toMatchObject({ type: 'Article', name: 'On terns', summary: 'birds', sensitive: true, to: [local().followers], cc: [PUBLIC], content: '<p>Longer <em>read</em></p>' });
  });
});

describe('an edit that mentions someone new', () => {
  // microblog.pub's send_update keeps the old audience, so a person mentioned in an edit never
  // receives it (microblogpub-behaviour §13.8).
  it('names them in the object (tag and cc) and queues the Update to them, besides everyone reached before', async () => {
    cacheActor({ id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/users/zed/inbox' }, '@zed@far.example');
    cacheActor({ id: 'https://near.example/users/amy', type: 'Person', inbox: 'https://near.example/users/amy/inbox' }, '@amy@near.example');
    const post = await author.createPost({ content: 'hello @zed@far.example', visibility: 'PUBLIC' });
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['https://far.example/users/zed/inbox']);
    await author.editPost({ apId: stored(post.id).apId, content: 'hello @zed@far.example and @amy@near.example' });
    const object = stored(post.id).apObject;
    expect(object.cc).toEqual(expect.arrayContaining(['https://far.example/users/zed', 'https://near.example/users/amy']));
    expect((object.tag as { href: string }[]).map((t) => t.href).sort()).toEqual(['https://far.example/users/zed', 'https://near.example/users/amy']);
    const [update] = core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all();
    expect(update?.apType).toBe('Update');
    expect(rows(update!.id).map((r) => r.recipient).sort()).toEqual(['https://far.example/users/zed/inbox', 'https://near.example/users/amy/inbox']);
  });
});

describe('an edit that changes nothing', () => {
  it('keeps no revision and sends no Update; a real change after it does', async () => {
    const post = await author.createPost({ content: 'Tea, *or* #coffee?', title: 'Drinks', visibility: 'PUBLIC' });
    const before = stored(post.id);
    const same = await author.editPost({ apId: before.apId, content: '  Tea, *or* #coffee?  ', title: 'Drinks' });
    expect(stored(post.id)).toEqual(before);
    expect(same.delivery.activity).toBe('Create');
    expect(core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all()).toEqual([]);

    await author.editPost({ apId: before.apId, content: 'Tea, *or* #coffee?', title: 'Hot drinks' });
    const after = stored(post.id);
    expect(storedValue(after.revisions)).toHaveLength(1);
    expect(after.apObject).toMatchObject({ name: 'Hot drinks', updated: expect.any(String) });
    expect(core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().map((u) => u.apType)).toEqual(['Update']);
  });
});

describe('earlier versions', () => {
  it('are not parsed when posts are listed, only when their history is asked for', async () => {
    const post = await author.createPost({ content: 'one', visibility: 'PUBLIC' });
    await author.editPost({ apId: stored(post.id).apId, content: 'two' });
    await author.editPost({ apId: stored(post.id).apId, content: 'three' });
    const earlier = JSON.stringify(storedValue(stored(post.id).revisions));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(author.stream({}).items.some((p) => p.apId === stored(post.id).apId)).toBe(true);
      expect(parse.mock.calls.some(([text]) => text === earlier)).toBe(false);
      expect(author.reads.history(post.id).map((v) => v.contentHtml)).toEqual(['<p>one</p>', '<p>two</p>', '<p>three</p>']);
      expect(parse.mock.calls.some(([text]) => text === earlier)).toBe(true);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('reading', () => {
  it('pages the home stream newest first across received and own posts, without repeats', async () => {
    const remote = cacheActor({ id: 'https://far.example/users/zed', type: 'Person', inbox: 'https://far.example/i' });
    const base = Date.parse('2030-01-01T00:00:00Z');
    for (let i = 0; i < 4; i++) {
      persistInboxObject(core.db, {
        object: { id: `https://far.example/n/${i}`, type: 'Note', content: `<p>r${i}</p>`, published: new Date(base + i * 2_000).toISOString(), to: [PUBLIC] },
        apId: `https://far.example/n/${i}`,
        actor: remote,
        now: new Date(),
        hidden: false,
      });
      saveOutboxObject(core.db, local(), { apObject: { type: 'Note', content: `<p>o${i}</p>`, to: [PUBLIC] }, visibility: 'PUBLIC', now: new Date(base + i * 2_000 + 1_000) });
    }
    // Same second as o3: ours sorts first.
    saveOutboxObject(core.db, local(), { apObject: { type: 'Note', content: '<p>o3b</p>', to: [PUBLIC] }, visibility: 'PUBLIC', now: new Date(base + 3 * 2_000 + 1_000) });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = author.stream({ cursor, limit: 3 });
      seen.push(...page.items.map((p) => p.contentHtml.replace(/<\/?p>/g, '')));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['o3b', 'o3', 'r3', 'o2', 'r2', 'o1', 'r1', 'o0', 'r0']);
  });

  it('shows pinned posts first on the profile', async () => {
    const a = await author.createPost({ content: 'old', visibility: 'PUBLIC' });
    await author.createPost({ content: 'new', visibility: 'PUBLIC' });
    author.setPinned(a.apId, true);
    expect(author.profile({}).items.map((p) => [p.markdown, p.mine.pinned])).toEqual([['old', true], ['new', false]]);
  });
});

describe('pinning federates', () => {
  it('Add / Remove of the post to the featured collection goes to followers; only real changes of what it shows', async () => {
    const s = await startServer((_req, res) => res.writeHead(202).end());
    servers.push(s);
    cacheActor({ id: `${s.origin}/users/f`, type: 'Person', inbox: `${s.origin}/users/f/inbox` });
    const follower = core.db.select().from(actor).get()!;
    const follow = persistInboxObject(core.db, { object: { id: `${s.origin}/f/1`, type: 'Follow' }, apId: `${s.origin}/f/1`, actor: follower, now: new Date() });
    core.sqlite.prepare('INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?)').run(new Date().toISOString(), new Date().toISOString(), follower.id, follow.id, follower.apId);
    const post = await author.createPost({ content: 'pin me', visibility: 'PUBLIC' });
    const secret = await author.createPost({ content: 'just you', visibility: 'FOLLOWERS_ONLY' });
    author.setPinned(post.apId, true);
    author.setPinned(post.apId, true); // already pinned: nothing new to say
    author.setPinned(secret.apId, true); // not in the featured collection: nothing to say
    author.setPinned(post.apId, false);
    const changes = core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all();
    expect(changes.map((c) => c.apObject)).toEqual([
      expect.objectContaining({ type: 'Add', actor: local().id, object: post.apId, target: local().featured, to: [PUBLIC], cc: [local().followers] }),
      expect.objectContaining({ type: 'Remove', actor: local().id, object: post.apId, target: local().featured }),
    ]);
    expect(core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, secret.id)).all()).toHaveLength(0);
    expect(changes.map((c) => rows(c.id).map((r) => r.recipient))).toEqual([[`${s.origin}/users/f/inbox`], [`${s.origin}/users/f/inbox`]]);
    core.loops.delivery.start();
    net.set(true);
    await core.loops.delivery.drain();
    const sent = s.seen.filter((r) => r.path === '/users/f/inbox').map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(sent).toEqual(['Create', 'Create', 'Add', 'Remove']);
  });
});

describe('deleting before delivery', () => {
  it('the queued Create is cancelled (never sent), and so is the Delete: that server never had the post', async () => {
    const s = await startServer((_req, res) => res.writeHead(202).end());
    servers.push(s);
    cacheActor({ id: `${s.origin}/users/f`, type: 'Person', inbox: `${s.origin}/users/f/inbox` });
    const follower = core.db.select().from(actor).get()!;
    const follow = persistInboxObject(core.db, { object: { id: `${s.origin}/f/1`, type: 'Follow' }, apId: `${s.origin}/f/1`, actor: follower, now: new Date() });
    core.sqlite.prepare('INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?)').run(new Date().toISOString(), new Date().toISOString(), follower.id, follow.id, follower.apId);
    const post = await author.createPost({ content: 'regret', visibility: 'PUBLIC' });
    author.deletePost(post.apId);
    core.loops.delivery.start();
    net.set(true);
    await core.loops.delivery.drain();
    const all = core.db.select().from(outgoingActivity).all();
    expect(all.map((r) => [r.outboxObjectId === post.id ? 'Create' : 'Delete', r.isSent, r.isErrored, r.tries])).toEqual([
      ['Create', false, true, 0],
      ['Delete', false, true, 0],
    ]);
    expect(all[0]!.error).toMatch(/deleted before it reached/);
    expect(all[1]!.error).toMatch(/never received the post; no Delete needed/);
    expect(s.seen).toEqual([]);
  });
});

describe('removing a follower while a followers-only post waits', () => {
  it('the row to a shared inbox stays while it serves another follower, and is cancelled when it serves none', async () => {
    const follow = (name: string) => {
      const doc = { id: `https://shared.example/users/${name}`, type: 'Person', inbox: `https://shared.example/users/${name}/inbox`, endpoints: { sharedInbox: 'https://shared.example/inbox' } };
      const person = cacheActor(doc);
      const f = persistInboxObject(core.db, { object: { id: `${doc.id}/follow`, type: 'Follow' }, apId: `${doc.id}/follow`, actor: person, now: new Date() });
      core.sqlite.prepare('INSERT INTO follower (created_at, updated_at, actor_id, inbox_object_id, ap_actor_id) VALUES (?, ?, ?, ?, ?)').run(new Date().toISOString(), new Date().toISOString(), person.id, f.id, person.apId);
      return person;
    };
    const [ann, ben] = [follow('ann'), follow('ben')];
    const post = await author.createPost({ content: 'for both', visibility: 'FOLLOWERS_ONLY' });
    expect(rows(post.id).map((r) => r.recipient)).toEqual(['https://shared.example/inbox']);
    author.removeFollower(ann.apId);
    expect(rows(post.id)[0]).toMatchObject({ isErrored: false, error: null }); // ben still reads there
    author.removeFollower(ben.apId);
    expect(rows(post.id)[0]).toMatchObject({ isErrored: true, error: expect.stringMatching(/no longer follow you/) });
  });
});

describe('look-up', () => {
  it('falls back to a GET signed as the author when the plain GET is refused', async () => {
    const s = await startServer((req, res) => {
      if (!req.headers.signature && !req.headers['signature-input']) return res.writeHead(401).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(
        JSON.stringify({ id: `${s.origin}/notes/1`, type: 'Note', attributedTo: `${s.origin}/users/z`, content: '<p>secret-ish</p>', to: [PUBLIC] }),
      );
    });
    servers.push(s);
    cacheActor({ id: `${s.origin}/users/z`, type: 'Person', inbox: `${s.origin}/users/z/inbox` });
    net.set(true);
    const found = await lookup({ db: core.db, fed: core.fed, clock: core.clock, local: local() }, `${s.origin}/notes/1`);
    expect(found.kind).toBe('object');
    expect(s.seen.map((r) => r.headers.signature ?? null)).toEqual([null, expect.stringContaining(`keyId="${local().keyId}"`)]);
    expect(core.db.select().from(inbox).where(eq(inbox.apId, `${s.origin}/notes/1`)).get()?.isHiddenFromStream).toBe(true);
  });
});
