// "Load more" draws only the new page's rows: the posts (posts/Post.tsx), notifications
// (views/Notifications.tsx GroupRow), people (views/People.tsx PersonRow), deliveries
// (deliveries/DeliveryRows.tsx DeliveryRow) and webmentions (webmentions/Webmentions.tsx)
// already shown are not rendered again. Without it, each page re-rendered every row above it,
// and a page cost more the longer the list (npm run bench:renderer: 541 ms at 2,000 posts,
// against 180–189 ms). Seen through React's DevTools hook, which the production build also
// calls at each commit: a row's element keeps the same props object when it was not rendered
// again.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { TEST_IDENTITY } from './headless';
import { ipc } from './peer-fixtures';
import { peerNote, storeFollowers, storeMentions, storeReceived, storeWebmentions } from './stored-posts';

interface Fiber {
  type: unknown;
  key: string | null;
  return: Fiber | null;
  memoizedProps: Record<string, unknown> | null;
  child: Fiber | null;
  sibling: Fiber | null;
}

/** Before the app loads: a stand-in for React DevTools' hook that keeps, after each commit, the
 * props object of every post's <article> (by its data-post key) and of every other row's element
 * (by the key React gave its row component, under a prefix per kind of row). */
async function watchRows(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen = new Map<string, object>();
    (window as unknown as { __rowProps: Map<string, object> }).__rowProps = seen;
    // A row's element (by its data-testid) and its key's prefix. Each is the first element of a
    // memoized row component (the parent fiber, which has the key) but a notification's, which
    // sits one component deeper in its GroupRow.
    const prefixes: Record<string, string> = { notification: 'notification', person: 'person', 'delivery-row': 'delivery', 'webmention-group': 'received', 'sent-webmention': 'sent' };
    (window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__: object }).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      isDisabled: false,
      renderers: new Map(),
      inject: () => 1,
      checkDCE: () => undefined,
      onScheduleFiberRoot: () => undefined,
      onCommitFiberUnmount: () => undefined,
      onPostCommitFiberRoot: () => undefined,
      onCommitFiberRoot(_renderer: number, root: { current: Fiber }) {
        const stack: Fiber[] = [root.current];
        while (stack.length > 0) {
          const fiber = stack.pop()!;
          const props = fiber.memoizedProps;
          const testId = props && typeof fiber.type === 'string' ? props['data-testid'] : undefined;
          if (testId === 'post' && fiber.type === 'article') seen.set(String(props!['data-post']), props!);
          else if (typeof testId === 'string' && testId in prefixes) {
            const row = testId === 'notification' ? (fiber.return?.return?.key ?? fiber.return?.key) : fiber.return?.key;
            seen.set(`${prefixes[testId]} ${row}`, props!);
          }
          if (fiber.sibling) stack.push(fiber.sibling);
          if (fiber.child) stack.push(fiber.child);
        }
      },
    };
  });
}

/** The props objects seen so far, by row: a handle kept in the page, compared there later. */
const snapshot = (page: Page) => page.evaluateHandle(() => new Map((window as unknown as { __rowProps: Map<string, object> }).__rowProps));
type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** How many rows of `before` (those whose key starts with `prefix`) were rendered again since,
 * and how many such rows have been seen in all. */
const renderedAgain = (before: Snapshot, prefix = '') =>
  before.evaluate((old, start) => {
    const now = (window as unknown as { __rowProps: Map<string, object> }).__rowProps;
    const again = [...old].filter(([key, props]) => key.startsWith(start) && now.get(key) !== props).length;
    return { again, shown: [...now.keys()].filter((key) => key.startsWith(start)).length };
  }, prefix);

/** On a list showing `first` rows (`rows`, recorded under `prefix`), presses Load more: the list
 * shows `total`, and none of the rows shown before was rendered again. */
async function loadMoreDrawsOnlyNew(page: Page, rows: Locator, prefix: string, first: number, total: number): Promise<void> {
  await expect(rows).toHaveCount(first);
  const before = await snapshot(page);
  expect(await renderedAgain(before, prefix)).toEqual({ again: 0, shown: first });
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(rows).toHaveCount(total);
  expect(await renderedAgain(before, prefix)).toEqual({ again: 0, shown: total });
}

test('Load more renders the new page’s posts and not again those already shown', async ({ tern, page }) => {
  storeReceived(tern.dataDir, Array.from({ length: 60 }, (_, i) => peerNote(i + 1)));
  await watchRows(page);
  await page.goto(`${tern.url}#/stream`);
  const posts = page.getByTestId('post');
  await loadMoreDrawsOnlyNew(page, posts, '', 20, 40);

  // A post that does change is drawn again: liking one renders that post (and only it).
  const liked = await snapshot(page);
  await posts.nth(5).getByRole('button', { name: /^Like/ }).click();
  await expect(posts.nth(5).getByRole('button', { name: /^Like|^Unlike|Liked/ }).first()).toHaveAttribute('aria-pressed', 'true');
  expect((await renderedAgain(liked)).again).toBe(1);
});

test('Load more renders the new page’s notifications and not again those already shown', async ({ tern, page }) => {
  storeReceived(tern.dataDir, Array.from({ length: 100 }, (_, i) => peerNote(i + 1)));
  storeMentions(tern.dataDir, 100);
  await watchRows(page);
  await page.goto(`${tern.url}#/notifications`);
  await loadMoreDrawsOnlyNew(page, page.getByTestId('notification'), 'notification ', 50, 100);
});

test('Load more renders the new page’s people and not again those already shown; removing one keeps the pages', async ({ tern, page, request }) => {
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 60);
  // Working offline: the Reject that removing a follower sends stays queued.
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  await watchRows(page);
  await page.goto(`${tern.url}#/people?tab=followers`);
  const rows = page.getByRole('list', { name: 'Followers' }).getByTestId('person');
  await loadMoreDrawsOnlyNew(page, rows, 'person ', 50, 60);

  // The author removes a follower far down the list: that row goes, the 59 others stay where
  // they were (the list is not read again from its first page), and the count follows.
  const removedRow = rows.filter({ hasText: '@f5@follower5.example' });
  await removedRow.getByRole('button', { name: 'Remove Follower 5' }).click();
  const asked = await snapshot(page);
  await removedRow.getByRole('button', { name: 'Remove follower' }).click();
  await expect(rows).toHaveCount(59);
  // Only the removed row was drawn again (busy, while its removal was asked); the 59 others not.
  expect(await renderedAgain(asked, 'person ')).toEqual({ again: 1, shown: 60 });
  await expect(rows.filter({ hasText: '@f5@follower5.example' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: /Followers/ }).locator('.tabs__count')).toHaveText('59');
});

test('Load more renders the new page’s deliveries and not again those already shown', async ({ tern, page, request }) => {
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 60);
  // Working offline: the 60 deliveries of the post stay queued, unchanged, while the test looks.
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  await ipc(request, tern, 'posts.create', { content: 'To sixty followers.' });
  await watchRows(page);
  await page.goto(`${tern.url}#/deliveries`);
  await loadMoreDrawsOnlyNew(page, page.getByTestId('delivery-row'), 'delivery ', 50, 60);
});

test('Load more renders the new page’s webmentions, received and sent, and not again those already shown', async ({ tern, page, request }) => {
  // Working offline: each post's webmention to the page it links stays queued while the test looks.
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  const posts: { id: number; apId: string }[] = [];
  for (let n = 1; n <= 25; n++) posts.push(await ipc(request, tern, 'posts.create', { content: `Post ${n}, on [a page](https://blog${n}.example/page).` }));
  storeWebmentions(tern.dataDir, posts);
  await watchRows(page);

  await page.goto(`${tern.url}#/webmentions`);
  await loadMoreDrawsOnlyNew(page, page.getByTestId('webmention-group'), 'received ', 20, 25);

  await page.goto(`${tern.url}#/webmentions?show=sent`);
  await loadMoreDrawsOnlyNew(page, page.getByTestId('sent-webmention'), 'sent ', 20, 25);
});
