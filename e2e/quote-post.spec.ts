// Quote posts (Mastodon 4.5's `quote`, Misskey's `quoteUrl`, Fedibird's `quoteUri`…): the quoted
// post shows inside the one that quotes it — its author, its text, a link to its thread — and the
// quoting text's own "RE: <link>" fallback is hidden. A quoted post that cannot be looked up is a
// link to where it lives; one with a content warning shows the warning, not its text.
import { ana, answer, ben, post } from './fake-answers';
import { expect, test } from './fixtures';
import { screenshotPath } from './screenshots';

const QUOTED = 'https://gts.example/users/ben/statuses/77';
const GONE = 'https://gone.example/notes/1';
const WARNED = 'https://gts.example/users/ben/statuses/78';

test('a quoted post shows inside the quoting one; the RE: fallback is hidden; a missing one is a link', async ({ page, tern }) => {
  const asked: string[] = [];
  const found: Record<string, unknown> = {
    [QUOTED]: { kind: 'post', post: post(ben, '<p>Low tide at six.</p>', { id: 5, apId: QUOTED }) },
    [WARNED]: { kind: 'post', post: post(ben, '<p>Spoilers here</p>', { id: 6, apId: WARNED, summary: 'film ending', sensitive: true }) },
  };
  await page.route('**/ipc/lookup.resolve', (route) => {
    const query = (route.request().postDataJSON() as { query: string }).query;
    asked.push(query);
    // The gone one: the core's typed error, as when the server answers 404 or 410.
    const body = query in found ? { ok: true, value: found[query] } : { ok: false, error: { code: 'not_found', message: 'gone.example answered 410.' } };
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  });
  await answer(page, 'timeline.stream', {
    items: [
      post(ana, `<p>Worth knowing</p><p class="quote-inline">RE: <a href="${QUOTED}">${QUOTED}</a></p>`, { id: 1, quote: QUOTED }),
      post(ana, '<p>This one is gone</p>', { id: 2, quote: GONE }),
      post(ana, '<p>No spoilers</p>', { id: 3, quote: WARNED }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);

  const quoting = page.getByTestId('post').filter({ hasText: 'Worth knowing' });
  const quote = quoting.getByTestId('quoted-post');
  await expect(quote).toContainText('Low tide at six.');
  await expect(quote).toContainText('Ben Okafor');
  await expect(quote).toHaveAttribute('aria-label', 'Quoted post by Ben Okafor');
  await expect(quote.getByRole('link', { name: 'Open the thread' })).toHaveAttribute('href', /thread/);
  await expect(quoting.locator('.quote-inline')).toBeHidden();
  await expect(quoting.locator('.post__content')).toContainText('Worth knowing');
  await quoting.screenshot({ path: screenshotPath('quote-post') });

  const missing = page.getByTestId('post').filter({ hasText: 'This one is gone' }).getByTestId('quoted-post');
  await expect(missing).toHaveText('Quoted post on gone.example (could not be loaded)');
  await expect(missing).toHaveAttribute('href', GONE);

  const warned = page.getByTestId('post').filter({ hasText: 'No spoilers' }).getByTestId('quoted-post');
  await expect(warned).toContainText('Content warning: film ending');
  await expect(warned).not.toContainText('Spoilers here');
  // Each quoted post is looked up once.
  expect(asked.sort()).toEqual([GONE, QUOTED, WARNED].sort());
});
