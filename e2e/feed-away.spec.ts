// A list of more than KEEP_ALL_POSTS (400) posts lets go of the posts of blocks far from the
// screen (posts/PostList.tsx): such a block stands empty at the height its posts had, and its
// posts are drawn again as it comes within three screens. These tests hold what that must not
// break: the column keeps its height and the post being read stays where it is; what the author
// opened on a post (a content warning) is as they left it when the post comes back; j/k go on
// from the focused post even when the author scrolled away from it; coming back to the stream
// shows the post they were reading. npm run bench:renderer measures the DOM and the heap.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { peerNote, storeReceived } from './stored-posts';

const POSTS = 460;

/** Every 50th post carries a content warning. */
const note = (n: number) =>
  peerNote(n, {
    content: `<p>Post number ${n}, a few words.</p><p>A second paragraph of post ${n}.</p>`,
    ...(n % 50 === 0 ? { summary: `Warning on ${n}` } : {}),
  });

const postNumber = (page: Page, n: number) => page.getByTestId('post').filter({ hasText: `Post number ${n},` });
const main = (page: Page) => page.locator('#main');
const frames = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
const postsInPage = (page: Page) => page.getByTestId('post').count();
const scrollTo = async (page: Page, top: number | 'end') => {
  await main(page).evaluate((el, to) => el.scrollTo({ top: to === 'end' ? el.scrollHeight : to }), top);
  await frames(page);
  await frames(page);
};

/** Scrolls, two screens at a time, until post `n` is in the page, then puts it at the top of
 * the column, as the author reading it. */
async function readPost(page: Page, n: number): Promise<void> {
  for (let i = 0; i < 200 && (await postNumber(page, n).count()) === 0; i++) {
    const shown = await page.getByTestId('post').evaluateAll((posts) => posts.map((post) => Number(/Post number (\d+),/.exec(post.textContent ?? '')?.[1])));
    // The newest are at the top.
    const up = n > Math.max(...shown);
    await main(page).evaluate((el, sign) => el.scrollBy({ top: sign * el.clientHeight * 2 }), up ? -1 : 1);
    await frames(page);
  }
  await postNumber(page, n).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await frames(page);
}

/** Opens the stream and presses Load more until all POSTS posts are loaded. */
async function openLongStream(page: Page, url: string, dataDir: string): Promise<void> {
  storeReceived(dataDir, Array.from({ length: POSTS }, (_, i) => note(i + 1)));
  await page.goto(`${url}#/stream`);
  const feed = page.getByRole('feed');
  await expect(postNumber(page, POSTS)).toBeVisible();
  for (let loaded = 20; loaded < POSTS; loaded += 20) {
    await expect(feed).toHaveAttribute('data-posts', String(loaded));
    await page.getByRole('button', { name: 'Load more' }).click();
  }
  await expect(feed).toHaveAttribute('data-posts', String(POSTS));
}

test('a stream of more than 400 posts keeps only the posts near the screen in the page, at the same column height', async ({ page, tern }) => {
  test.setTimeout(120_000);
  await openLongStream(page, tern.url, tern.dataDir);
  await scrollTo(page, 'end');
  // At the end: the newest posts, far above, are let go; their blocks stand at their height.
  await expect(postNumber(page, POSTS)).toHaveCount(0);
  await expect(postNumber(page, 1)).toBeVisible();
  const shown = await postsInPage(page);
  expect(shown).toBeLessThan(POSTS / 2);
  expect(await page.locator('.feed__block[data-away]').count()).toBeGreaterThan(5);
  const height = await main(page).evaluate((el) => el.scrollHeight);

  // Back at the top, the newest are drawn again and the oldest let go; the column is as tall.
  await scrollTo(page, 0);
  await expect(postNumber(page, POSTS)).toBeVisible();
  await expect(postNumber(page, 1)).toHaveCount(0);
  expect(await main(page).evaluate((el) => el.scrollHeight)).toBe(height);

  // Reading in the middle: the post stays where it is while blocks above it go and come.
  await readPost(page, 230);
  const top = () => postNumber(page, 230).evaluate((el) => el.getBoundingClientRect().top - document.getElementById('main')!.getBoundingClientRect().top);
  const before = await top();
  await frames(page);
  await frames(page);
  expect(Math.abs((await top()) - before)).toBeLessThanOrEqual(1);
  await expect(postNumber(page, POSTS)).toHaveCount(0);
  await expect(postNumber(page, 1)).toHaveCount(0);
});

test('a content warning opened on a post let go is still open when the post comes back', async ({ page, tern }) => {
  test.setTimeout(120_000);
  await openLongStream(page, tern.url, tern.dataDir);
  await scrollTo(page, 0);
  const warned = postNumber(page, 450);
  await warned.getByRole('button', { name: 'Show more' }).click();
  await expect(warned.getByRole('button', { name: 'Show less' })).toHaveAttribute('aria-expanded', 'true');
  // Away and back: the post is drawn anew, with its warning as the author left it.
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await scrollTo(page, 'end');
  await expect(warned).toHaveCount(0);
  await scrollTo(page, 0);
  await expect(warned.getByRole('button', { name: 'Show less' })).toHaveAttribute('aria-expanded', 'true');
  // The others are as they were: closed.
  await readPost(page, 400);
  await expect(postNumber(page, 400).getByRole('button', { name: 'Show more' })).toHaveAttribute('aria-expanded', 'false');
});

test('j goes on from the focused post after the author scrolled far from it', async ({ page, tern }) => {
  test.setTimeout(120_000);
  await openLongStream(page, tern.url, tern.dataDir);
  await scrollTo(page, 0);
  // The 20th post: the last of the first block, so the next post is in the block after it.
  for (let i = 0; i < 20; i++) await page.keyboard.press('j');
  await expect(postNumber(page, POSTS - 19)).toBeFocused();
  // Scrolled to the end with the wheel (the focus stays): the focused post and its neighbours stay.
  await scrollTo(page, 'end');
  await expect(postNumber(page, POSTS - 19)).toBeFocused();
  await page.keyboard.press('j');
  await expect(postNumber(page, POSTS - 20)).toBeFocused();
  await page.keyboard.press('k');
  await page.keyboard.press('k');
  await expect(postNumber(page, POSTS - 18)).toBeFocused();
});

test('coming back to a long stream shows the post the author was reading, focused, where it was', async ({ page, tern }) => {
  test.setTimeout(120_000);
  await openLongStream(page, tern.url, tern.dataDir);
  const reading = postNumber(page, 120);
  await readPost(page, 120);
  await reading.focus();
  await frames(page);
  const top = () => reading.evaluate((el) => el.getBoundingClientRect().top - document.getElementById('main')!.getBoundingClientRect().top);
  const before = await top();
  expect(await postsInPage(page)).toBeLessThan(POSTS / 2);

  await page.getByRole('link', { name: 'Notifications' }).first().click();
  await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(reading).toBeFocused();
  await frames(page);
  expect(Math.abs((await top()) - before)).toBeLessThanOrEqual(2);
  // Drawn anew with every post, then the far ones let go again.
  await expect.poll(() => postsInPage(page)).toBeLessThan(POSTS / 2);
  expect(Math.abs((await top()) - before)).toBeLessThanOrEqual(2);
});
