// Settings → Backups: "Back up now" writes an archive into the data folder's backups/, says
// where, and the list shows it with its size and date, beside how to restore it.
import { basename } from 'node:path';
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

test('Back up now writes an archive and the list shows it', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/settings`);
  const section = page.getByRole('region', { name: 'Backups' });
  await expect(section).toBeVisible();
  await section.getByRole('button', { name: 'Back up now' }).click();
  const result = section.getByTestId('backup-result');
  await expect(result).toContainText(`Saved to ${tern.dataDir}`);
  const path = ((await result.textContent()) ?? '').replace(/^Saved to /, '');
  await expect(section.getByTestId('backup-list')).toContainText(basename(path));
  await expect(section.getByTestId('backup-list')).toContainText(/\d+ KB/);
  await expect(section).toContainText('--restore');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('settings-backup'), fullPage: true });
});
