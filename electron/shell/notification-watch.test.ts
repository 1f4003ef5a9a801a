import { describe, expect, it } from 'vitest';
import { htmlToExcerpt } from '../core/federation/sanitize';
import type { NotificationItem } from '../core/notifications/service';
import { fakeNotifier } from './fakes';
import { createNotificationWatch } from './notification-watch';
import type { OsNotificationPrefs } from './policy/os-notifications';

function item(id: number, partial: Partial<NotificationItem> = {}): NotificationItem {
  return {
    id,
    type: 'NEW_FOLLOWER',
    createdAt: '2030-01-01T00:00:00Z',
    isNew: true,
    actor: { id, apId: `https://a.example/u/${id}`, name: `P${id}`, handle: null, iconUrl: null, url: `https://a.example/@${id}` },
    outboxObject: null,
    inboxObject: null,
    webmentionId: null,
    ...partial,
  };
}

function rig(initial: NotificationItem[] = [], platform: NodeJS.Platform = 'darwin') {
  const rows = [...initial];
  const notifier = fakeNotifier();
  const opened: { route: string; ids: number[] }[] = [];
  let prefs: OsNotificationPrefs = {};
  let checks = 0;
  const watch = createNotificationWatch({
    list: (limit) => [...rows].sort((a, b) => Number(b.isNew) - Number(a.isNew) || b.id - a.id).slice(0, limit),
    prefs: () => prefs,
    notifier,
    open: (route, ids) => void opened.push({ route, ids }),
    afterCheck: () => void checks++,
    platform,
  });
  return { rows, notifier, opened, watch, setPrefs: (p: OsNotificationPrefs) => (prefs = p), checks: () => checks };
}

describe('notification watch', () => {
  it('never announces what was there at start', () => {
    const { notifier, watch } = rig([item(1), item(2)]);
    expect(watch.check()).toBe(0);
    expect(notifier.shown).toEqual([]);
  });

  it('announces each new notification once, and a click opens it in the app', () => {
    const { rows, notifier, opened, watch, checks } = rig([item(1)]);
    rows.push(item(2));
    expect(watch.check()).toBe(1);
    expect(watch.check()).toBe(0);
    expect(notifier.shown.map((n) => n.body)).toEqual(['P2 followed you']);
    notifier.shown[0]?.onClick?.();
    expect(opened).toEqual([{ route: '#/notifications', ids: [2] }]);
    expect(checks()).toBe(2); // the tray re-reads the count after each look
  });

  it('many arriving between two looks become one grouped notification', () => {
    const { rows, notifier, opened, watch } = rig();
    for (let id = 1; id <= 6; id++) rows.push(item(id));
    expect(watch.check()).toBe(1);
    expect(notifier.shown[0]?.title).toBe('Tern — 6 new notifications');
    notifier.shown[0]?.onClick?.();
    expect(opened[0]).toEqual({ route: '#/notifications', ids: [6, 5, 4, 3, 2, 1] });
  });

  it('types switched off in Settings are skipped, and are not announced later either', () => {
    const { rows, notifier, watch, setPrefs } = rig();
    setPrefs({ NEW_FOLLOWER: false });
    rows.push(item(1));
    expect(watch.check()).toBe(0);
    setPrefs({});
    expect(watch.check()).toBe(0);
    expect(notifier.shown).toEqual([]);
  });

  it('shows nothing where the OS has no notifications, but still keeps up', () => {
    const { rows, notifier, watch } = rig();
    notifier.supported = false;
    rows.push(item(1));
    expect(watch.check()).toBe(0);
    notifier.supported = true;
    expect(watch.check()).toBe(0);
  });
});

describe('a remote post\'s text in an OS notification', () => {
  // As a remote server sends it: escaped entities, which the excerpt decodes back to "<b>…".
  const excerpt = htmlToExcerpt('<p>&lt;b&gt;Tern security&lt;/b&gt; &lt;a href="https://evil.example/login"&gt;re-enter your password&lt;/a&gt;</p>');
  const mention = (id: number) =>
    item(id, { type: 'MENTION', inboxObject: { id: 9, box: 'inbox', apId: 'https://evil.example/n/1', apType: 'Note', excerpt, isDeleted: false } as NotificationItem['inboxObject'] });

  it('reaches a Linux notification server as text, never as markup', () => {
    const { rows, notifier, watch } = rig([], 'linux');
    rows.push(mention(2));
    watch.check();
    const body = notifier.shown[0]!.body;
    expect(body).not.toMatch(/<a\b|<b>/);
    expect(body).toContain('&lt;a href="https://evil.example/login"&gt;re-enter your password&lt;/a&gt;');
  });

  it('reaches macOS as the text itself (plain text there)', () => {
    const { rows, notifier, watch } = rig([], 'darwin');
    rows.push(mention(2));
    watch.check();
    expect(notifier.shown[0]!.body).toContain('<b>Tern security</b>');
  });
});
