// Micropub end to end in the core: tokens obtained through the real IndieAuth flow, requests
// over HTTP to the listener, and Fedify peers that verify what Tern then federates — a post
// made through Micropub is an ordinary post (Create), like-of a Like, repost-of an Announce,
// update an Update, delete a Delete. Every refusal names its reason and changes nothing.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '../../../db/schema';
import { startPeer, type Peer, type ReceivedActivity } from '../../../test/peer/peer';
import { openAuthorRig, type AuthorRig } from '../federation/actions/test-rig';
import { issueToken } from '../indieauth/test-flow';

let rig: AuthorRig;
let fan: Peer;
let bob: Peer;
let full: string;
let createOnly: string;

const objectOf = (x: ReceivedActivity) => (x.raw as { object: Record<string, unknown> }).object;
const outboxCount = () => rig.core.db.select({ n: count() }).from(outbox).get()!.n;

async function micropub(token: string | null, body: Record<string, unknown> | URLSearchParams, headers: Record<string, string> = {}) {
  const json = !(body instanceof URLSearchParams);
  const response = await fetch(`${rig.url}/micropub`, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: json ? JSON.stringify(body) : body,
  });
  const text = await response.text();
  return { status: response.status, location: response.headers.get('location'), json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function query(token: string, params: string) {
  const response = await fetch(`${rig.url}/micropub?${params}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  [rig, fan, bob] = await Promise.all([openAuthorRig(), startPeer({ name: 'fan' }), startPeer({ name: 'bob' })]);
  await fan.follow(rig.url);
  await fan.waitFor((x) => x.type === 'Accept');
  full = await issueToken(rig.url, rig.core, ['create', 'update', 'delete']);
  createOnly = await issueToken(rig.url, rig.core, ['create']);
});

afterAll(async () => {
  await Promise.all([fan?.close(), bob?.close()]);
  await rig?.close();
});

describe('create', () => {
  it('a form-encoded h-entry becomes a public Note that reaches the follower, with categories as hashtags', async () => {
    const created = await micropub(createOnly, new URLSearchParams([['h', 'entry'], ['content', 'Hello from **Micropub**'], ['category[]', 'indieweb'], ['category[]', 'tern']]));
    expect(created.status).toBe(201);
    const apId = created.location!;
    expect(apId).toMatch(new RegExp(`^${rig.url}/o/`));
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === apId);
    const note = objectOf(create);
    expect(note.type).toBe('Note');
    expect(note.content).toContain('<strong>Micropub</strong>');
    expect(note.tag).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Hashtag', name: '#indieweb' }), expect.objectContaining({ name: '#tern' })]));
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, apId)).get()!.visibility).toBe('PUBLIC');
  });

  it('a JSON h-entry with a name is an Article; photos by URL become links; visibility unlisted is honoured', async () => {
    const created = await micropub(full, {
      type: ['h-entry'],
      properties: { name: ['A title'], content: [{ html: '<p>Body</p>' }], photo: [{ value: 'https://photos.example/cat.jpg', alt: 'A cat' }], visibility: ['unlisted'] },
    });
    expect(created.status).toBe(201);
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    const article = objectOf(create);
    expect(article).toMatchObject({ type: 'Article', name: 'A title' });
    expect(article.content).toContain('<a href="https://photos.example/cat.jpg"');
    expect(article.content).toContain('A cat');
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, created.location!)).get()!.visibility).toBe('UNLISTED');
  });

  it('in-reply-to makes a reply addressed to the parent’s author', async () => {
    const { noteId } = await bob.createNote({ content: '<p>Bob asks</p>' });
    const created = await micropub(createOnly, new URLSearchParams({ h: 'entry', content: 'Bob, an answer', 'in-reply-to': noteId }));
    expect(created.status).toBe(201);
    const create = await bob.waitFor((x) => x.type === 'Create' && x.objectId === created.location);
    expect(objectOf(create).inReplyTo).toBe(noteId);
  });

  it('like-of sends a Like of that object; repost-of an Announce', async () => {
    const { noteId } = await bob.createNote({ content: '<p>Likeable</p>' });
    const liked = await micropub(createOnly, new URLSearchParams({ h: 'entry', 'like-of': noteId }));
    expect(liked.status).toBe(201);
    const like = await bob.waitFor((x) => x.type === 'Like' && x.objectId === noteId);
    expect(liked.location).toBe(like.id);
    const reposted = await micropub(createOnly, { type: ['h-entry'], properties: { 'repost-of': [noteId] } });
    expect(reposted.status).toBe(201);
    const announce = await fan.waitFor((x) => x.type === 'Announce' && x.objectId === noteId);
    expect(reposted.location).toBe(announce.id);
  });

  // Micropub §3.3.2: {html} is HTML. It was stored as the post's text, and published as
  // "<p>&lt;p&gt;Hello &lt;em&gt;…". It is kept as the Markdown that renders the same, so the
  // post edits like any other (q=source).
  it('content {html} is published as that HTML (sanitized), stored as Markdown that edits and renders the same', async () => {
    const html = '<p>Hello <em>world</em> and <strong>all</strong></p><p>A <a href="https://example.org/x">link</a> <a href="javascript:alert(1)" onclick="x()">there</a><script>alert(1)</script></p><ul><li>one</li><li>two</li></ul>';
    const created = await micropub(createOnly, { type: ['h-entry'], properties: { content: [{ html }] } });
    expect(created.status).toBe(201);
    const note = objectOf(await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location));
    const content = String(note.content);
    expect(content).toContain('<p>Hello <em>world</em> and <strong>all</strong></p>');
    expect(content).toMatch(/<a href="https:\/\/example\.org\/x"[^>]*>link<\/a>/);
    expect(content).toContain('<li>one</li>');
    expect(content).not.toMatch(/&lt;|javascript:|onclick|<script/);
    const source = await query(full, `q=source&url=${encodeURIComponent(created.location!)}`);
    expect(source.json).toMatchObject({ properties: { content: ['Hello *world* and **all**\n\nA [link](<https://example.org/x>) there\n\n- one\n- two'] } });
    const updated = await micropub(full, { action: 'update', url: created.location, replace: { content: [{ html: '<p>Now <del>gone</del></p>' }] } });
    expect(updated.status).toBe(200);
    expect(objectOf(await fan.waitFor((x) => x.type === 'Update' && objectOf(x).id === created.location)).content).toBe('<p>Now <del>gone</del></p>');
  });

  it('content {html} whose text looks like Markdown stays that text', async () => {
    const created = await micropub(createOnly, { type: ['h-entry'], properties: { content: [{ html: '<p>2 * 3 = 6, [not](a link) and &lt;b&gt;</p><p>- not a list</p>' }] } });
    const note = objectOf(await fan.waitFor((x) => x.type === 'Create' && x.objectId === created.location));
    expect(note.content).toBe('<p>2 * 3 = 6, [not](a link) and &lt;b&gt;</p>\n<p>- not a list</p>');
  });

  it.each([
    ['no h', new URLSearchParams({ content: 'x' }), /h is missing/],
    ['h=event', new URLSearchParams({ h: 'event', content: 'x' }), /h-entry only/],
    ['empty content', new URLSearchParams({ h: 'entry' }), /Write something/],
    ['a category that is no hashtag', new URLSearchParams({ h: 'entry', content: 'x', category: 'two words' }), /cannot be a hashtag/],
    ['a photo that is not a URL', new URLSearchParams({ h: 'entry', content: 'x', photo: 'cat.jpg' }), /photo/],
    ['an unknown visibility', new URLSearchParams({ h: 'entry', content: 'x', visibility: 'secret' }), /visibility/],
    ['a draft', new URLSearchParams({ h: 'entry', content: 'x', 'post-status': 'draft' }), /no drafts/],
    ['like-of that is not a URL', new URLSearchParams({ h: 'entry', 'like-of': 'nope' }), /like-of/],
  ])('refuses %s with 400 and a reason, storing nothing', async (_name, body, reason) => {
    const before = outboxCount();
    const refused = await micropub(full, body);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(reason) });
    expect(outboxCount()).toBe(before);
  });

  it('refuses a JSON body that is not an h-entry object', async () => {
    const before = outboxCount();
    expect((await micropub(full, { type: 'h-entry' })).status).toBe(400);
    expect(outboxCount()).toBe(before);
  });

  it('a multipart body without files is a post like any other', async () => {
    const form = new FormData();
    form.set('h', 'entry');
    form.set('content', 'multipart words');
    const response = await fetch(`${rig.url}/micropub`, { method: 'POST', headers: { authorization: `Bearer ${createOnly}` }, body: form });
    expect(response.status).toBe(201);
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === response.headers.get('location'));
  });
});

describe('tokens and scopes', () => {
  it.each([
    ['no token', null, {}, 401, 'unauthorized'],
    ['an unknown token', 'nope', {}, 401, 'unauthorized'],
    ['a malformed Authorization header', null, { authorization: 'Token abc' }, 401, 'unauthorized'],
  ])('refuses %s, storing nothing', async (_name, token, headers, status, error) => {
    const before = outboxCount();
    const refused = await micropub(token, new URLSearchParams({ h: 'entry', content: 'x' }), headers);
    expect(refused.status).toBe(status);
    expect(refused.json).toMatchObject({ error });
    expect(outboxCount()).toBe(before);
  });

  it('a token in the body works; in the body and the header at once is refused', async () => {
    const ok = await micropub(null, new URLSearchParams({ h: 'entry', content: 'token in body', access_token: createOnly }));
    expect(ok.status).toBe(201);
    const both = await micropub(createOnly, new URLSearchParams({ h: 'entry', content: 'x', access_token: createOnly }));
    expect(both).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/not both/) } });
  });

  it('a token without the scope gets 403 insufficient_scope naming it; the post is untouched', async () => {
    const created = await micropub(full, new URLSearchParams({ h: 'entry', content: 'keep me' }));
    const url = created.location!;
    const del = await micropub(createOnly, { action: 'delete', url });
    expect(del).toMatchObject({ status: 403, json: { error: 'insufficient_scope', scope: 'delete' } });
    const upd = await micropub(createOnly, { action: 'update', url, replace: { content: ['changed'] } });
    expect(upd).toMatchObject({ status: 403, json: { error: 'insufficient_scope', scope: 'update' } });
    const row = rig.core.db.select().from(outbox).where(eq(outbox.apId, url)).get()!;
    expect(row).toMatchObject({ isDeleted: false, source: 'keep me' });
  });

  it('refuses what Compose would refuse (content over 100,000 characters, a title over 500), storing nothing', async () => {
    const before = outboxCount();
    const long = await micropub(full, new URLSearchParams({ h: 'entry', content: 'x'.repeat(100_001) }));
    expect(long).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: expect.stringMatching(/content/) } });
    const title = await micropub(full, { type: ['h-entry'], properties: { content: ['ok'], name: ['t'.repeat(501)] } });
    expect(title).toMatchObject({ status: 400, json: { error: 'invalid_request', error_description: expect.stringMatching(/title/) } });
    expect(outboxCount()).toBe(before);
    const created = await micropub(full, new URLSearchParams({ h: 'entry', content: 'short' }));
    const grown = await micropub(full, { action: 'update', url: created.location!, replace: { content: ['y'.repeat(100_001)] } });
    expect(grown).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, created.location!)).get()!.source).toBe('short');
  });

  it('a revoked token is refused with 401 (expiry: indieauth.test.ts)', async () => {
    const token = await issueToken(rig.url, rig.core, ['create']);
    await fetch(`${rig.url}/token/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
    const before = outboxCount();
    expect(await micropub(token, new URLSearchParams({ h: 'entry', content: 'x' }))).toMatchObject({ status: 401, json: { error_description: expect.stringMatching(/revoked/) } });
    expect(outboxCount()).toBe(before);
  });
});

describe('update, delete and queries', () => {
  it('update replaces the content and name: an Update reaches the follower; q=source gives the Markdown back', async () => {
    const created = await micropub(full, { type: ['h-entry'], properties: { content: ['first words #tern'], name: ['Old title'] } });
    const url = created.location!;
    const updated = await micropub(full, { action: 'update', url, replace: { content: ['second words'], name: ['New title'] } });
    expect(updated.status).toBe(200);
    const update = await fan.waitFor((x) => x.type === 'Update' && objectOf(x).id === url);
    expect(objectOf(update)).toMatchObject({ name: 'New title', content: '<p>second words</p>' });
    const source = await query(full, `q=source&url=${encodeURIComponent(url)}`);
    expect(source.json).toMatchObject({ type: ['h-entry'], properties: { content: ['second words'], name: ['New title'], url: [url], visibility: ['public'] } });
    const some = await query(full, `q=source&url=${encodeURIComponent(url)}&properties[]=content`);
    expect(some.json).toEqual({ properties: { content: ['second words'] } });
    const noName = await micropub(full, { action: 'update', url, delete: ['name'] });
    expect(noName.status).toBe(200);
    expect((await query(full, `q=source&url=${encodeURIComponent(url)}`)).json.properties).not.toHaveProperty('name');
  });

  it('refuses updates Tern cannot make (categories, add) and of posts that are not the author’s', async () => {
    const created = await micropub(full, new URLSearchParams({ h: 'entry', content: 'fixed' }));
    const url = created.location!;
    expect(await micropub(full, { action: 'update', url, add: { category: ['x'] } })).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/content and name only/) } });
    expect(await micropub(full, { action: 'update', url: 'https://elsewhere.example/post', replace: { content: ['x'] } })).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/not one of your posts/) } });
    expect(await micropub(full, { action: 'update', url: 'not a url' })).toMatchObject({ status: 400 });
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, url)).get()!.source).toBe('fixed');
  });

  it('delete sends a Delete; undelete is refused with a reason', async () => {
    const created = await micropub(full, new URLSearchParams({ h: 'entry', content: 'short-lived' }));
    const url = created.location!;
    await fan.waitFor((x) => x.type === 'Create' && x.objectId === url);
    const deleted = await micropub(full, new URLSearchParams({ action: 'delete', url }));
    expect(deleted.status).toBe(204);
    await fan.waitFor((x) => x.type === 'Delete' && x.objectId === url);
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, url)).get()!.isDeleted).toBe(true);
    expect(await micropub(full, { action: 'undelete', url })).toMatchObject({ status: 400, json: { error_description: expect.stringMatching(/cannot undelete/) } });
  });

  // like-of and repost-of answer with the Like's or Announce's id (Location); deleting that URL
  // was refused as "not one of your posts".
  it('delete of what like-of or repost-of made takes it back: an Undo reaches its peer', async () => {
    const { noteId } = await bob.createNote({ content: '<p>Liked for a moment</p>' });
    const liked = await micropub(full, { type: ['h-entry'], properties: { 'like-of': [noteId] } });
    const reposted = await micropub(full, { type: ['h-entry'], properties: { 'repost-of': [noteId] } });
    expect(await micropub(full, { action: 'delete', url: liked.location })).toMatchObject({ status: 204 });
    await bob.waitFor((x) => x.type === 'Undo' && (x.raw as { object: { id?: string } }).object.id === liked.location);
    expect(await micropub(full, new URLSearchParams({ action: 'delete', url: reposted.location! }))).toMatchObject({ status: 204 });
    await fan.waitFor((x) => x.type === 'Undo' && (x.raw as { object: { id?: string } }).object.id === reposted.location);
    // Once more: nothing left to take back, no error.
    expect(await micropub(full, { action: 'delete', url: liked.location })).toMatchObject({ status: 204 });
    // Liked again: a new Like, with its own URL.
    const again = await micropub(full, { type: ['h-entry'], properties: { 'like-of': [noteId] } });
    expect(again.status).toBe(201);
    expect(again.location).not.toBe(liked.location);
  });

  it('q=source needs a token that may write posts: a profile- or media-only token cannot read a direct post', async () => {
    const created = await micropub(full, { type: ['h-entry'], properties: { content: ['for one reader only'], visibility: ['private'] } });
    const url = created.location!;
    for (const scopes of [['profile'], ['media']]) {
      const token = await issueToken(rig.url, rig.core, scopes);
      const answer = await query(token, `q=source&url=${encodeURIComponent(url)}`);
      expect(answer).toMatchObject({ status: 403, json: { error: 'insufficient_scope' } });
      expect(JSON.stringify(answer.json)).not.toContain('for one reader only');
    }
    expect((await query(createOnly, `q=source&url=${encodeURIComponent(url)}`)).json).toMatchObject({ properties: { content: ['for one reader only'] } });
  });

  it('q=config lists the queries and no syndication targets; q=syndicate-to is empty; an unknown q is refused', async () => {
    expect((await query(createOnly, 'q=config')).json).toMatchObject({ 'syndicate-to': [], q: ['config', 'source', 'syndicate-to'] });
    expect((await query(createOnly, 'q=syndicate-to')).json).toEqual({ 'syndicate-to': [] });
    expect(await query(createOnly, 'q=everything')).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
    const anonymous = await fetch(`${rig.url}/micropub?q=config`);
    expect(anonymous.status).toBe(401);
  });
});
