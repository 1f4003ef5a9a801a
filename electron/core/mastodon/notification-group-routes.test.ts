// One notification group by its key (GET /api/v2/notifications/:group_key, its /accounts, and
// POST …/dismiss), raw and through masto.js: three likes of one post (the rig's follower and two
// more Fedify peers), a 🎉 and a custom emoji whose shortcode holds a '-', delivered signed.
import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { notifications } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import * as S from './entity-schemas';
import { MAX_GROUP_ROWS_READ } from './notification-group-routes';
import { call, openMastodonRig, signIn, type MastodonRig, eventually } from './test-support';

const AS = 'https://www.w3.org/ns/activitystreams';

let t: MastodonRig;
let pal: Peer;
let kin: Peer;
let token: string;
let party: z.infer<typeof S.Status>;

const get = async (path: string) => {
  const { status, json, headers } = await call(t, token, 'GET', path);
  expect(status).toBe(200);
  return { json, headers };
};
const grouped = async (query = '') => S.GroupedNotifications.parse((await get(`/api/v2/notifications${query}`)).json);
const listed = async () => z.array(S.Notification).parse((await get('/api/v1/notifications')).json).length;
const group = async (type: string, emoji?: string) => (await grouped()).notification_groups.find((g) => g.type === type && (emoji === undefined || g.emoji === emoji))!;

/** Waits for one more notification, so they come in the order sent. */
async function oneMore(send: () => Promise<unknown>): Promise<void> {
  const before = await listed();
  await send();
  await eventually(async () => ((await listed()) > before ? true : undefined));
}

beforeAll(async () => {
  [t, pal, kin] = await Promise.all([openMastodonRig(), startPeer({ name: 'pal' }), startPeer({ name: 'kin' })]);
  token = (await signIn(t, ['read', 'write'])).token;
  t.rig.core.db.delete(notifications).run();
  party = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Party' })).json);
  const own = ((await get('/api/v1/accounts/verify_credentials')).json as { url: string }).url;
  for (const peer of [t.peer, pal, kin]) await oneMore(() => peer.like(party.uri, own));
  const react = (from: Peer, extra: Record<string, unknown>) => () => from.postSigned(`${t.url}/inbox`, { '@context': AS, id: from.newId('reactions').href, actor: from.actorId, type: 'EmojiReact', object: party.uri, ...extra });
  await oneMore(react(pal, { content: '🎉' }));
  await oneMore(react(kin, { content: ':blob-cat:', tag: [{ type: 'Emoji', name: 'blob-cat', icon: { type: 'Image', url: 'https://kin.example/blob-cat.png' } }] }));
});
afterAll(async () => {
  await Promise.all([pal?.close(), kin?.close()]);
  await t?.close();
});

describe('one notification group by its key', () => {
  it('GET gives the group as the list does, with its accounts and status; a reaction key sent encoded or not', async () => {
    const list = await grouped();
    expect(list.notification_groups.map((g) => [g.type, g.emoji ?? null, g.notifications_count])).toEqual([
      ['pleroma:emoji_reaction', ':blob-cat:', 1],
      ['pleroma:emoji_reaction', '🎉', 1],
      ['favourite', null, 3],
    ]);
    for (const g of list.notification_groups) {
      // As a client that takes the key as it is puts it in a path (Hono decodes its %XX), and as
      // one that encodes it first.
      for (const path of [g.group_key, encodeURIComponent(g.group_key)]) {
        const one = S.GroupedNotifications.parse((await get(`/api/v2/notifications/${path}`)).json);
        expect(one.notification_groups).toEqual([g]);
        expect(one.statuses.map((s) => s.id)).toEqual([party.id]);
        expect(one.accounts.map((a) => a.id)).toEqual(g.sample_account_ids);
      }
    }
    // A group of one, as a client that groups no favourites gets it.
    const single = (await grouped('?grouped_types[]=follow')).notification_groups.find((g) => g.type === 'favourite')!;
    expect(single.group_key).toMatch(/^ungrouped-\d+$/);
    expect(S.GroupedNotifications.parse((await get(`/api/v2/notifications/${single.group_key}`)).json).notification_groups).toEqual([single]);
  });

  it('an unknown key is 404 with an error; reading takes read, dismissing write', async () => {
    const like = await group('favourite');
    const [, post, window] = /^favourite-(\d+)-(\d+)$/.exec(like.group_key)!;
    for (const key of ['nonsense', 'ungrouped-999999', `favourite-${post}-${Number(window) - 1}`, `reblog-${post}-${window}`, `pleroma:emoji_reaction-${post}-%F0%9F%94%A5-${window}`, 'favourite-1-x']) {
      const { status, json } = await call(t, token, 'GET', `/api/v2/notifications/${encodeURIComponent(key)}`);
      expect([key, status, json]).toEqual([key, 404, { error: 'Record not found' }]);
      // A key of a group's shape: Mastodon's answers (no accounts, nothing to dismiss); text of no
      // key's shape ('nonsense', 'favourite-1-x'): 404 there too, with the reason.
      const shaped = !['nonsense', 'favourite-1-x'].includes(key);
      expect((await call(t, token, 'GET', `/api/v2/notifications/${encodeURIComponent(key)}/accounts`)).json).toEqual(shaped ? [] : { error: 'Record not found' });
    }
    const writer = (await signIn(t, ['write'], 'Writer')).token;
    const reader = (await signIn(t, ['read'], 'Reader')).token;
    expect((await call(t, writer, 'GET', `/api/v2/notifications/${like.group_key}`)).status).toBe(403);
    expect((await call(t, reader, 'POST', `/api/v2/notifications/${like.group_key}/dismiss`)).status).toBe(403);
    expect((await call(t, null, 'GET', `/api/v2/notifications/${like.group_key}/accounts`)).status).toBe(401);
    // unread_count is still the count, not a group.
    expect((await get('/api/v2/notifications/unread_count')).json).toEqual({ count: 3 });
  });

  it('accounts: the account of each notification of the group, newest first, paged by the Link header', async () => {
    const like = await group('favourite');
    const first = await get(`/api/v2/notifications/${like.group_key}/accounts?limit=2`);
    const page = z.array(S.Account).parse(first.json);
    expect(page.map((a) => a.id)).toEqual(like.sample_account_ids.slice(0, 2));
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
    const rest = z.array(S.Account).parse((await get(new URL(next).pathname + new URL(next).search)).json);
    expect(rest.map((a) => a.id)).toEqual(like.sample_account_ids.slice(2));
    const tada = await group('pleroma:emoji_reaction', '🎉');
    expect(z.array(S.Account).parse((await get(`/api/v2/notifications/${tada.group_key}/accounts`)).json).map((a) => a.id)).toEqual(tada.sample_account_ids);
  });

  it('masto.js fetches a group, its accounts, and dismisses it', async () => {
    const masto: mastodon.rest.Client = createRestAPIClient({ url: t.url, accessToken: token });
    const custom = await group('pleroma:emoji_reaction', ':blob-cat:');
    const fetched = await masto.v2.notifications.$select(custom.group_key).fetch();
    expect(fetched.notificationGroups.map((g) => [g.groupKey, g.notificationsCount])).toEqual([[custom.group_key, 1]]);
    expect((await masto.v2.notifications.$select(custom.group_key).accounts.fetch()).map((a) => a.id)).toEqual(custom.sample_account_ids);
    await masto.v2.notifications.$select(custom.group_key).dismiss();
    expect((await call(t, token, 'GET', `/api/v2/notifications/${encodeURIComponent(custom.group_key)}`)).status).toBe(404);
    expect((await grouped()).notification_groups.map((g) => g.emoji ?? g.type)).toEqual(['🎉', 'favourite']);
  });

  it('dismiss removes every notification of the group, in bounded batches, and nothing else; {} for a key of none', async () => {
    const s = t.rig.core.sqlite;
    const service = t.rig.core.services.notifications;
    const like = await group('favourite');
    // More than one answer reads: copies of its newest like, in its window.
    const columns = (s.prepare('PRAGMA table_info(notifications)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
    const copy = s.prepare(`INSERT INTO notifications (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM notifications WHERE id = ?`);
    const copies = 2 * MAX_GROUP_ROWS_READ;
    s.transaction(() => {
      for (let i = 0; i < copies; i++) copy.run(Number(like.most_recent_notification_id));
    })();
    const big = S.GroupedNotifications.parse((await get(`/api/v2/notifications/${like.group_key}`)).json).notification_groups[0]!;
    expect([big.group_key, big.notifications_count, big.sample_account_ids.length]).toEqual([like.group_key, MAX_GROUP_ROWS_READ, 1]);
    const keys = vi.spyOn(service, 'rangeKeys');
    const whole = vi.spyOn(service, 'get');
    try {
      const { status, json } = await call(t, token, 'POST', `/api/v2/notifications/${like.group_key}/dismiss`);
      expect([status, json]).toEqual([200, {}]);
      expect(keys.mock.calls.every(([input]) => input.limit <= 200)).toBe(true);
      expect(whole).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
      whole.mockRestore();
    }
    expect(s.prepare("SELECT count(*) FROM notifications WHERE notification_type = 'LIKE'").pluck().get()).toBe(1);
    expect((await grouped()).notification_groups.map((g) => [g.emoji ?? g.type, g.notifications_count])).toEqual([['🎉', 1]]);
    expect((await call(t, token, 'POST', `/api/v2/notifications/${like.group_key}/dismiss`)).json).toEqual({});
    expect((await call(t, token, 'POST', `/api/v2/notifications/${like.group_key.replace(/-\d+$/, '-1')}/dismiss`)).json).toEqual({});
    const nonsense = await call(t, token, 'POST', '/api/v2/notifications/nonsense/dismiss');
    expect([nonsense.status, nonsense.json]).toEqual([404, { error: 'Record not found' }]);
  });
});
