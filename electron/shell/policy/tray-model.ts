// What the tray shows, from the app's state: the unread count on the icon and in the tooltip,
// the sync line ("3 posts waiting — offline") and the menu (open, compose, pause/resume
// delivery, sync now, quit). Pure data: shell/tray.ts renders it with Electron's Tray and Menu.

export interface TrayInput {
  unread: number;
  /** The network may be used (machine online and "Work offline" off). */
  online: boolean;
  /** The machine's own network state, to tell "offline" from "paused". */
  network: 'online' | 'offline';
  /** "Work offline" (delivery paused by the author). */
  workOffline: boolean;
  /** What waits to be sent: the author's posts, and their other actions (likes, boosts,
   * follows…), each once however many servers it goes to (delivery/status.ts waitingToSend). */
  waiting: { posts: number; other: number };
}

export type TrayAction = 'open' | 'compose' | 'pause' | 'resume' | 'sync' | 'quit';

export type TrayMenuItem =
  | { kind: 'action'; id: TrayAction; label: string; enabled: boolean }
  | { kind: 'status'; id: 'sync-state'; label: string }
  | { kind: 'separator' };

export interface TrayModel {
  tooltip: string;
  /** The number drawn on the icon ("" for none, "99+" above 99). */
  badge: string;
  /** Which icon: with the unread dot or without. */
  icon: 'idle' | 'unread';
  menu: TrayMenuItem[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function badgeText(unread: number): string {
  if (unread <= 0) return '';
  return unread > 99 ? '99+' : String(unread);
}

/** The sync line: what is waiting and why. Offline is a state, not an error (UX.md). */
export function syncStateLabel(input: Pick<TrayInput, 'online' | 'network' | 'workOffline' | 'waiting'>): string {
  const why = input.workOffline ? 'delivery paused' : input.network === 'offline' ? 'offline' : null;
  const { posts, other } = input.waiting;
  if (posts + other === 0) return why ? `Nothing waiting — ${why}` : 'All delivered';
  const parts = [posts > 0 ? plural(posts, 'post', 'posts') : null, other > 0 ? plural(other, posts > 0 ? 'other action' : 'action', posts > 0 ? 'other actions' : 'actions') : null];
  const waiting = `${parts.filter((p) => p !== null).join(' and ')} waiting`;
  return why ? `${waiting} — ${why}` : `${waiting} — sending`;
}

export function trayModel(input: TrayInput): TrayModel {
  const unread = Math.max(0, input.unread);
  const sync = syncStateLabel(input);
  const tooltip = unread > 0 ? `Tern — ${plural(unread, 'new notification', 'new notifications')}\n${sync}` : `Tern\n${sync}`;
  return {
    tooltip,
    badge: badgeText(unread),
    icon: unread > 0 ? 'unread' : 'idle',
    menu: [
      { kind: 'action', id: 'open', label: unread > 0 ? `Open Tern (${badgeText(unread)} new)` : 'Open Tern', enabled: true },
      { kind: 'action', id: 'compose', label: 'Compose…', enabled: true },
      { kind: 'separator' },
      { kind: 'status', id: 'sync-state', label: sync },
      input.workOffline
        ? { kind: 'action', id: 'resume', label: 'Resume delivery', enabled: true }
        : { kind: 'action', id: 'pause', label: 'Pause delivery', enabled: true },
      // Syncing means nothing while paused; offline it re-checks the network, so it stays on.
      { kind: 'action', id: 'sync', label: 'Sync now', enabled: !input.workOffline },
      { kind: 'separator' },
      { kind: 'action', id: 'quit', label: 'Quit Tern', enabled: true },
    ],
  };
}
