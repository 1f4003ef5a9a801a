// Quote posts (Mastodon 4.5's `quote`, Misskey's `quoteUrl`, Fedibird's `quoteUri`…): the quoted
// post shows inside the one that quotes it — its author, its text, a link to its thread — and the
// quoting text's own "RE: <link>" fallback is hidden. One the core will not fetch unasked (a
// stranger's quote) waits behind a button; one that is gone is a link to where it was; one with
// a content warning shows the warning, not its text; a failure (offline) can be tried again.
import type { Page } from '@playwright/test';
import { Note, PUBLIC_COLLECTION, QuoteRequest } from '@fedify/vocab';
import { ana, answer, ben, post } from './fake-answers';
import { expect, test } from './fixtures';
import { expectAfterReload, ipc, openFresh, test as peerTest } from './peer-fixtures';
import { screenshotPath } from './screenshots';

const QUOTED = 'https://gts.example/users/ben/statuses/77';
const GONE = 'https://gone.example/notes/1';
const WARNED = 'https://gts.example/users/ben/statuses/78';
const STRANGERS = 'https://far.example/notes/9';

/** Answers a channel with a value, or with the core's typed error when `value` is an Error. */
async function route(page: Page, channel: string, answerFor: (input: Record<string, string>) => unknown, asked: string[]) {
  await page.route(`**/ipc/${channel}`, (r) => {
    const input = r.request().postDataJSON() as Record<string, string>;
    asked.push(`${channel} ${input.apId ?? input.query}`);
    const value = answerFor(input);
    const body = value instanceof Error ? { ok: false, error: { code: 'unavailable', message: value.message } } : { ok: true, value };
    return r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  });
}

test('a quoted post shows inside the quoting one; the RE: fallback is hidden; gone, warned and stranger’s quotes', async ({ page, tern }) => {
  const asked: string[] = [];
  await route(
    page,
    'posts.quoted',
    ({ apId, by }) =>
      // The same post quoted by someone the author follows: fetched by the core, shown at once.
      apId === STRANGERS && by?.includes('/ben/')
        ? { kind: 'post', post: post(ben, '<p>Fetched for a friend</p>', { id: 8, apId: STRANGERS }) }
        : apId === QUOTED
        ? { kind: 'post', post: post(ben, '<p>Low tide at six.</p>', { id: 5, apId: QUOTED }) }
        : apId === WARNED
          ? { kind: 'post', post: post(ben, '<p>Spoilers here</p>', { id: 6, apId: WARNED, summary: 'film ending', sensitive: true }) }
          : apId === STRANGERS
            ? { kind: 'ask' }
            : { kind: 'gone' },
    asked,
  );
  await route(page, 'lookup.resolve', () => ({ kind: 'post', post: post(ben, '<p>Fetched when asked</p>', { id: 7, apId: STRANGERS }) }), asked);
  await answer(page, 'timeline.stream', {
    items: [
      post(ana, `<p>Worth knowing</p><p class="quote-inline">RE: <a href="${QUOTED}">${QUOTED}</a></p>`, { id: 1, quote: QUOTED }),
      post(ana, '<p>This one is gone</p>', { id: 2, quote: GONE }),
      post(ana, '<p>No spoilers</p>', { id: 3, quote: WARNED }),
      post(ana, '<p>A stranger quoted</p>', { id: 4, quote: STRANGERS }),
      post(ben, '<p>A friend quoted the same</p>', { id: 5, quote: STRANGERS }),
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
  await expect(missing).toHaveText('Quoted post on gone.example (no longer there)');
  await expect(missing).toHaveAttribute('href', GONE);

  const warned = page.getByTestId('post').filter({ hasText: 'No spoilers' }).getByTestId('quoted-post');
  await expect(warned).toContainText('Content warning: film ending');
  await expect(warned).not.toContainText('Spoilers here');

  // A followed account's quote of a post is shown, even where a stranger's quote of it waits.
  await expect(page.getByTestId('post').filter({ hasText: 'A friend quoted the same' }).getByTestId('quoted-post')).toContainText('Fetched for a friend');
  // A stranger's quote: nothing fetched until the author asks.
  const strangers = page.getByTestId('post').filter({ hasText: 'A stranger quoted' }).getByTestId('quoted-post');
  const ask = strangers.getByRole('button', { name: 'Show the quoted post (from far.example)' });
  await expect(ask).toBeVisible();
  expect(asked.filter((a) => a.startsWith('lookup.resolve'))).toEqual([]);
  await ask.click();
  await expect(strangers).toContainText('Fetched when asked');
  expect(asked.filter((a) => a.startsWith('lookup.resolve'))).toEqual([`lookup.resolve ${STRANGERS}`]);
  // Each quote asked of the core once, with the quoting post.
  expect(asked.filter((a) => a.startsWith('posts.quoted')).sort()).toEqual([GONE, QUOTED, STRANGERS, STRANGERS, WARNED].map((id) => `posts.quoted ${id}`).sort());
});

test('a quote that could not be loaded (offline) says so and is tried again', async ({ page, tern }) => {
  let online = false;
  const asked: string[] = [];
  await route(page, 'posts.quoted', () => (online ? { kind: 'post', post: post(ben, '<p>Back online</p>', { id: 9, apId: QUOTED }) } : new Error('gts.example did not answer.')), asked);
  await route(page, 'lookup.resolve', () => ({ kind: 'post', post: post(ben, '<p>Back online</p>', { id: 9, apId: QUOTED }) }), asked);
  await answer(page, 'timeline.stream', { items: [post(ana, '<p>Quoting while offline</p>', { id: 1, quote: QUOTED })], nextCursor: null });
  await page.goto(`${tern.url}#/stream`);
  const quote = page.getByTestId('quoted-post');
  await expect(quote).toContainText('The quoted post on gts.example could not be loaded.');
  online = true;
  await quote.getByRole('button', { name: 'Try again' }).click();
  await expect(quote).toContainText('Back online');
});

// The author takes back the approval of a quote, against an independent server: a Fedify peer
// quotes one of the author's posts (QuoteRequest), Tern approves it and says so in Notifications,
// where the author revokes it (asked once more first); the peer receives a Delete of the
// QuoteAuthorization and the authorization's URL answers 410.
peerTest('the author revokes a quote’s approval from its notification; the quoter receives the Delete, the stamp is gone', async ({ page, tern, peer, request }) => {
  peerTest.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await page.goto(tern.url); // the link with the token, which the page keeps
  const ours = await ipc<{ apId: string }>(request, tern, 'posts.create', { content: 'Low tide at six.', visibility: 'PUBLIC' });
  const noteId = peer.newId('notes');
  const requestId = peer.newId('quote-requests');
  const note = new Note({ id: noteId, attribution: new URL(peer.actorId), content: '<p>Worth a walk</p>', quote: new URL(ours.apId), tos: [PUBLIC_COLLECTION] });
  await peer.send(new QuoteRequest({ id: requestId, actor: new URL(peer.actorId), object: new URL(ours.apId), instrument: note }), [ternActor]);
  const accept = await peer.waitFor((a) => a.type === 'Accept' && a.objectId === requestId.href, 20_000);
  const stamp = (accept.raw as { result: string }).result;
  expect((await request.get(stamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(200);

  const row = () => page.getByTestId('notification').filter({ hasText: 'quoted your post' });
  await expectAfterReload(page, tern, '#/notifications', (p) => p.getByTestId('notification').first(), 'quoted your post');
  const revoke = row().getByRole('button', { name: /Revoke your approval of .*bob.*’s quote/ });
  await revoke.click();
  // Asked once more; Cancel changes nothing.
  const question = row().getByRole('group', { name: /Revoke your approval of .*’s quote\? Their post will no longer show yours\./ });
  await expect(question).toBeVisible();
  await row().screenshot({ path: screenshotPath('quote-revoke-confirm') });
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toHaveCount(0);
  expect((await request.get(stamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(200);

  await revoke.click();
  await row().getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(row().getByTestId('quote-approval')).toHaveText('You revoked your approval of this quote.');
  await expect(row().getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await row().screenshot({ path: screenshotPath('quote-revoked') });

  const del = await peer.waitFor((a) => a.type === 'Delete' && a.objectId === stamp, 20_000);
  expect(del.actorId?.replace(/\/$/, '')).toBe(ternActor);
  expect((await request.get(stamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(410);
  // Told by the core, not only remembered by the page.
  await openFresh(page, tern, '#/notifications');
  await expect(row().getByTestId('quote-approval')).toHaveText('You revoked your approval of this quote.');
});

test('the author’s own quotes: waiting for approval shows the quoted post with a note; refused shows it without; followers-only posts offer no Quote', async ({ page, tern }) => {
  const asked: string[] = [];
  await route(page, 'posts.quoted', () => ({ kind: 'post', post: post(ben, '<p>Low tide at six.</p>', { id: 5, apId: QUOTED }) }), asked);
  const mine = { ...ana, id: 0 };
  await answer(page, 'timeline.stream', {
    items: [
      post(mine, `<p>Asked first</p><p class="quote-inline">RE: <a href="${QUOTED}">${QUOTED}</a></p>`, { id: 1, quote: QUOTED, quoteState: 'pending', mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: false } }),
      post(mine, `<p>Not allowed</p><p class="quote-inline">RE: <a href="${QUOTED}">${QUOTED}</a></p>`, { id: 2, quote: QUOTED, quoteState: 'rejected', mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: false } }),
      post(ben, '<p>Only for my followers</p>', { id: 3, visibility: 'FOLLOWERS_ONLY' }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);

  const pending = page.getByTestId('post').filter({ hasText: 'Asked first' });
  await expect(pending.getByTestId('quoted-post')).toContainText('Low tide at six.');
  await expect(pending.getByTestId('quote-state')).toHaveText('Waiting for the quoted post’s author to approve this quote.');

  const refused = page.getByTestId('post').filter({ hasText: 'Not allowed' });
  await expect(refused.getByTestId('quote-state')).toHaveText('The quoted post’s author did not approve this quote: it is shown without their post.');
  await expect(refused.getByTestId('quoted-post')).toHaveCount(0);
  await expect(refused.locator('.post__content')).toContainText('Not allowed');
  await refused.screenshot({ path: screenshotPath('quote-refused') });

  const followersOnly = page.getByTestId('post').filter({ hasText: 'Only for my followers' }).getByRole('button', { name: 'Quote' });
  await expect(followersOnly).toBeDisabled();
  await expect(followersOnly).toHaveAttribute('title', 'Only public and unlisted posts can be quoted');
});

// The author quotes a post from its actions, against an independent server: a Fedify peer's post
// whose policy asks its author; Tern sends the QuoteRequest, the peer approves it with a
// QuoteAuthorization it serves, Tern checks it and sends the peer (a follower) an Update carrying
// it; the quote shows in the Profile with the quoted post.
peerTest('the author quotes a peer’s post from its Quote action; the peer approves it and receives the Update with its authorization', async ({ page, tern, peer, request }) => {
  peerTest.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await peer.follow(ternActor);
  await peer.waitFor((a) => a.type === 'Accept', 20_000);
  const { noteId } = await peer.createNote({ content: '<p>The estuary at dawn</p>', quotePolicy: 'manual' });
  await page.goto(tern.url); // the link with the token, which the page keeps
  await ipc(request, tern, 'lookup.resolve', { query: noteId });

  await openFresh(page, tern, `#/thread?ap=${encodeURIComponent(noteId)}`);
  const theirs = page.getByTestId('post').filter({ hasText: 'The estuary at dawn' });
  await theirs.getByRole('button', { name: 'Quote' }).click();
  await expect(page.getByRole('heading', { name: 'Quote', level: 1 })).toBeVisible();
  const context = page.getByTestId('quote-context');
  await expect(context).toContainText('Quoting Peer bob');
  await expect(context).toContainText('The estuary at dawn');
  await page.getByLabel('Your post').fill('Worth getting up early for');
  await page.screenshot({ path: screenshotPath('quote-compose') });
  await page.getByRole('button', { name: 'Post quote' }).click();
  await expect(page.getByTestId('compose-sent')).toBeVisible();

  const asked = await peer.waitFor((a) => a.type === 'QuoteRequest' && a.objectId === noteId, 20_000);
  expect(asked.actorId?.replace(/\/$/, '')).toBe(ternActor);
  const update = await peer.waitFor((a) => a.type === 'Update' && typeof (a.raw as { object?: { quoteAuthorization?: string } }).object?.quoteAuthorization === 'string', 20_000);
  const object = (update.raw as { object: Record<string, unknown> }).object;
  expect(object).toMatchObject({ quote: noteId, _misskey_quote: noteId, quoteAuthorization: peer.quoteAuthorizations()[0] });

  await expectAfterReload(page, tern, '#/profile', (p) => p.getByTestId('post').filter({ hasText: 'Worth getting up early for' }).getByTestId('quoted-post'), 'The estuary at dawn');
  const ours = page.getByTestId('post').filter({ hasText: 'Worth getting up early for' });
  await expect(ours.getByTestId('quote-state')).toHaveCount(0);
  await expect(ours.locator('.quote-inline')).toBeHidden();
});
