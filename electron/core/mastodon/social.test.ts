// The author's social side through the Mastodon API: a follow request answered from the phone
// (the requester receives the Accept), unfollowing (the peer receives the Undo), bookmarks,
// favourites, pins, the author's statuses, the public and tag timelines, direct posts as
// conversations, and search by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startPeer, type Peer } from '../../../test/peer/peer';
import { createSettingsService } from '../settings-service';
import * as S from './entity-schemas';
import { call, openMastodonRig, signIn, type MastodonRig, eventually as eventuallyAt } from './test-support';

let t: MastodonRig;
let token: string;
let stranger: Peer;
const get = (path: string) => call(t, token, 'GET', path);
const post = (path: string, body?: unknown) => call(t, token, 'POST', path, body);
/** Polls as the test-support helper does, at this file's pace (60 looks, 100 ms apart). */
const eventually = <T>(read: () => Promise<T | undefined>) => eventuallyAt(read, { tries: 60, everyMs: 100 });
const ids = (json: unknown) => (json as { id: string }[]).map((s) => s.id);

beforeAll(async () => {
  t = await openMastodonRig();
  stranger = await startPeer({ name: 'stranger' });
  token = (await signIn(t, ['read', 'write', 'follow'])).token;
});
afterAll(async () => {
  await stranger?.close();
  await t?.close();
});

describe('people', () => {
  it('a follow request is listed and authorized from the phone; the requester receives the Accept', async () => {
    await createSettingsService(t.rig.core).update({ manuallyApprovesFollowers: true });
    await stranger.follow(t.url);
    const requests = await eventually(async () => {
      const list = (await get('/api/v1/follow_requests')).json as z.output<typeof S.Account>[];
      return list.length > 0 ? list : undefined;
    });
    expect(requests[0]).toMatchObject({ username: 'stranger' });
    const relationship = S.Relationship.parse((await post(`/api/v1/follow_requests/${requests[0]!.id}/authorize`)).json);
    expect(relationship.followed_by).toBe(true);
    await stranger.waitFor((x) => x.type === 'Accept');
    expect((await get('/api/v1/follow_requests')).json).toEqual([]);
    const followers = S.Account.array().parse((await get('/api/v1/accounts/0/followers')).json);
    expect(followers.map((a) => a.username).sort()).toEqual(['fan', 'stranger']);
  });

  it('search finds a known account by name; follow then unfollow reaches the peer as Follow and Undo', async () => {
    const [found] = S.Account.array().parse((await get('/api/v1/accounts/search?q=stranger')).json);
    expect(found?.acct).toContain('stranger');
    await post(`/api/v1/accounts/${found!.id}/follow`);
    await stranger.waitFor((x) => x.type === 'Follow');
    const after = S.Relationship.parse((await post(`/api/v1/accounts/${found!.id}/unfollow`)).json);
    expect(after).toMatchObject({ following: false, requested: false });
    await stranger.waitFor((x) => x.type === 'Undo');
  });
});

describe('the profile', () => {
  it('update_credentials changes the name, note and approval through the settings service; followers receive the Update', async () => {
    const mark = t.peer.received.length;
    const me = S.Account.parse((await call(t, token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Alice at Sea', note: 'Now on a *boat*.', locked: false })).json);
    expect(me).toMatchObject({ display_name: 'Alice at Sea', locked: false });
    expect(me.note).toContain('<em>boat</em>');
    expect(t.rig.core.settings.get()).toMatchObject({ displayName: 'Alice at Sea', summary: 'Now on a *boat*.' });
    const update = await t.peer.waitFor((x) => x.type === 'Update' && x.seq >= mark);
    expect(JSON.stringify(update.json)).toContain('Alice at Sea');
  });
});

describe('lists of statuses', () => {
  it('pins, the author’s statuses, public and tag timelines, bookmarks and favourites, conversations', async () => {
    const a = S.Status.parse((await post('/api/v1/statuses', { status: 'First #gulls' })).json);
    const b = S.Status.parse((await post('/api/v1/statuses', { status: 'Only for followers', visibility: 'private' })).json);
    const dm = S.Status.parse((await post('/api/v1/statuses', { status: `Hi @fan@${new URL(t.peer.actorId).host}`, visibility: 'direct' })).json);
    expect(S.Status.parse((await post(`/api/v1/statuses/${a.id}/pin`)).json).pinned).toBe(true);
    expect(ids((await get('/api/v1/accounts/0/statuses?pinned=true')).json)).toEqual([a.id]);
    expect(ids((await get('/api/v1/accounts/0/statuses')).json)).toEqual([dm.id, b.id, a.id]);
    expect(ids((await get('/api/v1/timelines/public?local=true')).json)).toEqual([a.id]);
    expect(ids((await get('/api/v1/timelines/tag/gulls')).json)).toEqual([a.id]);
    expect(ids((await get('/api/v1/conversations')).json as unknown[] as { id: string }[])).toEqual([dm.id]);
    expect(S.Status.parse((await post(`/api/v1/statuses/${a.id}/unpin`)).json).pinned).toBe(false);

    // The peer's post: bookmarked and favourited, then listed.
    const [fan] = S.Account.array().parse((await get(`/api/v1/accounts/search?q=${encodeURIComponent(t.peer.actorId)}&resolve=true`)).json);
    await post(`/api/v1/accounts/${fan!.id}/follow`);
    await t.peer.waitFor((x) => x.type === 'Follow');
    await new Promise((r) => setTimeout(r, 300));
    const note = await t.peer.createNote({ content: '<p>Low tide</p>', to: 'public' });
    const theirs = await eventually(async () => (S.Status.array().parse((await get('/api/v1/timelines/home')).json)).find((s) => s.uri === note.noteId));
    expect(S.Status.parse((await post(`/api/v1/statuses/${theirs.id}/bookmark`)).json).bookmarked).toBe(true);
    expect(S.Status.parse((await post(`/api/v1/statuses/${theirs.id}/favourite`)).json).favourited).toBe(true);
    expect(ids((await get('/api/v1/bookmarks')).json)).toEqual([theirs.id]);
    expect(ids((await get('/api/v1/favourites')).json)).toEqual([theirs.id]);
    expect(ids((await get(`/api/v1/accounts/${fan!.id}/statuses`)).json)).toEqual([theirs.id]);
    expect(ids((await get('/api/v1/timelines/public?remote=true')).json)).toEqual([theirs.id]);
    expect(S.Status.parse((await post(`/api/v1/statuses/${theirs.id}/unbookmark`)).json).bookmarked).toBe(false);
    expect(S.Status.parse((await post(`/api/v1/statuses/${theirs.id}/unfavourite`)).json).favourited).toBe(false);
    await t.peer.waitFor((x) => x.type === 'Undo');
    expect((await get('/api/v1/bookmarks')).json).toEqual([]);
  });

  it("a followed account's video whose hashtags have no link (PeerTube's, Funkwhale's) is in the tag timeline, its tags linked to the author's tag page", async () => {
    // PeerTube names a Video's tags without '#' and without href; Funkwhale with '#', without href.
    const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
    const id = t.peer.newId('videos').href;
    const video = { id, type: 'Video', name: 'A film', attributedTo: t.peer.actorId, to: [PUBLIC], content: '<p>about boats</p>', tag: [{ type: 'Hashtag', name: 'boats' }, { type: 'Hashtag', name: '#Sails' }] };
    const sent = await t.peer.postSigned(`${t.url}/inbox`, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${id}/activity`, type: 'Create', actor: t.peer.actorId, to: [PUBLIC], object: video });
    expect(sent.status).toBe(202);
    const status = await eventually(async () => S.Status.array().parse((await get('/api/v1/timelines/tag/boats')).json).find((x) => x.uri === id));
    expect(status.tags).toEqual([
      { name: 'boats', url: `${t.url}/t/boats` },
      { name: 'Sails', url: `${t.url}/t/sails` },
    ]);
    expect(ids((await get('/api/v1/timelines/tag/sails')).json)).toEqual([status.id]);
  });
});

describe('quote posts from an app (Mastodon 4.5 quoted_status_id)', () => {
  it('posts a quote of a status by its id (and by Fedibird’s quote_id); an unknown id is refused', async () => {
    const original = S.Status.parse((await post('/api/v1/statuses', { status: 'Worth quoting' })).json);
    const quoting = (await post('/api/v1/statuses', { status: 'Quoting myself', quoted_status_id: original.id })).json as { quote: { state: string; quoted_status: { id: string } } };
    expect(quoting.quote).toMatchObject({ state: 'accepted', quoted_status: { id: original.id } });
    const older = (await post('/api/v1/statuses', { status: 'Again', quote_id: original.id })).json as { quote: { quoted_status: { id: string } } };
    expect(older.quote.quoted_status.id).toBe(original.id);
    expect((await post('/api/v1/statuses', { status: 'No', quoted_status_id: '1234567890123' })).status).toBe(404);
  });
});

describe('parameters as clients send them', () => {
  it('form-encoded with Rails nesting (poll[options][]= and indexed poll[options][0]=), and ids as JSON numbers', async () => {
    const form = (body: string) =>
      fetch(`${t.url}/api/v1/statuses`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body }).then(async (r) => ({ status: r.status, json: (await r.json()) as unknown }));
    const brackets = await form('status=Sea+or+hills%3F&poll[options][]=Sea&poll[options][]=Hills&poll[expires_in]=600&poll[multiple]=true&visibility=unlisted');
    expect(S.Status.parse(brackets.json)).toMatchObject({ visibility: 'unlisted', poll: { multiple: true, options: [{ title: 'Sea' }, { title: 'Hills' }] } });
    const indexed = await form('status=Which&poll[options][1]=Second&poll[options][0]=First&poll[expires_in]=600');
    expect(S.Status.parse(indexed.json).poll?.options.map((o) => o.title)).toEqual(['First', 'Second']);
    const parent = S.Status.parse(brackets.json);
    const reply = await call(t, token, 'POST', '/api/v1/statuses', { status: 'A reply', in_reply_to_id: parent.id, media_ids: [] });
    expect(S.Status.parse(reply.json).in_reply_to_id).toBe(parent.id);
    const numeric = await call(t, token, 'POST', '/api/v1/statuses', { status: 'x', media_ids: [123456] });
    expect(numeric.status).toBe(422);
    expect((numeric.json as { error: string }).error).not.toMatch(/is not an id/);
  });
});
