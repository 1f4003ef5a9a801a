// Audit: follow requests waiting for the author — each a Follow some remote actor sent, not
// answered, from someone who does not follow — were read whole (follow-requests.ts
// listPendingFollowRequests: no LIMIT, each row's actor document decoded) by every Mastodon API
// call that reads the author's people (people.ts listPeople): verify_credentials (every client
// at start-up) twice, follow_requests and followers even for a page of one, and the instance
// document (open to anyone) for its contact account. Remote actors decide how many there are:
// with 15,000, 110–354 ms. The stall is measured, and so (not hostage to a busy machine) are
// the stored documents decoded: JSON.parse calls, one per request and more before, a page's now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledListener, type ScaledListener } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

let t: ScaledListener;
beforeAll(async () => {
  t = await scaledListener({ actors: 15_000, followers: 15_000, inboxRows: 20_000 });
  // The fixture's followers' Follows, not answered yet: 15,000 requests waiting.
  t.core.sqlite.prepare('DELETE FROM follower').run();
}, 300_000);
afterAll(async () => {
  await t?.close();
});


const PATHS: [string, boolean][] = [
  ['/api/v1/accounts/verify_credentials', false],
  ['/api/v1/follow_requests?limit=1', false],
  ['/api/v1/accounts/0/followers?limit=1', false],
  ['/api/v2/instance', true],
  // Whether someone asks (Relationship.requested_by), and the people an account search looks among.
  ['/api/v1/accounts/relationships?id[]=1', false],
  ['/api/v1/accounts/search?q=nobody-by-this-name', false],
];

describe('15,000 follow requests waiting', () => {
  it.each(PATHS)('%s (no token: %s): the main thread free', async (path, anonymous) => {
    const { status, stallMs } = await t.measure(path, { anonymous });
    expect(status).toBe(200);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it.each(PATHS)('%s (no token: %s): not every request’s actor decoded', async (path, anonymous) => {
    const { status, parses } = await t.parsesOf(path, { anonymous });
    expect(status).toBe(200);
    expect(parses, 'stored documents decoded').toBeLessThan(1_000);
  });

  it('the count and the page still tell of all 15,000', async () => {
    const own = await fetch(`${t.url}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(((await own.json()) as { source: { follow_requests_count: number } }).source.follow_requests_count).toBe(15_000);
    const page = await fetch(`${t.url}/api/v1/follow_requests?limit=2`, { headers: { authorization: `Bearer ${t.token}` } });
    const ids = ((await page.json()) as { id: string }[]).map((a) => a.id);
    expect(ids).toHaveLength(2);
    expect(page.headers.get('link')).toContain(`max_id=${ids[1]}`);
    const relationships = await fetch(`${t.url}/api/v1/accounts/relationships?id[]=1&id[]=${ids[0]}`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(((await relationships.json()) as { requested_by: boolean }[]).map((r) => r.requested_by)).toEqual([true, true]);
  });
});
