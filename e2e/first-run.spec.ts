// First run: with no identity yet, Tern asks for the base URL and the user name on a calm page,
// explains the tunnel, refuses what is not valid with a sentence beside the field, and then
// opens the app as that author.
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

test.use({ ternOptions: {} });

test('a fresh Tern asks who the author is, then opens the Stream as them', async ({ page, tern }) => {
  await page.goto(tern.url);
  const form = page.getByRole('form', { name: 'Welcome to Tern' });
  await expect(form).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Places' })).toHaveCount(0);
  await expect(form).toContainText('tunnel');
  await expect(page.getByLabel('Base URL')).toBeFocused();
  await page.screenshot({ path: screenshotPath('setup-light') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('setup-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  await page.getByLabel('Base URL').fill('not a url');
  await page.getByLabel('User name').fill('ana');
  await page.getByRole('button', { name: 'Start using Tern' }).click();
  await expect(form.getByText(/^Base URL must be/)).toBeVisible();
  await expect(page.getByLabel('Base URL')).toHaveAttribute('aria-invalid', 'true');

  await page.getByLabel('Base URL').fill('https://tern.example.com/');
  await expect(form).toContainText('You will be @ana@tern.example.com');
  await page.getByRole('button', { name: 'Start using Tern' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Stream' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('complementary')).toContainText('@ana@tern.example.com');

  // It is remembered: a reload opens the app, not the setup.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByLabel('Base URL')).toHaveValue('https://tern.example.com');
});
