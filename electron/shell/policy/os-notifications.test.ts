import { describe, expect, it } from 'vitest';
import type { NotificationItem } from '../../core/notifications/service';
import { GROUP_ABOVE, osNotificationBody, planOsNotifications, routeOf } from './os-notifications';

let next = 1;
function item(partial: Partial<NotificationItem> = {}): NotificationItem {
  return {
    id: next++,
    type: 'LIKE',
    createdAt: '2030-01-01T00:00:00Z',
    isNew: true,
    actor: { id: 1, apId: 'https://a.example/u/ana', name: 'Ana', handle: '@ana@a.example', iconUrl: null, url: 'https://a.example/@ana' },
    outboxObject: { id: 7, box: 'outbox', apId: 'https://me.example/o/7', apType: 'Note', excerpt: 'Hello world', isDeleted: false },
    inboxObject: null,
    webmentionId: null,
    ...partial,
  };
}

describe('OS notifications for new notifications', () => {
  it('a few at once: one each, saying who did what, opening the post', () => {
    const plan = planOsNotifications([item(), item({ type: 'NEW_FOLLOWER', outboxObject: null })], {});
    expect(plan).toHaveLength(2);
    expect(plan[0]).toMatchObject({ title: 'Tern', body: 'Ana liked your post: “Hello world”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7' });
    expect(plan[1]).toMatchObject({ body: 'Ana followed you', route: '#/notifications' });
  });

  it('an emoji reaction (a LIKE or UNDO_LIKE the core gives its emoji) says which emoji; a plain like says liked', () => {
    const body = (partial: Partial<NotificationItem>) => planOsNotifications([item(partial)], {})[0]?.body;
    expect(body({ reaction: { emoji: '🔥', custom: null } })).toBe('Ana reacted with 🔥 to your post: “Hello world”');
    const blobcat = { shortcode: 'blobcat_hug', url: 'https://a.example/e.png', src: '/media/proxy/x/y' };
    expect(body({ reaction: { emoji: ':blobcat_hug:', custom: blobcat } })).toBe('Ana reacted with :blobcat_hug: to your post: “Hello world”');
    expect(body({ type: 'UNDO_LIKE', reaction: { emoji: '🔥', custom: null } })).toBe('Ana took back a 🔥 reaction to your post: “Hello world”');
    expect(body({})).toBe('Ana liked your post: “Hello world”');
    expect(body({ type: 'UNDO_LIKE' })).toBe('Ana no longer likes your post: “Hello world”');
  });

  it('a poll that ended (a notification with no type on a Question) says so and opens the poll', () => {
    const question = { id: 9, apId: 'https://me.example/o/9', apType: 'Question', excerpt: 'Tea or coffee?', isDeleted: false };
    const [ours] = planOsNotifications([item({ type: null, actor: null, outboxObject: { ...question, box: 'outbox' } })], {});
    expect(ours).toMatchObject({ body: 'Your poll has ended: “Tea or coffee?”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F9' });
    const remote = { ...question, box: 'inbox' as const, apId: 'https://a.example/q/1' };
    const [theirs] = planOsNotifications([item({ type: null, outboxObject: null, inboxObject: remote })], {});
    expect(theirs).toMatchObject({ body: 'A poll by Ana you voted in has ended', route: '#/thread?ap=https%3A%2F%2Fa.example%2Fq%2F1' });
  });

  it('an approved quote (a notification with no type on a QuoteRequest) says who quoted which post of ours, and opens it', () => {
    const request = { id: 4, box: 'inbox' as const, apId: 'https://a.example/u/ana/quote_requests/1', apType: 'QuoteRequest', excerpt: null, isDeleted: false };
    const [plan] = planOsNotifications([item({ type: null, inboxObject: request, detail: { kind: 'quoted', quoting: 'https://a.example/u/ana/statuses/2', approval: 'standing', allowedAgain: false } })], {});
    expect(plan).toMatchObject({ body: 'Ana quoted your post: “Hello world”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7' });
  });

  it('the answer to the author’s quote (a notification with no type on an Accept or Reject) says who approved or refused it, and opens the quote', () => {
    const answer = (apType: string) => ({ id: 5, box: 'inbox' as const, apId: `https://a.example/u/ana#${apType}`, apType, excerpt: null, isDeleted: false });
    const [approved] = planOsNotifications([item({ type: null, inboxObject: answer('Accept'), detail: { kind: 'quote-answered', approved: true } })], {});
    expect(approved).toMatchObject({ body: 'Ana approved your quote of their post: “Hello world”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7' });
    const [refused] = planOsNotifications([item({ type: null, inboxObject: answer('Reject'), detail: { kind: 'quote-answered', approved: false } })], {});
    expect(refused).toMatchObject({ body: 'Ana did not approve your quote of their post: “Hello world”' });
    const [revoked] = planOsNotifications([item({ type: null, inboxObject: answer('Delete'), detail: { kind: 'quote-answered', approved: false, revoked: true } })], {});
    expect(revoked).toMatchObject({ body: 'Ana removed their approval of your quote of their post: “Hello world”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7' });
  });

  it('a move says who moved where and that the author now follows the new account; it opens Notifications', () => {
    const newAna = { id: 2, apId: 'https://b.example/u/ana', name: 'Ana', handle: '@ana@b.example', iconUrl: null, url: 'https://b.example/@ana' };
    const move = { id: 3, box: 'inbox' as const, apId: 'https://a.example/u/ana#moves/1', apType: 'Move', excerpt: null, isDeleted: false };
    const [plan] = planOsNotifications([item({ type: null, actor: newAna, outboxObject: null, inboxObject: move, detail: { kind: 'moved', from: item().actor } })], {});
    expect(plan).toMatchObject({ body: '@ana@a.example moved to @ana@b.example; you now follow @ana@b.example', route: '#/notifications' });
  });

  it('a report names the server and the comment, and opens the reported post when there is one', () => {
    const flag = { id: 4, box: 'inbox' as const, apId: 'https://a.example/actor#tern-flag-1', apType: 'Flag', excerpt: 'Spam', isDeleted: false };
    const post = { id: 7, box: 'outbox' as const, apId: 'https://me.example/o/7', apType: 'Note', excerpt: 'Hello world', isDeleted: false };
    const report = (posts: (typeof post)[], comment: string | null) =>
      planOsNotifications([item({ type: null, outboxObject: null, inboxObject: flag, detail: { kind: 'report', server: 'a.example', comment, posts } })], {})[0];
    expect(report([post], 'Spam')).toMatchObject({ body: 'a.example forwarded a report about your post: “Spam”', route: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7' });
    expect(report([post, { ...post, id: 8, apId: 'https://me.example/o/8' }], null)).toMatchObject({ body: 'a.example forwarded a report about your posts', route: '#/notifications' });
    expect(report([], 'Rude')).toMatchObject({ body: 'a.example forwarded a report about you: “Rude”' });
  });

  it(`more than ${GROUP_ABOVE} at once: one grouped notification opening Notifications`, () => {
    const many = [item(), item({ actor: null }), item({ type: 'MENTION' }), item({ type: 'ANNOUNCE' }), item()];
    const plan = planOsNotifications(many, {});
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatchObject({ title: 'Tern — 5 new notifications', route: '#/notifications', ids: many.map((i) => i.id) });
    expect(plan[0]?.body).toMatch(/^Ana liked your post; Someone liked your post; and 3 more$/);
  });

  it('a type switched off in Settings is not shown; types not listed stay on', () => {
    const plan = planOsNotifications([item({ type: 'LIKE' }), item({ type: 'MENTION', inboxObject: null })], { LIKE: false, ANNOUNCE: true });
    expect(plan.map((p) => p.body)).toEqual(['Ana mentioned you']);
    expect(planOsNotifications([item({ type: 'LIKE' })], { LIKE: false })).toEqual([]);
  });

  it('switched-off types do not count towards grouping', () => {
    const arrived = [item({ type: 'LIKE' }), item({ type: 'LIKE' }), item({ type: 'LIKE' }), item({ type: 'NEW_FOLLOWER' }), item({ type: 'NEW_FOLLOWER' })];
    expect(planOsNotifications(arrived, { LIKE: false })).toHaveLength(2);
  });

  it('already-read notifications are never announced', () => {
    expect(planOsNotifications([item({ isNew: false })], {})).toEqual([]);
  });

  it('a mention opens the mentioning post; a deleted post opens Notifications', () => {
    const mention = item({ type: 'MENTION', outboxObject: null, inboxObject: { id: 3, box: 'inbox', apId: 'https://b.example/n/3', apType: 'Note', excerpt: 'hi', isDeleted: false } });
    expect(routeOf(mention)).toBe('#/thread?ap=https%3A%2F%2Fb.example%2Fn%2F3');
    const deleted = item({ outboxObject: { id: 7, box: 'outbox', apId: 'https://me.example/o/7', apType: 'Note', excerpt: null, isDeleted: true } });
    expect(routeOf(deleted)).toBe('#/notifications');
  });
});

describe('the body handed to the OS', () => {
  const hostile = '<b>Tern security</b> <a href="https://evil.example/login">re-enter your password</a> & more';

  it('is escaped where libnotify shows it (markup there: <b>, <a href>), so it reads as the text it is', () => {
    for (const platform of ['linux', 'freebsd', 'openbsd'] as const) {
      expect(osNotificationBody(hostile, platform)).toBe(
        '&lt;b&gt;Tern security&lt;/b&gt; &lt;a href="https://evil.example/login"&gt;re-enter your password&lt;/a&gt; &amp; more',
      );
    }
  });

  it('is left as it is on macOS and Windows, which show plain text', () => {
    expect(osNotificationBody(hostile, 'darwin')).toBe(hostile);
    expect(osNotificationBody(hostile, 'win32')).toBe(hostile);
  });
});
