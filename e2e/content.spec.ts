// How the renderer shows what others wrote and did — remote posts, boosts, content warnings,
// hostile HTML, likes that succeed or fail, grouped notifications and follow requests. A lone
// headless Tern has none of these, so the channels that list them answer with fixed content
// (./fake-answers.ts); the actions go through the same routes, and everything else is the real
// Tern.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import type { Output } from '../electron/core/ipc/contract';
import type { NotificationItem } from '../renderer/notifications/groups';
import { actor, ana, answer, ben, chloe, post } from './fake-answers';
import type { Headless } from './headless';
import { screenshotPath } from './screenshots';

const HOSTILE =
  '<p>Read <a href="https://gts.example/notes/1">the notes</a> before Friday.</p>' +
  '<script>window.__pwned = 1</script><img src="https://tracker.example/pixel.png" onerror="window.__pwned = 2">' +
  '<a href="javascript:window.__pwned = 3">click</a><p style="color:red" onclick="window.__pwned = 4">styled</p>';

const STREAM = [
  post(ana, '<p>Morning walk along the river. The terns are back! <a href="https://mastodon.example/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a></p>', {
    id: 1,
    counts: { replies: 2, likes: 12, boosts: 3 },
  }),
  post(ben, HOSTILE, { id: 2, boostedBy: { actor: chloe, apId: 'https://misskey.example/notes/b1', at: new Date().toISOString() } }),
  post(chloe, '<p>I did not see that ending coming. The lighthouse keeper was the narrator all along.</p>', {
    id: 3,
    summary: 'Spoilers for the finale',
    sensitive: true,
    counts: { replies: 0, likes: 4, boosts: 0 },
  }),
  post(ana, '<p>Here is the map I drew of the estuary.</p>', {
    id: 4,
    visibility: 'UNLISTED',
    inReplyTo: 'https://mastodon.example/statuses/99',
    attachments: [{ url: 'https://mastodon.example/media/map.png', mediaType: 'image/png', name: 'A hand-drawn map of the estuary with the nesting sites circled', blurhash: null, width: 800, height: 600 }],
  }),
  post(ben, '<p>Only for people who follow me: the meetup moves to Thursday.</p>', { id: 5, visibility: 'FOLLOWERS_ONLY' }),
];

async function openStream(page: Page, tern: Headless) {
  await answer(page, 'timeline.stream', { items: STREAM, nextCursor: null });
  await page.goto(`${tern.url}#/stream`);
  await expect(page.getByTestId('post')).toHaveCount(STREAM.length);
}

test('the stream shows boosts, content warnings and sanitized HTML, and loads no remote image', async ({ page, tern }) => {
  const remote: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(tern.origin)) remote.push(request.url());
  });
  await openStream(page, tern);
  const posts = page.getByTestId('post');

  await expect(posts.nth(1)).toContainText('Chloé Martin boosted');
  await expect(posts.nth(1).getByRole('link', { name: 'the notes' })).toHaveAttribute('target', '_blank');
  await expect(posts.nth(1).locator('img, script, [style], [onclick]')).toHaveCount(0);
  await expect(posts.nth(1).getByText('click')).not.toHaveAttribute('href');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  await expect(posts.nth(2).getByText('lighthouse keeper')).toBeHidden();
  await posts.nth(2).getByRole('button', { name: 'Show more' }).click();
  await expect(posts.nth(2).getByText('lighthouse keeper')).toBeVisible();
  await posts.nth(2).getByRole('button', { name: 'Show less' }).click();

  await expect(posts.nth(3)).toContainText('In reply to a post');
  await expect(posts.nth(3)).toContainText('A hand-drawn map of the estuary');
  await expect(posts.nth(4).getByRole('button', { name: 'Boost' })).toBeDisabled();
  await expect(posts.first().locator('time')).toHaveAttribute('title', /\d{4}/);

  expect(remote).toEqual([]);
  await page.screenshot({ path: screenshotPath('stream-posts') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('stream-posts-dark') });
});

test('a link whose text names another server than it opens shows the real host beside it; an honest trimmed link does not', async ({ page, tern }) => {
  const spoofs = post(
    ben,
    '<p><a href="https://evil.example/phish">https://bank.example/login</a> and ' +
      // Mastodon's trimming, with the claim in the visible part.
      '<a href="https://evil.example/x"><span class="invisible">https://evil.example/</span>bank.example/login</a> and ' +
      '<a href="https://blog.example/2024/long-post"><span class="invisible">https://</span><span class="ellipsis">blog.example/2024/lo</span><span class="invisible">ng-post</span></a>' +
      // A note of its own, faking the one Tern adds: shown as plain text, not as a note.
      ' <span class="link-host">(bank.example)</span></p>',
    { id: 21 },
  );
  await answer(page, 'timeline.stream', { items: [spoofs], nextCursor: null });
  await page.goto(`${tern.url}#/stream`);
  const links = page.getByTestId('post').locator('.post__content a');
  await expect(links).toHaveCount(3);
  await expect(links.nth(0)).toHaveText('https://bank.example/login (evil.example)');
  await expect(links.nth(0)).toHaveAttribute('title', 'https://evil.example/phish');
  await expect(links.nth(1).locator('.link-host')).toHaveText(' (evil.example)');
  await expect(links.nth(2).locator('.link-host')).toHaveCount(0);
  await expect(page.getByTestId('post').locator('.link-host')).toHaveCount(2);
  await expect(links.nth(2)).not.toHaveAttribute('title', /./);
});

test('other kinds of posts: a Video and an Article by title, the lead shown and not hidden, a link to the original; an unknown type as a link card; an Event with its time and place', async ({ page, tern }) => {
  const kinds = [
    post(ana, '<p>How to true a wheel with a spoke key.</p>', { id: 11, type: 'Video', title: 'Truing a bicycle wheel', url: 'https://videos.example/w/wheel' }),
    post(ben, '<p>The long version, with diagrams.</p>', { id: 12, type: 'Article', title: 'Winter cycling', excerpt: 'Salt, cold and light: a short guide.', url: 'https://blog.example/winter' }),
    post(chloe, '<p>A winter book.</p>', { id: 13, type: 'Review', card: true, title: 'Review of a novel (4 stars)', excerpt: 'Cold, and warm.', url: 'https://books.example/review/4' }),
    post(ana, '<p>Bring a torch.</p>', {
      id: 14,
      type: 'Event',
      title: 'Night walk on the moor',
      url: 'https://events.example/events/night-walk',
      event: { startTime: '2031-12-11T19:00:00+00:00', endTime: '2031-12-11T21:00:00+00:00', place: 'The old mill, Exeter, United Kingdom', online: true },
    }),
  ];
  await answer(page, 'timeline.stream', { items: kinds, nextCursor: null });
  await page.goto(`${tern.url}#/stream`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(4);

  await expect(posts.nth(0).getByRole('heading', { name: 'Truing a bicycle wheel' })).toBeVisible();
  await expect(posts.nth(0).getByRole('link', { name: 'Open on videos.example' })).toHaveAttribute('href', 'https://videos.example/w/wheel');
  await expect(posts.nth(1).getByText('Salt, cold and light: a short guide.')).toBeVisible();
  await expect(posts.nth(1).getByRole('button', { name: 'Show more' })).toHaveCount(0);
  await expect(posts.nth(1).getByText('The long version')).toBeVisible();
  const card = posts.nth(2).getByRole('link', { name: /Review of a novel/ });
  await expect(card).toHaveAttribute('href', 'https://books.example/review/4');
  await expect(card).toContainText('Cold, and warm.');
  await expect(card).toContainText('Review on books.example');
  const event = posts.nth(3);
  await expect(event.getByRole('heading', { name: 'Night walk on the moor' })).toBeVisible();
  await expect(event.locator('.post__event time')).toHaveAttribute('datetime', '2031-12-11T19:00:00+00:00');
  await expect(event.locator('.post__event time')).toContainText('2031');
  await expect(event.locator('.post__event')).toContainText('The old mill, Exeter, United Kingdom · Online');
  await page.screenshot({ path: screenshotPath('stream-post-kinds') });
  await event.scrollIntoViewIfNeeded();
  await event.screenshot({ path: screenshotPath('stream-post-event') });
});

test('a like shows at once with a pending mark, and one Tern refuses is put back with the reason', async ({ page, tern }) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let refuse = false;
  await page.route('**/ipc/posts.like', async (route) => {
    if (refuse) {
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ ok: false, error: { code: 'unavailable', message: 'mastodon.example did not answer.' } }),
      });
    }
    await held;
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, value: STREAM[0] }) });
  });
  await openStream(page, tern);
  const first = page.getByTestId('post').first();
  const like = first.getByRole('button', { name: 'Like' });

  // With the keyboard: j focuses the first post, l likes it.
  await page.keyboard.press('j');
  await expect(first).toBeFocused();
  await page.keyboard.press('l');
  await expect(like).toHaveAttribute('aria-pressed', 'true');
  await expect(like).toContainText('13');
  await expect(first.getByTestId('pending')).toBeVisible();
  release();
  await expect(first.getByTestId('pending')).toHaveCount(0);
  await expect(like).toHaveAttribute('aria-pressed', 'true');

  const third = page.getByTestId('post').nth(2);
  refuse = true;
  await third.getByRole('button', { name: 'Like' }).click();
  await expect(third.getByRole('alert')).toContainText('Could not like: mastodon.example did not answer.');
  await expect(third.getByRole('button', { name: 'Like' })).toHaveAttribute('aria-pressed', 'false');
  await page.screenshot({ path: screenshotPath('stream-like-failed') });
  refuse = false;
  release();
  await third.getByRole('alert').getByRole('button', { name: 'Try again' }).click();
  await expect(third.getByRole('button', { name: 'Like' })).toHaveAttribute('aria-pressed', 'true');
  await expect(third.getByRole('alert')).toHaveCount(0);
});

function notification(id: number, type: NotificationItem['type'], who: typeof ana, isNew: boolean, minutes: number, on: { id: number; excerpt: string } | null): NotificationItem {
  return {
    id,
    type,
    createdAt: new Date(Date.now() - minutes * 60_000).toISOString(),
    isNew,
    actor: who,
    outboxObject: on ? { id: on.id, box: 'outbox', apId: `https://tern.test/o/${on.id}`, apType: 'Note', excerpt: on.excerpt, isDeleted: false } : null,
    inboxObject: null,
    webmentionId: null,
  };
}

test('notifications are grouped by kind and post, unread first, and follow requests are answered in place', async ({ page, tern }) => {
  const walk = { id: 7, excerpt: 'Written offline on the train: the estuary at low tide is all mud and birds.' };
  const items = [
    notification(1, 'LIKE', ana, true, 3, walk),
    notification(2, 'LIKE', ben, true, 9, walk),
    notification(3, 'LIKE', chloe, true, 30, walk),
    notification(4, 'NEW_FOLLOWER', ben, true, 45, null),
    notification(5, 'ANNOUNCE', chloe, false, 60 * 5, walk),
    { ...notification(6, 'MENTION', ana, false, 60 * 26, null), inboxObject: { id: 40, box: 'inbox' as const, apId: 'https://mastodon.example/statuses/40', apType: 'Note', excerpt: '@ana see you at the hide on Saturday?', isDeleted: false } },
  ];
  let unread = 4;
  await answer(page, 'notifications.list', () => ({ items: items.map((i) => ({ ...i, isNew: unread > 0 && i.isNew })), nextOffset: null, nextCursor: null, unreadCount: unread }));
  await answer(page, 'notifications.unreadCount', () => ({ count: unread }));
  await answer(page, 'notifications.markAllRead', () => {
    unread = 0;
    return { updated: 4 };
  });
  const dana = { id: 9, apId: 'https://pleroma.example/users/dana', name: 'Dana Ruiz', handle: '@dana@pleroma.example', iconUrl: null, url: 'https://pleroma.example/users/dana' };
  const eli = { ...dana, id: 10, apId: 'https://pleroma.example/users/eli', name: 'Eli Park', handle: '@eli@pleroma.example', url: 'https://pleroma.example/users/eli' };
  let requests = [
    { inboxObjectId: 51, followApId: 'https://pleroma.example/activities/f1', requestedAt: new Date(Date.now() - 20 * 60_000).toISOString(), actor: dana },
    { inboxObjectId: 52, followApId: 'https://pleroma.example/activities/f2', requestedAt: new Date(Date.now() - 25 * 60_000).toISOString(), actor: eli },
  ];
  const answered: unknown[] = [];
  await answer(page, 'follow-requests.list', () => ({ items: requests, nextCursor: null, count: requests.length }));
  await answer(page, 'social.acceptRequest', (input) => {
    answered.push(['accept', input]);
    requests = requests.filter((r) => r.inboxObjectId !== 51);
    return { outboxObjectId: 60 };
  });
  await answer(page, 'social.rejectRequest', (input) => {
    answered.push(['reject', input]);
    requests = requests.filter((r) => r.inboxObjectId !== 52);
    return { outboxObjectId: 61 };
  });

  await page.goto(`${tern.url}#/notifications`);
  const rows = page.getByTestId('notification');
  await expect(rows).toHaveCount(4);
  await expect(rows.first()).toContainText('Ana Lima and 2 others liked your post');
  await expect(rows.first()).toContainText('the estuary at low tide');
  await expect(rows.nth(1)).toContainText('Ben Okafor followed you');
  await expect(rows.nth(2)).toContainText('Chloé Martin boosted your post');
  await expect(rows.nth(3)).toContainText('Ana Lima mentioned you');
  await expect(page.getByRole('link', { name: /Notifications/ })).toContainText('4');
  await expect(page.getByTestId('follow-request')).toHaveText([/Dana Ruiz/, /Eli Park/]);
  await page.screenshot({ path: screenshotPath('notifications-grouped') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('notifications-grouped-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  await page.getByRole('button', { name: 'Accept Dana Ruiz' }).click();
  await expect(page.getByTestId('follow-request')).toHaveText([/Eli Park/]);
  await page.getByRole('button', { name: 'Reject Eli Park' }).click();
  await expect(page.getByTestId('follow-request')).toHaveCount(0);
  expect(answered).toEqual([
    ['accept', { inboxObjectId: 51 }],
    ['reject', { inboxObjectId: 52 }],
  ]);

  await page.getByRole('button', { name: 'Mark all as read' }).click();
  await expect(page.getByTestId('unread-badge')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Mark all as read' })).toHaveCount(0);
});

test('follow requests come a page at a time, newest first, with how many wait in all', async ({ page, tern }) => {
  // Remote actors decide how many ask: the list shows 50, and more on request.
  let requests = Array.from({ length: 75 }, (_, k) => {
    const n = 75 - k;
    const who = { id: 100 + n, apId: `https://many.example/users/u${n}`, name: `Asker ${n}`, handle: `@u${n}@many.example`, iconUrl: null, url: `https://many.example/users/u${n}` };
    return { inboxObjectId: 1000 + n, followApId: `https://many.example/follows/${n}`, requestedAt: new Date(Date.now() - k * 60_000).toISOString(), actor: who };
  });
  const asked: unknown[] = [];
  await answer(page, 'notifications.list', () => ({ items: [], nextOffset: null, nextCursor: null, unreadCount: 0 }));
  await answer(page, 'notifications.unreadCount', () => ({ count: 0 }));
  await answer(page, 'follow-requests.list', (input) => {
    asked.push(input);
    const { cursor, limit = 50 } = input as { cursor?: string; limit?: number };
    const rest = cursor ? requests.filter((r) => r.inboxObjectId < Number(cursor)) : requests;
    const items = rest.slice(0, limit);
    return { items, nextCursor: rest.length > limit ? String(items.at(-1)!.inboxObjectId) : null, count: requests.length };
  });
  await answer(page, 'social.acceptRequest', (input) => {
    requests = requests.filter((r) => r.inboxObjectId !== (input as { inboxObjectId: number }).inboxObjectId);
    return { outboxObjectId: 60 };
  });

  await page.goto(`${tern.url}#/notifications`);
  const shown = page.getByTestId('follow-request');
  await expect(shown).toHaveCount(50);
  await expect(shown.first()).toContainText('Asker 75');
  await expect(page.getByText('75 waiting')).toBeVisible();
  await page.getByRole('button', { name: 'Accept Asker 75' }).click();
  await expect(page.getByText('74 waiting')).toBeVisible();
  await expect(shown).toHaveCount(49);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(shown).toHaveCount(74);
  await expect(shown.last()).toContainText('Asker 1');
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
  expect(asked).toEqual([{}, { cursor: '1026' }]);
});

test('names from other servers cannot reorder the words around them or overflow their row', async ({ page, tern }) => {
  // As a peer could still send them (the core takes bidi controls out and cuts names at 100
  // characters; the renderer does not count on it).
  const rlo = actor(20, 'Support Team\u202E', '@rlo@rlo.example');
  const long = actor(21, 'W'.repeat(1_000), '@long@long.example');
  const poll = { kind: 'oneOf' as const, options: [{ name: '\u202Eyes', votes: 2 }, { name: 'no', votes: 1 }], votersCount: 3, endTime: null, closed: true, hideTotals: false, myVotes: null };
  await answer(page, 'timeline.stream', {
    items: [
      post(rlo, '<p>Quick question.</p>', { id: 1, boostedBy: { actor: rlo, apId: 'https://rlo.example/b/1', at: new Date().toISOString() }, poll }),
      post(ana, '<p>The terns are back.</p>', { id: 2, boostedBy: { actor: long, apId: 'https://long.example/b/2', at: new Date().toISOString() } }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);
  const posts = page.getByTestId('post');
  await expect(posts).toHaveCount(2);

  const bidiOf = (locator: Locator) => locator.evaluateAll((els) => els.map((el) => getComputedStyle(el).unicodeBidi));
  for (const [selector, count] of [['.post__name', 1], ['.post__handle', 1], ['.post__context-text bdi', 1], ['.poll__name bdi', 2]] as const) {
    expect(await bidiOf(posts.first().locator(selector)), selector).toEqual(Array(count).fill('isolate'));
  }
  // The words after the name read as written: an override left in the name, not isolated, would
  // have turned " boosted" around.
  await expect(posts.first().locator('.post__context-text')).toHaveText('Support Team\u202E boosted');
  expect(await readsOnAfterName(posts.first().locator('.post__context-text'))).toBe(true);

  // A long name: the "boosted" line stays within its post (it was 1.4 million pixels wide).
  const context = posts.nth(1).locator('.post__context');
  await expect(context).toContainText('boosted');
  const fits = (locator: Locator) => locator.evaluate((el) => el.scrollWidth <= el.clientWidth);
  expect(await fits(context)).toBe(true);
  expect(await fits(posts.nth(1))).toBe(true);

  const walk = { id: 7, excerpt: 'The estuary at low tide.' };
  await answer(page, 'notifications.list', { items: [notification(1, 'LIKE', rlo, true, 3, walk), notification(2, 'NEW_FOLLOWER', long, true, 5, null)], nextOffset: null, nextCursor: null, unreadCount: 2 });
  await page.goto(`${tern.url}#/notifications`);
  const rows = page.getByTestId('notification');
  await expect(rows).toHaveCount(2);
  const liked = rows.first().locator('.notification__sentence');
  await expect(liked).toHaveText('Support Team\u202E liked your post');
  expect(await bidiOf(liked)).toEqual(['isolate']);
  expect(await bidiOf(liked.locator('bdi'))).toEqual(['isolate']);
  expect(await readsOnAfterName(liked)).toBe(true);
  // The long name wraps within the sentence, which ends before the time begins.
  const followed = rows.nth(1);
  expect(await fits(followed.locator('.notification__sentence'))).toBe(true);
  const sentenceRight = await followed.locator('.notification__sentence').evaluate((el) => el.getBoundingClientRect().right);
  const timeLeft = await followed.locator('.notification__meta').evaluate((el) => el.getBoundingClientRect().left);
  expect(sentenceRight).toBeLessThanOrEqual(timeLeft);

  // The post a reply answers names its author the same way.
  const answered = post(rlo, '<p>Anyone?</p>', { id: 3 });
  await answer(page, 'thread.get', { ancestors: [], post: answered, replies: [], totalReplies: 0, nextCursor: null, missingParent: null });
  await page.goto(`${tern.url}#/compose?reply=${encodeURIComponent(answered.apId)}`);
  const replyingTo = page.locator('.reply-context__head > span:not(.icon)');
  await expect(replyingTo).toHaveText('Replying to Support Team\u202E');
  expect(await bidiOf(replyingTo.locator('bdi'))).toEqual(['isolate']);
});

test('emoji reactions say who reacted with which emoji, apart from the likes of the same post, and cannot reorder the sentence', async ({ page, tern }) => {
  const walk = { id: 7, excerpt: 'The estuary at low tide.' };
  const rlo = actor(20, 'Support Team\u202E', '@rlo@rlo.example');
  const blobcat = { shortcode: 'blobcat', url: 'https://pleroma.example/emoji/blobcat.png', src: '/media/proxy/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/aHR0cHM6Ly9wbGVyb21hLmV4YW1wbGUvZW1vamkvYmxvYmNhdC5wbmc' };
  // As the core lists them: LIKE (or UNDO_LIKE) pointing at the EmojiReact, with its emoji.
  const reacted = (n: NotificationItem, emoji: string, custom: typeof blobcat | null = null, undone = false): NotificationItem => ({
    ...n,
    inboxObject: { id: 200 + n.id, box: 'inbox', apId: `https://pleroma.example/activities/${n.id}`, apType: 'EmojiReact', excerpt: undone ? null : emoji, isDeleted: undone },
    reaction: { emoji, custom },
  });
  const items = [
    reacted(notification(1, 'LIKE', ana, true, 3, walk), '🎉'),
    notification(2, 'LIKE', ben, true, 4, walk),
    reacted(notification(3, 'LIKE', chloe, true, 5, walk), '🎉'),
    reacted(notification(4, 'LIKE', rlo, true, 6, walk), ':blobcat:', blobcat),
    // A bidi control left in the emoji (the core takes them out; the view does not count on it).
    reacted(notification(5, 'UNDO_LIKE', ben, true, 7, walk), '\u202E🔥', null, true),
  ];
  await answer(page, 'notifications.list', { items, nextOffset: null, nextCursor: null, unreadCount: items.length });
  await page.goto(`${tern.url}#/notifications`);
  const sentences = page.getByTestId('notification').locator('.notification__sentence');
  await expect(sentences).toHaveText([
    'Ana Lima and Chloé Martin reacted with 🎉 to your post',
    'Ben Okafor liked your post',
    'Support Team\u202E reacted with  to your post',
    'Ben Okafor took back a \u202E🔥 reaction to your post',
  ]);
  // The custom emoji is its picture, through Tern's media proxy.
  const picture = sentences.nth(2).locator('img.custom-emoji');
  await expect(picture).toHaveAttribute('alt', ':blobcat:');
  await expect(picture).toHaveAttribute('src', /^\/media\/proxy\//);
  // Each name and each emoji isolated; the words after a name, and after an emoji, read on.
  const bidiOf = (locator: Locator) => locator.evaluateAll((els) => els.map((el) => getComputedStyle(el).unicodeBidi));
  expect(await bidiOf(sentences.first().locator('bdi'))).toEqual(['isolate', 'isolate', 'isolate']);
  expect(await readsOnAfterName(sentences.nth(2))).toBe(true);
  expect(await wordReadsOn(sentences.nth(3), 'reaction')).toBe(true);
  await page.screenshot({ path: screenshotPath('notifications-reactions') });
});

test('a link preview names the host its link leads to, whatever the page calls itself', async ({ page, tern }) => {
  const preview = (url: string, siteName: string) => ({ url, title: 'Sign in to your account', description: null, siteName, image: null, imageSrc: null });
  await answer(page, 'timeline.stream', {
    items: [
      post(ana, '<p><a href="https://evil.example/phish">log in</a></p>', { id: 1, previews: [preview('https://evil.example/phish', 'accounts.google.com')] }),
      post(ben, '<p><a href="https://www.birds.example/w/1">terns</a></p>', { id: 2, previews: [preview('https://www.birds.example/w/1', 'Birds Weekly')] }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);
  await expect(page.locator('.post__preview-site')).toHaveText(['evil.example', 'Birds Weekly · birds.example']);
  await expect(page.locator('.post__preview-host')).toHaveText(['evil.example', 'birds.example']);
});

/** Whether the words after the first <bdi> in `locator` read as written: laid out after the
 * name, and left to right (their first letter left of their last). */
function readsOnAfterName(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const name = el.querySelector('bdi');
    const rest = name?.nextSibling;
    if (!name || !rest?.textContent) return false;
    const text = rest.textContent;
    const letter = (i: number) => {
      const range = document.createRange();
      range.setStart(rest, i);
      range.setEnd(rest, i + 1);
      return range.getBoundingClientRect();
    };
    const first = letter(text.search(/\S/));
    const last = letter(text.trimEnd().length - 1);
    return first.left >= name.getBoundingClientRect().right - 1 && first.left < last.left;
  });
}

/** Whether `word`, in the sentence's own text (not in a name or an emoji), reads left to right
 * (its first letter left of its last: unlike the whole sentence, a word is on one line). */
function wordReadsOn(locator: Locator, word: string): Promise<boolean> {
  return locator.evaluate((el, word) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (node.parentElement?.closest('bdi')) continue;
      const at = node.textContent?.indexOf(word) ?? -1;
      if (at < 0) continue;
      const letter = (i: number) => {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        return range.getBoundingClientRect();
      };
      return letter(at).left < letter(at + word.length - 1).left;
    }
    return false;
  }, word);
}

test('a post’s author opens their card in People, and Back returns to the stream', async ({ page, tern }) => {
  await answer(page, 'lookup.resolve', (input) => {
    expect(input).toEqual({ query: ben.apId });
    return { kind: 'actor', actor: ben, followState: 'following', summaryHtml: '<p>Rides bikes in the rain.</p>', followsYou: true };
  });
  await openStream(page, tern);
  const author = page.getByTestId('post').nth(1).getByRole('link', { name: /Ben Okafor/ });
  await expect(author).toHaveAttribute('title', 'See Ben Okafor’s profile');
  await author.click();
  await expect(page.getByRole('heading', { level: 1, name: 'People' })).toBeVisible();
  const card = page.getByTestId('lookup-result');
  await expect(card).toContainText('@ben@gts.example');
  await expect(card).toContainText('Rides bikes in the rain.');
  await expect(card.getByRole('button', { name: 'Unfollow' })).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await expect(page.getByTestId('post')).toHaveCount(STREAM.length);
});

test('a like keeps its pending mark until the server has it, and one given up on says why and tries again', async ({ page, tern }) => {
  type Row = Output<'deliveries.list'>['items'][number];
  const delivery = (apId: string, state: Row['state'], error: string | null = null): Row => ({
    id: apId.endsWith('/1') ? 901 : 903,
    createdAt: new Date().toISOString(),
    state,
    recipient: 'https://mastodon.example/users/ana/inbox',
    host: 'mastodon.example',
    activity: { type: 'Like', apId: `https://tern.test/o/like-${apId.slice(-1)}`, label: 'Like' },
    tries: state === 'queued' ? 0 : 1,
    nextTry: null,
    lastTry: null,
    lastStatus: state === 'failed' ? 403 : null,
    lastResponse: null,
    error,
  });
  const states = new Map<string, Row['state']>();
  const REFUSED = 'mastodon.example refused the delivery (HTTP 403 Forbidden); Tern stopped trying.';
  const asked: unknown[] = [];
  let checks = 0;
  await page.route('**/ipc/posts.like', (route) => {
    const { apId } = route.request().postDataJSON() as { apId: string };
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true, value: STREAM.find((p) => p.apId === apId) }) });
  });
  await answer(page, 'deliveries.list', (input) => {
    const { postApId } = input as { postApId: string };
    const state = states.get(postApId);
    if (postApId === STREAM[0]!.apId && state === 'sending') checks++;
    return { items: state ? [delivery(postApId, state, state === 'failed' ? REFUSED : null)] : [], nextCursor: null, counts: { queued: 0, resolving: 0, sending: 0, retrying: 0, sent: 0, failed: 0 } };
  });
  await answer(page, 'deliveries.retryNow', (input) => {
    asked.push(input);
    states.set(STREAM[2]!.apId, 'sent');
    return { retried: 1 };
  });
  await openStream(page, tern);

  // Recorded by Tern, still on its way: the mark stays until the queue says it was sent.
  const first = page.getByTestId('post').first();
  states.set(STREAM[0]!.apId, 'sending');
  await first.getByRole('button', { name: 'Like' }).click();
  await expect(first.getByRole('button', { name: 'Like' })).toHaveAttribute('aria-pressed', 'true');
  await expect(first.getByTestId('pending')).toBeVisible();
  // Asked again and still on its way: still marked.
  await expect.poll(() => checks, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await expect(first.getByTestId('pending')).toBeVisible();
  states.set(STREAM[0]!.apId, 'sent');
  await expect(first.getByTestId('pending')).toHaveCount(0, { timeout: 10_000 });

  // Given up on: the like stays (it is recorded), the post says why and offers to try again.
  const third = page.getByTestId('post').nth(2);
  states.set(STREAM[2]!.apId, 'failed');
  await third.getByRole('button', { name: 'Like' }).click();
  const alert = third.getByRole('alert');
  await expect(alert).toContainText(`Your like was not delivered. ${REFUSED}`);
  await expect(third.getByRole('button', { name: 'Like' })).toHaveAttribute('aria-pressed', 'true');
  await expect(third.getByTestId('pending')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('stream-like-not-delivered') });
  await alert.getByRole('button', { name: 'Try again' }).click();
  await expect(alert).toHaveCount(0);
  expect(asked).toEqual([{ id: 903 }]);
  await expect(third.getByTestId('pending')).toHaveCount(0, { timeout: 10_000 });
  await expect(third.getByRole('alert')).toHaveCount(0);
});

test('media under a content warning stay covered until clicked, even when the server did not mark them sensitive', async ({ page, tern }) => {
  const image = { mediaType: 'image/jpeg', blurhash: null, width: 400, height: 300, kind: 'image' as const, src: '/media/proxy/forged', thumbSrc: '/media/proxy/forged' };
  await answer(page, 'timeline.stream', {
    items: [
      post(ben, '<p>Found this in the shed.</p>', {
        id: 1,
        summary: 'Spiders',
        sensitive: false,
        attachments: [{ ...image, url: 'https://gts.example/media/spider.jpg', name: 'A large house spider on a glove' }],
      }),
      post(ana, '<p>The estuary at dawn.</p>', { id: 2, attachments: [{ ...image, url: 'https://mastodon.example/media/dawn.jpg', name: 'Mist over mudflats' }] }),
    ],
    nextCursor: null,
  });
  await page.goto(`${tern.url}#/stream`);
  const [warned, plain] = [page.getByTestId('post').nth(0), page.getByTestId('post').nth(1)];
  const cover = warned.getByRole('button', { name: 'Sensitive media — show' });
  await expect(cover).toBeVisible();
  await expect(warned.getByRole('button', { name: 'Show the description' })).toHaveCount(0);
  await expect(plain.getByRole('button', { name: 'Sensitive media — show' })).toHaveCount(0);
  await cover.click();
  await expect(cover).toHaveCount(0);
  await expect(warned.getByTestId('post-media')).toContainText('A large house spider on a glove');

  // Another place and back: the Stream draws its posts anew, the media as the author left them
  // (posts/kept-state.ts), the warning's text still folded as it was.
  await page.getByRole('link', { name: 'Polls' }).first().click();
  await expect(page.getByRole('heading', { name: 'Polls', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(warned.getByTestId('post-media')).toContainText('A large house spider on a glove');
  await expect(cover).toHaveCount(0);
  await expect(warned.getByRole('button', { name: 'Show more' })).toHaveAttribute('aria-expanded', 'false');
});

test('a follow notification opens the follower’s card in People, where the author can follow back', async ({ page, tern }) => {
  await answer(page, 'notifications.list', { items: [notification(1, 'NEW_FOLLOWER', ben, true, 5, null)], nextOffset: null, nextCursor: null, unreadCount: 1 });
  await answer(page, 'notifications.markRead', { updated: 1 });
  await answer(page, 'lookup.resolve', (input) => {
    expect(input).toEqual({ query: ben.apId });
    return { kind: 'actor', actor: ben, followState: 'none', summaryHtml: null, followsYou: true };
  });
  await page.goto(`${tern.url}#/notifications`);
  const row = page.getByTestId('notification');
  await expect(row).toContainText('Ben Okafor followed you');
  await row.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'People' })).toBeVisible();
  const card = page.getByTestId('lookup-result');
  await expect(card).toContainText('Follows you');
  await expect(card.getByRole('button', { name: 'Follow' })).toBeVisible();
});

test('back from a thread opened with o, the keyboard is on the post it was on, and j goes on from there', async ({ page, tern }) => {
  await answer(page, 'thread.get', (input) => ({
    ancestors: [],
    post: STREAM.find((p) => p.apId === (input as { apId: string }).apId)!,
    replies: [],
    totalReplies: 0,
    nextCursor: null,
    missingParent: null,
  }));
  await openStream(page, tern);
  const posts = page.getByTestId('post');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await expect(posts.nth(2)).toBeFocused();
  await page.keyboard.press('o');
  await expect(page.getByRole('heading', { level: 1, name: 'Thread' })).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
  await expect(posts.nth(2)).toBeFocused();
  await page.keyboard.press('j');
  await expect(posts.nth(3)).toBeFocused();
});
