import { describe, expect, it } from 'vitest';
import { badgeText, syncStateLabel, trayModel, type TrayInput } from './tray-model';

const base: TrayInput = { unread: 0, online: true, network: 'online', workOffline: false, waiting: { posts: 0, other: 0 } };
const labels = (input: TrayInput) => trayModel(input).menu.map((i) => (i.kind === 'separator' ? '—' : i.label));

describe('tray model', () => {
  it('says "3 posts waiting — offline" when the machine is offline with three posts queued', () => {
    expect(syncStateLabel({ ...base, online: false, network: 'offline', waiting: { posts: 3, other: 0 } })).toBe('3 posts waiting — offline');
    expect(trayModel({ ...base, online: false, network: 'offline', waiting: { posts: 3, other: 0 } }).tooltip).toContain('3 posts waiting — offline');
  });

  it('tells paused from offline, one post from many, and nothing waiting', () => {
    expect(syncStateLabel({ ...base, online: false, workOffline: true, waiting: { posts: 1, other: 0 } })).toBe('1 post waiting — delivery paused');
    expect(syncStateLabel({ ...base, waiting: { posts: 2, other: 0 } })).toBe('2 posts waiting — sending');
    // Likes, boosts and follows are the author's actions, not posts.
    expect(syncStateLabel({ ...base, waiting: { posts: 1, other: 2 } })).toBe('1 post and 2 other actions waiting — sending');
    expect(syncStateLabel({ ...base, network: 'offline', online: false, waiting: { posts: 0, other: 1 } })).toBe('1 action waiting — offline');
    expect(syncStateLabel(base)).toBe('All delivered');
    expect(syncStateLabel({ ...base, online: false, network: 'offline' })).toBe('Nothing waiting — offline');
  });

  it('shows the unread count on the icon, in the tooltip and on Open', () => {
    const model = trayModel({ ...base, unread: 4 });
    expect(model).toMatchObject({ badge: '4', icon: 'unread' });
    expect(model.tooltip).toMatch(/^Tern — 4 new notifications/);
    expect(labels({ ...base, unread: 4 })[0]).toBe('Open Tern (4 new)');
    expect(trayModel(base)).toMatchObject({ badge: '', icon: 'idle' });
    expect(badgeText(1)).toBe('1');
    expect(badgeText(250)).toBe('99+');
    expect(trayModel({ ...base, unread: 1 }).tooltip).toMatch(/1 new notification\n/);
  });

  it('the menu: open, compose, the sync line, pause, sync now, quit', () => {
    expect(labels(base)).toEqual(['Open Tern', 'Compose…', '—', 'All delivered', 'Pause delivery', 'Sync now', '—', 'Quit Tern']);
    const status = trayModel(base).menu.find((i) => i.kind === 'status');
    expect(status).toMatchObject({ id: 'sync-state' });
  });

  it('while paused it offers Resume, and Sync now is greyed out', () => {
    const menu = trayModel({ ...base, online: false, workOffline: true, waiting: { posts: 3, other: 0 } }).menu;
    expect(menu).toContainEqual({ kind: 'action', id: 'resume', label: 'Resume delivery', enabled: true });
    expect(menu.some((i) => i.kind === 'action' && i.id === 'pause')).toBe(false);
    expect(menu).toContainEqual({ kind: 'action', id: 'sync', label: 'Sync now', enabled: false });
  });
});
