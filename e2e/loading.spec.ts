// Small loading states do not flash (UX.md "Details that matter"): the list of servers under a
// post and the post a reply answers say "Loading…" only when the answer takes longer than
// 200 ms. The page's timers are frozen, so "200 ms" is the page's clock, not this machine's speed.
import type { Page } from '@playwright/test';
import type { ProfilePost } from '../electron/core/ipc/author-contract';
import { expect, test } from './fixtures';
import { actor, ana, answer, post } from './fake-answers';

/** Holds every call to `channel` until the returned function is called. */
async function hold(page: Page, channel: string): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/ipc/${channel}`, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

async function freezeClock(page: Page) {
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
}

test('the servers under a post say Loading… only after 200 ms', async ({ page, tern }) => {
  const me = actor(0, 'ana', '@ana@tern.test');
  const own: ProfilePost = {
    ...post(me, '<p>Hello</p>', { id: 1, origin: 'outbox', mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: false } }),
    delivery: { state: 'sent', activity: 'Create', total: 1, sent: 1, failed: 0, pending: 0, error: null, nextTry: null },
  };
  await answer(page, 'timeline.profile', { items: [own], nextCursor: null });
  await freezeClock(page);
  const release = await hold(page, 'deliveries.list');
  await page.goto(`${tern.url}#/profile`);
  await page.getByTestId('delivery-state').getByRole('button').click();
  const loading = page.getByTestId('delivery-state').getByText('Loading…');
  await page.clock.runFor(150);
  await expect(loading).toHaveCount(0);
  await page.clock.runFor(100);
  await expect(loading).toBeVisible();
  release();
  await expect(page.getByTestId('delivery-state')).toContainText('No deliveries recorded for this post.');
  await expect(loading).toHaveCount(0);
});

test('the post a reply answers says Loading… only after 200 ms', async ({ page, tern }) => {
  const answered = post(ana, '<p>Anyone seen the terns yet?</p>', { id: 1 });
  await freezeClock(page);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/ipc/thread.get', async (route) => {
    await released;
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ ok: true, value: { ancestors: [], post: answered, replies: [], totalReplies: 0, nextCursor: null, missingParent: null } }),
    });
  });
  await page.goto(`${tern.url}#/compose?reply=${encodeURIComponent(answered.apId)}`);
  const context = page.getByRole('region', { name: 'Replying to a post' });
  await expect(context).toBeVisible();
  const loading = context.getByText('Loading…');
  await page.clock.runFor(150);
  await expect(loading).toHaveCount(0);
  await page.clock.runFor(100);
  await expect(loading).toBeVisible();
  release();
  await expect(context).toContainText('Replying to Ana Lima');
  await expect(context).toContainText('Anyone seen the terns yet?');
  await expect(loading).toHaveCount(0);
  await page.getByRole('button', { name: 'Discard draft' }).click();
});
