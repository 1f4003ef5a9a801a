// A long Stream stays light (UX.md "scrolling a stream of 10,000 posts stays smooth"): after the
// author has read thousands of posts, only a window of them is in the page; scrolling back up
// brings the earlier ones again, in order, asked for by the same paging call, without moving
// what is on screen; j/k go on across pages that were let go. The stream's pages come from a
// stand-in for Tern (e2e/fake-answers.ts) that counts which cursors were asked for.
import type { Page } from '@playwright/test';
import type { PostView } from '../electron/core/ipc/author-contract';
import type { NotificationItem } from '../renderer/notifications/groups';
import { expect, test } from './fixtures';
import { actor, ana, answer, ben, post } from './fake-answers';

const TOTAL = 3_000;
/** lists/usePagedList.ts MAX_HELD_ITEMS, with a page of slack: pages are let go once beyond it. */
const BOUND = 200 + 20;

function stream(): { posts: PostView[]; asked: (string | null)[] } {
  const posts = Array.from({ length: TOTAL }, (_, n) => post(n % 2 ? ben : ana, `<p>Post number ${n}</p>`, { id: n + 1 }));
  return { posts, asked: [] };
}

async function serve(page: Page, { posts, asked }: ReturnType<typeof stream>) {
  await answer(page, 'timeline.stream', (input) => {
    const { cursor, limit } = input as { cursor: string | null; limit: number };
    asked.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    const to = Math.min(TOTAL, from + limit);
    return { items: posts.slice(from, to), nextCursor: to < TOTAL ? String(to) : null };
  });
}

const rendered = (page: Page) => page.locator('#main [data-testid="post"]').count();

/** Scrolls up by `by` px (unless at the top already) and says which post is then the first in
 * view and where its top is — before the list, told of the scroll in the next frame, changes. */
function scrollUp(page: Page, by: number) {
  return page.evaluate((by) => {
    const main = document.getElementById('main')!;
    if (main.scrollTop === 0) return 'top' as const;
    main.scrollBy(0, -by);
    const top = main.getBoundingClientRect().top;
    const el = [...main.querySelectorAll<HTMLElement>('[data-testid="post"]')].find((p) => p.getBoundingClientRect().bottom > top + 1);
    if (!el) return null;
    return { key: el.dataset.post!, n: Number(/Post number (\d+)/.exec(el.textContent ?? '')?.[1]), top: el.getBoundingClientRect().top };
  }, by);
}

function topOf(page: Page, key: string) {
  return page.evaluate((k) => {
    const el = [...document.querySelectorAll<HTMLElement>('#main [data-post]')].find((p) => p.dataset.post === k);
    return el ? el.getBoundingClientRect().top : null;
  }, key);
}

/** Two animation frames: the list has measured and answered the last scroll. */
const frames = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

async function settled(page: Page) {
  await frames(page);
  await expect(page.getByRole('feed')).toHaveAttribute('aria-busy', 'false');
  await frames(page);
}

async function readDown(page: Page, pages: number) {
  const more = page.getByRole('button', { name: 'Load more' });
  for (let i = 0; i < pages; i++) {
    await more.click();
    await expect(more).toBeEnabled();
    await page.evaluate(() => document.getElementById('main')!.scrollBy(0, 100_000));
    await settled(page);
    expect(await rendered(page)).toBeLessThanOrEqual(BOUND);
  }
}

test('a stream read thousands of posts deep keeps a bounded window, and scrolling back up shows the first posts again without a jump', async ({ page, tern }) => {
  test.setTimeout(240_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const data = stream();
  await serve(page, data);
  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByTestId('post').first()).toContainText('Post number 0');

  await readDown(page, 49); // 1,000 posts read
  const deep = await page.evaluate(() => ({
    posts: document.querySelectorAll('#main [data-testid="post"]').length,
    nodes: document.getElementsByTagName('*').length,
    heap: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
  }));
  console.log(`after 1,000 posts: ${deep.posts} posts and ${deep.nodes} elements in the page, JS heap ${(deep.heap / 1e6).toFixed(1)} MB`);
  expect(deep.posts).toBeLessThanOrEqual(BOUND);
  await expect(page.getByTestId('list-spacer-above')).not.toHaveCSS('height', '0px');

  // Back up, a screen at a time: the first post in view stays put while pages come back above it.
  const before = data.asked.length;
  let refetches = 0;
  for (let guard = 0; guard < 2_000; guard++) {
    const asked = data.asked.length;
    const seen = await scrollUp(page, 1_200);
    if (seen === 'top') break;
    await settled(page);
    if (seen && data.asked.length > asked) {
      refetches++;
      const after = await topOf(page, seen.key);
      expect(after, `post ${seen.n} is still shown`).not.toBeNull();
      expect(Math.abs(after! - seen.top), `post ${seen.n} moved when a page came back`).toBeLessThan(3);
    }
    expect(await rendered(page)).toBeLessThanOrEqual(BOUND);
  }
  expect(refetches).toBeGreaterThan(10);
  // The pages let go were asked for again, each once, by the cursors that first brought them,
  // up to the first page (null; the Stream's minutely look for new posts asks for it too).
  const again = data.asked.slice(before);
  expect(again.at(-1)).toBeNull();
  const cursors = again.filter((c) => c !== null).map(Number);
  expect(cursors).toEqual([...cursors].sort((a, b) => b - a));
  expect(new Set(cursors).size).toBe(cursors.length);
  expect(cursors.at(-1)).toBe(20);

  const texts = await page.getByTestId('post').evaluateAll((els) => els.slice(0, 40).map((el) => /Post number (\d+)/.exec(el.textContent ?? '')?.[1]));
  expect(texts).toEqual(Array.from({ length: 40 }, (_, n) => String(n)));
});

test('j and k go on across pages let go, and the focused post is kept', async ({ page, tern }) => {
  test.setTimeout(120_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const data = stream();
  await serve(page, data);
  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByTestId('post').first()).toContainText('Post number 0');
  await readDown(page, 30); // 620 posts read, the first 400 or so let go

  const first = await page.getByTestId('post').first().evaluate((el) => Number(/Post number (\d+)/.exec(el.textContent ?? '')?.[1]));
  expect(first).toBeGreaterThan(100);
  await page.getByTestId('post').first().focus();
  const focused = () => page.evaluate(() => Number(/Post number (\d+)/.exec(document.activeElement?.closest('[data-post]')?.textContent ?? '')?.[1] ?? NaN));
  for (let n = first - 1; n >= first - 45; n--) {
    await expect(async () => {
      if ((await focused()) !== n) await page.keyboard.press('k');
      expect(await focused()).toBe(n);
    }).toPass({ timeout: 5_000 });
  }
  for (let n = first - 44; n <= first - 40; n++) {
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(n);
  }
  // The focused post stays while the author scrolls a few screens on and back.
  const key = await page.evaluate(() => document.activeElement?.closest<HTMLElement>('[data-post]')?.dataset.post ?? '');
  for (let i = 0; i < 10; i++) {
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 1_500);
    await settled(page);
  }
  expect(await topOf(page, key)).not.toBeNull();
  await expect(page.locator(`#main [data-post="${key}"]`)).toBeFocused();
});

test('Notifications read a thousand deep keep a bounded window, and going back to the top shows the first ones again', async ({ page, tern }) => {
  test.setTimeout(120_000);
  const total = 1_500;
  // A like on a different post each: one row each (notifications/groups.ts).
  const items: NotificationItem[] = Array.from({ length: total }, (_, n) => ({
    id: total - n,
    type: 'LIKE',
    createdAt: new Date(Date.now() - n * 60_000).toISOString(),
    isNew: false,
    actor: n % 2 ? ana : ben,
    outboxObject: { id: n + 1, box: 'outbox', apId: `https://tern.test/o/${n + 1}`, apType: 'Note', excerpt: `Post number ${n}`, isDeleted: false },
    inboxObject: null,
    webmentionId: null,
  }));
  const asked: (string | null)[] = [];
  await answer(page, 'notifications.list', (input) => {
    const { cursor, limit } = input as { cursor: string | null; limit: number };
    asked.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    const to = Math.min(total, from + limit);
    return { items: items.slice(from, to), nextOffset: null, nextCursor: to < total ? String(to) : null, unreadCount: 0 };
  });
  await page.goto(`${tern.url}#/notifications`);
  const rows = page.getByTestId('notification');
  await expect(rows.first().locator('.notification__excerpt')).toHaveText('Post number 0');
  const list = page.locator('ul.notifications');
  const more = page.getByRole('button', { name: 'Load more' });
  for (let i = 0; i < 19; i++) {
    await more.click();
    await expect(more).toBeEnabled();
    await page.evaluate(() => document.getElementById('main')!.scrollBy(0, 100_000));
    await frames(page);
    await expect(list).toHaveAttribute('aria-busy', 'false');
    await frames(page);
    expect(await rows.count()).toBeLessThanOrEqual(200 + 50);
  }
  await expect(rows.last().locator('.notification__excerpt')).toHaveText('Post number 999');
  await expect(page.getByTestId('list-spacer-above')).not.toHaveCSS('height', '0px');

  // Straight back to the top (Home): the first page is asked for, not each page in between.
  const before = asked.length;
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  await expect(rows.first().locator('.notification__excerpt')).toHaveText('Post number 0');
  await frames(page);
  await expect(list).toHaveAttribute('aria-busy', 'false');
  expect(asked.slice(before)[0]).toBeNull();
  expect(asked.length - before).toBeLessThan(8);
  // On down again, the next pages come back after it, in order.
  const first = await rows.first().boundingBox();
  await page.evaluate((by) => document.getElementById('main')!.scrollBy(0, by), 45 * first!.height);
  await expect(async () => {
    const shown = await rows.evaluateAll((els) => els.slice(0, 100).map((el) => el.querySelector('.notification__excerpt')?.textContent));
    expect(shown).toEqual(Array.from({ length: 100 }, (_, n) => `Post number ${n}`));
  }).toPass({ timeout: 10_000 });
  expect(await rows.count()).toBeLessThanOrEqual(200 + 50);
});

test('Followers, a thousand read, keep a bounded window, and the first come back in order at the top', async ({ page, tern }) => {
  test.setTimeout(120_000);
  const total = 1_200;
  const people = Array.from({ length: total }, (_, n) => ({
    actor: actor(1_000 + n, `Follower ${n}`, `@f${n}@people.example`),
    since: new Date(Date.now() - n * 60_000).toISOString(),
  }));
  await answer(page, 'people.page', (input) => {
    const { cursor, limit = 50 } = input as { cursor: string | null; limit?: number };
    const from = cursor === null ? 0 : Number(cursor);
    const to = Math.min(total, from + limit);
    return { items: people.slice(from, to), nextCursor: to < total ? String(to) : null };
  });
  // The counts, and the first page as Tern's People view has it.
  await answer(page, 'people.list', () => ({
    followers: people.slice(0, 50),
    following: [],
    counts: { followers: total, following: 0 },
    nextCursor: { followers: '50', following: null },
    pendingFollows: [],
    requests: [],
  }));
  await page.goto(`${tern.url}#/people?tab=followers`);
  const rows = page.getByRole('list', { name: 'Followers' }).getByTestId('person');
  const name = (row: ReturnType<typeof rows.first>) => row.locator('.person__name');
  await expect(name(rows.first())).toHaveText('Follower 0');
  const more = page.getByRole('button', { name: 'Load more' });
  for (let i = 0; i < 19; i++) {
    await more.click();
    await expect(more).toBeEnabled();
    await page.evaluate(() => document.getElementById('main')!.scrollBy(0, 100_000));
    await frames(page);
    await frames(page);
    expect(await rows.count()).toBeLessThanOrEqual(200 + 50);
  }
  await expect(name(rows.last())).toHaveText('Follower 999');
  await page.evaluate(() => document.getElementById('main')!.scrollTo({ top: 0 }));
  await expect(name(rows.first())).toHaveText('Follower 0');
  const shown = await rows.evaluateAll((els) => els.slice(0, 50).map((el) => el.querySelector('.person__name')?.textContent));
  expect(shown).toEqual(Array.from({ length: 50 }, (_, n) => `Follower ${n}`));
});

