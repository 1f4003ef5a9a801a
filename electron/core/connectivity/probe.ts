// The headless connectivity source. Without Electron's net.isOnline() Tern asks the OS: the
// machine is taken to be online when it has a network interface with a routable address (not
// loopback, not link-local). That is what Chromium's own check amounts to, costs no traffic and
// never leaks that Tern is running. It is re-checked every 15 s, and at once when deliveries
// fail at the network level (the loop calls recheck()). A wrong "online" costs a failed try;
// a wrong "offline" is impossible while an interface has an address, so posts never stall.
import { networkInterfaces } from 'node:os';
import type { ConnectivitySource } from './watch';

export type Probe = () => boolean;

/** Whether any interface has an address that can reach beyond this machine. */
export function hasRoutableInterface(interfaces = networkInterfaces()): boolean {
  for (const list of Object.values(interfaces)) {
    for (const info of list ?? []) {
      if (info.internal) continue;
      const address = info.address.toLowerCase();
      if (info.family === 'IPv4' && !address.startsWith('169.254.')) return true;
      if (info.family === 'IPv6' && !/^fe[89ab]/.test(address)) return true;
    }
  }
  return false;
}

export function probeSource(options: { probe?: Probe; intervalMs?: number } = {}): ConnectivitySource {
  const probe = options.probe ?? (() => hasRoutableInterface());
  const listeners = new Set<(online: boolean) => void>();
  let online = safeProbe(probe, true);
  const check = () => {
    const next = safeProbe(probe, online);
    if (next === online) return;
    online = next;
    for (const l of [...listeners]) l(online);
  };
  const timer = setInterval(check, options.intervalMs ?? 15_000);
  timer.unref();
  return {
    kind: 'probe',
    current: () => online,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recheck: check,
    close: () => clearInterval(timer),
  };
}

function safeProbe(probe: Probe, fallback: boolean): boolean {
  try {
    return probe();
  } catch {
    return fallback;
  }
}
