// The journey the app exists for, against an independent ActivityPub server (a Fedify peer on
// loopback — Fedify's code verifies our signatures and signs its own): the author follows the
// peer and is followed back, writes while working offline (deliveries wait, no try spent),
// comes back online and the peer receives the post; the peer's Like shows as a notification,
// and the peer's own post reaches the author's Stream. Screenshots of each view on the way.
import type { APIRequestContext } from '@playwright/test';
import type { Headless } from './headless';
import { expect, expectAfterReload, place, test } from './peer-fixtures';
import { screenshotPath } from './screenshots';

interface DeliveryRow {
  state: string;
  tries: number;
  recipient: string;
  activity: { type: string };
}

async function deliveries(request: APIRequestContext, tern: Headless): Promise<DeliveryRow[]> {
  const res = await request.post(`${tern.origin}/ipc/deliveries.list`, {
    headers: { authorization: `Bearer ${tern.token}` },
    data: {},
  });
  const body = (await res.json()) as { ok: boolean; value: { items: DeliveryRow[] } };
  expect(body.ok).toBe(true);
  return body.value.items;
}

test('follow a peer, be followed back, post offline, deliver when online, and see the peer’s Like', async ({ page, tern, peer, request }) => {
  test.setTimeout(120_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await page.goto(tern.url);

  // 1. Look the peer up by URL (loopback peers have no https WebFinger) and follow it.
  await place(page, 'People').click();
  await page.getByRole('searchbox', { name: 'Handle or URL' }).fill(peer.actorId);
  await page.getByRole('button', { name: 'Look up' }).click();
  const result = page.getByTestId('lookup-result');
  await expect(result).toContainText('bob');
  await result.getByRole('button', { name: 'Follow', exact: true }).click();
  const follow = await peer.waitFor((a) => a.type === 'Follow');
  expect(follow.signer.httpSignature?.verified ?? follow.signer.verifiedBy !== null).toBeTruthy();
  // The peer accepts; once Tern has processed the Accept, bob is listed under Following.
  await expectAfterReload(page, tern, '#/people?tab=following', (p) => p.getByRole('list', { name: 'Following' }), 'bob');
  await page.screenshot({ path: screenshotPath('journey-following') });

  // 2. The peer follows back; Tern accepts on its own (no manual approval) and bob is a follower.
  await peer.follow(ternActor);
  await peer.waitFor((a) => a.type === 'Accept');
  await expectAfterReload(page, tern, '#/people?tab=followers', (p) => p.getByRole('list', { name: 'Followers' }), 'bob');

  // 3. Work offline, then write: the post is saved and queued, and no try is spent.
  await place(page, 'Deliveries').click();
  await page.getByRole('switch', { name: 'Work offline' }).check();
  await expect(page.getByTestId('connection-state')).toHaveText('Working offline');
  await page.keyboard.press('n');
  await page.getByRole('textbox', { name: 'Your post' }).fill('Written on a train, **offline**.');
  await page.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(page.getByTestId('compose-sent')).toContainText('will be delivered when you’re online');
  // The status line counts what waits: one post (one delivery, to bob's inbox).
  const waiting = page.getByRole('contentinfo', { name: 'Status' }).getByTestId('status-waiting');
  await expect(waiting).toHaveText('1 post waiting to send');
  await place(page, 'Profile').click();
  const state = page.getByTestId('delivery-state').first();
  await expect(state).toHaveAttribute('data-state', 'queued');
  await page.screenshot({ path: screenshotPath('journey-queued-offline') });
  const queued = (await deliveries(request, tern)).filter((d) => d.activity.type === 'Note');
  expect(queued.length).toBeGreaterThan(0);
  expect(queued.every((d) => d.tries === 0 && d.state !== 'sent')).toBe(true);
  expect(peer.received.some((a) => a.type === 'Create')).toBe(false);

  // 4. Back online: the loop wakes at once and the peer receives the Create, signed by Tern.
  await place(page, 'Deliveries').click();
  await page.getByRole('switch', { name: 'Work offline' }).uncheck();
  const create = await peer.waitFor((a) => a.type === 'Create', 20_000);
  expect(JSON.stringify(create.raw)).toContain('offline');
  expect(create.actorId?.replace(/\/$/, '')).toBe(ternActor);
  await place(page, 'Profile').click();
  await expect(page.getByTestId('delivery-state').first()).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });
  const sent = (await deliveries(request, tern)).filter((d) => d.activity.type === 'Note');
  expect(sent.every((d) => d.state === 'sent' && d.tries === 1)).toBe(true);
  // And the waiting count goes to zero.
  await expect(waiting).toHaveText('Nothing waiting to send', { timeout: 20_000 });
  await page.screenshot({ path: screenshotPath('journey-nothing-waiting') });
  await page.screenshot({ path: screenshotPath('journey-delivered') });

  // 5. The peer likes the post: a notification appears, counted in the sidebar.
  await peer.like(create.objectId!, ternActor);
  await expectAfterReload(page, tern, '#/notifications', (p) => p.getByTestId('notification').first(), /liked/i);
  await page.screenshot({ path: screenshotPath('journey-notification-like') });

  // 6. The peer posts: it reaches the author's Stream (followed author).
  await peer.createNote({ content: '<p>Hello from bob’s server</p>', to: 'public' });
  await expectAfterReload(page, tern, '#/stream', (p) => p.getByRole('main'), 'Hello from bob’s server');
  await page.screenshot({ path: screenshotPath('journey-stream') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('journey-stream-dark') });
});
