import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConnectivityWatch, manualSource } from '../core/connectivity/watch';
import { createSettingsStore } from '../core/settings';
import { feedConnectivity } from './connectivity-feed';
import { fakeNet } from './fakes';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function watch() {
  const dir = mkdtempSync(join(tmpdir(), 'tern-feed-'));
  dirs.push(dir);
  const settings = createSettingsStore(join(dir, 'settings.json'));
  return { settings, watch: createConnectivityWatch({ source: manualSource(true), settings, clock: () => new Date() }) };
}

describe('connectivity feed (Electron’s network → the core’s watch)', () => {
  it('installs the machine’s state at once', () => {
    const { watch: w } = watch();
    const stop = feedConnectivity(w, fakeNet(false));
    expect(w.state()).toMatchObject({ online: false, network: 'offline', source: 'electron' });
    stop();
    w.close();
  });

  it('a hint (resume, unlock, the page’s online event) looks again at once; the change reaches listeners', () => {
    const { watch: w } = watch();
    const net = fakeNet(false);
    const stop = feedConnectivity(w, net);
    const seen: boolean[] = [];
    w.onChange((s) => seen.push(s.online));
    net.online = true;
    net.hint();
    expect(seen).toEqual([true]);
    stop();
    net.online = false;
    net.hint(); // unsubscribed
    expect(seen).toEqual([true]);
    w.close();
  });

  it('without any hint, the poll notices within the interval; recheck (sync now) looks at once', () => {
    vi.useFakeTimers();
    const { watch: w } = watch();
    const net = fakeNet(true);
    const stop = feedConnectivity(w, net, 1_000);
    net.online = false;
    expect(w.isOnline()).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(w.isOnline()).toBe(false);
    net.online = true;
    w.recheck();
    expect(w.isOnline()).toBe(true);
    stop();
    w.close();
  });

  it('"Work offline" (pause delivery) keeps it offline whatever the network says', () => {
    const { watch: w, settings } = watch();
    const stop = feedConnectivity(w, fakeNet(true));
    settings.update({ workOffline: true });
    expect(w.state()).toMatchObject({ online: false, network: 'online', workOffline: true });
    stop();
    w.close();
  });
});
