// Feeds the machine's network, as a NetPort reports it, into the core's connectivity watch:
// the state at start, a look every few seconds (Electron's main process has no online/offline
// event), and a look at once on every hint — resume, unlock, the page's online/offline events —
// so the delivery loop resumes without waiting. Plain Node: shell/connectivity.ts gives the
// Electron NetPort.
import { pushSource, type ConnectivityWatch } from '../core/connectivity/watch';
import type { NetPort } from './ports';

export const ONLINE_POLL_MS = 5_000;

export function feedConnectivity(watch: Pick<ConnectivityWatch, 'setSource'>, net: NetPort, pollMs = ONLINE_POLL_MS): () => void {
  const source = pushSource(net.isOnline());
  const look = () => source.set(net.isOnline());
  source.recheck = look;
  watch.setSource(source);
  const timer = setInterval(look, pollMs);
  timer.unref?.();
  const unsubscribe = net.onHint(look);
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}
