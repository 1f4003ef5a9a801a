// The shell's seams: what the tray, OS notifications and the network look like to Tern's logic.
// shell/tray.ts, shell/notifications.ts and shell/connectivity.ts implement them with Electron;
// fakes.ts implements them in memory so the logic is tested in plain Node. No electron import.
import type { TrayModel, TrayAction } from './policy/tray-model';

export interface TrayPort {
  /** Draws the model: icon, tooltip, menu. `onAction` is called with the chosen item. */
  render(model: TrayModel, onAction: (action: TrayAction) => void): void;
  /** A click on the icon itself (Windows, most Linux trays). */
  onClick(listener: () => void): void;
  destroy(): void;
}

export interface OsNotificationSpec {
  title: string;
  body: string;
  onClick?: () => void;
}

export interface NotifierPort {
  /** Whether the OS shows notifications at all (Notification.isSupported()). */
  isSupported(): boolean;
  show(notification: OsNotificationSpec): void;
}

/** The machine's network as Electron sees it. */
export interface NetPort {
  isOnline(): boolean;
  /** Moments to re-check at once: resume from sleep, screen unlock, the page's online/offline
   * events. Returns an unsubscribe. */
  onHint(listener: () => void): () => void;
}
