// Grouped notifications (GET /api/v2/notifications) with emoji reactions: a reaction group is one
// emoji on one status, apart from the status's likes and from the other emoji, and says which
// emoji; types[], exclude_types[] and grouped_types[] treat reactions as their own type, in the
// list and in v2's unread_count (of groups); `limit` counts groups. Three actors react (the rig's follower, and two more Fedify peers), signed,
// through the inbox.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { notifications } from '../../../db/schema';
import { startPeer, type Peer } from '../../../test/peer/peer';
import * as S from './entity-schemas';
import { MAX_REACTION_BYTES } from '../federation/reaction-tally';
import { groupKeyOf, keyedOf, MAX_COUNTED_PAST_PAGE, MAX_GROUPED_ROWS, partsOfGroupKey, type Keyed } from './notification-groups';
import { mastodonTypeOf } from './notification-types';
import { call, openMastodonRig, signIn, type MastodonRig, eventually } from './test-support';

const AS = 'https://www.w3.org/ns/activitystreams';
const BLOBCAT = 'https://pleroma.example/emoji/blobcat.png';

let t: MastodonRig;
let pal: Peer;
let kin: Peer;
let token: string;
let party: z.infer<typeof S.Status>;
let other: z.infer<typeof S.Status>;

const get = async (path: string) => {
  const { status, json, headers } = await call(t, token, 'GET', path);
  expect(status).toBe(200);
  return { json, headers };
};
const grouped = async (query = '') => S.GroupedNotifications.parse((await get(`/api/v2/notifications${query}`)).json).notification_groups;

const listed = async () => z.array(S.Notification).parse((await get('/api/v1/notifications')).json).length;

/** Delivers one and waits for its notification, so notifications come in the order sent. */
async function deliver(from: Peer, activity: Record<string, unknown>): Promise<void> {
  const before = await listed();
  const sent = await from.postSigned(`${t.url}/inbox`, { '@context': AS, id: from.newId('reactions').href, actor: from.actorId, ...activity });
  expect(sent.status).toBe(202);
  await eventually(async () => ((await listed()) > before ? true : undefined));
}

beforeAll(async () => {
  [t, pal, kin] = await Promise.all([openMastodonRig(), startPeer({ name: 'pal' }), startPeer({ name: 'kin' })]);
  token = (await signIn(t, ['read', 'write'])).token;
  t.rig.core.db.delete(notifications).run();
  party = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Party' })).json);
  other = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Other' })).json);
  const own = ((await get('/api/v1/accounts/verify_credentials')).json as { url: string }).url;
  // 🎉 three times on the party (Misskey's reacting Like among them), 🔥 and a custom emoji once,
  // a like; 🎉 once on the other post.
  await deliver(t.peer, { type: 'EmojiReact', object: party.uri, content: '🎉' });
  await deliver(pal, { type: 'EmojiReact', object: party.uri, content: '🎉' });
  await deliver(kin, { type: 'Like', object: party.uri, content: '🎉', _misskey_reaction: '🎉' });
  await deliver(pal, { type: 'EmojiReact', object: party.uri, content: '🔥' });
  await deliver(kin, { type: 'EmojiReact', object: party.uri, content: ':blobcat:', tag: [{ type: 'Emoji', name: 'blobcat', icon: { type: 'Image', url: BLOBCAT } }] });
  await t.peer.like(party.uri, own);
  await eventually(async () => ((await listed()) === 6 ? true : undefined));
  await deliver(pal, { type: 'EmojiReact', object: other.uri, content: '🎉' });
});
afterAll(async () => {
  await Promise.all([pal?.close(), kin?.close()]);
  await t?.close();
});

const summary = (g: z.infer<typeof S.NotificationGroup>) => [g.type, g.status_id === party.id ? 'party' : 'other', g.emoji ?? null, g.notifications_count, g.sample_account_ids.length];

describe('grouped notifications with emoji reactions', () => {
  it('reactions are grouped per status and per emoji, never with likes; a reaction group says its emoji', async () => {
    const groups = await grouped();
    expect(groups.map(summary)).toEqual([
      ['pleroma:emoji_reaction', 'other', '🎉', 1, 1],
      ['favourite', 'party', null, 1, 1],
      ['pleroma:emoji_reaction', 'party', ':blobcat:', 1, 1],
      ['pleroma:emoji_reaction', 'party', '🔥', 1, 1],
      ['pleroma:emoji_reaction', 'party', '🎉', 3, 3],
    ]);
    const keys = groups.map((g) => g.group_key);
    expect(new Set(keys).size).toBe(5);
    const tada = groups.at(-1)!;
    expect(tada.group_key).toContain(encodeURIComponent('🎉'));
    expect(tada.emoji_url).toBeUndefined();
    expect(groups.find((g) => g.emoji === ':blobcat:')?.emoji_url).toBe(BLOBCAT);
    expect(groups.find((g) => g.type === 'favourite')).not.toHaveProperty('emoji');
    // The group's ids span its notifications, and v1 gives each notification its group's key.
    const v1 = z.array(S.Notification).parse((await get('/api/v1/notifications')).json);
    const ofTada = v1.filter((n) => n.group_key === tada.group_key).map((n) => Number(n.id));
    expect(ofTada).toHaveLength(3);
    expect([tada.page_min_id, tada.page_max_id, tada.most_recent_notification_id]).toEqual([String(Math.min(...ofTada)), String(Math.max(...ofTada)), String(Math.max(...ofTada))]);
    const body = S.GroupedNotifications.parse((await get('/api/v2/notifications')).json);
    expect(body.statuses.map((s) => s.id).sort()).toEqual([party.id, other.id].sort());
    for (const id of tada.sample_account_ids) expect(body.accounts.map((a) => a.id)).toContain(id);
  });

  it('types[], exclude_types[] and grouped_types[] treat reactions as their own type', async () => {
    expect((await grouped('?types[]=favourite')).map(summary)).toEqual([['favourite', 'party', null, 1, 1]]);
    expect((await grouped('?exclude_types[]=pleroma:emoji_reaction')).map((g) => g.type)).toEqual(['favourite']);
    expect((await grouped('?types[]=pleroma:emoji_reaction')).map((g) => g.emoji)).toEqual(['🎉', ':blobcat:', '🔥', '🎉']);
    expect((await grouped('?exclude_types[]=favourite')).every((g) => g.type === 'pleroma:emoji_reaction')).toBe(true);
    // A client that cannot show reaction groups asks for favourites grouped only: each reaction
    // is a group of one (ungrouped-{id}).
    const ungrouped = await grouped('?grouped_types[]=favourite');
    const reactions = ungrouped.filter((g) => g.type === 'pleroma:emoji_reaction');
    expect(reactions).toHaveLength(6);
    expect(reactions.every((g) => g.notifications_count === 1 && g.group_key === `ungrouped-${g.most_recent_notification_id}`)).toBe(true);
    expect(ungrouped.filter((g) => g.type === 'favourite').map((g) => g.group_key)).not.toContain('ungrouped');
  });

  it('v2 unread_count counts groups, reactions apart from likes and per emoji; v1 counts notifications', async () => {
    const count = async (path: string) => ((await get(path)).json as { count: number }).count;
    expect(await count('/api/v2/notifications/unread_count')).toBe(5);
    expect(await count('/api/v1/notifications/unread_count')).toBe(7);
    expect(await count('/api/v2/notifications/unread_count?types[]=pleroma:emoji_reaction')).toBe(4);
    expect(await count('/api/v1/notifications/unread_count?types[]=pleroma:emoji_reaction')).toBe(6);
    expect(await count('/api/v2/notifications/unread_count?types[]=favourite')).toBe(1);
    expect(await count('/api/v2/notifications/unread_count?exclude_types[]=favourite')).toBe(4);
    expect(await count('/api/v2/notifications/unread_count?grouped_types[]=favourite')).toBe(7);
    expect(await count('/api/v2/notifications/unread_count?limit=2')).toBe(2);
    // The newest of the 🎉 group reacted with :blobcat: too.
    const tada = (await grouped()).at(-1)!;
    expect(await count(`/api/v2/notifications/unread_count?account_id=${tada.sample_account_ids[0]!}&types[]=pleroma:emoji_reaction`)).toBe(2);
  });

  it('a notification read by its key alone is of the type, the emoji and the group it is read whole', () => {
    const service = t.rig.core.services.notifications;
    const whole = service.range({ limit: 50 });
    const keys = service.rangeKeys({ limit: 50 });
    expect(keys.map((k) => k.id)).toEqual(whole.map((n) => n.id));
    const typeAndKey = (n: Parameters<typeof mastodonTypeOf>[0] & Keyed) => [mastodonTypeOf(n), n.reaction?.emoji ?? null, n.reaction?.custom?.url ?? null, groupKeyOf(n, mastodonTypeOf(n) ?? '')];
    expect(keys.map(typeAndKey)).toEqual(whole.map((n) => typeAndKey(keyedOf(n))));
  });

  it('a group key parses back into its type, post and window (a shortcode may hold a dash); a key Tern never gives does not', () => {
    const at = '2026-03-04T13:14:15.000Z';
    const row = (reaction?: Keyed['reaction']): Keyed => ({ id: 7, createdAt: at, actorId: 3, outboxObject: { id: 42 }, ...(reaction ? { reaction } : {}) });
    const window = { from: new Date('2026-03-04T12:00:00.000Z'), to: new Date('2026-03-05T00:00:00.000Z') };
    expect(partsOfGroupKey(groupKeyOf(row(), 'follow'))).toEqual({ type: 'follow', post: null, ...window });
    for (const type of ['favourite', 'reblog']) expect(partsOfGroupKey(groupKeyOf(row(), type))).toEqual({ type, post: 42, ...window });
    const custom = { emoji: ':blob-cat-2:', custom: { url: BLOBCAT } } as Keyed['reaction'];
    for (const reaction of [{ emoji: '🎉' }, custom] as Keyed['reaction'][]) expect(partsOfGroupKey(groupKeyOf(row(reaction), 'pleroma:emoji_reaction'))).toEqual({ type: 'pleroma:emoji_reaction', post: 42, ...window });
    expect(partsOfGroupKey(groupKeyOf(row(), 'mention'))).toEqual({ notification: 7 });
    for (const key of ['', 'ungrouped-', 'follow-x', 'favourite-42', 'mention-42-1', 'reblog-42-1-2', 'pleroma:emoji_reaction-42-1', 'favourite-1234567890123456-1']) expect(partsOfGroupKey(key)).toBeNull();
  });

  it('limit counts groups, and the Link header goes on past the rows a page read', async () => {
    const all = await grouped();
    // A group's count is given where it first shows (its newest notification's page).
    const seen = new Map<string, number>();
    let path: string | null = '/api/v2/notifications?limit=2';
    for (let pages = 0; path !== null && pages < 10; pages++) {
      const { json, headers } = await get(path);
      const page = S.GroupedNotifications.parse(json).notification_groups;
      expect(page.length).toBeLessThanOrEqual(2);
      if (page.length === 0) break;
      for (const g of page) if (!seen.has(g.group_key)) seen.set(g.group_key, g.notifications_count);
      const next = /<([^>]+)>; rel="next"/.exec(headers.get('link') ?? '')?.[1];
      path = next === undefined ? null : new URL(next).pathname + new URL(next).search;
    }
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(all.map((g) => [g.group_key, g.notifications_count])));
    // Above min_id, the oldest groups: after the first 🎉, the other two and 🔥 (the custom emoji
    // would be a third group).
    const v1 = z.array(S.Notification).parse((await get('/api/v1/notifications')).json);
    const oldest = v1.at(-1)!;
    const { json, headers } = await get(`/api/v2/notifications?min_id=${oldest.id}&limit=2`);
    const climbed = S.GroupedNotifications.parse(json).notification_groups;
    // The 🎉 group counts all three: the one at min_id too (Mastodon counts a group up to the
    // page's newest, with no lower bound).
    expect(climbed.map((g) => [g.emoji, g.notifications_count])).toEqual([['🔥', 1], ['🎉', 3]]);
    expect(climbed[1]!.page_min_id).toBe(v1.at(-2)!.id);
    expect(/<([^>]+)>; rel="prev"/.exec(headers.get('link') ?? '')?.[1]).toContain(`min_id=${climbed[0]!.page_max_id}`);
  });

  it('a poll above min_id or since_id gets a group it holds back whole: its count and sample accounts take the notifications at and below the bound', async () => {
    const tada = (await grouped()).at(-1)!;
    expect([tada.emoji, tada.notifications_count, tada.sample_account_ids.length]).toEqual(['🎉', 3, 3]);
    const v1 = z.array(S.Notification).parse((await get('/api/v1/notifications')).json);
    const ofTada = v1.filter((n) => n.group_key === tada.group_key);
    // Above the middle one of the three: one of them is in the page, two are at or below its bound.
    const bound = ofTada[1]!.id;
    for (const query of [`?min_id=${bound}`, `?since_id=${bound}`, `?min_id=${bound}&types[]=pleroma:emoji_reaction`]) {
      const polled = (await grouped(query)).find((g) => g.group_key === tada.group_key);
      expect([polled?.notifications_count, polled?.sample_account_ids]).toEqual([3, tada.sample_account_ids]);
      expect([polled?.page_min_id, polled?.page_max_id]).toEqual([ofTada[0]!.id, ofTada[0]!.id]);
    }
  });

  it('limit counts groups: 40 unless told, at most 80', async () => {
    const s = t.rig.core.sqlite;
    const like = (await grouped('?types[]=favourite'))[0]!;
    const columns = (s.prepare('PRAGMA table_info(notifications)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id' && c !== 'created_at');
    // Likes 13 hours apart: each in a window of its own, a group each.
    const copy = s.prepare(
      `INSERT INTO notifications (created_at, ${columns.join(', ')}) SELECT strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '-' || (13 * ?) || ' hours'), ${columns.join(', ')} FROM notifications WHERE id = ?`,
    );
    const copies = s.transaction(() => Array.from({ length: 90 }, (_, i) => Number(copy.run(i + 1, Number(like.most_recent_notification_id)).lastInsertRowid)))();
    expect(await grouped('?types[]=favourite')).toHaveLength(40);
    expect(await grouped('?types[]=favourite&limit=100')).toHaveLength(80);
    expect(z.array(S.Notification).parse((await get('/api/v1/notifications?types[]=favourite')).json)).toHaveLength(20);
    // Gone again: the tests after this one read notifications in the order of their times.
    s.prepare('DELETE FROM notifications WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(copies));
  });

  it('a flood of one reaction is one group per page, read on a bounded number of rows', async () => {
    const s = t.rig.core.sqlite;
    const tada = (await grouped('?types[]=pleroma:emoji_reaction')).at(-1)!;
    const columns = (s.prepare('PRAGMA table_info(notifications)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
    const copy = s.prepare(`INSERT INTO notifications (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM notifications WHERE id = ?`);
    s.transaction(() => {
      for (let i = 0; i < 2 * MAX_GROUPED_ROWS; i++) copy.run(Number(tada.most_recent_notification_id));
    })();
    const { json, headers } = await get('/api/v2/notifications?limit=5');
    const page = S.GroupedNotifications.parse(json).notification_groups;
    // The page's rows are all of it; its older ones are counted on past the page, as far as the
    // rows read past it go.
    expect(page.map((g) => [g.group_key, g.notifications_count])).toEqual([[tada.group_key, MAX_GROUPED_ROWS + MAX_COUNTED_PAST_PAGE]]);
    expect(Number(page[0]!.page_max_id) - Number(page[0]!.page_min_id)).toBe(MAX_GROUPED_ROWS - 1);
    expect(headers.get('link')).toContain(`max_id=${page[0]!.page_min_id}`);
    // Further on, the rest of the group, counted down to its window's start: all of it left.
    const next = /<([^>]+)>; rel="next"/.exec(headers.get('link') ?? '')![1]!;
    const rest = S.GroupedNotifications.parse((await get(new URL(next).pathname + new URL(next).search)).json).notification_groups;
    expect(rest.find((g) => g.group_key === tada.group_key)?.notifications_count).toBe(2 * MAX_GROUPED_ROWS + 3 - MAX_GROUPED_ROWS);
  });

  it('a page under a flood of padded reactions reads its rows by their keys, and only the first of each group whole', async () => {
    const s = t.rig.core.sqlite;
    const service = t.rig.core.services.notifications;
    // The other post's one 🎉, and its group.
    const source = s
      .prepare("SELECT n.id, n.actor_id, n.inbox_object_id FROM notifications n JOIN outbox o ON o.id = n.outbox_object_id WHERE o.ap_id = ? AND n.notification_type = 'LIKE'")
      .get(other.uri) as { id: number; actor_id: number; inbox_object_id: number };
    const single = S.Notification.parse((await get(`/api/v1/notifications/${source.id}`)).json);
    // 2 × MAX_GROUPED_ROWS EmojiReacts (🎉) on the other post, each from an actor of its own and
    // padded to just under MAX_REACTION_BYTES, and their notifications.
    const inboxColumns = (s.prepare('PRAGMA table_info(inbox)').all() as { name: string }[]).map((c) => c.name).filter((c) => !['id', 'ap_id', 'ap_object', 'actor_id'].includes(c));
    const size = s.prepare('SELECT octet_length(ap_object) FROM inbox WHERE id = ?').pluck().get(source.inbox_object_id) as number;
    const padding = 'x'.repeat(MAX_REACTION_BYTES - size - 64);
    const newActor = s.prepare("INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type, handle) SELECT created_at, updated_at, ap_id || '/padded/' || ?, ap_actor, ap_type, NULL FROM actor WHERE id = ?");
    const newInbox = s.prepare(
      `INSERT INTO inbox (ap_id, ap_object, actor_id, ${inboxColumns.join(', ')}) SELECT ap_id || '/padded/' || @i, json_set(ap_object, '$.padding', @padding), @actor, ${inboxColumns.join(', ')} FROM inbox WHERE id = @source`,
    );
    const newNotification = s.prepare('INSERT INTO notifications (created_at, notification_type, is_new, actor_id, outbox_object_id, inbox_object_id) SELECT created_at, notification_type, is_new, @actor, outbox_object_id, @inbox FROM notifications WHERE id = @source');
    s.transaction(() => {
      for (let i = 0; i < 2 * MAX_GROUPED_ROWS; i++) {
        const actor = Number(newActor.run(`${i}`, source.actor_id).lastInsertRowid);
        const inbox = Number(newInbox.run({ i, padding, actor, source: source.inbox_object_id }).lastInsertRowid);
        newNotification.run({ actor, inbox, source: source.id });
      }
    })();
    const reads = { range: vi.spyOn(service, 'range'), get: vi.spyOn(service, 'get') };
    try {
      const { json, headers } = await get('/api/v2/notifications?limit=5');
      const body = S.GroupedNotifications.parse(json);
      // The page's rows (all of the flood's newest) and as many past it: one group, whose post is
      // the other one, its newest 8 actors as sample accounts.
      expect(body.notification_groups.map((g) => [g.group_key, g.status_id, g.emoji, g.notifications_count, g.sample_account_ids.length])).toEqual([
        [single.group_key, other.id, '🎉', MAX_GROUPED_ROWS + MAX_COUNTED_PAST_PAGE, 8],
      ]);
      expect(body.statuses.map((st) => st.id)).toEqual([other.id]);
      expect(body.accounts.map((a) => a.id)).toEqual(body.notification_groups[0]!.sample_account_ids);
      expect(headers.get('link')).toContain(`max_id=${body.notification_groups[0]!.page_min_id}`);
      // Read whole: the group's first notification only.
      expect(reads.range).not.toHaveBeenCalled();
      expect(reads.get.mock.calls).toEqual([[Number(body.notification_groups[0]!.most_recent_notification_id)]]);
    } finally {
      reads.range.mockRestore();
      reads.get.mockRestore();
    }
  });
});
