// A post in a feed makes no paint layer of its own: no positioned box, no scroll container, no
// clipped SVG. Chromium walks every paint layer in each frame's pre-paint, paint and hit test,
// so with seven a post (the action buttons, the menu, the icons) a stream of 2,000 posts paid
// for 14,000 or more of them at every new page (npm run bench:renderer, traced at 1,960 posts:
// Paint 68 ms and HitTest 39 ms a page before, 24–30 ms and none after). A button is positioned
// only while it shows its pending mark, a menu only while it is open, and the author's name
// clips its ellipsis without being a scroll container (posts.css, styles.css .icon). The rows of
// People, Deliveries and Webmentions clip their names the same way (overflow: clip).
import type { Locator, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { TEST_IDENTITY } from './headless';
import { ipc } from './peer-fixtures';
import { PEER_ACTOR, peerNote, storeFollowers, storeReceived, storeWebmentions } from './stored-posts';

const LONG_NAME = 'Annabel Quillfeather-Montgomery of the Very Long Display Names Society, Northern Chapter';

/** What in `post` would be a paint layer: positioned boxes, scroll containers, clipped SVG. */
function layersIn(post: Locator): Promise<string[]> {
  return post.evaluate((root) =>
    [root, ...root.querySelectorAll('*')].flatMap((el) => {
      const style = getComputedStyle(el);
      const scrolls = (value: string) => value === 'hidden' || value === 'auto' || value === 'scroll';
      const why = [
        style.position !== 'static' ? `position: ${style.position}` : '',
        scrolls(style.overflowX) || scrolls(style.overflowY) ? `overflow: ${style.overflowX} ${style.overflowY}` : '',
        style.transform !== 'none' ? 'transform' : '',
        style.opacity !== '1' ? `opacity: ${style.opacity}` : '',
      ].filter(Boolean);
      return why.length ? [`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}: ${why.join(', ')}`] : [];
    }),
  );
}

async function openFeed(page: Page, url: string, dataDir: string): Promise<Locator> {
  storeReceived(dataDir, [1, 2, 3].map((n) => peerNote(n)));
  const db = new Database(join(dataDir, 'tern.db'));
  try {
    db.prepare(`UPDATE actor SET ap_actor = json_set(ap_actor, '$.name', ?) WHERE ap_id = ?`).run(LONG_NAME, PEER_ACTOR);
  } finally {
    db.close();
  }
  await page.goto(`${url}#/stream`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(3);
  return posts;
}

test('a post in the stream makes no paint layer of its own', async ({ page, tern }) => {
  const posts = await openFeed(page, tern.url, tern.dataDir);
  for (const i of [0, 1, 2]) expect(await layersIn(posts.nth(i))).toEqual([]);
});

test('an open menu sits under its button and is drawn whole; closed, the post has no layer again', async ({ page, tern }) => {
  const posts = await openFeed(page, tern.url, tern.dataDir);
  const post = posts.nth(1);
  const more = post.getByRole('button', { name: 'More' });
  await more.click();
  const menu = page.getByRole('menu');
  await expect(menu).toBeVisible();
  const button = (await more.boundingBox())!;
  const list = (await menu.boundingBox())!;
  // Just below the button, from its left edge (.menu__list: top 100% + 0.25rem, left 0).
  expect(list.y).toBeGreaterThanOrEqual(button.y + button.height);
  expect(list.y).toBeLessThan(button.y + button.height + 12);
  expect(Math.abs(list.x - button.x)).toBeLessThan(2);
  // Not clipped by the post: its last item can be clicked where it is drawn.
  await expect(page.getByRole('menuitem', { name: 'Open the original page' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  expect(await layersIn(post)).toEqual([]);
});

test('the pending mark sits on its button’s icon', async ({ page, tern }) => {
  const posts = await openFeed(page, tern.url, tern.dataDir);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/ipc/posts.like', async (route) => {
    await held;
    await route.continue();
  });
  const post = posts.first();
  const like = post.getByRole('button', { name: 'Like' });
  await like.click();
  const mark = post.getByTestId('pending');
  await expect(mark).toBeVisible();
  const box = (await like.boundingBox())!;
  const dot = (await mark.boundingBox())!;
  // On the icon's top right corner (.post-action__pending: top 0.375rem, left 1.375rem), inside
  // the button: had the button not been positioned, the mark would be placed by the page.
  expect(dot.x).toBeGreaterThan(box.x + 16);
  expect(dot.x + dot.width).toBeLessThanOrEqual(box.x + box.width);
  expect(dot.y).toBeGreaterThan(box.y + 2);
  expect(dot.y + dot.height).toBeLessThan(box.y + box.height / 2 + 4);
  // Only that button is positioned.
  expect(await layersIn(post)).toEqual(['button.post-action.post-action--like.post-action--pending: position: relative', 'span.post-action__pending: position: absolute', 'span.visually-hidden: position: absolute, overflow: hidden hidden']);
  release();
});

test('a long author name ends in an ellipsis inside the post', async ({ page, tern }) => {
  const posts = await openFeed(page, tern.url, tern.dataDir);
  const post = posts.first();
  await expect(post).toContainText(LONG_NAME);
  const who = post.locator('.post__who');
  const fit = await who.evaluate((el) => {
    const header = el.closest('article')!.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return { clipped: el.scrollWidth > el.clientWidth, ellipsis: getComputedStyle(el).textOverflow, inside: box.right <= header.right };
  });
  expect(fit).toEqual({ clipped: true, ellipsis: 'ellipsis', inside: true });
});

test('a row of People, Deliveries or Webmentions makes no paint layer of its own', async ({ page, tern, request }) => {
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 3);
  // Working offline: the post's deliveries and its webmention stay queued while the test looks.
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  const post: { id: number; apId: string } = await ipc(request, tern, 'posts.create', { content: 'On [a page](https://blog.example/page).' });
  storeWebmentions(tern.dataDir, [post]);
  for (const [place, row] of [
    ['people?tab=followers', 'person'],
    ['deliveries', 'delivery-row'],
    ['webmentions', 'webmention-group'],
    ['webmentions?show=sent', 'sent-webmention'],
  ] as const) {
    await page.goto(`${tern.url}#/${place}`);
    const first = page.getByTestId(row).first();
    await expect(first).toBeVisible();
    expect({ place, layers: await layersIn(first) }).toEqual({ place, layers: [] });
  }
});
