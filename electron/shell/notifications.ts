// The Electron NotifierPort: OS notifications through Electron's Notification. Each one is
// kept referenced until it is clicked or closed, or its click handler could be collected.
import { Notification } from 'electron';
import type { NotifierPort } from './ports';

export function electronNotifier(): NotifierPort {
  const alive = new Set<Notification>();
  return {
    isSupported: () => Notification.isSupported(),
    show({ title, body, onClick }) {
      const notification = new Notification({ title, body, silent: false });
      alive.add(notification);
      notification.on('click', () => {
        alive.delete(notification);
        onClick?.();
      });
      notification.on('close', () => alive.delete(notification));
      notification.show();
    },
  };
}
