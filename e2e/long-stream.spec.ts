// A long stream stays light (UX: "scrolling a stream of 10,000 posts stays smooth"): posts away
// from the screen are skipped by the browser (content-visibility: auto, posts.css) while they
// stay in the page for the keyboard, and a post whose menu is open is drawn in full (a skipped
// post clips what overflows it, and the menu opens below the post's last line). What it saves
// is measured by `npm run bench:renderer`, not here.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

const POSTS = 200;
const ACTOR = 'https://peer.example/users/ann';

/** `count` received posts (the newest has the highest number), written as the inbox processor stores them. */
function storePosts(dataDir: string, count: number): void {
  const db = new Database(join(dataDir, 'tern.db'));
  db.prepare(`INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, ?, ?, 'Person', '@ann@peer.example')`).run(
    '2025-01-01T00:00:00Z',
    '2025-01-01T00:00:00Z',
    ACTOR,
    JSON.stringify({ id: ACTOR, type: 'Person', preferredUsername: 'ann', inbox: `${ACTOR}/inbox` }),
  );
  const insert = db.prepare(
    `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
       ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
     VALUES (?, ?, ?, 1, 'peer.example', 0, ?, 'Note', ?, ?, ?, 'PUBLIC', 0, 0, 0, 0)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= count; i++) {
      const published = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
      const id = `https://peer.example/notes/${i}`;
      const object = { id, type: 'Note', attributedTo: ACTOR, url: `https://peer.example/@ann/${i}`, content: `<p>post number ${i}</p><p>a second paragraph, so each post has some height</p>`, published };
      insert.run(i, published, published, ACTOR, id, published, JSON.stringify(object));
    }
  })();
  db.close();
}

/** Loads pages until `count` posts are in the stream. */
async function loadAll(page: Page, count: number): Promise<void> {
  const posts = page.getByTestId('post');
  while ((await posts.count()) < count) {
    const shown = await posts.count();
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => posts.count()).toBeGreaterThan(shown);
  }
}

/** Whether the browser draws what a post holds now (false: skipped by content-visibility: auto,
 * which keeps the post's own box and skips its contents). */
const drawn = (el: Element) => el.firstElementChild!.checkVisibility({ contentVisibilityAuto: true });
const rendered = (page: Page, index: number) => page.getByTestId('post').nth(index).evaluate(drawn);

test('posts far from the screen are skipped, the keyboard still reaches them, and they are drawn when it does', async ({ tern, page }) => {
  storePosts(tern.dataDir, POSTS);
  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByTestId('post').first()).toContainText(`post number ${POSTS}`);
  await loadAll(page, POSTS);
  await page.getByTestId('post').first().scrollIntoViewIfNeeded();
  // What is skipped is decided at the next frames after a scroll.
  await expect.poll(() => rendered(page, POSTS - 1)).toBe(false);
  expect(await rendered(page, 0)).toBe(true);
  const skipped = await page.getByTestId('post').evaluateAll((els) => els.filter((el) => !el.firstElementChild!.checkVisibility({ contentVisibilityAuto: true })).length);
  expect(skipped).toBeGreaterThan(POSTS / 2);

  // j walks down the stream past what was on screen; each post it reaches is drawn.
  await page.getByTestId('post').first().focus();
  for (let i = 0; i < 30; i++) await page.keyboard.press('j');
  const focused = page.locator('article.post:focus');
  await expect(focused).toContainText(`post number ${POSTS - 30}`);
  await expect(focused).toBeInViewport();
  await expect.poll(() => focused.evaluate(drawn)).toBe(true);

  // The last post: scrolled to, it is drawn, with its text.
  const last = page.getByTestId('post').nth(POSTS - 1);
  await last.scrollIntoViewIfNeeded();
  await expect(last).toContainText('post number 1');
  await expect.poll(() => rendered(page, POSTS - 1)).toBe(true);
});

test('a post’s open menu is drawn in full, below the post’s own box', async ({ tern, page }) => {
  storePosts(tern.dataDir, 30);
  await page.goto(`${tern.url}#/stream`);
  const post = page.getByTestId('post').nth(2);
  await expect(post).toContainText('post number 28');
  await post.getByRole('button', { name: 'More' }).click();
  const item = page.getByRole('menuitem', { name: /Open/ });
  await expect(item).toBeVisible();
  // The item lies (at least partly) below the post's box, and a click at its lower edge reaches
  // it: clipped by the post, the point would hit what lies beneath instead.
  const [postBox, itemBox] = [await post.boundingBox(), await item.boundingBox()];
  expect(itemBox!.y + itemBox!.height).toBeGreaterThan(postBox!.y + postBox!.height);
  const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('[role="menuitem"]')?.textContent ?? null, [itemBox!.x + itemBox!.width / 2, itemBox!.y + itemBox!.height - 2]);
  expect(hit).toMatch(/Open/);
});
