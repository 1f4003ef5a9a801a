// Writing while offline (UX.md "Compose"): with Work offline on, a post is saved at once, the
// author is told it will go out when online, it appears in Profile as queued, and the draft
// survives a reload until it is sent. Also: the post's thread, pinning and the keyboard.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

/** A place in the sidebar, by its exact name ("Profile", not "See it in your profile"). */
const place = (page: Page, name: string) => page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name });

test('a post written offline is saved, shown as queued in Profile, and counted as waiting', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/deliveries`);
  const status = page.getByRole('contentinfo', { name: 'Status' });
  await page.getByRole('switch', { name: 'Work offline' }).check();
  await expect(page.getByTestId('connection-state')).toHaveText('Working offline');
  await expect(status.getByTestId('status-connectivity')).toHaveText('Working offline');

  await page.keyboard.press('n');
  await expect(page.getByRole('heading', { level: 1, name: 'New post' })).toBeVisible();
  const text = page.getByRole('textbox', { name: 'Your post' });
  await text.fill('Written **offline** for @bob@peer.example\n\nSecond line');
  const preview = page.getByTestId('compose-preview');
  await expect(preview.locator('strong')).toHaveText('offline');
  // A mention is marked as one, not linked as an e-mail address.
  await expect(preview.locator('.mention')).toHaveText('@bob@peer.example');
  await expect(preview.locator('a')).toHaveCount(0);
  await page.getByRole('button', { name: 'Content warning' }).click();
  await page.getByRole('textbox', { name: 'Content warning' }).fill('Test post');
  await page.getByRole('radio', { name: 'Unlisted' }).check();

  // The draft is kept across a reload (and a restart: it lives in localStorage).
  await page.reload();
  await expect(text).toHaveValue('Written **offline** for @bob@peer.example\n\nSecond line');
  await expect(page.getByRole('textbox', { name: 'Content warning' })).toHaveValue('Test post');
  await expect(page.getByRole('radio', { name: 'Unlisted' })).toBeChecked();
  await page.screenshot({ path: screenshotPath('compose-draft') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('compose-draft-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  await page.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(page.getByTestId('compose-sent')).toContainText('Saved — will be delivered when you’re online');
  await expect(text).toHaveValue('');
  // Said as what the author did (UX.md: "3 posts waiting to send"); the deliveries on hover.
  await expect(status.getByTestId('status-waiting')).toHaveText('1 post waiting to send');
  await expect(status.getByTestId('status-waiting')).toHaveAttribute('title', '1 delivery to servers not sent yet');

  await page.getByRole('link', { name: 'See it in your profile' }).click();
  const post = page.getByTestId('post').first();
  await expect(post).toContainText('Test post');
  await expect(post.getByTestId('delivery-state')).toHaveAttribute('data-state', 'queued');
  await expect(post.getByTestId('delivery-state')).toContainText('will be sent when you’re online');
  await expect(post.getByRole('img', { name: 'Unlisted' })).toBeVisible();

  // The content warning hides the text until asked.
  await expect(post.getByText('Second line')).toBeHidden();
  await post.getByRole('button', { name: 'Show more' }).click();
  await expect(post.getByText('Second line')).toBeVisible();

  // One click opens the per-server list.
  await post.getByTestId('delivery-state').getByRole('button').click();
  await expect(post.getByTestId('delivery-row')).toHaveCount(1);
  await expect(post.getByTestId('delivery-row')).toContainText('peer.example');
  await page.screenshot({ path: screenshotPath('profile-queued') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('profile-queued-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  // Deliveries lists it as waiting.
  await place(page, 'Deliveries').click();
  await expect(page.getByTestId('delivery-row')).toHaveCount(1);
  await page.screenshot({ path: screenshotPath('deliveries-queued') });
});

test('own posts can be pinned, opened as a thread and deleted, with the keyboard too', async ({ page, tern }) => {
  await page.goto(`${tern.url}#/compose`);
  const text = page.getByRole('textbox', { name: 'Your post' });
  for (const words of ['First post', 'Second post']) {
    await text.fill(words);
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await expect(page.getByTestId('compose-sent')).toBeVisible();
  }

  await place(page, 'Profile').click();
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(2);
  await expect(posts.first()).toContainText('Second post');

  // Pin the older one: it moves to the top, marked.
  await posts.nth(1).getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Pin to your profile' }).click();
  await expect(posts.first()).toContainText('First post');
  await expect(posts.first()).toContainText('Pinned');

  // With no post focused, j moves to the first; o opens its thread; Back returns.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('j');
  await expect(posts.first()).toBeFocused();
  await page.keyboard.press('o');
  await expect(page.getByRole('heading', { level: 1, name: 'Thread' })).toBeVisible();
  await expect(page.getByTestId('post')).toContainText('First post');
  await expect(page.getByText('No replies yet.')).toBeVisible();
  await page.screenshot({ path: screenshotPath('thread') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('thread-dark') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(place(page, 'Profile')).toHaveAttribute('aria-current', 'page');

  // r on a post opens Compose as a reply to it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('j');
  await page.keyboard.press('r');
  await expect(page.getByRole('heading', { level: 1, name: 'Reply' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Replying to a post' })).toContainText('First post');
  await page.getByRole('button', { name: 'Don’t reply' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New post' })).toBeVisible();

  // Delete asks first, then the post leaves the profile.
  await place(page, 'Profile').click();
  await posts.filter({ hasText: 'Second post' }).getByRole('button', { name: 'More' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('group', { name: 'Delete this post everywhere?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(posts).toHaveCount(1);
  await page.reload();
  await expect(posts).toHaveCount(1);
});
