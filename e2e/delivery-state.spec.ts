// The author's own posts say how far their delivery got (UX.md "Posts"): when a try failed and
// Tern will try again, the line under the post says why and when, as a sentence ("… did not
// answer in time. Tern will try again in 5 minutes."), not only "Sending". The profile answers
// with fixed posts (./fake-answers.ts): a lone headless Tern cannot make a server fail.
import type { ProfilePost } from '../electron/core/ipc/author-contract';
import { expect, test } from './fixtures';
import { actor, answer, post } from './fake-answers';
import { screenshotPath } from './screenshots';

const me = actor(0, 'ana', '@ana@tern.test');

function own(id: number, text: string, delivery: ProfilePost['delivery']): ProfilePost {
  return { ...post(me, `<p>${text}</p>`, { id, origin: 'outbox', mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: false } }), delivery };
}

const base = { activity: 'Create', total: 2, sent: 1, failed: 0, pending: 1, error: null, nextTry: null };

test('a post whose delivery will be tried again says why and when, and one delivered says nothing more', async ({ page, tern }) => {
  const inFive = new Date(Date.now() + 5 * 60_000 + 10_000).toISOString();
  await answer(page, 'timeline.profile', {
    items: [
      own(1, 'Retrying', { ...base, state: 'sending', error: 'mastodon.social did not answer in time.', nextTry: inFive }),
      own(2, 'Due now', { ...base, state: 'sending', error: 'Could not reach gts.example (ECONNRESET).', nextTry: new Date().toISOString() }),
      own(3, 'Delivered', { ...base, state: 'sent', sent: 2, pending: 0 }),
      own(4, 'Sending for the first time', { ...base, state: 'sending' }),
      // Offline: the summary says it waits for the network; only why the last try failed is added.
      own(5, 'Offline', { ...base, state: 'queued', error: 'pleroma.example had a server error (HTTP 502 Bad Gateway).', nextTry: inFive }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/profile`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(5);

  const retry = posts.nth(0).getByTestId('delivery-retry');
  await expect(posts.nth(0).getByTestId('delivery-state')).toContainText('Sending — delivered to 1 of 2 servers');
  await expect(retry).toHaveText('mastodon.social did not answer in time. Tern will try again in 5 minutes.');
  await expect(retry.locator('time')).toHaveAttribute('title', /\d{4}/);
  await expect(posts.nth(1).getByTestId('delivery-retry')).toHaveText('Could not reach gts.example (ECONNRESET). Tern will try again shortly.');
  await expect(posts.nth(2).getByTestId('delivery-retry')).toHaveCount(0);
  await expect(posts.nth(3).getByTestId('delivery-retry')).toHaveCount(0);
  await expect(posts.nth(4).getByTestId('delivery-state')).toContainText('will be sent when you’re online');
  await expect(posts.nth(4).getByTestId('delivery-retry')).toHaveText('Last try: pleroma.example had a server error (HTTP 502 Bad Gateway).');
  await posts.nth(0).screenshot({ path: screenshotPath('profile-delivery-retry') });
});
