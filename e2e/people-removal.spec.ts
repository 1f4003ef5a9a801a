// Removing someone from People takes that row out in place (views/People.tsx `removed`). Two
// paths around it: a list read still in flight from before the removal would bring the person
// back, so it is read again instead of shown; and a list whose loaded rows were all removed,
// while more remain, is not "no one" (Load more stays). The core is the real one (stored
// followers, working offline so the Reject stays queued); the routes only hold or trim its answers.
import type { Page, Route } from '@playwright/test';
import { expect, test } from './fixtures';
import { TEST_IDENTITY } from './headless';
import { ipc } from './peer-fixtures';
import { storeFollowers } from './stored-posts';

/** Removes Follower n from the Followers list, through its button and the confirmation. */
async function removeFollower(page: Page, n: number): Promise<void> {
  const row = page.getByTestId('person').filter({ hasText: `@f${n}@follower${n}.example` });
  await row.getByRole('button', { name: `Remove Follower ${n}` }).click();
  await row.getByRole('button', { name: 'Remove follower' }).click();
}

test('a list read before a removal does not bring the removed follower back', async ({ tern, page, request }) => {
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 60);
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  // The list's second read is answered with what the core said before the removal, held until
  // the removal is done; the reads after it go through.
  const reads: string[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/ipc/people.list', async (route: Route) => {
    reads.push('list');
    if (reads.length !== 2) return route.continue();
    const before = await route.fetch();
    await held;
    return route.fulfill({ response: before });
  });
  // Load more fails once: its error offers Try again, which reads the list again (the second read).
  let pageFailed = false;
  await page.route('**/ipc/people.page', (route: Route) => {
    if (pageFailed) return route.continue();
    pageFailed = true;
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: false, error: { code: 'unavailable', message: 'The core did not answer.' } }) });
  });

  await page.goto(`${tern.url}#/people?tab=followers`);
  const rows = page.getByRole('list', { name: 'Followers' }).getByTestId('person');
  await expect(rows).toHaveCount(50);
  await page.getByRole('button', { name: 'Load more' }).click();
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect.poll(() => reads.length).toBe(2);

  await removeFollower(page, 55);
  await expect(rows).toHaveCount(49);
  release();
  // The held answer (50 rows, Follower 55 among them) is not shown: the list is read again.
  await expect.poll(() => reads.length).toBe(3);
  await expect(rows.filter({ hasText: '@f55@follower55.example' })).toHaveCount(0);
  await expect(rows).toHaveCount(50); // the core's first page now: Follower 11 comes up
  await expect(rows.filter({ hasText: '@f11@follower11.example' })).toHaveCount(1);
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});

test('removing every follower shown while more remain leaves Load more, not “no one”', async ({ tern, page, request }) => {
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 60);
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  // The first page trimmed to its newest follower; its cursor (after the 50th) kept.
  await page.route('**/ipc/people.list', async (route: Route) => {
    const answer = await route.fetch();
    const body = (await answer.json()) as { ok: true; value: { followers: unknown[]; nextCursor: { followers: string | null } } };
    expect(body.value.nextCursor.followers).not.toBeNull();
    body.value.followers = body.value.followers.slice(0, 1);
    return route.fulfill({ response: answer, body: JSON.stringify(body) });
  });
  await page.goto(`${tern.url}#/people?tab=followers`);
  const rows = page.getByRole('list', { name: 'Followers' }).getByTestId('person');
  await expect(rows).toHaveCount(1);
  await removeFollower(page, 60);

  await expect(page.getByTestId('person')).toHaveCount(0);
  await expect(page.getByText('No one follows you yet')).toHaveCount(0);
  await page.getByRole('button', { name: 'Load more' }).click();
  // The core's next page: followers 10 to 1.
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText('@f10@follower10.example');
});
