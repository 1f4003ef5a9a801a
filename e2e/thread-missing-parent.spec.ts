// A reply whose parent Tern could not fetch says so and offers to open the parent in the
// browser, but only at an http(s) address: inReplyTo is whatever a remote server sent
// (search-ms:, file:, javascript:…), and such a link would open a local program or file.
import { expect, test } from './fixtures';
import { PEER_ACTOR, storeReceived } from './stored-posts';

const REPLY = 'https://peer.example/notes/1';
const SEARCH_MS = 'search-ms:query=invoice&crumb=location:\\\\evil.example\\share';

/** A received reply to `inReplyTo`, written into Tern's database as the inbox processor stores it. */
function storeReply(dataDir: string, inReplyTo: string): void {
  storeReceived(dataDir, [{ id: REPLY, type: 'Note', attributedTo: PEER_ACTOR, content: '<p>a reply</p>', published: '2025-01-01T08:00:00Z', inReplyTo }]);
}

const openThread = `#/thread?ap=${encodeURIComponent(REPLY)}`;

test('a parent at a search-ms: address is no link in the thread', async ({ tern, page }) => {
  storeReply(tern.dataDir, SEARCH_MS);
  await page.goto(`${tern.url}${openThread}`);
  await expect(page.getByText('a reply')).toBeVisible();
  await expect(page.locator(`a[href^="search-ms:"]`)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Open it on its server' })).toHaveCount(0);
});

test('the page links a missing parent only at an http(s) address, whatever the answer says', async ({ tern, page }) => {
  storeReply(tern.dataDir, 'https://peer.example/notes/0');
  let parent = SEARCH_MS;
  // What an older core (or stored data) could still hand the page.
  await page.route('**/ipc/thread.get', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.value.missingParent = parent;
    await route.fulfill({ response, json: body });
  });
  await page.goto(`${tern.url}${openThread}`);
  await expect(page.locator('.thread__missing')).toBeVisible();
  await expect(page.locator('.thread__missing a')).toHaveCount(0);

  parent = 'https://peer.example/notes/0';
  await page.reload();
  const link = page.locator('.thread__missing a');
  await expect(link).toHaveAttribute('href', parent);
  await expect(link).toHaveAttribute('target', '_blank');
});
