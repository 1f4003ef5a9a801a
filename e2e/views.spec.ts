// Every place of the app as a fresh author sees it: each renders its empty state (what to do
// next, never a blank page), in light and dark, saved as test-results/screenshots/<view>.png
// (and <view>-dark.png) for review.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { TEST_IDENTITY, type Headless } from './headless';
import { screenshotPath } from './screenshots';

const HANDLE = '@ana@tern.test';

async function shoot(page: Page, name: string) {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: screenshotPath(name) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

async function open(page: Page, tern: Headless, place: string, heading: string | RegExp) {
  await page.goto(`${tern.url}#/${place}`);
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
}

test('Stream says how to fill it', async ({ page, tern }) => {
  await open(page, tern, 'stream', 'Stream');
  await expect(page.getByTestId('empty-state')).toContainText('Your stream is quiet');
  await expect(page.getByRole('link', { name: 'Stream' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('Nothing waiting to send');
  await shoot(page, 'stream');
});

test('Notifications says what will appear there', async ({ page, tern }) => {
  await open(page, tern, 'notifications', 'Notifications');
  await expect(page.getByTestId('empty-state')).toContainText(`When someone follows ${HANDLE}`);
  await expect(page.getByRole('link', { name: 'Notifications' })).toHaveAttribute('aria-current', 'page');
  await shoot(page, 'notifications');
});

test('Compose shows the editor, the visibility choices and an empty preview', async ({ page, tern }) => {
  await open(page, tern, 'compose', 'New post');
  await expect(page.getByRole('textbox', { name: 'Your post' })).toBeFocused();
  await expect(page.getByRole('radio', { name: 'Public' })).toBeChecked();
  const preview = page.getByTestId('compose-preview');
  await expect(preview).toContainText('Your post will look like this.');
  // Raw HTML is shown as text, never rendered.
  await page.getByRole('textbox', { name: 'Your post' }).fill('<img src=x onerror=alert(1)> <b>bold?</b>');
  await expect(preview).toContainText('<img src=x onerror=alert(1)> <b>bold?</b>');
  await expect(preview.locator('img, b')).toHaveCount(0);
  await page.getByRole('button', { name: 'Discard draft' }).click();
  await shoot(page, 'compose');
});

test('Profile introduces the author and invites a first post', async ({ page, tern }) => {
  await open(page, tern, 'profile', 'ana');
  await expect(page.getByText(HANDLE, { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId('empty-state')).toContainText('You have not posted yet');
  await shoot(page, 'profile');
});

test('People offers the lookup box and says how to be followed', async ({ page, tern }) => {
  await open(page, tern, 'people', 'People');
  await expect(page.getByRole('searchbox', { name: 'Handle or URL' })).toBeVisible();
  await expect(page.getByTestId('empty-state')).toContainText(`Share ${HANDLE}`);
  for (const [tab, text] of [
    ['Following', 'You follow no one yet'],
    ['Pending', 'No follow waiting for an answer'],
    ['Requests', 'No one is waiting for an answer.'],
  ] as const) {
    await page.getByRole('link', { name: tab }).click();
    await expect(page.getByRole('link', { name: tab })).toHaveAttribute('aria-current', 'page');
    await expect(page.getByRole('main')).toContainText(text);
  }
  await page.getByRole('link', { name: 'Followers' }).click();
  await shoot(page, 'people');
});

test('Deliveries shows the connection, the Work offline switch and an empty queue', async ({ page, tern }) => {
  await open(page, tern, 'deliveries', 'Deliveries');
  await expect(page.getByTestId('empty-state')).toContainText('Nothing to deliver');
  await expect(page.getByRole('switch', { name: 'Work offline' })).not.toBeChecked();
  await expect(page.getByTestId('connection-listener')).toContainText('Listener off');
  await shoot(page, 'deliveries');
});

test('Settings shows the profile, identity, listener, Work offline and the key fingerprint', async ({ page, tern }) => {
  await open(page, tern, 'settings', 'Settings');
  await expect(page.getByLabel('Base URL')).toHaveValue(TEST_IDENTITY.baseUrl);
  await expect(page.getByTestId('key-fingerprint')).toHaveText(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/);
  await expect(page.getByTestId('settings-data-dir')).toHaveText(tern.dataDir);
  await shoot(page, 'settings');

  // A profile change is saved, said so, and shown as the author's name.
  const profile = page.getByRole('form', { name: 'Profile' });
  await profile.getByLabel('Display name').fill('Ana Tern');
  await profile.getByLabel('About you').fill('Writes about **birds**.');
  await profile.getByRole('button', { name: 'Save' }).click();
  // The form's own status (the picture pickers above it have theirs).
  await expect(profile.getByRole('status').filter({ hasText: /^Saved$/ })).toBeVisible();
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Ana Tern' })).toBeVisible();
  await expect(page.locator('.profile-card__summary strong')).toHaveText('birds');

  // A port Tern refuses is said beside the field.
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Settings' }).click();
  const listener = page.getByRole('form', { name: 'Listener' });
  await listener.getByLabel('Port').fill('70000');
  await listener.getByRole('button', { name: 'Save' }).click();
  await expect(listener.getByText('Port must be between 1 and 65535.')).toBeVisible();
});

test('Settings exports the people as CSV and reports what an import refused', async ({ page, tern }) => {
  await open(page, tern, 'settings', 'Settings');
  const section = page.getByTestId('export-section');
  await expect(section.getByRole('heading', { name: 'Export and import' })).toBeVisible();
  await section.getByRole('button', { name: 'Export following (CSV)' }).click();
  await expect(section.getByTestId('export-result')).toContainText(/exports[\\/]following-.*\.csv$/);
  await section.getByLabel('Accounts to follow').fill('Account address\nnot a handle\n');
  await section.getByRole('button', { name: 'Import follows' }).click();
  await expect(section.getByTestId('import-result')).toHaveText('Asked to follow 0, skipped 0 already followed, 1 failed.');
  await expect(section.getByTestId('import-failures')).toContainText('Line 2 (not a handle)');
});

test('? lists the keyboard shortcuts, and Escape closes the list', async ({ page, tern }) => {
  await open(page, tern, 'stream', 'Stream');
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Write a new post');
  await shoot(page, 'shortcuts');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1, name: 'New post' })).toBeVisible();
  // In a field, keys are text, not shortcuts.
  await page.keyboard.type('n?');
  await expect(page.getByRole('textbox', { name: 'Your post' })).toHaveValue('n?');
  await page.getByRole('textbox', { name: 'Your post' }).blur();
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search posts, people and webmentions' })).toBeFocused();
});
