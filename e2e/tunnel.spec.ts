// Settings → Tunnel: the author types their tunnel command (here a stand-in program that prints
// what cloudflared prints), Tern runs it, shows the public address it printed, and makes it the
// base URL on request; stopping ends the process. A command Tern cannot split is refused.
import path from 'node:path';
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

const FAKE = path.resolve(import.meta.dirname, '..', 'test', 'tunnel', 'fake-tunnel.mjs');

test('run the tunnel command, read its public address, use it as the base URL, stop it', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/settings`);
  const section = page.getByRole('region', { name: 'Tunnel' });
  await expect(section).toContainText('cloudflared tunnel --url http://127.0.0.1:4861');
  await expect(section.getByTestId('tunnel-state')).toHaveText('Not running');
  const command = section.getByRole('textbox', { name: 'Tunnel command' });

  await command.fill('cloudflared "tunnel');
  await section.getByRole('button', { name: 'Start tunnel' }).click();
  await expect(section).toContainText('The tunnel command has an unclosed double quote.');

  await command.fill(`"${process.execPath}" "${FAKE}" --host brave-tern-e2e.trycloudflare.com`);
  await section.getByRole('button', { name: 'Start tunnel' }).click();
  await expect(section.getByTestId('tunnel-state')).toHaveText('Running at https://brave-tern-e2e.trycloudflare.com', { timeout: 15_000 });
  await section.getByText('What it printed').click();
  await expect(section.getByTestId('tunnel-output')).toContainText('Your quick Tunnel has been created');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('settings-tunnel') });

  await section.getByRole('button', { name: 'Use https://brave-tern-e2e.trycloudflare.com as base URL' }).click();
  await expect(section.getByRole('status')).toHaveText('Your base URL is now https://brave-tern-e2e.trycloudflare.com.');
  await expect(page.getByRole('region', { name: 'Identity' }).getByRole('textbox', { name: 'Base URL' })).toHaveValue('https://brave-tern-e2e.trycloudflare.com');
  await expect(section).toContainText('This is your base URL.');

  // Told it is behind the tunnel, the listener reads X-Forwarded-For (saved, and shown as saved).
  const behind = section.getByRole('switch', { name: 'The listener is behind this tunnel' });
  await behind.click();
  await expect(behind).toBeChecked();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Tunnel' }).getByRole('switch', { name: 'The listener is behind this tunnel' })).toBeChecked();

  await section.getByRole('button', { name: 'Stop tunnel' }).click();
  await expect(section.getByTestId('tunnel-state')).toHaveText('Not running');
});
