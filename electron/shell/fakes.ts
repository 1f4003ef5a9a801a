// In-memory ports for tests: a tray that records what it was told to draw and can "click" its
// menu items, a notifier that records what it showed, and a network that is set by hand.
import type { TrayAction, TrayModel } from './policy/tray-model';
import type { NetPort, NotifierPort, OsNotificationSpec, TrayPort } from './ports';

export interface FakeTray extends TrayPort {
  readonly renders: TrayModel[];
  last(): TrayModel | undefined;
  choose(action: TrayAction): void;
  clickIcon(): void;
  destroyed: boolean;
}

export function fakeTray(): FakeTray {
  let onAction: ((action: TrayAction) => void) | null = null;
  const clicks: (() => void)[] = [];
  const tray: FakeTray = {
    renders: [],
    destroyed: false,
    render(model, handler) {
      tray.renders.push(model);
      onAction = handler;
    },
    onClick: (listener) => void clicks.push(listener),
    destroy: () => void (tray.destroyed = true),
    last: () => tray.renders.at(-1),
    choose(action) {
      const item = tray.last()?.menu.find((i) => i.kind === 'action' && i.id === action);
      if (!item || item.kind !== 'action' || !item.enabled) throw new Error(`The tray menu has no enabled "${action}"`);
      onAction?.(action);
    },
    clickIcon: () => clicks.forEach((c) => c()),
  };
  return tray;
}

export interface FakeNotifier extends NotifierPort {
  readonly shown: OsNotificationSpec[];
  supported: boolean;
}

export function fakeNotifier(): FakeNotifier {
  const notifier: FakeNotifier = {
    shown: [],
    supported: true,
    isSupported: () => notifier.supported,
    show: (n) => void notifier.shown.push(n),
  };
  return notifier;
}

export interface FakeNet extends NetPort {
  online: boolean;
  hint(): void;
}

export function fakeNet(online = true): FakeNet {
  const listeners = new Set<() => void>();
  const net: FakeNet = {
    online,
    isOnline: () => net.online,
    onHint(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hint: () => listeners.forEach((l) => l()),
  };
  return net;
}
