// Audit: GET /api/v2/search with `offset` (up to 10,000 allowed). The status search paged by
// cursor, so timeline-routes.ts searchStatuses read every hit before the offset through
// search.query in batches of 200 — each batch's rows read and turned into post views (HTML
// sanitized) — only to drop them: 10,000 views built in one synchronous loop (449-728 ms; 23-47
// ms at offset 0). Now the search passes over them as rowids (search.postsByDate) and builds the
// page's posts alone; an offset past 10,000 is refused, as Mastodon's search reads no further.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledListener, type ScaledListener } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

let t: ScaledListener;
beforeAll(async () => {
  t = await scaledListener({ inboxRows: 40_000 });
}, 300_000);
afterAll(async () => {
  await t?.close();
});


/** Counts the posts the search service builds (views with snippets) while `work` runs. */
async function postsBuilt<T>(work: () => Promise<T>): Promise<{ result: T; built: number }> {
  const search = t.core.services!.search as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  let built = 0;
  for (const name of ['query', 'postsByDate']) {
    const original = search[name];
    if (typeof original !== 'function') continue;
    originals.set(name, original);
    search[name] = (...args: unknown[]) => {
      const out = original.apply(search, args) as { posts?: unknown[]; hits?: unknown[] };
      built += (out.posts ?? out.hits ?? []).length;
      return out;
    };
  }
  try {
    return { result: await work(), built };
  } finally {
    for (const [name, original] of originals) search[name] = original;
  }
}

describe('a status search far into its hits', () => {
  it.each([
    ['/api/v2/search?q=dolor&type=statuses&offset=10000', 20],
    ['/api/v2/search?q=dolor&offset=10000&limit=40', 40],
  ])('%s: the main thread free, the page’s posts alone built', async (path, limit) => {
    const { result, built } = await postsBuilt(() => fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.token}` } }).then((r) => r.json()));
    expect((result as { statuses: unknown[] }).statuses).toHaveLength(limit);
    expect(built, 'posts built for the page').toBeLessThanOrEqual(limit);
    const { status, bytes, stallMs } = await t.measureBest(path);
    expect(status).toBe(200);
    expect(bytes, 'statuses were found').toBeGreaterThan(1000);
    expect(stallMs, `${path}: main-thread stall`).toBeLessThan(STALL_LIMIT_MS);
  });

  it('the pages far down are the matches at those places, newest first', async () => {
    const ids = async (offset: number, limit: number) => {
      const res = await fetch(`${t.url}/api/v2/search?q=dolor&type=statuses&offset=${offset}&limit=${limit}`, { headers: { authorization: `Bearer ${t.token}` } });
      return ((await res.json()) as { statuses: { id: string }[] }).statuses.map((s) => s.id);
    };
    const run = await ids(9980, 40);
    expect(run).toHaveLength(40);
    expect(await ids(10_000, 20)).toEqual(run.slice(20));
    expect(await ids(9990, 10)).toEqual(run.slice(10, 20));
  });

  it('an offset past 10,000 is refused (422), as Mastodon’s search pages no further', async () => {
    const res = await fetch(`${t.url}/api/v2/search?q=dolor&type=statuses&offset=10001`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(res.status).toBe(422);
  });
});
