// The Mastodon API through masto.js, an independent client library: register, sign in through
// the consent flow (the author approves as the Apps view does), read, post with an image and a
// poll, favourite and boost, notifications and a thread, edit and delete — and what Tern posts
// reaches a Fedify peer.
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAndCollect, APP_REDIRECT, openMastodonRig, pngBytes, type MastodonRig } from './test-support';

let t: MastodonRig;
let masto: mastodon.rest.Client;

beforeAll(async () => {
  t = await openMastodonRig();
});
afterAll(async () => {
  await t?.close();
});

describe('masto.js against Tern', () => {
  it('registers an app and signs in through the consent flow; the token works', async () => {
    const anonymous = createRestAPIClient({ url: t.url });
    const app = await anonymous.v1.apps.create({ clientName: 'Masto Phone', redirectUris: APP_REDIRECT, scopes: 'read write follow push', website: 'https://phone.example' });
    expect(app.clientId).toMatch(/^tern-app-/);
    const authorize = new URL(`${t.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ client_id: app.clientId!, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'read write follow push' })) authorize.searchParams.set(k, v);
    const code = await approveAndCollect(t, authorize.href, ['read', 'write', 'follow']);
    const oauth = createOAuthAPIClient({ url: t.url });
    const token = await oauth.token.create({ grantType: 'authorization_code', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: APP_REDIRECT, code });
    expect(token.scope).toBe('read write follow');
    masto = createRestAPIClient({ url: t.url, accessToken: token.accessToken });
    const me = await masto.v1.accounts.verifyCredentials();
    expect(me).toMatchObject({ id: '0', username: 'alice', acct: 'alice', displayName: 'Alice Example' });
    expect(t.rig.core.services.indieauth.apps()).toEqual([expect.objectContaining({ clientName: 'Masto Phone', expiresAt: null, scopes: ['read', 'write', 'follow'] })]);
  });

  it('reads the instance (v1 and v2), preferences and the account by id', async () => {
    const v2 = await masto.v2.instance.fetch();
    expect(v2.domain).toBe(new URL(t.url).host);
    expect(v2.configuration.statuses.maxMediaAttachments).toBe(4);
    const v1 = await masto.v1.instance.fetch();
    expect(v1.uri).toBe(new URL(t.url).host);
    const prefs = await masto.v1.preferences.fetch();
    expect(prefs['posting:default:visibility']).toBe('public');
    expect((await masto.v1.accounts.$select('0').fetch()).username).toBe('alice');
  });

  let imagePostId = '';
  let pollPostId = '';
  it('posts with an image (alt text) and a poll; the peer receives both', async () => {
    const media = await masto.v2.media.create({ file: new Blob([new Uint8Array(await pngBytes())], { type: 'image/png' }), description: 'An orange square' });
    expect(media).toMatchObject({ type: 'image', description: 'An orange square' });
    const post = await masto.v1.statuses.create({ status: 'Hello from my phone', mediaIds: [media.id], visibility: 'public' });
    imagePostId = post.id;
    expect(post.mediaAttachments).toEqual([expect.objectContaining({ id: media.id, type: 'image', description: 'An orange square' })]);
    const create = await t.peer.waitFor((x) => x.type === 'Create' && x.objectId === post.uri);
    const [attachment] = await t.peer.receivedAttachments(create.id!);
    expect(attachment).toMatchObject({ mediaType: 'image/png', name: 'An orange square', width: 64, height: 48 });

    const poll = await masto.v1.statuses.create({ status: 'Tea or coffee?', poll: { options: ['Tea', 'Coffee'], expiresIn: 3600 } });
    pollPostId = poll.id;
    expect(poll.poll).toMatchObject({ multiple: false, options: [{ title: 'Tea' }, { title: 'Coffee' }] });
    const question = await t.peer.waitFor((x) => x.type === 'Create' && x.objectId === poll.uri);
    expect(JSON.stringify(question.json)).toContain('Coffee');
  });

  it('reads the home timeline, newest first, with Link pages', async () => {
    const page = await masto.v1.timelines.home.list({ limit: 1 });
    expect(page.map((s) => s.id)).toEqual([pollPostId]);
    const older = await masto.v1.timelines.home.list({ limit: 5, maxId: pollPostId });
    expect(older.map((s) => s.id)).toContain(imagePostId);
    const newer = await masto.v1.timelines.home.list({ minId: imagePostId });
    expect(newer.map((s) => s.id)).toEqual([pollPostId]);
  });

  it('follows the peer, sees its post, favourites and boosts it; the peer receives Like and Announce', async () => {
    const [found] = (await masto.v2.search.list({ q: t.peer.actorId, resolve: true, type: 'accounts' })).accounts;
    expect(found?.url).toBeTruthy();
    const relationship = await masto.v1.accounts.$select(found!.id).follow();
    expect(relationship.following || relationship.requested).toBe(true);
    await t.peer.waitFor((x) => x.type === 'Follow');
    await new Promise((r) => setTimeout(r, 300));
    const note = await t.peer.createNote({ content: '<p>Fresh bread today</p>', to: 'public' });
    let status: mastodon.v1.Status | undefined;
    for (let i = 0; i < 50 && !status; i++) {
      status = (await masto.v1.timelines.home.list()).find((s) => s.uri === note.noteId);
      if (!status) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status?.content).toContain('Fresh bread today');
    expect((await masto.v1.statuses.$select(status!.id).favourite()).favourited).toBe(true);
    await t.peer.waitFor((x) => x.type === 'Like' && x.objectId === note.noteId);
    const reblog = await masto.v1.statuses.$select(status!.id).reblog();
    expect(reblog.reblog?.uri).toBe(note.noteId);
    await t.peer.waitFor((x) => x.type === 'Announce' && x.objectId === note.noteId);
  });

  it('reads a reply as a mention notification and the thread around it', async () => {
    const post = await masto.v1.statuses.$select(imagePostId).fetch();
    const reply = await t.peer.createNote({ content: '<p>Lovely colour</p>', inReplyTo: post.uri, mentions: [t.url], to: 'public' });
    let mention: mastodon.v1.Notification | undefined;
    for (let i = 0; i < 50 && !mention; i++) {
      mention = (await masto.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === reply.noteId);
      if (!mention) await new Promise((r) => setTimeout(r, 100));
    }
    expect(mention?.account.url).toBeTruthy();
    expect(mention!.status!.inReplyToId).toBe(imagePostId);
    const context = await masto.v1.statuses.$select(imagePostId).context.fetch();
    expect(context.descendants.map((s) => s.uri)).toContain(reply.noteId);
  });

  it('edits and deletes a post; the peer receives Update and Delete', async () => {
    const edited = await masto.v1.statuses.$select(imagePostId).update({ status: 'Hello from my phone (edited)', mediaIds: [(await masto.v1.statuses.$select(imagePostId).fetch()).mediaAttachments[0]!.id] });
    expect(edited.content).toContain('(edited)');
    expect(edited.editedAt).not.toBeNull();
    await t.peer.waitFor((x) => x.type === 'Update' && x.objectId === edited.uri);
    const history = await masto.v1.statuses.$select(imagePostId).history.list();
    expect(history).toHaveLength(2);
    const source = await masto.v1.statuses.$select(imagePostId).source.fetch();
    expect(source.text).toBe('Hello from my phone (edited)');
    await masto.v1.statuses.$select(imagePostId).remove();
    await t.peer.waitFor((x) => x.type === 'Delete' && x.objectId === edited.uri);
    await expect(masto.v1.statuses.$select(imagePostId).fetch()).rejects.toThrow();
  });
});
