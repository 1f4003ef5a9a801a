// The author's settings (`settings.get`), shared by the first-run setup, Settings, the status
// line and every view that shows the author's handle. `save` sends a change and keeps what Tern
// answers, so the screen always shows what was really saved.
import { create } from 'zustand';
import type { Input, Output } from '../../electron/core/ipc/contract';
import { call, toApiError, type ApiError } from '../api';

export type SettingsView = Output<'settings.get'>;
export type SettingsChange = Input<'settings.update'>;

interface SettingsState {
  settings: SettingsView | null;
  loading: boolean;
  error: ApiError | null;
  load: () => Promise<void>;
  refresh: () => Promise<void>;
  /** Saves a change; throws the ApiError (with its field issues) when Tern refuses it. */
  save: (change: SettingsChange) => Promise<SettingsView>;
}

let latestRequest = 0;

export const useSettingsStore = create<SettingsState>()((set, get) => ({
  settings: null,
  loading: false,
  error: null,

  load: async () => {
    const { settings, loading } = get();
    if (settings || loading) return;
    await get().refresh();
  },

  refresh: async () => {
    const request = ++latestRequest;
    set({ loading: true });
    try {
      const settings = await call('settings.get', {});
      if (request === latestRequest) set({ settings, loading: false, error: null });
    } catch (err) {
      if (request === latestRequest) set({ error: toApiError(err, 'settings.get'), loading: false });
    }
  },

  save: async (change) => {
    const request = ++latestRequest;
    const { profileUpdate: _queued, ...settings } = await call('settings.update', change);
    if (request === latestRequest) set({ settings, error: null, loading: false });
    return settings;
  },
}));

/** Whether Tern knows who the author is: the first-run setup asks until it does. */
export const hasIdentity = (settings: SettingsView) => settings.baseUrl !== null && settings.username !== null;
