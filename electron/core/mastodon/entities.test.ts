// Shape tests: every entity Tern's Mastodon API answers with, checked against the documented
// fields (entity-schemas.ts) — Instance (v1, v2), Account, Status (with media, a poll, a boost
// and a reply), Context, Notification, Poll, MediaAttachment, Relationship, Application, Token —
// plus voting in a peer's poll, pages by max_id/since_id/min_id with Link headers, and CORS.
import { Create, Note, PUBLIC_COLLECTION, Question } from '@fedify/vocab';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inbox, outbox } from '../../../db/schema';
import { instant } from '../../../test/peer/state';
import * as S from './entity-schemas';
import { call, openMastodonRig, pngBytes, signIn, type MastodonRig, eventually as eventuallyAt } from './test-support';

let t: MastodonRig;
let token: string;
const get = (path: string) => call(t, token, 'GET', path);
const ok = async <T extends z.ZodType>(schema: T, response: Promise<{ status: number; json: unknown }>): Promise<z.output<T>> => {
  const { status, json } = await response;
  expect(status).toBe(200);
  return schema.parse(json);
};
/** Polls as the test-support helper does, at this file's pace (60 looks, 100 ms apart). */
const eventually = <T>(read: () => Promise<T | undefined>) => eventuallyAt(read, { tries: 60, everyMs: 100 });

let imageStatus: z.output<typeof S.Status>;
let peerAccountId = '';

beforeAll(async () => {
  t = await openMastodonRig();
  token = (await signIn(t, ['read', 'write', 'follow'])).token;
  // A post with an image, one with a poll, the peer followed, its post boosted, a reply and a like from it.
  const form = new FormData();
  form.set('file', new File([new Uint8Array(await pngBytes(30, 20))], 'x.png', { type: 'image/png' }));
  form.set('description', 'Tiny');
  const media = (await (await fetch(`${t.url}/api/v2/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()) as { id: string };
  imageStatus = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'With a #picture', media_ids: [media.id], spoiler_text: 'tiny image', sensitive: true })).json);
  await call(t, token, 'POST', '/api/v1/statuses', { status: 'Which?', poll: { options: ['A', 'B'], expires_in: 600 }, visibility: 'unlisted' });
  const search = (await get(`/api/v2/search?q=${encodeURIComponent(t.peer.actorId)}&resolve=true&type=accounts`)).json as { accounts: { id: string }[] };
  peerAccountId = search.accounts[0]!.id;
  await call(t, token, 'POST', `/api/v1/accounts/${peerAccountId}/follow`);
  await t.peer.waitFor((x) => x.type === 'Follow');
  await new Promise((r) => setTimeout(r, 300));
  const note = await t.peer.createNote({ content: '<p>Peer post</p>', to: 'public', tags: ['birds'] });
  const peerStatus = await eventually(async () => ((await get('/api/v1/timelines/home')).json as { id: string; uri: string }[]).find((s) => s.uri === note.noteId));
  await call(t, token, 'POST', `/api/v1/statuses/${peerStatus.id}/reblog`);
  await t.peer.createNote({ content: '<p>Nice</p>', inReplyTo: imageStatus.uri, mentions: [t.url], to: 'public' });
  await t.peer.like(imageStatus.uri, t.url);
  await eventually(async () => (((await get('/api/v1/notifications')).json as unknown[]).length >= 3 ? true : undefined));
});
afterAll(async () => {
  await t?.close();
});

describe('entities have Mastodon’s documented shape', () => {
  it('Instance v2 and v1, Application and Token', async () => {
    await ok(S.InstanceV2, call(t, null, 'GET', '/api/v2/instance'));
    await ok(S.InstanceV1, call(t, null, 'GET', '/api/v1/instance'));
    const app = await ok(S.Application, call(t, null, 'POST', '/api/v1/apps', { client_name: 'Shape', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }));
    expect(app.scopes).toEqual(['read']);
  });

  it('Account: the author (with source) and the peer', async () => {
    const me = await ok(S.Account.extend({ source: z.object({ privacy: z.string(), sensitive: z.boolean(), note: z.string(), fields: z.array(z.unknown()) }) }), get('/api/v1/accounts/verify_credentials'));
    expect(me).toMatchObject({ id: '0', acct: 'alice', followers_count: 1, following_count: 1, statuses_count: 2 });
    const peer = await ok(S.Account, get(`/api/v1/accounts/${peerAccountId}`));
    expect(peer).toMatchObject({ username: 'fan', uri: t.peer.actorId });
    expect(await ok(S.Account, get(`/api/v1/accounts/lookup?acct=alice`))).toMatchObject({ id: '0' });
  });

  it('Status: home has a boost (reblog wrapper), a poll and media; the status and its source', async () => {
    const home = await ok(z.array(S.Status), get('/api/v1/timelines/home'));
    const boost = home.find((s) => s.reblog !== null);
    expect(boost?.reblog?.account.id).toBe(peerAccountId);
    expect(boost?.account.id).toBe('0');
    expect(home.find((s) => s.poll !== null)?.visibility).toBe('unlisted');
    const image = await ok(S.Status, get(`/api/v1/statuses/${imageStatus.id}`));
    expect(image).toMatchObject({ sensitive: true, spoiler_text: 'tiny image', tags: [{ name: 'picture' }], media_attachments: [{ type: 'image', description: 'Tiny' }] });
    await ok(S.MediaAttachment, get(`/api/v1/media/${image.media_attachments[0]!.id}`));
  });

  it('Context, Notification (mention, favourite, follow, …) and Relationship', async () => {
    const context = await ok(S.Context, get(`/api/v1/statuses/${imageStatus.id}/context`));
    expect(context.descendants[0]?.in_reply_to_id).toBe(imageStatus.id);
    const notifications = await ok(z.array(S.Notification), get('/api/v1/notifications'));
    expect(new Set(notifications.map((n) => n.type))).toEqual(new Set(['mention', 'favourite', 'follow']));
    const [relationship] = await ok(z.array(S.Relationship), get(`/api/v1/accounts/relationships?id[]=${peerAccountId}`));
    expect(relationship).toMatchObject({ following: true, followed_by: true });
  });

  it("a peer's post with a custom emoji lists it in the status's emojis, with the picture's own URL", async () => {
    const note = await t.peer.createNote({ content: '<p>Low tide :kelp:</p>', to: 'public', emojis: [{ shortcode: 'kelp', url: 'https://pictures.example/kelp.png' }] });
    const status = S.Status.parse(await eventually(async () => ((await get('/api/v1/timelines/home')).json as { uri: string }[]).find((s) => s.uri === note.noteId)));
    expect(status.emojis).toEqual([{ shortcode: 'kelp', url: 'https://pictures.example/kelp.png', static_url: 'https://pictures.example/kelp.png', visible_in_picker: false }]);
    expect(status.content).toContain(':kelp:');
  });

  it("a post's first link preview is its status's card (Mastodon's PreviewCard, a link card)", async () => {
    const note = await t.peer.createNote({ content: '<p>Read <a href="https://news.example/tides">this</a></p>', to: 'public' });
    await eventually(async () => ((await get('/api/v1/timelines/home')).json as { uri: string }[]).find((s) => s.uri === note.noteId));
    const preview = { url: 'https://news.example/tides', title: 'Tide tables', description: 'When the sea comes in', image: 'https://news.example/tide.jpg', site_name: 'News' };
    t.rig.core.db.update(inbox).set({ ogMeta: [preview] }).where(eq(inbox.apId, note.noteId)).run();
    const status = S.Status.parse(((await get('/api/v1/timelines/home')).json as { uri: string }[]).find((s) => s.uri === note.noteId));
    expect(status.card).toEqual({
      url: 'https://news.example/tides',
      title: 'Tide tables',
      description: 'When the sea comes in',
      type: 'link',
      author_name: '',
      author_url: '',
      provider_name: 'News',
      provider_url: '',
      html: '',
      width: 0,
      height: 0,
      image: 'https://news.example/tide.jpg',
      embed_url: '',
      blurhash: null,
    });
    // A post with media has no card, even with a preview stored.
    t.rig.core.db.update(outbox).set({ ogMeta: [preview] }).where(eq(outbox.apId, imageStatus.uri)).run();
    expect(S.Status.parse((await get(`/api/v1/statuses/${imageStatus.id}`)).json).card).toBeNull();
  });

  it("a quote post's status carries the quoted status (Mastodon 4.5's quote), and no card", async () => {
    const quoted = await t.peer.createNote({ content: '<p>The original</p>', to: 'public' });
    const quoting = await t.peer.createNote({ content: `<p>So true</p><p class="quote-inline">RE: <a href="${quoted.noteId}">${quoted.noteId}</a></p>`, to: 'public' });
    await eventually(async () => ((await get('/api/v1/timelines/home')).json as { uri: string }[]).find((s) => s.uri === quoting.noteId));
    const row = t.rig.core.db.select().from(inbox).where(eq(inbox.apId, quoting.noteId)).get()!;
    t.rig.core.db.update(inbox).set({ apObject: { ...row.apObject, quote: quoted.noteId }, ogMeta: [{ url: quoted.noteId, title: 'A card', image: null, description: null, site_name: null }] }).where(eq(inbox.id, row.id)).run();
    const statuses = (await get('/api/v1/timelines/home')).json as { uri: string }[];
    const status = statuses.find((s) => s.uri === quoting.noteId) as unknown as { quote: { state: string; quoted_status: { uri: string; content: string } }; card: unknown; content: string };
    expect(status.quote.state).toBe('accepted');
    expect(status.quote.quoted_status.uri).toBe(quoted.noteId);
    expect(status.quote.quoted_status.content).toContain('The original');
    expect(status.card).toBeNull();
    expect(status.content).toContain('class="quote-inline"');
    const plain = statuses.find((s) => s.uri === quoted.noteId) as unknown as { quote: unknown };
    expect(plain.quote).toBeNull();
    // A quote of a quote (here a cycle: the original quotes it back) is given by id only, once.
    const original = t.rig.core.db.select().from(inbox).where(eq(inbox.apId, quoted.noteId)).get()!;
    t.rig.core.db.update(inbox).set({ apObject: { ...original.apObject, quoteUrl: quoting.noteId } }).where(eq(inbox.id, original.id)).run();
    const again = ((await get('/api/v1/timelines/home')).json as { uri: string; id: string }[]).find((s) => s.uri === quoting.noteId) as unknown as {
      id: string;
      quote: { quoted_status: { quote: { state: string; quoted_status_id: string } } };
    };
    expect(again.quote.quoted_status.quote).toEqual({ state: 'accepted', quoted_status_id: again.id });
  });

  it('a mention of the author written with the slash Fedify adds to our bare-origin id lists the author’s account', async () => {
    const notifications = await ok(z.array(S.Notification), get('/api/v1/notifications?types[]=mention'));
    const status = notifications.find((n) => n.type === 'mention')?.status;
    const raw = t.rig.core.db.select().from(inbox).all().find((r) => r.apId === status?.uri);
    expect([(raw?.apObject as { tag?: unknown }).tag].flat().map((tag) => (tag as { href?: string } | undefined)?.href)).toContain(`${t.url}/`);
    const me = await ok(S.Account, get('/api/v1/accounts/verify_credentials'));
    expect(status?.mentions.map((m) => m.id)).toEqual([me.id]);
  });

  it('Poll: voting in the peer’s poll through the API reaches the peer', async () => {
    const questionId = t.peer.newId('questions');
    const question = new Question({
      id: questionId,
      attribution: new URL(t.peer.actorId),
      content: 'Lunch?',
      exclusiveOptions: [new Note({ name: 'Soup' }), new Note({ name: 'Salad' })],
      endTime: await instant(new Date(Date.now() + 3_600_000)),
      to: PUBLIC_COLLECTION,
    });
    await t.peer.send(new Create({ id: t.peer.newId('creates'), actor: new URL(t.peer.actorId), object: question, to: PUBLIC_COLLECTION }), [t.url]);
    const status = await eventually(async () => ((await get('/api/v1/timelines/home')).json as { id: string; uri: string }[]).find((s) => s.uri === questionId.href));
    const before = await ok(S.Poll, get(`/api/v1/polls/${status.id}`));
    expect(before).toMatchObject({ voted: false, options: [{ title: 'Soup' }, { title: 'Salad' }] });
    const after = await ok(S.Poll, call(t, token, 'POST', `/api/v1/polls/${status.id}/votes`, { choices: [1] }));
    expect(after).toMatchObject({ voted: true, own_votes: [1] });
    await t.peer.waitFor((x) => x.type === 'Create' && (x.raw as { object?: { name?: string } }).object?.name === 'Salad');
  });
});

describe('pages and headers', () => {
  it('max_id, since_id and min_id cut the home timeline; Link names the next and previous pages', async () => {
    const all = ((await get('/api/v1/timelines/home?limit=40')).json as { id: string }[]).map((s) => s.id);
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect([...all].sort().reverse()).toEqual(all);
    const first = await get('/api/v1/timelines/home?limit=2');
    expect((first.json as { id: string }[]).map((s) => s.id)).toEqual(all.slice(0, 2));
    const link = first.headers.get('link')!;
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    expect(new URL(next).searchParams.get('max_id')).toBe(all[1]);
    const second = await call(t, token, 'GET', new URL(next).pathname + new URL(next).search);
    expect((second.json as { id: string }[]).map((s) => s.id)).toEqual(all.slice(2, 4));
    expect(((await get(`/api/v1/timelines/home?since_id=${all[2]}`)).json as { id: string }[]).map((s) => s.id)).toEqual(all.slice(0, 2));
    expect(((await get(`/api/v1/timelines/home?min_id=${all[3]}&limit=1`)).json as { id: string }[]).map((s) => s.id)).toEqual([all[2]]);
  });

  it('notifications page by id; one can be read, dismissed, and then all cleared', async () => {
    const all = (await get('/api/v1/notifications')).json as { id: string }[];
    expect(((await get(`/api/v1/notifications?max_id=${all[0]!.id}`)).json as { id: string }[]).map((n) => n.id)).toEqual(all.slice(1).map((n) => n.id));
    const grouped = (await get('/api/v2/notifications')).json as { accounts: unknown[]; statuses: unknown[]; notification_groups: { most_recent_notification_id: string; sample_account_ids: string[] }[] };
    expect(grouped.notification_groups.map((g) => g.most_recent_notification_id)).toEqual(all.map((n) => n.id));
    z.array(S.Account).parse(grouped.accounts);
    z.array(S.Status).parse(grouped.statuses);
    expect((await get(`/api/v1/notifications/${all[0]!.id}`)).status).toBe(200);
    expect((await call(t, token, 'POST', `/api/v1/notifications/${all[0]!.id}/dismiss`)).status).toBe(200);
    expect((await get(`/api/v1/notifications/${all[0]!.id}`)).status).toBe(404);
    expect((await call(t, token, 'POST', '/api/v1/notifications/clear')).status).toBe(200);
    expect((await get('/api/v1/notifications')).json).toEqual([]);
  });

  it('a status sent twice with the same Idempotency-Key is posted once', async () => {
    const count = () => (t.rig.core.sqlite.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    const send = () => fetch(`${t.url}/api/v1/statuses`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'retry-1' }, body: JSON.stringify({ status: 'Once only' }) });
    const before = count();
    const [first, second] = [(await (await send()).json()) as { id: string }, (await (await send()).json()) as { id: string }];
    expect(second.id).toBe(first.id);
    expect(count()).toBe(before + 1);
  });

  it('CORS: /api and /oauth/token answer browsers; the preflight too', async () => {
    const preflight = await fetch(`${t.url}/api/v1/timelines/home`, { method: 'OPTIONS', headers: { origin: 'https://elk.zone', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect((await get('/api/v1/timelines/home')).headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(`${t.url}/oauth/token`, { method: 'OPTIONS' })).headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(`${t.url}/oauth/authorize`)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('empty but valid: custom emojis, filters, lists, announcements, bookmarks, favourites, conversations', async () => {
    for (const path of ['/api/v1/custom_emojis', '/api/v1/filters', '/api/v2/filters', '/api/v1/lists', '/api/v1/announcements', '/api/v1/bookmarks']) {
      expect((await get(path)).json).toEqual([]);
    }
    expect(((await get('/api/v1/favourites')).json as unknown[]).length).toBe(0);
    await ok(z.array(z.object({ id: z.string(), accounts: z.array(S.Account), last_status: S.Status.nullable(), unread: z.boolean() })), get('/api/v1/conversations'));
  });
});
