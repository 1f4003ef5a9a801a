// /api/v2/search finds posts by their text (the desktop's search, newest first), with offset and
// limit; a query the search cannot read is a 422 when statuses were asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../indieauth/test-flow';
import { addPost, openListeningCore, type ListeningCore } from '../listener/test-support';

let t: ListeningCore;
let read: string;
const get = async (path: string) => {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${read}` } });
  return { status: response.status, json: (await response.json()) as { statuses: { content: string }[]; accounts: unknown[]; error?: string } };
};
const texts = (json: { statuses: { content: string }[] }) => json.statuses.map((s) => /<p>([^<]+)<\/p>/.exec(s.content)?.[1]);

beforeAll(async () => {
  t = await openListeningCore('alice');
  read = await issueToken(t.url, t.core, ['read']);
  const start = Date.parse('2026-01-01T00:00:00Z');
  ['apple one', 'banana', 'apple two', 'apple three', 'cherry'].forEach((text, i) => addPost(t.core, { content: `<p>${text}</p>`, published: new Date(start + i * 60_000) }));
});
afterAll(async () => t?.close());

describe('searching statuses', () => {
  it('finds the posts holding the words, newest first', async () => {
    const found = await get('/api/v2/search?q=apple&type=statuses');
    expect(found.status).toBe(200);
    expect(texts(found.json)).toEqual(['apple three', 'apple two', 'apple one']);
    expect(texts((await get('/api/v2/search?q=banana')).json)).toEqual(['banana']);
  });

  it('pages by offset and limit', async () => {
    expect(texts((await get('/api/v2/search?q=apple&type=statuses&limit=2')).json)).toEqual(['apple three', 'apple two']);
    expect(texts((await get('/api/v2/search?q=apple&type=statuses&limit=2&offset=2')).json)).toEqual(['apple one']);
    expect(texts((await get('/api/v2/search?q=apple&type=statuses&offset=3')).json)).toEqual([]);
  });

  it('a query the search cannot read is a 422 for statuses; searching everything still answers', async () => {
    const refused = await get('/api/v2/search?q=!!!&type=statuses');
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatch(/^Validation failed: /);
    expect((await get('/api/v2/search?q=!!!')).status).toBe(200);
  });
});
