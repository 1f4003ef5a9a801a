// Quote posts (Mastodon 4.5's `quote`, Misskey's `quoteUrl`, Fedibird's `quoteUri`…): the quoted
// post shows inside the one that quotes it — its author, its text, a link to its thread — and the
// quoting text's own "RE: <link>" fallback is hidden. One the core will not fetch unasked (a
// stranger's quote) waits behind a button; one that is gone is a link to where it was; one with
// a content warning shows the warning, not its text; a failure (offline) can be tried again.
import type { Page } from '@playwright/test';
import { Create, Delete, Note, PUBLIC_COLLECTION, QuoteRequest, Reject } from '@fedify/vocab';
import type { PostView } from '../electron/core/ipc/author-contract';
import type { Output } from '../electron/core/ipc/contract';
import { ana, answer, ben, post } from './fake-answers';
import { expect, test } from './fixtures';
import { expectAfterReload, ipc, openFresh, test as peerTest } from './peer-fixtures';
import { screenshotPath } from './screenshots';

const QUOTED = 'https://gts.example/users/ben/statuses/77';
const GONE = 'https://gone.example/notes/1';
const WARNED = 'https://gts.example/users/ben/statuses/78';
const STRANGERS = 'https://far.example/notes/9';

/** The Notifications place (its name says how many are unread once some are). */
const notificationsPlace = (page: Page) => page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: /^Notifications/ });

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
  await expect(row().getByTestId('quote-approval-note')).toHaveText('You revoked your approval of this quote.');
  await expect(row().getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await row().screenshot({ path: screenshotPath('quote-revoked') });

  const del = await peer.waitFor((a) => a.type === 'Delete' && a.objectId === stamp, 20_000);
  expect(del.actorId?.replace(/\/$/, '')).toBe(ternActor);
  expect((await request.get(stamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(410);
  // Told by the core, not only remembered by the page.
  await openFresh(page, tern, '#/notifications');
  await expect(row().getByTestId('quote-approval-note')).toHaveText('You revoked your approval of this quote.');

  // Asked again, the revoked quote is refused…
  const refusedId = peer.newId('quote-requests');
  await peer.send(new QuoteRequest({ id: refusedId, actor: new URL(peer.actorId), object: new URL(ours.apId), instrument: note }), [ternActor]);
  await peer.waitFor((a) => a.type === 'Reject' && a.objectId === refusedId.href, 20_000);
  // …until the author allows it again; then a new request is approved with a new authorization.
  await row().getByRole('button', { name: /Allow .*bob.*’s quote again/ }).click();
  await expect(row().getByTestId('quote-approval-note')).toHaveText('You revoked your approval of this quote, then allowed it again: if they ask again, Tern will approve it.');
  await expect(row().getByRole('button', { name: /Allow/ })).toHaveCount(0);
  const againId = peer.newId('quote-requests');
  await peer.send(new QuoteRequest({ id: againId, actor: new URL(peer.actorId), object: new URL(ours.apId), instrument: note }), [ternActor]);
  const renewed = await peer.waitFor((a) => a.type === 'Accept' && a.objectId === againId.href, 20_000);
  const newStamp = (renewed.raw as { result: string }).result;
  expect(newStamp).not.toBe(stamp);
  expect((await request.get(newStamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(200);
  expect((await request.get(stamp, { headers: { accept: 'application/activity+json' } })).status()).toBe(410);
});

test('the author’s own quotes say whom they asked and where it stands; refused shows without the quoted post; unanswered offers Ask again; followers-only posts offer no Quote', async ({ page, tern }) => {
  const asked: string[] = [];
  await route(page, 'posts.quoted', () => ({ kind: 'post', post: post(ben, '<p>Low tide at six.</p>', { id: 5, apId: QUOTED }) }), asked);
  const mine = { ...ana, id: 0 };
  const own = { own: true, liked: false, boosted: false, bookmarked: false, pinned: false };
  const quoting = (text: string, extra: Partial<PostView>) => post(mine, `<p>${text}</p><p class="quote-inline">RE: <a href="${QUOTED}">${QUOTED}</a></p>`, { quote: QUOTED, mine: own, ...extra });
  const unanswered = quoting('Nobody answered', { id: 4, quoteState: 'unanswered', quoteAskedOf: ben });
  await answer(page, 'timeline.stream', {
    items: [
      quoting('Asked first', { id: 1, quoteState: 'pending', quoteAskedOf: ben }),
      quoting('Not allowed', { id: 2, quoteState: 'rejected', quoteAskedOf: ben }),
      quoting('Fine by Ben', { id: 6, quoteState: 'approved', quoteAskedOf: ben }),
      quoting('Ben changed his mind', { id: 8, quoteState: 'revoked', quoteAskedOf: ben }),
      quoting('Asked someone gone', { id: 7, quoteState: 'pending' }),
      unanswered,
      post(ben, '<p>Only for my followers</p>', { id: 3, visibility: 'FOLLOWERS_ONLY' }),
    ],
    nextCursor: null,
  });
  const askedAgain: unknown[] = [];
  await answer(page, 'quotes.askAgain', (input) => {
    askedAgain.push(input);
    return { ...unanswered, quoteState: 'pending' } as Output<'quotes.askAgain'>;
  });
  await page.goto(`${tern.url}#/stream`);

  const pending = page.getByTestId('post').filter({ hasText: 'Asked first' });
  await expect(pending.getByTestId('quoted-post')).toContainText('Low tide at six.');
  await expect(pending.getByTestId('quote-state')).toHaveText('Waiting for Ben Okafor to approve this quote.');
  await expect(pending.getByTestId('quote-state')).toHaveAttribute('title', '@ben@gts.example');
  await expect(page.getByTestId('post').filter({ hasText: 'Asked someone gone' }).getByTestId('quote-state')).toHaveText('Waiting for the quoted post’s author to approve this quote.');
  const approved = page.getByTestId('post').filter({ hasText: 'Fine by Ben' });
  await expect(approved.getByTestId('quote-state')).toHaveText('Ben Okafor approved this quote.');
  await expect(approved.getByTestId('quoted-post')).toContainText('Low tide at six.');

  const refused = page.getByTestId('post').filter({ hasText: 'Not allowed' });
  await expect(refused.getByTestId('quote-state')).toHaveText('Ben Okafor did not approve this quote: it is shown without their post.');
  await expect(refused.getByTestId('quoted-post')).toHaveCount(0);
  await expect(refused.locator('.post__content')).toContainText('Not allowed');
  await refused.screenshot({ path: screenshotPath('quote-refused') });
  const revoked = page.getByTestId('post').filter({ hasText: 'Ben changed his mind' });
  await expect(revoked.getByTestId('quote-state')).toHaveText('Ben Okafor removed their approval of this quote: it is shown without their post.');
  await expect(revoked.getByTestId('quoted-post')).toHaveCount(0);
  await expect(revoked.getByRole('button', { name: /Ask again/ })).toHaveCount(0);

  // No answer for a day: the author asks again; the quote then waits again.
  const silent = page.getByTestId('post').filter({ hasText: 'Nobody answered' });
  await expect(silent.getByTestId('quote-state')).toHaveText('No answer from Ben Okafor about this quote (a day went by, or their server refused the request); their server may not ask about quotes.');
  await expect(silent.getByTestId('quoted-post')).toContainText('Low tide at six.');
  await silent.screenshot({ path: screenshotPath('quote-unanswered') });
  await silent.getByRole('button', { name: 'Ask again for approval of this quote' }).click();
  await expect(silent.getByTestId('quote-state')).toHaveText('Waiting for Ben Okafor to approve this quote.');
  await expect(silent.getByRole('button', { name: /Ask again/ })).toHaveCount(0);
  expect(askedAgain).toEqual([{ apId: unanswered.apId }]);

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
  await expect(ours.getByTestId('quote-state')).toHaveText('Peer bob approved this quote.');
  await expect(ours.locator('.quote-inline')).toBeHidden();
  // Its policy asked its author: the approval is news, told in Notifications too.
  await notificationsPlace(page).click();
  const told = page.getByTestId('notification').filter({ hasText: 'approved your quote of their post' });
  await expect(told).toContainText('Worth getting up early for');
  await told.getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Thread', level: 1 })).toBeVisible();
  await expect(page.locator('.post--focused')).toContainText('Worth getting up early for');
});

// The quoted server refuses the author's quote while they look at it: the Profile (or the
// thread) and the sidebar's badge change without a reload (the change feed), and Notifications
// says who refused.
peerTest('a refusal shows on the open Profile, in the open thread and as a notification, without a reload', async ({ page, tern, peer, request }) => {
  peerTest.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  peer.answerQuotesWith('ignore');
  const { noteId } = await peer.createNote({ content: '<p>Ask me first</p>', quotePolicy: 'manual' });
  await page.goto(tern.url); // the link with the token, which the page keeps
  await ipc(request, tern, 'lookup.resolve', { query: noteId });
  await ipc(request, tern, 'posts.create', { content: 'May I quote you?', visibility: 'PUBLIC', quote: noteId });
  const asked = await peer.waitFor((a) => a.type === 'QuoteRequest' && a.objectId === noteId, 20_000);

  await openFresh(page, tern, '#/profile');
  const ours = page.getByTestId('post').filter({ hasText: 'May I quote you?' });
  await expect(ours.getByTestId('quote-state')).toHaveText('Waiting for Peer bob to approve this quote.');
  const badge = page.getByRole('navigation', { name: 'Places' }).getByTestId('unread-badge');
  await expect(badge).toHaveCount(0);

  await peer.send(new Reject({ id: peer.newId('rejects'), actor: new URL(peer.actorId), object: new URL(asked.id!), to: new URL(ternActor) }), [ternActor]);
  await expect(ours.getByTestId('quote-state')).toHaveText('Peer bob did not approve this quote: it is shown without their post.', { timeout: 10_000 });
  await expect(ours.getByTestId('quoted-post')).toHaveCount(0);
  await expect(badge).toContainText('1', { timeout: 10_000 });
  await ours.screenshot({ path: screenshotPath('quote-refused-live') });
  await notificationsPlace(page).click();
  await expect(page.getByTestId('notification').first()).toContainText(/did not approve your quote of their post/);
  await expect(page.getByTestId('notification').first()).toContainText('May I quote you?');

  // The same in the open thread of another quote.
  const second = await peer.createNote({ content: '<p>Ask me again</p>', quotePolicy: 'manual' });
  await ipc(request, tern, 'lookup.resolve', { query: second.noteId });
  const quote = await ipc<{ apId: string }>(request, tern, 'posts.create', { content: 'And this one?', visibility: 'PUBLIC', quote: second.noteId });
  const askedAgain = await peer.waitFor((a) => a.type === 'QuoteRequest' && a.objectId === second.noteId, 20_000);
  await openFresh(page, tern, `#/thread?ap=${encodeURIComponent(quote.apId)}`);
  const focused = page.locator('.post--focused');
  await expect(focused.getByTestId('quote-state')).toHaveText('Waiting for Peer bob to approve this quote.');
  await peer.send(new Reject({ id: peer.newId('rejects'), actor: new URL(peer.actorId), object: new URL(askedAgain.id!), to: new URL(ternActor) }), [ternActor]);
  await expect(focused.getByTestId('quote-state')).toHaveText('Peer bob did not approve this quote: it is shown without their post.', { timeout: 10_000 });
});

// The quoted author takes their approval back as Mastodon 4.5 does (a Delete of the
// QuoteAuthorization their Accept named) while the author reads the Stream: the post there says
// so without a reload, shown without the quoted post, and Notifications tells who did it.
peerTest('a revoked approval shows on the open Stream, without a reload, and as a notification', async ({ page, tern, peer, request }) => {
  peerTest.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  const { noteId } = await peer.createNote({ content: '<p>Herons at the weir</p>', quotePolicy: 'manual' });
  await page.goto(tern.url); // the link with the token, which the page keeps
  await ipc(request, tern, 'lookup.resolve', { query: noteId });
  await ipc(request, tern, 'posts.create', { content: 'Saw them too', visibility: 'PUBLIC', quote: noteId });
  await peer.waitFor((a) => a.type === 'QuoteRequest' && a.objectId === noteId, 20_000);
  await expect.poll(() => peer.quoteAuthorizations().length, { timeout: 20_000 }).toBe(1);
  const stamp = peer.quoteAuthorizations()[0]!;

  await openFresh(page, tern, '#/stream');
  const ours = page.getByTestId('post').filter({ hasText: 'Saw them too' });
  await expect(ours.getByTestId('quote-state')).toHaveText('Peer bob approved this quote.', { timeout: 10_000 });
  await expect(ours.getByTestId('quoted-post')).toContainText('Herons at the weir');

  await peer.send(new Delete({ id: new URL(`${stamp}#delete`), actor: new URL(peer.actorId), object: new URL(stamp), tos: [PUBLIC_COLLECTION] }), [ternActor]);
  await expect(ours.getByTestId('quote-state')).toHaveText('Peer bob removed their approval of this quote: it is shown without their post.', { timeout: 10_000 });
  await expect(ours.getByTestId('quoted-post')).toHaveCount(0);
  await ours.screenshot({ path: screenshotPath('quote-revoked-by-them') });
  await notificationsPlace(page).click();
  await expect(page.getByTestId('notification').first()).toContainText(/removed their approval of your quote of their post/);
  await expect(page.getByTestId('notification').first()).toContainText('Saw them too');
});

// On the quoted side, the quoting post in its thread: the author sees they approved it, revokes
// it there (asked once more first), and allows it again there.
peerTest('a quote of the author’s post, in its thread: revoked and allowed again from under it', async ({ page, tern, peer, request }) => {
  peerTest.setTimeout(90_000);
  const ternActor = tern.listenerUrl!.replace(/\/$/, '');
  await page.goto(tern.url); // the link with the token, which the page keeps
  const ours = await ipc<{ apId: string }>(request, tern, 'posts.create', { content: 'Low tide at six.', visibility: 'PUBLIC' });
  const noteId = peer.newId('notes');
  const note = new Note({ id: noteId, attribution: new URL(peer.actorId), content: '<p>Worth a walk</p>', quote: new URL(ours.apId), tos: [PUBLIC_COLLECTION], ccs: [new URL(ternActor)] });
  await peer.send(new Create({ id: peer.newId('creates'), actor: new URL(peer.actorId), object: note, tos: [PUBLIC_COLLECTION], ccs: [new URL(ternActor)] }), [ternActor]);
  const requestId = peer.newId('quote-requests');
  await peer.send(new QuoteRequest({ id: requestId, actor: new URL(peer.actorId), object: new URL(ours.apId), instrument: note }), [ternActor]);
  const accept = await peer.waitFor((a) => a.type === 'Accept' && a.objectId === requestId.href, 20_000);
  const stamp = (accept.raw as { result: string }).result;

  const theirs = page.getByTestId('post').filter({ hasText: 'Worth a walk' });
  await expectAfterReload(page, tern, `#/thread?ap=${encodeURIComponent(noteId.href)}`, (p) => p.getByTestId('post').filter({ hasText: 'Worth a walk' }).getByTestId('quote-approval'), 'You approved this quote.');
  await theirs.getByRole('button', { name: /Revoke your approval of .*bob.*’s quote/ }).click();
  await theirs.getByRole('group', { name: /Revoke your approval of .*’s quote\?/ }).getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(theirs.getByTestId('quote-approval-note')).toHaveText('You revoked your approval of this quote.');
  await theirs.screenshot({ path: screenshotPath('quote-revoked-thread') });
  await peer.waitFor((a) => a.type === 'Delete' && a.objectId === stamp, 20_000);

  await theirs.getByRole('button', { name: /Allow .*bob.*’s quote again/ }).click();
  await expect(theirs.getByTestId('quote-approval-note')).toContainText('allowed it again');
  // Said by the core too.
  await expectAfterReload(page, tern, `#/thread?ap=${encodeURIComponent(noteId.href)}`, (p) => p.getByTestId('post').filter({ hasText: 'Worth a walk' }).getByTestId('quote-approval-note'), 'allowed it again');
});

test('q quotes the post the keyboard is on, as its Quote button does; ? lists it', async ({ page, tern }) => {
  const quotable = post(ben, '<p>Quote me</p>', { id: 1, apId: QUOTED });
  await answer(page, 'timeline.stream', { items: [quotable, post(ben, '<p>Only for my followers</p>', { id: 2, visibility: 'FOLLOWERS_ONLY' })], nextCursor: null });
  // What Compose shows of the post it quotes.
  await answer(page, 'thread.get', { ancestors: [], post: quotable, replies: [], totalReplies: 0, nextCursor: null, missingParent: null });
  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByTestId('post')).toHaveCount(2);
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toContainText('qQuote the post');
  await page.keyboard.press('Escape');
  // A followers-only post: its Quote is disabled, and so is q.
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await expect(page.getByTestId('post').nth(1)).toBeFocused();
  await page.keyboard.press('q');
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await page.keyboard.press('k');
  await page.keyboard.press('q');
  await expect(page.getByRole('heading', { name: 'Quote', level: 1 })).toBeVisible();
  await expect(page.getByTestId('quote-context')).toContainText('Quote me');
});
