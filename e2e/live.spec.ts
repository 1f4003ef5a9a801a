// What arrives shows while the author looks, without a reload: Tern tells the open window what
// changed (core/changes.ts; headless, the event stream at /ipc/events) and the views ask again.
// Each wait below is far shorter than the view's own backstop poll (the unread count every
// 30 s, the Stream every 60 s), so only the hint can make it pass. An independent Fedify peer
// (bob) follows and posts through Tern's listener.
import { expect, followPeer, place, test } from './peer-fixtures';

/** Well under every backstop poll of the views checked here. */
const TOLD_WITHIN_MS = 10_000;

test('a new follower shows in the open Notifications and on the sidebar badge, without a reload', async ({ page, tern, peer }) => {
  test.setTimeout(60_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await page.goto(`${tern.url}#/notifications`);
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  const badge = page.getByRole('navigation', { name: 'Places' }).getByTestId('unread-badge');
  await expect(badge).toHaveCount(0);
  // The view has asked once (its empty state shows): the only way left to learn of the follow is the hint.
  await expect(page.getByRole('main')).toContainText('Nothing yet');
  await peer.follow(ternActor);
  await expect(page.getByTestId('notification').first()).toContainText('followed you', { timeout: TOLD_WITHIN_MS });
  await expect(badge).toContainText('1', { timeout: TOLD_WITHIN_MS });
});

test('a followed peer’s new post is announced in the open Stream, without a reload', async ({ page, tern, peer }) => {
  test.setTimeout(90_000);
  await followPeer(page, tern, peer);
  await place(page, 'Stream').click();
  await expect(page.getByRole('heading', { name: 'Stream' })).toBeVisible();
  await expect(page.getByRole('button', { name: /new post/ })).toHaveCount(0);
  await peer.createNote({ content: '<p>Fresh from bob’s server</p>', to: 'public' });
  const fresh = page.getByRole('button', { name: 'Show 1 new post' });
  await expect(fresh).toBeVisible({ timeout: TOLD_WITHIN_MS });
  // What the author was reading stayed put until asked; now the post is there.
  await fresh.click();
  await expect(page.getByTestId('post').first()).toContainText('Fresh from bob’s server');
});
