// Reactions and favourites_count under a flood: past the answer's reaction budget (and past the
// rows one post's tally reads) a status still counts its reactions by emoji and its likes only,
// never Misskey's reacting Likes, and the page answers on a bounded number of rows. The rows are
// copies of a reacting Like, an EmojiReact and a plain Like the Fedify peer sent, from copies of
// its actor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_WIDE_ROWS_PER_ANSWER, MAX_REACTION_ROWS, MAX_REACTION_ROWS_PER_ANSWER, reactionBudget, reactionTallyOf } from '../federation/reaction-tally';
import * as S from './entity-schemas';
import { call, openMastodonRig, signIn, type MastodonRig } from './test-support';

const AS = 'https://www.w3.org/ns/activitystreams';

let t: MastodonRig;
let token: string;
let me: string;
/** Inbox rows to copy: a reacting Like (❤), an EmojiReact (🎉), a plain Like. */
const source = { reactingLike: 0, emojiReact: 0, like: 0 };

const get = async (path: string) => {
  const { status, json } = await call(t, token, 'GET', path);
  expect(status).toBe(200);
  return json;
};

async function eventually<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = read();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('never came');
}

const sqlite = () => t.rig.core.sqlite;
const outboxIdOf = (uri: string) => sqlite().prepare('SELECT id FROM outbox WHERE ap_id = ?').pluck().get(uri) as number;

/** `n` new actors (copies of the peer's), their row ids. */
function actors(n: number, tag: string): number[] {
  const s = sqlite();
  const peer = s.prepare('SELECT id FROM actor WHERE ap_id = ?').pluck().get(t.peer.actorId) as number;
  const copy = s.prepare("INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type, handle) SELECT created_at, updated_at, ap_id || '/' || ?, ap_actor, ap_type, NULL FROM actor WHERE id = ?");
  return s.transaction(() => Array.from({ length: n }, (_, i) => Number(copy.run(`${tag}-${i}`, peer).lastInsertRowid)))();
}

/** Copies of a source row on a post, one per actor; likes_count recounted as the processor does. */
function flood(post: number, rows: { source: number; actors: number[] }[]): void {
  const s = sqlite();
  const columns = (s.prepare('PRAGMA table_info(inbox)').all() as { name: string }[]).map((c) => c.name).filter((c) => !['id', 'ap_id', 'relates_to_outbox_object_id', 'actor_id'].includes(c));
  const copy = s.prepare(
    `INSERT INTO inbox (ap_id, relates_to_outbox_object_id, actor_id, ${columns.join(', ')}) SELECT ap_id || '/flood/' || @post || '/' || @actor, @post, @actor, ${columns.join(', ')} FROM inbox WHERE id = @source`,
  );
  s.transaction(() => {
    for (const r of rows) for (const actor of r.actors) copy.run({ post, actor, source: r.source });
    s.prepare("UPDATE outbox SET likes_count = (SELECT count(DISTINCT actor_id) FROM inbox WHERE ap_type = 'Like' AND relates_to_outbox_object_id = @post AND is_deleted = 0) WHERE id = @post").run({ post });
  })();
}

async function post(text: string): Promise<z.infer<typeof S.Status>> {
  return S.Status.parse((await call(t, token, 'POST', '/api/v1/statuses', { status: text })).json);
}

beforeAll(async () => {
  t = await openMastodonRig();
  token = (await signIn(t, ['read', 'write'])).token;
  me = ((await get('/api/v1/accounts/verify_credentials')) as { id: string; url: string }).id;
  const own = ((await get('/api/v1/accounts/verify_credentials')) as { url: string }).url;
  const seed = await post('Seed');
  const deliver = (activity: Record<string, unknown>) => t.peer.postSigned(`${t.url}/inbox`, { '@context': AS, actor: t.peer.actorId, ...activity });
  await deliver({ id: t.peer.newId('likes').href, type: 'Like', object: seed.uri, content: '❤', _misskey_reaction: '❤' });
  await deliver({ id: t.peer.newId('reactions').href, type: 'EmojiReact', object: seed.uri, content: '🎉' });
  await t.peer.like(seed.uri, own);
  const of = (type: string, content: boolean) =>
    sqlite()
      .prepare(`SELECT id FROM inbox WHERE ap_type = ? AND relates_to_outbox_object_id = ? AND json_extract(ap_object, '$.content') IS ${content ? 'NOT' : ''} NULL`)
      .pluck()
      .get(type, outboxIdOf(seed.uri)) as number | undefined;
  source.reactingLike = await eventually(() => of('Like', true));
  source.emojiReact = await eventually(() => of('EmojiReact', true));
  source.like = await eventually(() => of('Like', false));
});
afterAll(async () => t?.close());

describe('reactions and favourites_count under a flood', () => {
  it('a page of 40 posts with 10,000 reaction rows shows each one\'s reactions and counts only likes as favourites, past the reaction budget too', async () => {
    const people = actors(250, 'flood');
    const posts: z.infer<typeof S.Status>[] = [];
    for (let i = 0; i < 40; i++) posts.push(await post(`flooded ${i}`));
    // Each: 200 reacting Likes (❤), 40 EmojiReacts (🎉), 10 likes, from 250 actors.
    for (const p of posts)
      flood(outboxIdOf(p.uri), [
        { source: source.reactingLike, actors: people.slice(0, 200) },
        { source: source.emojiReact, actors: people.slice(200, 240) },
        { source: source.like, actors: people.slice(240) },
      ]);
    expect(40 * 250).toBeGreaterThan(MAX_REACTION_ROWS_PER_ANSWER);
    const page = z.array(S.Status).parse(await get(`/api/v1/accounts/${me}/statuses?limit=40`));
    expect(page.map((s) => s.id)).toEqual(posts.map((p) => p.id).reverse());
    expect(page.map((s) => s.favourites_count)).toEqual(page.map(() => 10));
    // The first posts of the answer are tallied (their rows fit the budget); past it, each is
    // counted in SQL, within the answer's wide budget.
    expect(40 * 250 - MAX_REACTION_ROWS_PER_ANSWER + 40 * 210).toBeLessThan(MAX_WIDE_ROWS_PER_ANSWER);
    for (const s of page) expect(s.pleroma?.emoji_reactions.map((r) => [r.name, r.count])).toEqual([['❤', 200], ['🎉', 40]]);
    // Alone, each is tallied whole.
    expect((S.Status.parse(await get(`/api/v1/statuses/${posts[0]!.id}`))).pleroma?.emoji_reactions.map((r) => r.count)).toEqual([200, 40]);
  });

  it('a post with more rows than one tally reads counts its reactions and its favourites from all its rows', async () => {
    // More EmojiReacts than MAX_REACTION_ROWS, then reacting Likes (❤) and likes: in the index's
    // order (type, then actor) the rows one tally reads are all 🎉.
    const people = actors(MAX_REACTION_ROWS + 150, 'many');
    const big = await post('many reactions');
    const id = outboxIdOf(big.uri);
    flood(id, [
      { source: source.emojiReact, actors: people.slice(0, MAX_REACTION_ROWS + 50) },
      { source: source.reactingLike, actors: people.slice(MAX_REACTION_ROWS + 50, MAX_REACTION_ROWS + 140) },
      { source: source.like, actors: people.slice(MAX_REACTION_ROWS + 140) },
    ]);
    const status = S.Status.parse(await get(`/api/v1/statuses/${big.id}`));
    expect(status.pleroma?.emoji_reactions.map((r) => [r.name, r.count])).toEqual([['🎉', MAX_REACTION_ROWS + 50], ['❤', 90]]);
    expect(status.favourites_count).toBe(10);
    const budget = reactionBudget();
    expect(reactionTallyOf(t.rig.core.db, id, budget).reactingLikers).toBe(90);
    // All its rows counted by emoji, then its Like rows.
    expect(budget.wideRows).toBe(MAX_WIDE_ROWS_PER_ANSWER - (MAX_REACTION_ROWS + 150) - 100);
    // More rows than the wide budget holds: counted from the index only (a tenth of a row each),
    // and the window's counts are kept; its 100 likes still fit.
    const short = { ...reactionBudget(), wideRows: 1000 };
    const partly = reactionTallyOf(t.rig.core.db, id, short);
    expect([partly.reactions.map((r) => [r.emoji, r.count]), partly.reactingLikers]).toEqual([[['🎉', MAX_REACTION_ROWS]], 90]);
    expect(short.wideRows).toBe(1000 - Math.ceil(1001 / 10) - 100);
    // Past the wide budget, what the tally's rows told is kept.
    const spent = reactionTallyOf(t.rig.core.db, id, { ...reactionBudget(), wideRows: 0 });
    expect([spent.reactions.map((r) => [r.emoji, r.count]), spent.reactingLikers]).toEqual([[['🎉', MAX_REACTION_ROWS]], 0]);
  });
});
