// Turns notifications that arrive while Tern runs into OS notifications: looks every few seconds
// (and when told something changed: the inbox processor's rows done, see main.ts), remembers the newest id it has seen — so notifications
// that were there at start are never announced — and hands what is new to the grouping policy.
// Plain Node: the OS side is a NotifierPort.
import type { NotificationItem } from '../core/notifications/service';
import { osNotificationBody, planOsNotifications, type OsNotificationPrefs } from './policy/os-notifications';
import type { NotifierPort } from './ports';

// A backstop: what the inbox processor stores is looked at when it says so (main.ts), so the
// poll can be slow and an idle laptop is not woken for it every few seconds.
export const NOTIFICATION_POLL_MS = 10_000;
/** How many of the newest notifications one look reads. */
const LOOK = 50;

export interface NotificationWatchDeps {
  /** Newest unread first (NotificationService.list: unread first, then newest). */
  list: (limit: number) => readonly NotificationItem[];
  prefs: () => OsNotificationPrefs;
  notifier: NotifierPort;
  /** A click: show the window at this in-app route; `ids` are the rows it stood for. */
  open: (route: string, ids: number[]) => void;
  /** After each look (the tray re-reads the unread count). */
  afterCheck?: () => void;
  intervalMs?: number;
  /** Whose notification server shows the text (process.platform by default): Linux reads markup. */
  platform?: NodeJS.Platform;
}

export interface NotificationWatch {
  /** One look now; returns how many OS notifications were shown. */
  check(): number;
  start(): void;
  stop(): void;
}

export function createNotificationWatch(deps: NotificationWatchDeps): NotificationWatch {
  const newestId = (items: readonly NotificationItem[]) => items.reduce((max, item) => Math.max(max, item.id), 0);
  let seen = newestId(deps.list(LOOK));
  let timer: ReturnType<typeof setInterval> | null = null;

  function check(): number {
    const items = deps.list(LOOK);
    const arrived = items.filter((item) => item.id > seen).sort((a, b) => b.id - a.id);
    seen = Math.max(seen, newestId(items));
    deps.afterCheck?.();
    if (arrived.length === 0 || !deps.notifier.isSupported()) return 0;
    const planned = planOsNotifications(arrived, deps.prefs());
    const platform = deps.platform ?? process.platform;
    for (const n of planned) deps.notifier.show({ title: n.title, body: osNotificationBody(n.body, platform), onClick: () => deps.open(n.route, n.ids) });
    return planned.length;
  }

  return {
    check,
    start() {
      if (timer) return;
      timer = setInterval(check, deps.intervalMs ?? NOTIFICATION_POLL_MS);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
