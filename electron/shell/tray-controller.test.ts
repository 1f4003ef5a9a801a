import { describe, expect, it } from 'vitest';
import { fakeTray } from './fakes';
import type { TrayAction, TrayInput } from './policy/tray-model';
import { createTrayController } from './tray-controller';

function rig(initial: Partial<TrayInput> = {}) {
  const state: TrayInput = { unread: 0, online: true, network: 'online', workOffline: false, waiting: { posts: 0, other: 0 }, ...initial };
  const port = fakeTray();
  const done: TrayAction[] = [];
  const actions = Object.fromEntries(
    (['open', 'compose', 'pause', 'resume', 'sync', 'quit'] as const).map((a) => [a, () => void done.push(a)]),
  ) as Record<TrayAction, () => void>;
  const controller = createTrayController({ port, state: () => state, actions });
  return { state, port, done, controller };
}

describe('tray controller', () => {
  it('draws the tray at once and re-draws only when what it shows changed', () => {
    const { state, port, controller } = rig();
    expect(port.renders).toHaveLength(1);
    controller.refresh();
    expect(port.renders).toHaveLength(1);
    state.unread = 2;
    controller.refresh();
    expect(port.renders).toHaveLength(2);
    expect(port.last()).toMatchObject({ badge: '2', icon: 'unread' });
  });

  it('going offline with posts queued shows "3 posts waiting — offline"', () => {
    const { state, port, controller } = rig();
    Object.assign(state, { online: false, network: 'offline', waiting: { posts: 3, other: 0 } });
    controller.refresh();
    expect(port.last()?.menu).toContainEqual({ kind: 'status', id: 'sync-state', label: '3 posts waiting — offline' });
  });

  it('menu choices and a click on the icon call the app’s actions', () => {
    const { state, port, done, controller } = rig();
    port.choose('compose');
    port.choose('pause');
    state.workOffline = true;
    state.online = false;
    controller.refresh();
    expect(() => port.choose('sync')).toThrow(/no enabled/); // greyed out while paused
    port.choose('resume');
    port.clickIcon();
    port.choose('quit');
    expect(done).toEqual(['compose', 'pause', 'resume', 'open', 'quit']);
  });

  it('destroy removes the tray', () => {
    const { port, controller } = rig();
    controller.destroy();
    expect(port.destroyed).toBe(true);
  });
});
