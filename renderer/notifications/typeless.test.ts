// How the Notifications view words a move, a forwarded report and a quote.
import { describe, expect, it } from 'vitest';
import { groupNotifications, type NotificationItem } from './groups';
import { typelessWording } from './typeless';

const ana = (host: string, id: number) => ({ id, apId: `https://${host}/u/ana`, name: 'Ana', handle: `@ana@${host}`, iconUrl: null, url: `https://${host}/@ana` });
const post = (id: number, isDeleted = false) => ({ id, box: 'outbox' as const, apId: `https://me.example/o/${id}`, apType: 'Note', excerpt: `post ${id}`, isDeleted });

function typeless(partial: Partial<NotificationItem>, id: number): NotificationItem {
  return { id, type: null, createdAt: '2030-01-01T00:00:00Z', isNew: true, actor: null, outboxObject: null, inboxObject: null, webmentionId: null, ...partial };
}

describe('typeless notifications: moves, reports and quotes', () => {
  it('a move names both accounts by handle, says the author now follows the new one, and opens its profile', () => {
    const [group] = groupNotifications([typeless({ actor: ana('b.example', 2), detail: { kind: 'moved', from: ana('a.example', 1) } }, 1)]);
    expect(typelessWording(group!)).toEqual({
      kind: 'moved',
      sentence: '@ana@a.example moved to @ana@b.example; you now follow @ana@b.example',
      links: [],
      target: { href: 'https://b.example/@ana', external: true },
    });
  });

  it('a report names the server and the comment, and links each reported post of ours that still exists', () => {
    const detail = { kind: 'report' as const, server: 'mastodon.example', comment: 'Spam', posts: [post(7), post(8, true)] };
    const [group] = groupNotifications([typeless({ actor: ana('mastodon.example', 3), detail }, 2)]);
    expect(typelessWording(group!)).toEqual({
      kind: 'report',
      sentence: 'mastodon.example forwarded a report about your posts: Spam',
      links: [{ href: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7', label: 'Reported post: “post 7”' }],
      target: null,
    });
    const [aboutYou] = groupNotifications([typeless({ detail: { ...detail, comment: null, posts: [] } }, 3)]);
    expect(typelessWording(aboutYou!)?.sentence).toBe('mastodon.example forwarded a report about you');
    const [one] = groupNotifications([typeless({ detail: { ...detail, posts: [post(9)] } }, 4)]);
    expect(typelessWording(one!)?.sentence).toBe('mastodon.example forwarded a report about your post: Spam');
  });

  it('a quote names the quoter and leads to the quoting post', () => {
    const [group] = groupNotifications([typeless({ actor: ana('a.example', 1), outboxObject: post(7), detail: { kind: 'quoted', quoting: 'https://a.example/notes/2', approval: 'standing', allowedAgain: false } }, 5)]);
    expect(typelessWording(group!)).toEqual({
      kind: 'quoted',
      sentence: '@ana@a.example quoted your post',
      links: [],
      target: { href: '#/thread?ap=https%3A%2F%2Fa.example%2Fnotes%2F2', external: false },
    });
  });

  it('the answer to the author’s quote names who approved or refused it and leads to the author’s quote, unless it was deleted', () => {
    const [approved] = groupNotifications([typeless({ actor: ana('a.example', 1), outboxObject: post(7), detail: { kind: 'quote-answered', approved: true } }, 7)]);
    expect(typelessWording(approved!)).toEqual({
      kind: 'quote-answered',
      sentence: '@ana@a.example approved your quote of their post',
      links: [],
      target: { href: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F7', external: false },
    });
    const [refused] = groupNotifications([typeless({ actor: ana('a.example', 1), outboxObject: post(8, true), detail: { kind: 'quote-answered', approved: false } }, 8)]);
    expect(typelessWording(refused!)).toMatchObject({ sentence: '@ana@a.example did not approve your quote of their post', target: null });
    const [revoked] = groupNotifications([typeless({ actor: ana('a.example', 1), outboxObject: post(9), detail: { kind: 'quote-answered', approved: false, revoked: true } }, 9)]);
    expect(typelessWording(revoked!)).toMatchObject({ kind: 'quote-answered', sentence: '@ana@a.example removed their approval of your quote of their post', target: { href: '#/thread?ap=https%3A%2F%2Fme.example%2Fo%2F9', external: false } });
  });

  it('other notifications (a typed one, a poll that ended) are not worded here', () => {
    const groups = groupNotifications([
      { ...typeless({ actor: ana('a.example', 1) }, 5), type: 'NEW_FOLLOWER' },
      typeless({ outboxObject: { ...post(10), apType: 'Question' } }, 6),
    ]);
    expect(groups.map(typelessWording)).toEqual([null, null]);
  });
});
