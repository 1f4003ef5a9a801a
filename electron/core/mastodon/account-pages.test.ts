// The author's people as pages (followers, following, follow requests: max_id, since_id, min_id
// and the Link header, as the timelines page), what a profile-only token may read, and what a
// visitor without a token learns of the author's posts (no count of the private ones).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor, follower } from '../../../db/schema';
import { issueToken } from '../indieauth/test-flow';
import { addFollower, addPost, openListeningCore, type ListeningCore } from '../listener/test-support';

let t: ListeningCore;
let read: string;
const get = async (path: string, token: string | null = read) => {
  const response = await fetch(path.startsWith('http') ? path : `${t.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, json: (await response.json()) as unknown, link: response.headers.get('link') ?? '' };
};
const ids = (json: unknown) => (json as { id: string }[]).map((a) => a.id);
const link = (header: string, rel: 'next' | 'prev') => new RegExp(`<([^>]+)>; rel="${rel}"`).exec(header)?.[1];

beforeAll(async () => {
  t = await openListeningCore('alice');
  read = await issueToken(t.url, t.core, ['read']);
});
afterAll(async () => t?.close());

describe('followers and follow requests, page by page', () => {
  it('followers: max_id pages back, the Link header’s prev (min_id) and since_id answer only newer followers', async () => {
    for (let i = 0; i < 5; i++) addFollower(t.core, `https://peer${i}.example/u`);
    const all = ids((await get('/api/v1/accounts/0/followers')).json);
    expect(all).toHaveLength(5);
    const first = await get('/api/v1/accounts/0/followers?limit=2');
    expect(ids(first.json)).toEqual(all.slice(0, 2));
    const next = await get(link(first.link, 'next')!);
    expect(ids(next.json)).toEqual(all.slice(2, 4));
    // Back from the second page: the page before it, not the newest again.
    expect(ids((await get(link(next.link, 'prev')!)).json)).toEqual(all.slice(0, 2));
    expect(ids((await get(link(first.link, 'prev')!)).json)).toEqual([]);
    expect(ids((await get(`/api/v1/accounts/0/followers?since_id=${all[0]}`)).json)).toEqual([]);
    expect(ids((await get(`/api/v1/accounts/0/followers?since_id=${all[3]}`)).json)).toEqual(all.slice(0, 3));
    expect(ids((await get(`/api/v1/accounts/0/followers?min_id=${all[4]}&limit=2`)).json)).toEqual(all.slice(2, 4));
  });

  it('follow requests come in pages with a Link header, as followers do', async () => {
    for (let i = 0; i < 3; i++) {
      const id = `https://asker${i}.example/u`;
      addFollower(t.core, id);
      const row = t.core.db.select().from(actor).where(eq(actor.apId, id)).get()!;
      t.core.db.delete(follower).where(eq(follower.actorId, row.id)).run();
    }
    const all = ids((await get('/api/v1/follow_requests')).json);
    expect(all).toHaveLength(3);
    const first = await get('/api/v1/follow_requests?limit=2');
    expect(ids(first.json)).toEqual(all.slice(0, 2));
    expect(ids((await get(link(first.link, 'next')!)).json)).toEqual(all.slice(2));
    expect(ids((await get(`/api/v1/follow_requests?since_id=${all[1]}`)).json)).toEqual(all.slice(0, 1));
  });
});

// The author's people were read as the People view's first page (50 of each list): the 51st
// follower was neither counted, nor "followed_by" in a relationship, nor on any page.
describe('more than 50 followers and followed people', () => {
  it('all are counted, each one’s relationship is right, and the pages reach every one', async () => {
    const before = ((await get('/api/v1/accounts/verify_credentials')).json as { followers_count: number }).followers_count;
    for (let i = 0; i < 60; i++) addFollower(t.core, `https://many${i}.example/u`);
    const account = (await get('/api/v1/accounts/verify_credentials')).json as { followers_count: number; following_count: number };
    expect(account.followers_count).toBe(before + 60);
    const seen: string[] = [];
    let page = await get('/api/v1/accounts/0/followers?limit=40');
    while (ids(page.json).length > 0) {
      seen.push(...ids(page.json));
      const next = link(page.link, 'next');
      if (!next) break;
      page = await get(next);
    }
    expect(new Set(seen).size).toBe(before + 60);
    // The first follower added here is the oldest: past the first 50 of the list.
    const oldest = t.core.db.select().from(actor).where(eq(actor.apId, 'https://many0.example/u')).get()!;
    const relation = (await get(`/api/v1/accounts/relationships?id[]=${oldest.id}`)).json as { followed_by: boolean; following: boolean; requested_by: boolean }[];
    expect(relation[0]).toMatchObject({ followed_by: true, following: false, requested_by: false });
  });
});

describe('what a token or a visitor may read', () => {
  // Mastodon's profile scope is verify_credentials only.
  it('a profile-only token reads its own account, not another’s (403)', async () => {
    const profile = await issueToken(t.url, t.core, ['profile']);
    const someone = ids((await get('/api/v1/accounts/0/followers?limit=1')).json)[0]!;
    expect((await get('/api/v1/accounts/verify_credentials', profile)).status).toBe(200);
    expect((await get(`/api/v1/accounts/${someone}`, profile)).status).toBe(403);
    expect((await get(`/api/v1/accounts/${someone}`)).status).toBe(200);
  });

  it('a visitor’s /api/v1/instance and the author’s account count public and unlisted posts only; the author’s own view counts all', async () => {
    const counts = async () => ({
      instance: ((await get('/api/v1/instance', null)).json as { stats: { status_count: number } }).stats.status_count,
      contact: ((await get('/api/v1/instance', null)).json as { contact_account: { statuses_count: number } }).contact_account.statuses_count,
      account: ((await get('/api/v1/accounts/0')).json as { statuses_count: number }).statuses_count,
      own: ((await get('/api/v1/accounts/verify_credentials')).json as { statuses_count: number }).statuses_count,
    });
    const before = await counts();
    addPost(t.core, { visibility: 'DIRECT' });
    addPost(t.core, { visibility: 'FOLLOWERS_ONLY' });
    addPost(t.core, { visibility: 'UNLISTED' });
    expect(await counts()).toEqual({ instance: before.instance + 1, contact: before.contact + 1, account: before.account + 1, own: before.own + 3 });
  });
});
