// The Work offline switch against the poll: an answer to a poll asked before the author flipped
// the switch is older than the flip, and must not flip it back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectivityView } from '../../electron/core/ipc/author-contract';
import { useConnectivityStore } from './connectivity';

const view = (workOffline: boolean): ConnectivityView => ({
  online: !workOffline,
  network: 'online',
  workOffline,
  source: 'test',
  since: '2026-01-01T00:00:00.000Z',
  queued: 1,
  waiting: { deliveries: 1, posts: 1, other: 0 },
});

afterEach(() => {
  vi.unstubAllGlobals();
  useConnectivityStore.setState({ view: null, online: null, checkedAt: null });
});

describe('Work offline', () => {
  it('a poll answered after the author turned Work offline off, but asked before, leaves it off', async () => {
    let answerPoll: (value: unknown) => void = () => undefined;
    const bridge = {
      'connectivity.get': vi.fn(() => new Promise((resolve) => (answerPoll = resolve))),
      'connectivity.setWorkOffline': vi.fn(async ({ workOffline }: { workOffline: boolean }) => ({ ok: true, value: view(workOffline) })),
      // The settings the same poll asks for: not the point here.
      'settings.get': vi.fn(async () => ({ ok: false, error: { code: 'internal', message: 'not here' } })),
    };
    vi.stubGlobal('window', { tern: bridge });
    useConnectivityStore.setState({ view: view(true), online: false });

    const poll = useConnectivityStore.getState().refresh();
    await useConnectivityStore.getState().setWorkOffline(false);
    expect(useConnectivityStore.getState().view?.workOffline).toBe(false);
    // The poll's answer, read before the flip, comes last.
    answerPoll({ ok: true, value: view(true) });
    await poll;
    expect(useConnectivityStore.getState().view?.workOffline).toBe(false);
    expect(useConnectivityStore.getState().online).toBe(true);

    // A poll asked after the flip is believed.
    const next = useConnectivityStore.getState().refresh();
    answerPoll({ ok: true, value: view(true) });
    await next;
    expect(useConnectivityStore.getState().view?.workOffline).toBe(true);
  });
});
