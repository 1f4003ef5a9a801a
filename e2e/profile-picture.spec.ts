// The author's picture: chosen in Settings → Profile, refused with a sentence when the file is not
// an image, shown there once saved, published as the actor's icon and served by the listener to
// anyone; removed, it is gone from both.
import sharp from 'sharp';
import { expect, listeningTest as test } from './peer-fixtures';
import { screenshotPath } from './screenshots';

const actorOf = async (listenerUrl: string) =>
  (await (await fetch(`${listenerUrl.replace(/\/$/, '')}/`, { headers: { accept: 'application/activity+json' } })).json()) as {
    icon?: { type: string; url: string };
  };

test('Settings takes a picture: refused when not an image, shown and published when it is, and removable', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/settings`);
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  const picker = page.getByTestId('profile-avatar');
  const file = page.getByTestId('profile-avatar-file');

  await file.setInputFiles({ name: 'cv.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 not a picture') });
  await expect(picker.getByRole('alert')).toContainText('is not an image Tern can use');

  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2a5db0' } }).png().toBuffer();
  await file.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
  await expect(picker.getByRole('status')).toHaveText('Saved.');
  await expect(picker.getByRole('img', { name: 'Picture' })).toBeVisible();
  await expect(picker.getByRole('alert')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('settings-picture') });

  // Published: the actor names it as its icon, and the listener serves it without a signature.
  const actor = await actorOf(tern.listenerUrl!);
  expect(actor.icon?.type).toBe('Image');
  const served = await fetch(`${tern.listenerUrl!.replace(/\/$/, '')}${new URL(actor.icon!.url).pathname}`);
  expect(served.status).toBe(200);
  expect(served.headers.get('content-type')).toBe('image/png');

  await picker.getByRole('button', { name: 'Remove' }).click();
  await expect(picker.getByRole('img', { name: 'Picture' })).toHaveCount(0);
  expect((await actorOf(tern.listenerUrl!)).icon).toBeUndefined();
});
