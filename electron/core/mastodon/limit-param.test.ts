// `limit` read as Mastodon's limit_param reads it: above the cap is the cap, negative is its
// absolute value, 0 is an empty page; only something that is not a whole number is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../indieauth/test-flow';
import { addFollower, addPost, openListeningCore, type ListeningCore } from '../listener/test-support';

let t: ListeningCore;
let read: string;
const get = async (path: string) => {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${read}` } });
  return { status: response.status, json: (await response.json()) as unknown };
};
const count = async (path: string) => {
  const { status, json } = await get(path);
  expect(status).toBe(200);
  return (json as unknown[]).length;
};

beforeAll(async () => {
  t = await openListeningCore('alice');
  read = await issueToken(t.url, t.core, ['read']);
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < 90; i++) addPost(t.core, { content: `<p>post ${i}</p>`, published: new Date(start + i * 1000) });
  for (let i = 0; i < 3; i++) addFollower(t.core, `https://peer${i}.example/u`);
});
afterAll(async () => t?.close());

describe('limit', () => {
  it('above the cap is clamped to the cap (80 statuses), not refused', async () => {
    expect(await count('/api/v1/timelines/home?limit=200')).toBe(80);
    expect(await count('/api/v1/accounts/0/statuses?limit=81')).toBe(80);
  });

  it('negative is its absolute value; absent is the default', async () => {
    expect(await count('/api/v1/timelines/home?limit=-3')).toBe(3);
    expect(await count('/api/v1/timelines/home')).toBe(20);
  });

  it('0 is an empty page, on statuses and on people (min_id too)', async () => {
    expect(await count('/api/v1/timelines/home?limit=0')).toBe(0);
    expect(await count('/api/v1/accounts/0/followers?limit=0')).toBe(0);
    expect(await count('/api/v1/accounts/0/followers?limit=0&min_id=1')).toBe(0);
  });

  it('search and account search clamp too', async () => {
    expect((await get('/api/v2/search?q=alice&limit=50')).status).toBe(200);
    expect((await get('/api/v1/accounts/search?q=alice&limit=1000')).status).toBe(200);
  });

  it('something not a whole number is refused with 422 and a reason', async () => {
    const refused = await get('/api/v1/timelines/home?limit=many');
    expect(refused.status).toBe(422);
    expect((refused.json as { error: string }).error).toMatch(/limit/);
  });
});
