// A long stream is drawn in blocks of 20 posts that Chromium lays out and paints only near the
// screen (renderer/lists/blocks.ts, posts/PostList.tsx, `.feed__block` in posts.css). Measured
// with npm run bench:renderer at 2,000 posts: a page of Load more took 437 and 214 ms (busy 519
// and 252) before, 65–89 ms (busy 98–135) after. These tests hold what it must not break: posts
// away from the screen stay in the page (Chromium leaves them out of its accessibility tree
// until they come near the screen, checked over CDP, as a windowed list would); coming back to
// the list shows the post the author was reading where it was; a focus ring and a menu at a
// block's edge are drawn whole; j/k cross blocks; new posts at the top leave the other posts in
// their blocks and stand in at about their height; a post pinned out of its block, or unpinned,
// leaves its neighbours as they were, and the profile is in order after it.
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect, test } from './fixtures';
import { ipc } from './peer-fixtures';
import { PEER_ACTOR, peerNote, storeReceived } from './stored-posts';

const POSTS = 100;

/** A post tall enough that 20 of them are several screens. */
const note = (n: number) => peerNote(n, { content: `<p>Post number ${n}, a few words.</p><p>A second paragraph of post ${n}.</p>` });

/** Opens the stream and presses Load more until all `POSTS` posts are in the page. */
async function openLongStream(page: Page, url: string, dataDir: string): Promise<void> {
  storeReceived(dataDir, Array.from({ length: POSTS }, (_, i) => note(i + 1)));
  await page.goto(`${url}#/stream`);
  const posts = page.getByTestId('post');
  for (let shown = 20; shown < POSTS; shown += 20) {
    await expect(posts).toHaveCount(shown);
    await page.getByRole('button', { name: 'Load more' }).click();
  }
  await expect(posts).toHaveCount(POSTS);
}

/** The post whose text names `n` (the stream shows the newest, POSTS, first). */
const postNumber = (page: Page, n: number) => page.getByTestId('post').filter({ hasText: `Post number ${n},` });

/** Whether Chromium lays out and paints the post (false when its block is away from the screen). */
const drawn = (page: Page, n: number) => postNumber(page, n).evaluate((el) => el.checkVisibility({ contentVisibilityAuto: true }));

/** Where a post's top is, from the top of the scrolling column. */
const topOf = (page: Page, n: number) =>
  postNumber(page, n).evaluate((el) => el.getBoundingClientRect().top - document.getElementById('main')!.getBoundingClientRect().top);

/** Stores more of the peer's notes (storeReceived stored the peer and the first ones). */
function insertNotes(dataDir: string, numbers: number[]): void {
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    const insert = db.prepare(
      `INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
         ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
       VALUES (?, ?, 1, 'peer.example', 0, ?, 'Note', ?, ?, ?, 'PUBLIC', 0, 0, 0, 0)`,
    );
    for (const n of numbers) {
      const object = note(n);
      insert.run(object.published, object.published, PEER_ACTOR, object.id, object.published, JSON.stringify(object));
    }
  } finally {
    db.close();
  }
}

const frames = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** Scrolls to the top of the stream, then down until post `n` is at the top of the column, as
 * the author reading it is; the blocks pass in and out of the screen on the way. */
async function readFromTop(page: Page, n: number): Promise<void> {
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  await frames(page);
  await postNumber(page, n).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await frames(page);
}

test('posts far from the screen are not drawn but stay in the page, and the column keeps its height', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  await frames(page);
  expect(await drawn(page, POSTS)).toBe(true);
  // The oldest posts, four blocks down, are not drawn …
  expect(await drawn(page, 1)).toBe(false);
  expect(await page.locator('.feed__block').count()).toBe(POSTS / 20);
  expect(await postNumber(page, 1).count()).toBe(1);

  // Scrolled to the end, the newest posts are the ones not drawn, and the column is as tall.
  const height = await page.evaluate(() => document.getElementById('main')!.scrollHeight);
  await postNumber(page, 1).scrollIntoViewIfNeeded();
  await frames(page);
  expect(await drawn(page, 1)).toBe(true);
  expect(await drawn(page, POSTS)).toBe(false);
  expect(await page.evaluate(() => document.getElementById('main')!.scrollHeight)).toBe(height);
});

test('coming back to the stream shows the post the author was reading where it was', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  // Reading post 30, near the end: the blocks above it are away from the screen when the
  // stream is drawn again, and stand in at the heights they had.
  await readFromTop(page, 30);
  const before = await topOf(page, 30);
  expect(Math.abs(before)).toBeLessThan(40);

  await page.getByRole('link', { name: 'Notifications' }).first().click();
  await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(postNumber(page, 30)).toBeVisible();
  await frames(page);
  expect(Math.abs((await topOf(page, 30)) - before)).toBeLessThanOrEqual(2);
});

test('the focus ring of the last post of a block is drawn whole, below it too', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  // j moves to the first post, then on to the 20th: the last of the first block.
  for (let i = 0; i < 20; i++) await page.keyboard.press('j');
  const last = postNumber(page, POSTS - 19);
  await expect(last).toBeFocused();
  await last.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await frames(page);
  const box = (await last.boundingBox())!;
  // The ring is 2 px wide, 2 px outside the post: the rows 3 px below its bottom edge, across
  // its middle, are the focus colour (a clipped ring leaves the page's background there).
  const shot = await page.screenshot({ clip: { x: box.x + box.width / 4, y: box.y + box.height + 2.5, width: box.width / 2, height: 1 } });
  const { data, info } = await sharp(shot).raw().toBuffer({ resolveWithObject: true });
  const focus = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--focus').trim());
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(focus.slice(i, i + 2), 16));
  let ring = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    if (Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 40) ring++;
  }
  expect(ring / info.width).toBeGreaterThan(0.9);
});

test('the menu of the last post of a block opens over the next block, drawn whole', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  const last = postNumber(page, POSTS - 19);
  await last.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await last.getByRole('button', { name: 'More' }).click();
  const item = last.getByRole('menuitem').last();
  await expect(item).toBeVisible();
  // The menu reaches past the block's end, and its last item, near its bottom edge, is what is
  // drawn (and clicked) there: the menu is neither cut at the block's edge nor under the next.
  const { probe, blockBottom, hit } = await item.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const y = r.bottom - 3;
    return {
      probe: y,
      blockBottom: el.closest('.feed__block')!.getBoundingClientRect().bottom,
      hit: el.contains(document.elementFromPoint(r.x + r.width / 2, y)),
    };
  });
  expect(probe).toBeGreaterThan(blockBottom);
  expect(hit).toBe(true);
});

test('j and k cross from block to block, and the post moved to is drawn', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  for (let i = 0; i < 45; i++) await page.keyboard.press('j');
  const reached = postNumber(page, POSTS - 44);
  await expect(reached).toBeFocused();
  await expect(reached).toBeInViewport();
  expect(await drawn(page, POSTS - 44)).toBe(true);
  for (let i = 0; i < 6; i++) await page.keyboard.press('k');
  await expect(postNumber(page, POSTS - 38)).toBeFocused();
  await expect(postNumber(page, POSTS - 38)).toBeInViewport();
});

test('new posts put in front by a refresh leave every other post in its block', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  const blockOf = () =>
    page.getByTestId('post').evaluateAll((posts) => Object.fromEntries(posts.map((p) => [p.dataset.post, p.closest<HTMLElement>('.feed__block')!.dataset.block])));
  const before = await blockOf();
  insertNotes(tern.dataDir, [POSTS + 1, POSTS + 2, POSTS + 3]);
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('post')).toHaveCount(POSTS + 3);
  const after = await blockOf();
  const moved = Object.keys(before).filter((key) => after[key] !== before[key]);
  expect(moved).toEqual([]);
  const fresh = Object.keys(after).filter((key) => !(key in before));
  expect(fresh).toHaveLength(3);
  // The three new ones share a block of their own, ahead of the others.
  expect(new Set(fresh.map((key) => after[key])).size).toBe(1);
  expect(Object.values(before)).not.toContain(after[fresh[0]!]);
});

test('pinning a post on the Profile leaves the posts of its block as they were, and the keyboard on it', async ({ page, tern, request }) => {
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  for (let n = 1; n <= 25; n++) {
    await ipc(request, tern, 'posts.create', { content: `Own post ${n} here.`, ...(n === 3 ? { summary: 'Spoiler three' } : {}) });
  }
  await page.goto(`${tern.url}#/profile`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(20);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(posts).toHaveCount(25);
  // The author opens post 3's content warning, then pins post 4, of the same block.
  const third = posts.filter({ hasText: 'Spoiler three' });
  await third.getByRole('button', { name: 'Show more' }).click();
  await expect(third.getByText('Own post 3 here.')).toBeVisible();
  const fourth = posts.filter({ hasText: 'Own post 4 here.' });
  await fourth.getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Pin to your profile' }).click();
  await expect(posts.first()).toContainText('Own post 4 here.');
  // Post 3 was not drawn anew: its content warning is still open.
  await expect(third.getByText('Own post 3 here.')).toBeVisible();
  // The keyboard is still on the pinned post: j goes on to the post after it.
  await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-post]')?.textContent ?? 'nothing')).toContain('Own post 4 here.');
  await page.keyboard.press('j');
  await expect(posts.nth(1)).toBeFocused();
  // Unpinned, it goes back among the others, and post 3 is still as the author left it.
  await fourth.getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Unpin from your profile' }).click();
  await expect(posts.first()).not.toContainText('Own post 4 here.');
  await expect(third.getByText('Own post 3 here.')).toBeVisible();
  // It is back at its date, between posts 5 and 3, though that is past the first page.
  const order = () => posts.evaluateAll((all) => all.map((p) => /Own post (\d+) here/.exec(p.textContent ?? '')?.[1] ?? (p.textContent?.includes('Spoiler three') ? '3' : '?')));
  await expect.poll(order).toEqual(Array.from({ length: 25 }, (_, i) => String(25 - i)));
});

test('new posts that come in above the screen stand in at about their own height', async ({ page, tern }) => {
  await openLongStream(page, tern.url, tern.dataDir);
  await readFromTop(page, 60);
  const before = await page.evaluate(() => document.getElementById('main')!.scrollHeight);
  const reading = await topOf(page, 60);
  insertNotes(tern.dataDir, [POSTS + 1, POSTS + 2, POSTS + 3]);
  // Back from Notifications, the stream asks Tern again and puts the three new posts in front,
  // in a block of their own that is never drawn while the author reads post 60.
  await page.getByRole('link', { name: 'Notifications' }).first().click();
  await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId('post')).toHaveCount(POSTS + 3);
  await frames(page);
  expect(await drawn(page, POSTS + 1)).toBe(false);
  const grown = (await page.evaluate(() => document.getElementById('main')!.scrollHeight)) - before;
  // Three posts and a gap or two, not the height of twenty.
  expect(grown).toBeGreaterThan(100);
  expect(grown).toBeLessThan(1200);
  expect(Math.abs((await topOf(page, 60)) - reading)).toBeLessThanOrEqual(2);
});

test('a post unpinned from the stream is back at its date when the Profile is shown again', async ({ page, tern, request }) => {
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  for (let n = 1; n <= 25; n++) await ipc(request, tern, 'posts.create', { content: `Own post ${n} here.` });
  await page.goto(`${tern.url}#/profile`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(20);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(posts).toHaveCount(25);
  const fourth = posts.filter({ hasText: 'Own post 4 here.' });
  await fourth.getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Pin to your profile' }).click();
  await expect(posts.first()).toContainText('Own post 4 here.');

  await page.getByRole('link', { name: 'Stream' }).first().click();
  const inStream = page.getByTestId('post').filter({ hasText: 'Own post 4 here.' });
  await page.getByRole('button', { name: 'Load more' }).click();
  await inStream.getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Unpin from your profile' }).click();
  await expect(inStream.getByRole('button', { name: 'More' })).toBeEnabled();
  await page.getByRole('link', { name: 'Profile' }).first().click();
  const order = () => posts.evaluateAll((all) => all.map((p) => /Own post (\d+) here/.exec(p.textContent ?? '')?.[1] ?? '?'));
  await expect.poll(order).toEqual(Array.from({ length: 25 }, (_, i) => String(25 - i)));
});
