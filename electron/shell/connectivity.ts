// Feeds Electron's view of the network into the core's connectivity watch: net.isOnline() at
// start and every few seconds, and again at once when the machine wakes or unlocks (the moments
// a laptop's network comes back), so the delivery loop resumes without waiting.
import { net, powerMonitor } from 'electron';
import { pushSource, type ConnectivityWatch } from '../connectivity/watch';

export const ONLINE_POLL_MS = 5_000;

export function feedConnectivity(watch: ConnectivityWatch): () => void {
  const source = pushSource(net.isOnline());
  source.recheck = () => source.set(net.isOnline());
  watch.setSource(source);
  const timer = setInterval(() => source.set(net.isOnline()), ONLINE_POLL_MS);
  const recheck = () => source.set(net.isOnline());
  powerMonitor.on('resume', recheck);
  powerMonitor.on('unlock-screen', recheck);
  return () => {
    clearInterval(timer);
    powerMonitor.off('resume', recheck);
    powerMonitor.off('unlock-screen', recheck);
  };
}
