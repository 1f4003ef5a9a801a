// The Electron NetPort: net.isOnline(), and the moments worth a fresh look — resume from
// sleep, screen unlock, and the page's online/offline events (forwarded by the preload). The
// feeding itself is connectivity-feed.ts, tested in plain Node.
import { net, powerMonitor } from 'electron';
import type { NetPort } from './ports';

export function electronNet(pageHints: { subscribe(listener: () => void): () => void }): NetPort {
  return {
    isOnline: () => net.isOnline(),
    onHint(listener) {
      powerMonitor.on('resume', listener);
      powerMonitor.on('unlock-screen', listener);
      const unsubscribePage = pageHints.subscribe(listener);
      return () => {
        powerMonitor.off('resume', listener);
        powerMonitor.off('unlock-screen', listener);
        unsubscribePage();
      };
    },
  };
}
