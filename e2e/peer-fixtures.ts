// What the journeys against an independent ActivityPub server share: Tern's listener on a known
// loopback port whose URL is also its public base URL (so the peer can reach it directly), with
// private addresses allowed so Tern can reach the peer (tests only); a Fedify peer per test; and
// the few page helpers every such journey uses.
import { createServer, type AddressInfo } from 'node:net';
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { startPeer, type Peer } from '../test/peer/peer';
import type { Headless } from './headless';
import { expect, test as base } from './fixtures';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Tern listening on loopback, reachable at its base URL, and reaching loopback peers. */
export const listeningTest = base.extend({
  // Playwright reads a fixture's dependencies from its first parameter's pattern: it must be one.
  // eslint-disable-next-line no-empty-pattern
  ternOptions: async ({}, use) => {
    const port = await freePort();
    await use({ baseUrl: `http://127.0.0.1:${port}`, username: 'ana', listen: `127.0.0.1:${port}`, allowPrivateAddresses: true });
  },
});

/** The same, with a Fedify peer (bob) started for each test. */
export const test = listeningTest.extend<{ peer: Peer }>({
  // eslint-disable-next-line no-empty-pattern
  peer: async ({}, use) => {
    const peer = await startPeer({ name: 'bob' });
    await use(peer);
    await peer.close();
  },
});

export { expect };

/** A place's link in the sidebar. */
export const place = (page: Page, name: string) => page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name, exact: true });

/** Opens a place by URL and reloads, so the view fetches afresh (a hash change alone keeps the page). */
export async function openFresh(page: Page, tern: Headless, hash: string): Promise<void> {
  await page.goto(`${tern.origin}/${hash}`);
  await page.reload();
}

/** Reopens `hash` afresh until the text of what `locate` finds in it
 * matches `expected` (a substring or a pattern), for up to 20 s. After each reload the view is
 * given up to 3 s to show it: the view asks for its data once the page has loaded, and reading
 * the text at once raced that answer (on a busy machine it lost every time). */
export async function expectAfterReload(page: Page, tern: Headless, hash: string, locate: (page: Page) => Locator, expected: string | RegExp): Promise<void> {
  await expect
    .poll(
      async () => {
        await openFresh(page, tern, hash);
        const where = locate(page);
        await expect(where).toContainText(expected, { timeout: 3_000 }).catch(() => {});
        return (await where.textContent({ timeout: 2_000 }).catch(() => '')) ?? '';
      },
      { timeout: 20_000 },
    )
    .toMatch(expected);
}

/** Calls one of Tern's channels as the page does (the headless transport, with the token). */
export async function ipc<T>(request: APIRequestContext, tern: Headless, channel: string, data: unknown): Promise<T> {
  const res = await request.post(`${tern.origin}/ipc/${channel}`, { headers: { authorization: `Bearer ${tern.token}` }, data });
  const body = (await res.json()) as { ok: boolean; value: T; error?: unknown };
  expect(body.ok, JSON.stringify(body.error)).toBe(true);
  return body.value;
}

/** The author looks the peer up in People and follows it; returns once the peer has the Follow
 * and Tern lists it under Following (the peer accepts at once). */
export async function followPeer(page: Page, tern: Headless, peer: Peer): Promise<void> {
  await page.goto(tern.url);
  await place(page, 'People').click();
  await page.getByRole('searchbox', { name: 'Handle or URL' }).fill(peer.actorId);
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.getByTestId('lookup-result').getByRole('button', { name: 'Follow', exact: true }).click();
  await peer.waitFor((a) => a.type === 'Follow');
  await expectAfterReload(page, tern, '#/people?tab=following', (p) => p.getByRole('list', { name: 'Following' }), peer.name);
}

/** A 1 × 1 PNG, for pictures a loopback server hands out (custom emoji, link previews). */
export const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
