// Audit: GET /api/v1/notifications?account_id=<an account with none>. notification-routes.ts
// mapped every notification of a batch to its Mastodon entity (its status and account built,
// HTML and all) before it dropped those of other accounts, for up to five batches of `limit`
// (80): 400 entities built for an empty page, 110–180 ms over 50,000 notifications. The stall
// is measured, and so (not hostage to a busy machine) are the stored documents decoded for
// the page: JSON.parse calls, more than a thousand before, none of another account's now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledListener, type ScaledListener } from './audit-fixture';
import { STALL_LIMIT_MS } from './rig';

let t: ScaledListener;
beforeAll(async () => {
  t = await scaledListener({ notifications: 50_000, inboxRows: 60_000 });
}, 300_000);
afterAll(async () => {
  await t?.close();
});


describe('notifications of an account that has none', () => {
  it('account_id matching nothing, limit=80: the main thread free', async () => {
    const { status, bytes, stallMs } = await t.measure('/api/v1/notifications?limit=80&account_id=999999');
    expect(status).toBe(200);
    expect(bytes, 'an empty page').toBe(2);
    expect(stallMs, 'main-thread stall').toBeLessThan(STALL_LIMIT_MS);
  });

  it('account_id matching nothing: no other account’s notification decoded', async () => {
    const { status, body, parses } = await t.parsesOf('/api/v1/notifications?limit=80&account_id=999999');
    expect(status).toBe(200);
    expect(body).toBe('[]');
    expect(parses, 'stored documents decoded').toBeLessThan(20);
  });
});
