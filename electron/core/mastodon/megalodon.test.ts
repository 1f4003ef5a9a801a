// The Mastodon API through megalodon, a second independent client library: it registers with
// the out-of-band redirect (the code is shown on the page after the author approves), then
// reads, posts with an image and a poll, favourites and boosts, reads notifications and a
// thread, edits and deletes — and each of Tern's posts reaches the Fedify peer.
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import generator, { type Entity, type MegalodonInterface } from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer } from '../indieauth/test-flow';
import { openMastodonRig, pngBytes, type MastodonRig } from './test-support';

let t: MastodonRig;
let client: MegalodonInterface;

beforeAll(async () => {
  t = await openMastodonRig();
});
afterAll(async () => {
  await t?.close();
});

async function eventually<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let i = 0; i < 50; i++) {
    const found = await read();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

describe('megalodon against Tern', () => {
  it('registers (out of band), the author approves in the app, the page shows the code, the code becomes a token', async () => {
    const anonymous = generator('mastodon', t.url);
    const app = await anonymous.registerApp('Megalodon Desk', { scopes: ['read', 'write', 'follow'] });
    expect(app.redirect_uri).toBe('urn:ietf:wg:oauth:2.0:oob');
    const start = await fetch(app.url!, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const wait = new URL(start.headers.get('location')!, t.url).href;
    expect(await (await fetch(wait)).text()).toContain('Open Tern to approve');
    expect(t.rig.core.services.indieauth.pending()[0]).toMatchObject({ client: { name: 'Megalodon Desk', registered: true }, scopes: ['read', 'write', 'follow'], redirectUri: 'urn:ietf:wg:oauth:2.0:oob' });
    await answer(t.rig.core, true, ['read', 'write', 'follow']);
    const page = await (await fetch(wait)).text();
    const code = /<code class="oob-code">([^<]+)<\/code>/.exec(page)?.[1];
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = await anonymous.fetchAccessToken(app.client_id, app.client_secret, code!);
    expect(token.scope).toBe('read write follow');
    client = generator('mastodon', t.url, token.access_token);
    const me = await client.verifyAccountCredentials();
    expect(me.data).toMatchObject({ id: '0', username: 'alice' });
    expect((await client.getInstance()).data.uri).toBe(new URL(t.url).host);
    expect((await client.getAccount('0')).data.acct).toBe('alice');
  });

  let imagePost: Entity.Status;
  it('posts with an image and a poll; the peer receives them', async () => {
    // megalodon sends files with the form-data package: a stream from disk, as in Node apps.
    const path = join(mkdtempSync(join(tmpdir(), 'tern-megalodon-')), 'square.png');
    writeFileSync(path, await pngBytes(80, 60));
    const file = createReadStream(path);
    const media = (await client.uploadMedia(file, { description: 'A square' })).data as Entity.Attachment;
    expect(media).toMatchObject({ type: 'image', description: 'A square' });
    imagePost = (await client.postStatus('From megalodon', { media_ids: [media.id], visibility: 'public' })).data as Entity.Status;
    expect(imagePost.media_attachments[0]).toMatchObject({ id: media.id, description: 'A square' });
    const create = await t.peer.waitFor((x) => x.type === 'Create' && x.objectId === imagePost.uri);
    expect(await t.peer.receivedAttachments(create.id!)).toEqual([expect.objectContaining({ mediaType: 'image/png', name: 'A square', width: 80, height: 60 })]);
    const poll = (await client.postStatus('Rain tomorrow?', { poll: { options: ['Yes', 'No', 'Maybe'], expires_in: 600, multiple: true } })).data as Entity.Status;
    expect(poll.poll).toMatchObject({ multiple: true, options: [{ title: 'Yes' }, { title: 'No' }, { title: 'Maybe' }] });
    expect((await client.getPoll(poll.id)).data.id).toBe(poll.id);
    await t.peer.waitFor((x) => x.type === 'Create' && x.objectId === poll.uri);
    const home = (await client.getHomeTimeline({ limit: 2 })).data;
    expect(home.map((s) => s.id)).toEqual([poll.id, imagePost.id]);
  });

  it('follows the peer, favourites and boosts its post; Like and Announce reach the peer', async () => {
    const found = (await client.search(t.peer.actorId, { type: 'accounts', resolve: true })).data.accounts[0]!;
    await client.followAccount(found.id);
    await t.peer.waitFor((x) => x.type === 'Follow');
    await new Promise((r) => setTimeout(r, 300));
    const note = await t.peer.createNote({ content: '<p>Kites over the dunes</p>', to: 'public' });
    const status = await eventually(async () => (await client.getHomeTimeline()).data.find((s) => s.uri === note.noteId));
    expect(status?.account.id).toBe(found.id);
    expect((await client.favouriteStatus(status!.id)).data.favourited).toBe(true);
    await t.peer.waitFor((x) => x.type === 'Like' && x.objectId === note.noteId);
    expect((await client.reblogStatus(status!.id)).data.reblog?.uri).toBe(note.noteId);
    await t.peer.waitFor((x) => x.type === 'Announce' && x.objectId === note.noteId);
    expect((await client.getRelationships([found.id])).data[0]).toMatchObject({ following: true, followed_by: true });
  });

  it('reads a favourite notification and a reply in the thread', async () => {
    await t.peer.like(imagePost.uri, t.url);
    const liked = await eventually(async () => (await client.getNotifications()).data.find((n) => n.type === 'favourite' && n.status?.id === imagePost.id));
    expect(liked?.account?.id).not.toBe('0');
    const reply = await t.peer.createNote({ content: '<p>Nice square</p>', inReplyTo: imagePost.uri, mentions: [t.url], to: 'public' });
    const context = await eventually(async () => {
      const c = (await client.getStatusContext(imagePost.id)).data;
      return c.descendants.some((s) => s.uri === reply.noteId) ? c : undefined;
    });
    expect(context?.descendants[0]?.in_reply_to_id).toBe(imagePost.id);
  });

  it('edits and deletes; Update and Delete reach the peer', async () => {
    const edited = (await client.editStatus(imagePost.id, { status: 'From megalodon, edited' })).data;
    expect(edited.content).toContain('edited');
    await t.peer.waitFor((x) => x.type === 'Update' && x.objectId === imagePost.uri);
    await client.deleteStatus(imagePost.id);
    await t.peer.waitFor((x) => x.type === 'Delete' && x.objectId === imagePost.uri);
    await expect(client.getStatus(imagePost.id)).rejects.toMatchObject({ response: { status: 404 } });
  });
});
