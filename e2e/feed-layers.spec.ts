// A post in a feed makes no paint layer of its own: no positioned box, no scroll container, no
// clipped SVG (icons are no longer SVG at all: e2e/icons.spec.ts). Chromium walks paint layers in a frame's pre-paint, paint and hit test, and with
// seven a post (the action buttons, the menu, the icons) a stream of 2,000 posts had 14,000 or
// more. Measured: one trace of a new page at 1,960 posts showed Paint 68 → 24–30 ms and HitTest
// 39 ms → none; alternated bench:renderer runs showed no change in the renderer main thread's
// total time per page (other phases, CompositingInputs among them, vary more). A button is positioned
// only while it shows its pending mark, a menu only while it is open, and the author's name
// clips its ellipsis without being a scroll container (posts.css). The rows of
// People, Deliveries and Webmentions clip their names the same way (overflow: clip).
import type { Locator, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { actor, answer, post as fakePost } from './fake-answers';
import { expect, test } from './fixtures';
import { TEST_IDENTITY } from './headless';
import { ipc } from './peer-fixtures';
import { PEER_ACTOR, peerNote, storeFollowers, storeMentions, storeReceived, storeWebmentions } from './stored-posts';

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

test('a post in the stream makes no paint layer of its own, the author’s own included', async ({ page, tern, request }) => {
  storeReceived(tern.dataDir, [1, 2, 3].map((n) => peerNote(n)));
  // The author's own posts show their tallies (boosts, likes) in place of those buttons.
  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  for (const n of [1, 2]) await ipc(request, tern, 'posts.create', { content: `Own post ${n}.` });
  await page.goto(`${tern.url}#/stream`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(5);
  await expect(posts.filter({ hasText: 'Own post' })).toHaveCount(2);
  for (let i = 0; i < 5; i++) expect(await layersIn(posts.nth(i))).toEqual([]);
  // A tally still says what it counts.
  await expect(posts.filter({ hasText: 'Own post 2' }).getByRole('img', { name: '0 likes' })).toHaveCount(1);
});

test('hidden labels stay inside the scrolling column: the window itself never scrolls', async ({ page, tern }) => {
  // Unread notifications each carry a visually hidden "Unread:" (absolutely placed). Placed by
  // the page rather than by the scrolling column, those far down made the page taller than the
  // window, and scrolling past the column's end moved the whole app off screen.
  storeReceived(tern.dataDir, Array.from({ length: 40 }, (_, i) => peerNote(i + 1)));
  storeMentions(tern.dataDir, 40);
  const db = new Database(join(tern.dataDir, 'tern.db'));
  try {
    db.prepare(`UPDATE notifications SET is_new = 1`).run();
  } finally {
    db.close();
  }
  await page.goto(`${tern.url}#/notifications`);
  await expect(page.getByTestId('notification')).toHaveCount(40);
  await expect(page.locator('.notification--new')).toHaveCount(40);
  await page.locator('#main').evaluate((main) => main.scrollTo(0, main.scrollHeight));
  await page.mouse.move(640, 400);
  await page.mouse.wheel(0, 2_000);
  const page_ = await page.evaluate(() => ({ tall: document.scrollingElement!.scrollHeight, window: document.scrollingElement!.clientHeight, scrolled: window.scrollY }));
  expect(page_).toEqual({ tall: page_.window, window: page_.window, scrolled: 0 });
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
  // Not clipped by the post nor under the next one: its item is what is drawn at its middle.
  const item = page.getByRole('menuitem', { name: 'Open the original page' });
  expect(await item.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return el.contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));
  })).toBe(true);
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
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});

/** Whether each box ends within `row` and cuts its text (its text is wider than the box). */
function endsInside(row: Locator, selectors: readonly string[]): Promise<Record<string, { inside: boolean; cut: boolean }>> {
  return row.evaluate(
    (el, list) =>
      Object.fromEntries(
        list.map((selector) => {
          const box = el.querySelector(selector);
          if (!box) return [selector, { inside: false, cut: false }];
          return [selector, { inside: box.getBoundingClientRect().right <= el.getBoundingClientRect().right, cut: box.scrollWidth > box.clientWidth }];
        }),
      ),
    selectors,
  );
}

const everyFits = (selectors: readonly string[]) => Object.fromEntries(selectors.map((selector) => [selector, { inside: true, cut: true }]));

test('long names and hosts are cut inside their post or row', async ({ page, tern, request }) => {
  // A post by a long name, boosted by one, quoting one: its name, the boost's line and the quote's name.
  const long = (id: number, word: string) => actor(id, `${word} `.repeat(20).trim(), `@${word.toLowerCase()}@long.example`);
  const quoted = 'https://long.example/notes/q';
  await answer(page, 'timeline.stream', {
    items: [fakePost(long(30, 'Author'), '<p>Text.</p>', { id: 1, quote: quoted, boostedBy: { actor: long(31, 'Booster'), apId: 'https://long.example/b/1', at: new Date().toISOString() } })],
    nextCursor: null,
  });
  await answer(page, 'posts.quoted', { kind: 'post', post: fakePost(long(32, 'Quoted'), '<p>Quoted text.</p>', { id: 2, apId: quoted }) });
  await page.goto(`${tern.url}#/stream`);
  const post = page.getByTestId('post');
  await expect(post.locator('.post__quote-name')).toContainText('Quoted');
  const inPost = ['.post__who', '.post__context-text', '.post__quote-name'];
  expect(await endsInside(post, inPost)).toEqual(everyFits(inPost));
  await page.unrouteAll();

  // A follower with a long name and handle, on a server with a long name, and a post to them.
  storeFollowers(tern.dataDir, TEST_IDENTITY.baseUrl, 1);
  const host = `${'a-very-long-server-name-'.repeat(6)}example`;
  const db = new Database(join(tern.dataDir, 'tern.db'));
  try {
    db.prepare(`UPDATE actor SET ap_actor = json_set(ap_actor, '$.name', ?, '$.inbox', ?), handle = ? WHERE id = 1001`).run(LONG_NAME, `https://${host}/users/f1/inbox`, `@f1@${host}`);
  } finally {
    db.close();
  }
  await page.goto(`${tern.url}#/people?tab=followers`);
  const person = page.getByTestId('person');
  await expect(person).toContainText(LONG_NAME);
  const inPerson = ['.person__name', '.person__handle'];
  expect(await endsInside(person, inPerson)).toEqual(everyFits(inPerson));

  await ipc(request, tern, 'connectivity.setWorkOffline', { workOffline: true });
  await ipc(request, tern, 'posts.create', { content: 'To the long server.' });
  await page.goto(`${tern.url}#/deliveries`);
  const delivery = page.getByTestId('delivery-row');
  await expect(delivery.locator('.delivery-row__host')).toContainText('a-very-long-server-name');
  expect(await endsInside(delivery, ['.delivery-row__host'])).toEqual(everyFits(['.delivery-row__host']));
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
