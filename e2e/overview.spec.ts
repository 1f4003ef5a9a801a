// The Overview as the author sees it, in Chromium against a real Tern in headless mode with a
// fresh data folder: schema state, record counts, where the data lives, how the IPC transport
// guards itself, and what the page says when Tern stops answering.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import type { Headless } from './headless';
import { screenshotPath } from './screenshots';

const HEAD = 'ae35abd14d3a';
const RECORD_COUNT = 16;

/** Records every Content-Security-Policy violation the page causes, for the test to assert on. */
async function watchCsp(page: Page) {
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { __cspViolations: seen });
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
}

async function openOverview(page: Page, tern: Headless) {
  await page.goto(`${tern.url}#/overview`);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByTestId('schema-state')).toBeVisible();
}

test('the Overview shows an up-to-date database, 16 empty records and the data folder', async ({ page, tern }) => {
  const cspViolations = await watchCsp(page);
  await openOverview(page, tern);

  await expect(page).toHaveTitle('Overview — Tern');
  await expect(page.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('schema-state')).toContainText(`Database is up to date (revision ${HEAD})`);

  const records = page.getByRole('table', { name: 'Records' });
  const rows = records.locator('tbody tr');
  await expect(rows).toHaveCount(RECORD_COUNT);
  await expect(records.locator('tbody td.numeric')).toHaveText(Array<string>(RECORD_COUNT).fill('0'));
  await expect(page.getByTestId('records-summary')).toHaveText('16 records, 0 rows in all');
  await expect(rows.filter({ hasText: 'oauth_client' })).toContainText('OAuth clients');

  await expect(page.getByTestId('data-dir')).toHaveText(tern.dataDir);
  await expect(page.getByTestId('database-path')).toContainText(tern.dataDir);
  const started = page.getByTestId('started-at').locator('time');
  await expect(started).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
  await expect(started).toHaveAttribute('title', /\d{4}/);
  await expect(started).toHaveText('just now');

  const statusLine = page.getByRole('contentinfo', { name: 'Status' });
  await expect(statusLine.getByTestId('status-mode')).toHaveText('Headless (in the browser)');
  await expect(statusLine.getByTestId('status-connectivity')).toBeVisible();

  expect(await cspViolations()).toEqual([]);

  await page.screenshot({ path: screenshotPath('overview-light') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('overview-dark') });
});

test('everything on the Overview is reachable with the keyboard, with a visible focus', async ({ page, tern }) => {
  await openOverview(page, tern);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#main')).toBeFocused();
  await page.keyboard.press('Tab');
  const refresh = page.getByRole('button', { name: 'Refresh' });
  await expect(refresh).toBeFocused();
  const outline = await refresh.evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe('none');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('schema-state')).toContainText(HEAD);
});

test('the IPC transport refuses a request without the token, and accepts the bearer token', async ({ playwright, tern }) => {
  const fresh = await playwright.request.newContext();
  try {
    const refused = await fresh.post(`${tern.origin}/ipc/app.status`, { data: {} });
    expect(refused.status()).toBe(401);

    const accepted = await fresh.post(`${tern.origin}/ipc/app.status`, {
      data: {},
      headers: { Authorization: `Bearer ${tern.token}` },
    });
    expect(accepted.status()).toBe(200);
    expect(await accepted.json()).toMatchObject({ ok: true, value: { revision: HEAD, dataDir: tern.dataDir } });
  } finally {
    await fresh.dispose();
  }
});

test('opening Tern without its token says the printed link is needed, not the app', async ({ browser, tern }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // The page's files are public (the token is in the link's #fragment, which no server sees);
    // the page, knowing no token, asks for the link and never shows the app.
    await page.goto(`${tern.origin}/`);
    await expect(page.locator('body')).toContainText('This page needs the link Tern printed when it started');
    await expect(page.getByRole('heading', { name: 'Overview' })).toHaveCount(0);
    await expect(page.getByRole('navigation', { name: 'Places' })).toHaveCount(0);
    await page.screenshot({ path: screenshotPath('unauthorized') });
  } finally {
    await context.close();
  }
});

test('when Tern stops answering, Refresh says so and offers to try again', async ({ page, tern }) => {
  await openOverview(page, tern);
  await tern.stop();

  await page.getByRole('button', { name: 'Refresh' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Tern is not answering. Is it still running?');
  const retry = alert.getByRole('button', { name: 'Try again' });
  await expect(retry).toBeEnabled();
  // What was loaded before stays on screen, and the status line says the link is gone.
  await expect(page.getByTestId('schema-state')).toContainText(HEAD);
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('Not connected');
  await page.screenshot({ path: screenshotPath('error-light') });

  await retry.click();
  await expect(alert).toContainText('Tern is not answering. Is it still running?');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('error-dark') });
});

test('a first load that fails shows the error in place of the Overview, and Try again recovers', async ({ page, tern }) => {
  let fail = true;
  await page.route('**/ipc/app.status', (route) =>
    fail
      ? route.fulfill({ status: 401, contentType: 'application/json', body: '{"ok":false,"error":{"code":"forbidden","message":"no"}}' })
      : route.continue(),
  );
  await page.goto(`${tern.url}#/overview`);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('The overview could not be loaded.');
  await expect(alert).toContainText('This page needs the link Tern printed when it started (with its token).');
  await expect(page.getByRole('table', { name: 'Records' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('first-load-error') });

  fail = false;
  await alert.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('schema-state')).toContainText(`Database is up to date (revision ${HEAD})`);
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('the loading placeholder appears only when the answer takes longer than 200 ms', async ({ page, tern }) => {
  // The page's timers are frozen, so "200 ms" is the page's clock, not this machine's speed.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  await page.route('**/ipc/app.status', async (route) => {
    await answered;
    await route.continue();
  });
  const placeholder = page.getByRole('status').filter({ hasText: 'Loading…' });

  await page.goto(`${tern.url}#/overview`);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await page.clock.runFor(150);
  await expect(placeholder).toHaveCount(0);
  await page.clock.runFor(100);
  await expect(placeholder).toBeVisible();
  await page.screenshot({ path: screenshotPath('loading') });

  answer();
  await expect(page.getByTestId('schema-state')).toBeVisible();
  await expect(placeholder).toHaveCount(0);
});

test('an answer within 200 ms never flashes the placeholder, and a refresh keeps the Overview on screen', async ({ page, tern }) => {
  await page.addInitScript(() => {
    const shown: string[] = [];
    Object.assign(window, { __placeholderShown: shown });
    new MutationObserver(() => {
      if (document.querySelector('.skeleton')) shown.push('skeleton');
    }).observe(document, { childList: true, subtree: true });
  });
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
  await openOverview(page, tern);
  await page.clock.runFor(1_000);

  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  await page.route('**/ipc/app.status', async (route) => {
    await answered;
    await route.continue();
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByRole('button', { name: 'Refreshing…' })).toBeDisabled();
  await page.clock.runFor(1_000);
  await expect(page.getByTestId('schema-state')).toBeVisible();
  answer();
  await expect(page.getByRole('button', { name: 'Refresh' })).toBeEnabled();

  const shown = await page.evaluate(() => (window as unknown as { __placeholderShown: string[] }).__placeholderShown);
  expect(shown).toEqual([]);
});
