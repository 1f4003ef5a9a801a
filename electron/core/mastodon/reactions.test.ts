// Emoji reactions through the Mastodon client API, as Pleroma and Akkoma give them: a status's
// `pleroma.emoji_reactions` per emoji, a reaction's notification as `pleroma:emoji_reaction` with
// its emoji (and picture), never as a favourite — in the list, its types[] / exclude_types[]
// filters, the grouped list and the unread count — and favourites_count counting likes only.
// The reactions come from the Fedify peer, signed, through the inbox and its processor; megalodon
// (in its Pleroma mode) reads them as a reaction-aware client does.
import generator from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { notifications } from '../../../db/schema';
import * as S from './entity-schemas';
import { call, openMastodonRig, signIn, type MastodonRig, eventually } from './test-support';
import { MAX_REACTION_BYTES, MAX_REACTION_BYTES_PER_ANSWER, MAX_REACTION_ROWS, MAX_REACTION_ROWS_PER_ANSWER, MAX_WIDE_BYTES_PER_ANSWER, reactionBudget, reactionTallyOf } from '../federation/reaction-tally';

const AS = 'https://www.w3.org/ns/activitystreams';
const BLOBCAT = 'https://pleroma.example/emoji/blobcat.png';

let t: MastodonRig;
let token: string;
let reacted: z.infer<typeof S.Status>;
let liked: z.infer<typeof S.Status>;
let fire: Record<string, unknown>;

const get = async (path: string) => {
  const { status, json } = await call(t, token, 'GET', path);
  expect(status).toBe(200);
  return json;
};
const notificationsOf = async (query = '') => z.array(S.Notification).parse(await get(`/api/v1/notifications${query}`));
const statusOf = async (id: string) => S.Status.parse(await get(`/api/v1/statuses/${id}`));

/** After seconds of writing on this thread, the listener's timers run (a kept-alive connection
 * past its timeout is closed) before the next request, which would otherwise take that connection
 * as it closes (ECONNRESET). */
const settle = () => new Promise((r) => setTimeout(r, 100));

async function deliver(activity: Record<string, unknown>): Promise<void> {
  const sent = await t.peer.postSigned(`${t.url}/inbox`, { '@context': AS, actor: t.peer.actorId, ...activity });
  expect(sent.status).toBe(202);
}

beforeAll(async () => {
  t = await openMastodonRig();
  token = (await signIn(t, ['read', 'write'])).token;
  t.rig.core.db.delete(notifications).run();
  reacted = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'React to me' })).json);
  liked = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Like me' })).json);
  fire = { id: t.peer.newId('reactions').href, type: 'EmojiReact', object: reacted.uri, content: '🔥' };
  await deliver(fire);
  // Misskey reacts with a Like carrying its emoji.
  await deliver({ id: t.peer.newId('likes').href, type: 'Like', object: reacted.uri, content: '❤', _misskey_reaction: '❤' });
  // Akkoma names the custom emoji's tag without colons.
  await deliver({ id: t.peer.newId('reactions').href, type: 'EmojiReact', object: reacted.uri, content: ':blobcat:', tag: [{ type: 'Emoji', name: 'blobcat', icon: { type: 'Image', url: BLOBCAT } }] });
  await t.peer.like(liked.uri, (await get('/api/v1/accounts/verify_credentials') as { url: string }).url);
  await eventually(async () => ((await notificationsOf()).length === 4 ? true : undefined));
});
afterAll(async () => t?.close());

describe('emoji reactions in the Mastodon client API', () => {
  it('a status carries pleroma.emoji_reactions per emoji (a custom one by its shortcode and picture); favourites_count counts likes only', async () => {
    const status = await statusOf(reacted.id);
    expect(status.pleroma?.emoji_reactions).toEqual([
      { name: '🔥', count: 1, me: false },
      { name: '❤', count: 1, me: false },
      { name: 'blobcat', count: 1, me: false, url: BLOBCAT, static_url: BLOBCAT },
    ]);
    // Misskey's reacting Like is in likes_count (the app's own count), not a favourite here.
    expect(status.favourites_count).toBe(0);
    const plain = await statusOf(liked.id);
    expect(plain.favourites_count).toBe(1);
    expect(plain.pleroma?.emoji_reactions).toEqual([]);
  });

  it('a reaction is notified as pleroma:emoji_reaction with its emoji, never as a favourite', async () => {
    const all = await notificationsOf();
    const reactions = all.filter((n) => n.type === 'pleroma:emoji_reaction');
    expect(reactions.map((n) => [n.emoji, n.emoji_url, n.status?.id])).toEqual([
      [':blobcat:', BLOBCAT, reacted.id],
      ['❤', undefined, reacted.id],
      ['🔥', undefined, reacted.id],
    ]);
    expect(all.filter((n) => n.type === 'favourite').map((n) => [n.status?.id, n.emoji])).toEqual([[liked.id, undefined]]);
  });

  it('types[] and exclude_types[] tell favourites from reactions, in the list, the grouped list and the unread count', async () => {
    expect((await notificationsOf('?types[]=favourite')).map((n) => n.status?.id)).toEqual([liked.id]);
    expect((await notificationsOf('?exclude_types[]=pleroma:emoji_reaction')).map((n) => n.type)).toEqual(['favourite']);
    expect((await notificationsOf('?types[]=pleroma:emoji_reaction')).map((n) => n.emoji)).toEqual([':blobcat:', '❤', '🔥']);
    expect((await notificationsOf('?exclude_types[]=favourite')).every((n) => n.type === 'pleroma:emoji_reaction')).toBe(true);
    const grouped = (query: string) => get(`/api/v2/notifications${query}`).then((j) => (j as { notification_groups: { type: string }[] }).notification_groups.map((g) => g.type));
    expect(await grouped('?types[]=favourite')).toEqual(['favourite']);
    expect(await grouped('')).toEqual(['favourite', 'pleroma:emoji_reaction', 'pleroma:emoji_reaction', 'pleroma:emoji_reaction']);
    const count = (query: string) => get(`/api/v1/notifications/unread_count${query}`).then((j) => (j as { count: number }).count);
    expect(await count('?types[]=favourite')).toBe(1);
    expect(await count('?types[]=pleroma:emoji_reaction')).toBe(3);
    expect(await count('?exclude_types[]=pleroma:emoji_reaction')).toBe(1);
    expect(await count('?types[]=pleroma:emoji_reaction&limit=2')).toBe(2);
    expect(await count('')).toBe(4);
  });

  it('megalodon in its Pleroma mode reads the reactions of a status and a reaction notification', async () => {
    const client = generator('pleroma', t.url, token);
    const status = (await client.getStatus(reacted.id)).data;
    expect(status.emoji_reactions.map((r) => [r.name, r.count, r.url ?? null])).toEqual([
      ['🔥', 1, null],
      ['❤', 1, null],
      ['blobcat', 1, BLOBCAT],
    ]);
    expect(status.favourites_count).toBe(0);
    const listed = (await client.getNotifications({ exclude_types: ['favourite'] })).data;
    expect(listed.map((n) => [n.type, n.reaction?.name, n.reaction?.url ?? null])).toEqual([
      ['reaction', 'blobcat', BLOBCAT],
      ['reaction', '❤', null],
      ['reaction', '🔥', null],
    ]);
  });

  it('an undone reaction leaves the status', async () => {
    await deliver({ id: `${String(fire.id)}/undo`, type: 'Undo', object: { ...fire, actor: t.peer.actorId } });
    const left = await eventually(async () => {
      const names = (await statusOf(reacted.id)).pleroma?.emoji_reactions.map((r) => r.name);
      return names && !names.includes('🔥') ? names : undefined;
    });
    expect(left).toEqual(['❤', 'blobcat']);
  });

  it('a reacting liker who also likes (a plain Like, or one whose content is words) is a favourite', async () => {
    const own = ((await get('/api/v1/accounts/verify_credentials')) as { url: string }).url;
    await t.peer.like(reacted.uri, own);
    expect(await eventually(async () => ((await statusOf(reacted.id)).favourites_count === 1 ? 1 : undefined))).toBe(1);
    const worded = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Say it' })).json);
    await deliver({ id: t.peer.newId('likes').href, type: 'Like', object: worded.uri, content: 'nice one' });
    const status = await eventually(async () => {
      const s = await statusOf(worded.id);
      return s.favourites_count === 1 ? s : undefined;
    });
    expect(status.pleroma?.emoji_reactions).toEqual([]);
  });

  it('one answer reads at most MAX_REACTION_BYTES_PER_ANSWER of reactions for all its statuses, and never reads an activity too long to be one', async () => {
    // Three new posts, each with MAX_REACTION_ROWS copies of one stored reaction padded to 12 KB
    // (a flood): one post's rows are more than one answer reads.
    const posts: z.infer<typeof S.Status>[] = [];
    for (const text of ['flooded 1', 'flooded 2', 'flooded 3']) posts.push(S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: text })).json));
    const s = t.rig.core.sqlite;
    const source = s.prepare("SELECT id FROM inbox WHERE ap_type = 'EmojiReact' AND is_deleted = 0 ORDER BY id LIMIT 1").pluck().get() as number;
    const columns = (s.prepare('PRAGMA table_info(inbox)').all() as { name: string }[]).map((c) => c.name).filter((c) => !['id', 'ap_id', 'relates_to_outbox_object_id', 'ap_object'].includes(c));
    const copy = s.prepare(
      `INSERT INTO inbox (ap_id, relates_to_outbox_object_id, ap_object, ${columns.join(', ')}) ` +
        `SELECT ap_id || '/flood/' || @post || '/' || @i, @post, json_set(ap_object, '$.pad', printf('%.*c', @pad, 'x')), ${columns.join(', ')} FROM inbox WHERE id = @source`,
    );
    const idOf = s.prepare('SELECT id FROM outbox WHERE ap_id = ?').pluck();
    const flood = (post: number, pad: number) => s.transaction(() => {
      for (let i = 0; i < MAX_REACTION_ROWS; i++) copy.run({ post, i, source, pad });
    })();
    const ids = posts.map((p) => idOf.get(p.uri) as number);
    for (const id of ids) flood(id, 12_000);
    await settle();
    expect(MAX_REACTION_ROWS * 12_000).toBeGreaterThan(MAX_REACTION_BYTES_PER_ANSWER);
    // Alone, each shows its reaction (read from its first rows); in one answer, the first post
    // shown spends the budget and the others show none (each is too large to be counted past it).
    expect(MAX_REACTION_ROWS * 12_000).toBeGreaterThan(MAX_WIDE_BYTES_PER_ANSWER);
    for (const p of posts) expect((await statusOf(p.id)).pleroma?.emoji_reactions.map((r) => [r.name, r.count])).toEqual([['blobcat', 1]]);
    const me = (await get('/api/v1/accounts/verify_credentials')) as { id: string };
    const page = z.array(S.Status).parse(await get(`/api/v1/accounts/${me.id}/statuses?limit=3`));
    expect(page.map((p) => p.id)).toEqual(posts.map((p) => p.id).reverse());
    expect(page.map((p) => p.pleroma?.emoji_reactions.length)).toEqual([1, 0, 0]);

    // Activities too long to be a reaction are not read at all (no bytes spent, a row each), and
    // a post flooded with them shows no reaction.
    const big = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'flooded with big ones' })).json);
    flood(idOf.get(big.uri) as number, 250_000);
    await settle();
    const budget = reactionBudget();
    expect(reactionTallyOf(t.rig.core.db, idOf.get(big.uri) as number, budget)).toEqual({ reactions: [], reactingLikers: 0 });
    expect(budget).toMatchObject({ rows: MAX_REACTION_ROWS_PER_ANSWER - MAX_REACTION_ROWS, bytes: MAX_REACTION_BYTES_PER_ANSWER });
    expect((await statusOf(big.id)).pleroma?.emoji_reactions).toEqual([]);

    // Small rows are counted too: one answer reads at most MAX_REACTION_ROWS_PER_ANSWER rows.
    const small: number[] = [];
    for (const text of ['small 1', 'small 2']) {
      const post = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: text })).json);
      small.push(idOf.get(post.uri) as number);
      flood(small.at(-1)!, 0);
      await settle();
    }
    const rows = reactionBudget();
    expect(reactionTallyOf(t.rig.core.db, small[0]!, rows).reactions).toHaveLength(1);
    expect(rows.rows).toBe(MAX_REACTION_ROWS_PER_ANSWER - MAX_REACTION_ROWS);
    expect(reactionTallyOf(t.rig.core.db, small[1]!, rows).reactions).toHaveLength(1);
    expect(rows.rows).toBe(0);
    expect(reactionTallyOf(t.rig.core.db, ids[0]!, rows)).toEqual({ reactions: [], reactingLikers: 0 });
  });

  it('a custom emoji whose content is padded (" :blobcat:") is a reaction everywhere: the status, the v1 and v2 counts', async () => {
    const count = async (path: string) => ((await get(path)) as { count: number }).count;
    const v1Before = await count('/api/v1/notifications/unread_count?types[]=pleroma:emoji_reaction');
    const v2Before = await count('/api/v2/notifications/unread_count?types[]=pleroma:emoji_reaction');
    const padded = S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: 'Padded' })).json);
    const tag = [{ type: 'Emoji', name: ':blobcat:', icon: { type: 'Image', url: BLOBCAT } }];
    // Misskey's reacting Like, its content as some servers pad it.
    await deliver({ id: t.peer.newId('likes').href, type: 'Like', object: padded.uri, content: ' :blobcat:', _misskey_reaction: ' :blobcat:', tag });
    await eventually(async () => ((await notificationsOf()).some((n) => n.status?.id === padded.id) ? true : undefined));
    const status = await statusOf(padded.id);
    expect([status.favourites_count, status.pleroma?.emoji_reactions.map((r) => r.name)]).toEqual([0, ['blobcat']]);
    expect(await count('/api/v1/notifications/unread_count?types[]=pleroma:emoji_reaction')).toBe(v1Before + 1);
    expect(await count('/api/v2/notifications/unread_count?types[]=pleroma:emoji_reaction')).toBe(v2Before + 1);
  });

  it('unread_count tells likes from reactions without reading activities too long to be a reaction', async () => {
    const before = (await get('/api/v1/notifications/unread_count?types[]=pleroma:emoji_reaction')) as { count: number };
    const s = t.rig.core.sqlite;
    // A reaction's notification whose activity is padded past MAX_REACTION_BYTES counts as a like.
    const row = s.prepare("SELECT n.inbox_object_id AS inboxId FROM notifications n JOIN inbox i ON i.id = n.inbox_object_id WHERE n.notification_type = 'LIKE' AND i.ap_type = 'EmojiReact' AND n.is_new = 1 ORDER BY n.id DESC LIMIT 1").get() as { inboxId: number };
    s.prepare("UPDATE inbox SET ap_object = json_set(ap_object, '$.pad', printf('%.*c', @pad, 'x')) WHERE id = @id").run({ id: row.inboxId, pad: MAX_REACTION_BYTES });
    const after = (await get('/api/v1/notifications/unread_count?types[]=pleroma:emoji_reaction')) as { count: number };
    expect(after.count).toBe(before.count - 1);
    // The list agrees: that notification is a favourite there too (its activity read as its type
    // and id alone), so reading the list clears what the count says.
    const id = s.prepare("SELECT id FROM notifications WHERE inbox_object_id = ?").pluck().get(row.inboxId) as number;
    const listed = (await notificationsOf('?limit=80')).find((n) => n.id === String(id));
    expect(listed?.type).toBe('favourite');
    expect((await notificationsOf('?types[]=pleroma:emoji_reaction&limit=80')).map((n) => n.id)).not.toContain(String(id));
  });
  it('a flood of reactions never hides older favourites: a short page under types[]=favourite still links on past the rows it read', async () => {
    const s = t.rig.core.sqlite;
    const reaction = s.prepare("SELECT n.id FROM notifications n JOIN inbox i ON i.id = n.inbox_object_id WHERE n.notification_type = 'LIKE' AND i.ap_type = 'EmojiReact' ORDER BY n.id LIMIT 1").pluck().get() as number;
    const columns = (s.prepare('PRAGMA table_info(notifications)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
    const copy = s.prepare(`INSERT INTO notifications (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM notifications WHERE id = ?`);
    s.transaction(() => {
      for (let i = 0; i < 400; i++) copy.run(reaction);
    })();
    let path: string | null = '/api/v1/notifications?types[]=favourite&limit=20';
    const seen: string[] = [];
    let pages = 0;
    while (path !== null && pages < 10 && !seen.includes(liked.id)) {
      const { status, json, headers } = await call(t, token, 'GET', path);
      expect(status).toBe(200);
      const page = z.array(S.Notification).parse(json);
      expect(page.every((n) => n.type === 'favourite')).toBe(true);
      seen.push(...page.map((n) => n.status?.id ?? ''));
      const next = /<([^>]+)>; rel="next"/.exec(headers.get('link') ?? '')?.[1];
      path = next === undefined ? null : new URL(next).pathname + new URL(next).search;
      pages++;
    }
    expect(seen).toContain(liked.id);
    expect(pages).toBeGreaterThan(1);
  });
});
