// Search as the author uses it, in Chromium against headless mode: `/` from anywhere focuses the
// box; words find the author's posts with the matches marked (<mark>), and a post saying
// "<script>" shows those characters, not markup; a mistake in the query is a sentence; nothing
// found says what to try; a hit opens its thread and Back returns to the results. The same
// channel answers over the headless HTTP transport. Screenshot: test-results/screenshots/search.png.
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import type { Headless } from './headless';
import { screenshotPath } from './screenshots';

async function ipc<T>(request: APIRequestContext, tern: Headless, channel: string, input: unknown): Promise<{ ok: boolean; value: T; error?: { code: string; message: string } }> {
  const res = await request.post(`${tern.origin}/ipc/${channel}`, { headers: { authorization: `Bearer ${tern.token}` }, data: input });
  return (await res.json()) as { ok: boolean; value: T; error?: { code: string; message: string } };
}

async function post(request: APIRequestContext, tern: Headless, content: string, visibility = 'PUBLIC') {
  const r = await ipc(request, tern, 'posts.create', { content, visibility });
  expect(r.ok, r.error?.message).toBe(true);
}

const box = (page: Page) => page.getByRole('searchbox', { name: 'Search posts, people and webmentions' });

test('/ focuses search; words find posts with the matches marked, as text; errors and empty results are sentences; a hit opens its thread', async ({ page, request, tern }) => {
  await post(request, tern, 'Watching **kingfishers** by the canal this morning');
  await post(request, tern, 'Two kingfishers again, and a heron', 'UNLISTED');
  await post(request, tern, 'Beware <script>alert(1)</script> in kingfishers posts');
  await post(request, tern, 'Nothing about birds here');

  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await page.keyboard.press('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Search' })).toBeVisible();
  await expect(box(page)).toBeFocused();
  await expect(page.getByTestId('empty-state')).toContainText('Search everything Tern keeps');

  await box(page).fill('kingfishers');
  await box(page).press('Enter');
  const hits = page.getByTestId('search-post');
  await expect(hits).toHaveCount(3);
  await expect(page).toHaveURL(/#\/search\?q=kingfishers/);
  await expect(hits.locator('mark')).toHaveCount(3);
  await expect(hits.locator('mark').first()).toHaveText('kingfishers');
  // The <script> the author typed is text: no element, no dialog.
  const scripted = hits.filter({ hasText: '<script>alert(1)</script>' });
  await expect(scripted).toHaveCount(1);
  await expect(page.locator('#main script')).toHaveCount(0);
  await expect(scripted.locator('*:not(mark):not(span):not(a):not(time):not(div):not(p):not(svg):not(path):not(circle):not(img)')).toHaveCount(0);

  // The operators narrow: an unlisted post only; newest first as an order.
  await box(page).fill('kingfishers visibility:unlisted');
  await box(page).press('Enter');
  await expect(hits).toHaveCount(1);
  await expect(hits).toContainText('heron');
  await page.getByRole('navigation', { name: 'Order' }).getByRole('link', { name: 'Newest first' }).click();
  await expect(page).toHaveURL(/sort=date/);
  await expect(hits).toHaveCount(1);
  await page.getByRole('navigation', { name: 'Order' }).getByRole('link', { name: 'Best match' }).click();

  await box(page).fill('kingfishers');
  await box(page).press('Enter');
  await expect(hits).toHaveCount(3);
  await page.getByRole('button', { name: 'Search', exact: true }).focus();
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: screenshotPath('search') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('search-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  // A mistake: its sentence, no results, no retry button.
  await box(page).fill('kingfishers has:video');
  await box(page).press('Enter');
  await expect(page.getByTestId('search-error')).toContainText('has: takes media or poll, not “video”.');
  await expect(hits).toHaveCount(0);

  await box(page).fill('albatross');
  await box(page).press('Enter');
  await expect(page.getByTestId('empty-state')).toContainText('Nothing found for “albatross”');

  // A hit opens its thread; Back returns to the search.
  await box(page).fill('heron');
  await box(page).press('Enter');
  await expect(hits).toHaveCount(1);
  await hits.first().getByRole('link', { name: 'Open the thread' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Thread' })).toBeVisible();
  await expect(page.getByText('Two kingfishers again, and a heron')).toBeVisible();
  await page.goBack();
  await expect(box(page)).toHaveValue('heron');
  await expect(hits).toHaveCount(1);
});

test('search.query over the headless HTTP transport: typed results, and bad input refused with a reason', async ({ request, tern }) => {
  await post(request, tern, 'Curlews on the mudflats');
  const ok = await ipc<{ posts: { post: { origin: string }; snippet: string }[]; nextCursor: string | null }>(request, tern, 'search.query', { text: 'curlews', kind: 'posts' });
  expect(ok.ok).toBe(true);
  expect(ok.value.posts.map((h) => [h.post.origin, h.snippet])).toEqual([['outbox', '\u0002Curlews\u0003 on the mudflats']]);
  expect(ok.value.nextCursor).toBeNull();
  const bad = await ipc(request, tern, 'search.query', { text: '"curlews' });
  expect(bad).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringContaining('quotation mark is not closed') } });
});
