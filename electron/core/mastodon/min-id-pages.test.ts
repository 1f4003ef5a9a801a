// min_id pages as Mastodon answers them: the page just after the id, listed newest first, on
// every list (an account's statuses, the local timeline, bookmarks, notifications), also when a
// filter needs more than one batch of rows to fill the page; Link's next and prev at its ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../../db/schema';
import { issueToken } from '../indieauth/test-flow';
import { addFollower, addPost, openListeningCore, type ListeningCore } from '../listener/test-support';

let t: ListeningCore;
let read: string;
const get = async (path: string) => {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${read}` } });
  return { status: response.status, json: (await response.json()) as unknown, link: response.headers.get('link') ?? '' };
};
const ids = (json: unknown) => (json as { id: string }[]).map((a) => a.id);
const bound = (link: string, rel: 'next' | 'prev', param: string) => new URL(new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link)![1]!).searchParams.get(param);

/** The author's posts, oldest first: A B C D E, then a reply, R1..R4 between F G H I. */
const posts: Record<string, string> = {};
const name = (json: unknown) => ids(json).map((id) => Object.entries(posts).find(([, v]) => v === id)?.[0] ?? id);

beforeAll(async () => {
  t = await openListeningCore('alice');
  read = await issueToken(t.url, t.core, ['read']);
  const start = Date.parse('2026-01-01T00:00:00Z');
  const names = ['A', 'B', 'C', 'D', 'E', 'R1', 'R2', 'F', 'R3', 'R4', 'G', 'H', 'I'];
  names.forEach((n, i) => {
    const row = addPost(t.core, { content: `<p>${n}</p>`, published: new Date(start + i * 60_000), ...(n.startsWith('R') ? { inReplyTo: 'https://peer.example/notes/1' } : {}) });
    posts[n] = String(row.id);
  });
  const byName = await get('/api/v1/accounts/0/statuses?limit=40');
  for (const s of byName.json as { id: string; content: string }[]) posts[/<p>(\w+)<\/p>/.exec(s.content)![1]!] = s.id;
});
afterAll(async () => t?.close());

describe('statuses', () => {
  it('an account’s statuses after min_id: the next posts up, newest first, Link prev at the newest and next at the oldest', async () => {
    const page = await get(`/api/v1/accounts/0/statuses?limit=2&min_id=${posts.A}`);
    expect(name(page.json)).toEqual(['C', 'B']);
    expect(bound(page.link, 'prev', 'min_id')).toBe(posts.C);
    expect(bound(page.link, 'next', 'max_id')).toBe(posts.B);
    expect(name((await get(`/api/v1/accounts/0/statuses?limit=2&min_id=${posts.C}`)).json)).toEqual(['E', 'D']);
  });

  it('the local public timeline after min_id is newest first too', async () => {
    expect(name((await get(`/api/v1/timelines/public?local=true&limit=3&min_id=${posts.A}`)).json)).toEqual(['D', 'C', 'B']);
  });

  it('a filtered page after min_id over several batches keeps the matches nearest the id, newest first, none twice', async () => {
    // exclude_replies: the first batch of 2 after E is R1 R2 (nothing kept), then F R3, then R4 G.
    const page = await get(`/api/v1/accounts/0/statuses?exclude_replies=true&limit=2&min_id=${posts.E}`);
    expect(name(page.json)).toEqual(['G', 'F']);
    expect(bound(page.link, 'prev', 'min_id')).toBe(posts.G);
    expect(bound(page.link, 'next', 'max_id')).toBe(posts.F);
    expect(name((await get(`/api/v1/accounts/0/statuses?exclude_replies=true&limit=3&min_id=${posts.D}`)).json)).toEqual(['G', 'F', 'E']);
  });

  it('a filtered page that stops short on rows its filter drops still links on past them, until the rows run out', async () => {
    // Nothing is tagged: every batch (of 1) is dropped; a page reads 5 batches and answers empty.
    const first = await get('/api/v1/accounts/0/statuses?tagged=nothing&limit=1');
    expect(first.json).toEqual([]);
    expect(bound(first.link, 'next', 'max_id')).toBe(posts.R3); // I H G R4 R3 read
    const second = await get(`/api/v1/accounts/0/statuses?tagged=nothing&limit=1&max_id=${posts.R3}`);
    expect(bound(second.link, 'next', 'max_id')).toBe(posts.D); // F R2 R1 E D
    const last = await get(`/api/v1/accounts/0/statuses?tagged=nothing&limit=1&max_id=${posts.D}`);
    expect(last).toMatchObject({ json: [], link: '' }); // C B A, and no more
  });

  it('a filtered page without min_id is still the newest matches', async () => {
    expect(name((await get(`/api/v1/accounts/0/statuses?exclude_replies=true&limit=3&max_id=${posts.H}`)).json)).toEqual(['G', 'F', 'E']);
  });
});

describe('notifications', () => {
  it('a page after min_id filtered by account reads on past short batches and lists newest first', async () => {
    addFollower(t.core, 'https://one.example/u');
    addFollower(t.core, 'https://two.example/u');
    const [one, two] = t.core.sqlite.prepare("SELECT id FROM actor WHERE ap_id IN ('https://one.example/u', 'https://two.example/u') ORDER BY ap_id").all() as { id: number }[];
    // Follows from one, two, two, one, two, one, one: one's are 1, 4, 6, 7.
    const order = [one, two, two, one, two, one, one];
    const rows = order.map((a, i) => t.core.db.insert(notifications).values({ createdAt: new Date(Date.parse('2026-01-02T00:00:00Z') + i * 1000), notificationType: 'NEW_FOLLOWER', isNew: true, actorId: a!.id }).returning().get().id);
    const account = String(one!.id);
    const all = await get(`/api/v1/notifications?account_id=${account}`);
    const mine = [rows[6], rows[5], rows[3], rows[0]].map(String);
    expect(ids(all.json)).toEqual(mine);
    const page = await get(`/api/v1/notifications?limit=2&account_id=${account}&min_id=${rows[0]}`);
    expect(ids(page.json)).toEqual([String(rows[5]), String(rows[3])]);
    expect(bound(page.link, 'prev', 'min_id')).toBe(String(rows[5]));
    expect(bound(page.link, 'next', 'max_id')).toBe(String(rows[3]));
    expect(ids((await get(`/api/v1/notifications?limit=2&account_id=${account}&max_id=${rows[6]}`)).json)).toEqual([String(rows[5]), String(rows[3])]);
  });

  it('account_id is read with the rows: an account’s notifications far below others’ still fill the page; an id of no account answers none', async () => {
    addFollower(t.core, 'https://three.example/u');
    const [three, two] = ['https://three.example/u', 'https://two.example/u'].map((apId) => (t.core.sqlite.prepare('SELECT id FROM actor WHERE ap_id = ?').get(apId) as { id: number }).id);
    const add = (actorId: number, i: number) => t.core.db.insert(notifications).values({ createdAt: new Date(Date.parse('2026-01-03T00:00:00Z') + i * 1000), notificationType: 'NEW_FOLLOWER', isNew: true, actorId }).returning().get().id;
    // Three's two, then 30 of two's above them: more than the five batches of 2 a page reads.
    const threes = [add(three!, 0), add(three!, 1)].map(String).reverse();
    for (let i = 2; i < 32; i++) add(two!, i);
    const page = await get(`/api/v1/notifications?limit=2&account_id=${three}`);
    expect(ids(page.json)).toEqual(threes);
    expect(bound(page.link, 'next', 'max_id')).toBe(threes[1]);
    expect((await get(`/api/v1/notifications?limit=2&account_id=${three}&max_id=${threes[1]}`)).json).toEqual([]);
    for (const none of ['999999', 'abc', `0${three}`]) expect(await get(`/api/v1/notifications?limit=2&account_id=${none}`)).toEqual({ status: 200, json: [], link: '' });
  });
});
