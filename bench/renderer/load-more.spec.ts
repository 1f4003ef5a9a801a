// "Load more" on long lists: how long from the click (scrolled down to the button, as the author
// is) until the next page is drawn, as the stream grows to 2,000 posts and the notifications to
// 2,000 rows (UX: scrolling a stream of 10,000 posts stays smooth). The rows already shown are
// not drawn again (posts/Post.tsx and the notifications' GroupRow are memoized); what still grows
// with the list is printed. The posts and notifications are written into Tern's database as the
// inbox processor stores them; the views read them through their IPC handlers. Like `npm run
// bench`, it reports and exits 0; a page that never comes fails the run.
import type { Page } from '@playwright/test';
import { expect, test } from '../../e2e/fixtures';
import { peerNote, storeMentions, storeReceived } from '../../e2e/stored-posts';

/** At least 200 (the first mark). */
const ROWS = Math.max(200, Number(process.env.BENCH_RENDERER_POSTS ?? 2000) || 2000);

/** A post of a few lines, with a link, as most are. */
const post = (n: number) =>
  peerNote(n, {
    url: `https://peer.example/@ann/${n}`,
    content: `<p>Post number ${n}, with <a href="https://example.org/${n}">a link</a> and enough words to wrap over a line or two of the column, as a real post does.</p><p>A second paragraph.</p>`,
  });

/** How many rows the list has loaded: a feed of posts says so (data-posts; past 400 posts it
 * keeps only those near the screen in the page), other lists hold all of theirs. */
const loadedIn = (id: string) => {
  const feed = document.querySelector('[role="feed"][data-posts]');
  return feed ? Number(feed.getAttribute('data-posts')) : document.querySelectorAll(`[data-testid="${id}"]`).length;
};

/** Presses Load more until `total` rows (by test id) are shown, and prints each mark's latency
 * and the renderer main thread's busy time meanwhile (Chromium's TaskDuration: script, style,
 * layout, paint; steadier here than the latency, which also waits for frames and the core). */
async function measure(page: Page, what: string, testId: string, total: number, pageSize: number): Promise<void> {
  const rows = page.getByTestId(testId);
  await expect(rows.first()).toBeVisible();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const busy = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN;
  // 200 rows, then quarters of the list, in whole pages.
  const at = [...new Set([200, ...[0.25, 0.5, 0.75, 1].map((f) => Math.max(200, Math.round((total * f) / pageSize) * pageSize))])];
  const marks = at.map((n) => ({ rows: Math.min(n, total), ms: [] as number[], busyMs: [] as number[] }));
  const loaded = () => page.evaluate(loadedIn, testId);
  while ((await loaded()) < total) {
    const busyBefore = await busy();
    const ms = await page.evaluate(async (id) => {
      // As loadedIn (a function cannot be handed into the page, and its CSP allows no eval).
      const count = (of: string) => {
        const feed = document.querySelector('[role="feed"][data-posts]');
        return feed ? Number(feed.getAttribute('data-posts')) : document.querySelectorAll(`[data-testid="${of}"]`).length;
      };
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const before = count(id);
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Load more');
      if (!button) throw new Error('no Load more button');
      // Where the author is when they press it: scrolled down to it, the last rows on screen.
      button.scrollIntoView({ block: 'end' });
      await frame();
      const started = performance.now();
      button.click();
      await new Promise<void>((resolve, reject) => {
        const look = () => {
          if (count(id) > before) resolve();
          else if (performance.now() - started > 30_000) reject(new Error(`nothing new 30 s after Load more at ${before} rows`));
          else setTimeout(look, 1);
        };
        look();
      });
      // Drawn: the frame after the new rows are in the page.
      await frame();
      return performance.now() - started;
    }, testId);
    const busyMs = ((await busy()) - busyBefore) * 1000;
    const shown = await loaded();
    // The three pages up to each mark.
    for (const mark of marks) {
      if (shown <= mark.rows && shown > mark.rows - 3 * pageSize) {
        mark.ms.push(ms);
        mark.busyMs.push(busyMs);
      }
    }
    if (shown < total) await expect(page.getByRole('button', { name: 'Load more' })).toBeEnabled();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  console.log(`\n${what}: Load more, click to the new page drawn, and the renderer main thread busy meanwhile (median of the 3 pages up to each mark), Chromium ${page.context().browser()?.version() ?? ''}:`);
  for (const mark of marks) console.log(`  at ${mark.rows.toLocaleString('en-US').padStart(6)} rows  ${median(mark.ms).toFixed(0).padStart(5)} ms  (busy ${median(mark.busyMs).toFixed(0).padStart(4)} ms)`);
  await cdp.send('HeapProfiler.collectGarbage');
  const metrics = new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  console.log(
    `  with all ${total.toLocaleString('en-US')} loaded (${(await rows.count()).toLocaleString('en-US')} of them in the page), after a garbage collection: ${(metrics.get('Nodes') ?? NaN).toLocaleString('en-US')} DOM nodes, JS heap ${((metrics.get('JSHeapUsedSize') ?? NaN) / 2 ** 20).toFixed(0)} MiB`,
  );
  await cdp.detach();
  const first = median(marks[0]!.ms);
  const last = median(marks.at(-1)!.ms);
  console.log(`  a page at ${marks.at(-1)!.rows.toLocaleString('en-US')} rows ÷ at ${marks[0]!.rows}: ${(last / first).toFixed(1)}×  (comparison only; no target set)`);
}

/** Scrolls the whole list back to the top, 300 px a frame (a brisk wheel), and prints how long
 * the frames took meanwhile: what the author feels as smooth or not. */
async function scrollThrough(page: Page, what: string): Promise<void> {
  const frames = await page.evaluate(async () => {
    const main = document.getElementById('main')!;
    main.scrollTop = main.scrollHeight;
    const next = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));
    await next();
    const times: number[] = [];
    let last = await next();
    while (main.scrollTop > 0) {
      main.scrollTop -= 300;
      const now = await next();
      times.push(now - last);
      last = now;
    }
    return times;
  });
  const sorted = [...frames].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  console.log(
    `  ${what}: scrolling it all back to the top, 300 px a frame: ${frames.length} frames, p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${at(1).toFixed(0)} ms; ${frames.filter((ms) => ms > 50).length} over 50 ms`,
  );
}

test(`Load more on a stream growing to ${ROWS.toLocaleString('en-US')} posts`, async ({ tern, page }) => {
  const total = Math.round(ROWS / 20) * 20;
  storeReceived(tern.dataDir, Array.from({ length: total }, (_, i) => post(i + 1)));
  await page.goto(`${tern.url}#/stream`);
  await measure(page, 'Stream', 'post', total, 20);
  await scrollThrough(page, `the stream of ${total.toLocaleString('en-US')} posts`);
  console.log('  QUOTED, not measured now: before posts were memoized (a8d3645), this bench gave 101 ms at 200 posts and 541 ms at 2,000 (5.4×), after 42–67 and 180–189 ms. Posts without paint layers of their own (160e52d), alternated with the commit before: 231 and 231 ms at 2,000 (busy 325 and 279) before, 267 and 226 ms (busy 308 and 280) after: no difference measured; one trace at 1,960 posts showed Paint 68 → 24–30 ms and HitTest 39 ms → none, offset elsewhere. Posts in blocks drawn only near the screen (feed__block), alternated with the commit before: at 2,000 posts 437 and 214 ms (busy 519 and 252) before, 66, 89 and 65 ms (busy 103, 135 and 98) after; scrolling the 2,000 back to the top, frames p50 33 ms with 16 over 50 ms (max 250) before, p50 17 ms with 0 and 2 over 50 ms (max 17 and 67) after.');
});

test(`Load more on notifications growing to ${ROWS.toLocaleString('en-US')} rows`, async ({ tern, page }) => {
  const total = Math.round(ROWS / 50) * 50;
  storeReceived(tern.dataDir, Array.from({ length: total }, (_, i) => post(i + 1)));
  storeMentions(tern.dataDir, total);
  await page.goto(`${tern.url}#/notifications`);
  await measure(page, 'Notifications (one mention a row)', 'notification', total, 50);
  await scrollThrough(page, `the notifications, ${total.toLocaleString('en-US')} rows`);
  console.log('  QUOTED, not measured now: before the rows were memoized, this bench gave 49 ms at 200 rows and 186 ms at 2,000 (3.8×), after 61 and 81 ms (1.3×).');
});
