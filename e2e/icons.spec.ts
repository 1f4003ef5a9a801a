// Icons are boxes painted through their shape (components/icons.tsx, styles/icons.css), not
// inline SVG: each SVG cost Chromium an element tree, layout objects and a transform of its own,
// seven in every post (npm run bench:renderer, 2,000 posts: 114,380 DOM nodes with SVG icons,
// 82,341 without; the same pixels in every view, compared by screenshot when this was built).
import { expect, test } from './fixtures';
import { peerNote, storeReceived } from './stored-posts';

test('a post draws its icons as single boxes, each shape inlined in the stylesheet', async ({ page, tern }) => {
  storeReceived(tern.dataDir, [1, 2].map((n) => peerNote(n)));
  await page.goto(`${tern.url}#/stream`);
  const post = page.getByTestId('post').first();
  await expect(post).toBeVisible();
  expect(await post.locator('svg').count()).toBe(0);
  const icons = await post.locator('.icon').evaluateAll((all) =>
    all.map((icon) => ({ children: icon.childElementCount, mask: getComputedStyle(icon).maskImage, width: icon.getBoundingClientRect().width })),
  );
  expect(icons.length).toBeGreaterThanOrEqual(6);
  for (const icon of icons) {
    expect(icon.children).toBe(0);
    // A data: URL, drawn with the page: no request, nothing to wait for.
    expect(icon.mask).toMatch(/^url\("data:image\/svg\+xml,/);
    expect(icon.width).toBeGreaterThan(10);
  }
  // No icon is fetched (the window's own icon.svg, its favicon, is the only SVG asked for).
  const svgs = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname).filter((path) => path.endsWith('.svg')));
  expect(svgs.filter((path) => path !== '/icon.svg')).toEqual([]);
});

test('the heart of a liked post is filled, and empty again when the like is taken back', async ({ page, tern }) => {
  storeReceived(tern.dataDir, [1].map((n) => peerNote(n)));
  await page.goto(`${tern.url}#/stream`);
  const like = page.getByTestId('post').first().locator('[data-action="like"]');
  const heart = like.locator('.icon');
  const maskOf = () => heart.evaluate((icon) => getComputedStyle(icon).maskImage);
  const empty = await maskOf();
  expect(empty).toContain("fill='none'");
  await like.click();
  await expect(like).toHaveAttribute('aria-pressed', 'true');
  expect(await maskOf()).not.toBe(empty);
  expect(await maskOf()).toContain("fill='%23000'");
  await like.click();
  await expect(like).toHaveAttribute('aria-pressed', 'false');
  expect(await maskOf()).toBe(empty);
});
