// Whether Tern may use the network (the machine's network and the author's "Work offline"),
// and how many deliveries wait to be sent — for the status line, Deliveries and Compose. Asked
// every few seconds while the window is open, and at once after the author flips Work offline.
// The same poll refreshes the settings, whose listener status the status line shows.
import { create } from 'zustand';
import type { ConnectivityView, WaitingView } from '../../electron/core/ipc/author-contract';
import { call } from '../api';
import { useSettingsStore } from './settings';

export const CONNECTIVITY_POLL_MS = 10_000;

/** What waits to be sent before the first answer (and when nothing does). */
export const NOTHING_WAITING: WaitingView = { deliveries: 0, posts: 0, other: 0 };

interface ConnectivityStoreState {
  /** The network may be used now. Null until Tern has said. */
  online: boolean | null;
  view: ConnectivityView | null;
  /** When Tern last answered (ms since the epoch). */
  checkedAt: number | null;
  refresh: () => Promise<void>;
  /** Flips "Work offline"; throws the ApiError when Tern refuses. */
  setWorkOffline: (on: boolean) => Promise<void>;
}

function apply(view: ConnectivityView) {
  // Settings hold the switch too; keep the copy there in step without asking again.
  const settings = useSettingsStore.getState().settings;
  if (settings && settings.workOffline !== view.workOffline) {
    useSettingsStore.setState({ settings: { ...settings, workOffline: view.workOffline } });
  }
  return { view, online: view.online, checkedAt: Date.now() };
}

/** How many times the author flipped Work offline: a poll's answer asked before the last flip
 * is older than it, and would flip the switch back until the next poll (a poll under way while
 * the author turned Work offline off showed it on again, and the e2e journey's uncheck failed). */
let flips = 0;

export const useConnectivityStore = create<ConnectivityStoreState>()((set, get) => ({
  online: null,
  view: null,
  checkedAt: null,

  refresh: async () => {
    const asked = flips;
    const [view] = await Promise.allSettled([call('connectivity.get', {}), useSettingsStore.getState().refresh()]);
    // A failure is shown by the status line from the status store; the last answer stays.
    if (view.status === 'fulfilled' && asked === flips) set(apply(view.value));
  },

  setWorkOffline: async (on) => {
    // The switch moves at once; Tern's answer (or the state before, if it refuses) follows.
    flips++;
    const before = get().view;
    if (before) set({ view: { ...before, workOffline: on, online: on ? false : before.online } });
    try {
      set(apply(await call('connectivity.setWorkOffline', { workOffline: on })));
    } catch (err) {
      set({ view: before });
      throw err;
    }
  },
}));
