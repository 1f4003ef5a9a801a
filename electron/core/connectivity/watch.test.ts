import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSettingsStore } from '../settings';
import { hasRoutableInterface, probeSource } from './probe';
import { createConnectivityWatch, manualSource, type ConnectivityState } from './watch';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const settingsStore = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-conn-'));
  dirs.push(dir);
  return createSettingsStore(join(dir, 'settings.json'));
};

describe('connectivity watch', () => {
  it('is online only when the machine is online and "Work offline" is off, and reports each flip once', () => {
    const settings = settingsStore();
    const net = manualSource(true);
    const watch = createConnectivityWatch({ source: net, settings, clock: () => new Date('2030-01-01T00:00:00Z') });
    const seen: ConnectivityState[] = [];
    watch.onChange((s) => seen.push(s));
    expect(watch.isOnline()).toBe(true);
    settings.update({ workOffline: true });
    expect(watch.state()).toMatchObject({ online: false, network: 'online', workOffline: true, source: 'manual' });
    net.set(false);
    settings.update({ workOffline: false });
    expect(watch.isOnline()).toBe(false); // the machine is still offline
    net.set(true);
    expect(seen.map((s) => s.online)).toEqual([false, true]);
    watch.close();
  });

  it('takes a new source (the Electron shell’s) and re-evaluates at once', () => {
    const watch = createConnectivityWatch({ source: manualSource(true), settings: settingsStore(), clock: () => new Date() });
    watch.setSource(manualSource(false, 'electron'));
    expect(watch.state()).toMatchObject({ online: false, source: 'electron' });
    watch.close();
  });
});

describe('headless probe', () => {
  it('counts only interfaces with a routable address', () => {
    const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as never;
    expect(hasRoutableInterface({ lo: [iface('127.0.0.1', 'IPv4', true)] })).toBe(false);
    expect(hasRoutableInterface({ eth0: [iface('169.254.3.4', 'IPv4'), iface('fe80::1', 'IPv6')] })).toBe(false);
    expect(hasRoutableInterface({ eth0: [iface('192.168.1.20', 'IPv4')] })).toBe(true);
    expect(hasRoutableInterface({ wlan0: [iface('2001:db8::5', 'IPv6')] })).toBe(true);
  });

  it('reports a change found on a re-check', () => {
    let up = false;
    const source = probeSource({ probe: () => up, intervalMs: 60_000 });
    const changes: boolean[] = [];
    source.subscribe((online) => changes.push(online));
    expect(source.current()).toBe(false);
    up = true;
    source.recheck?.();
    expect(changes).toEqual([true]);
    source.close?.();
  });
});
