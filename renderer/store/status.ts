// The app's status (schema revision, record counts, where the data lives), from `app.status`.
// `load` fetches once; `refresh` fetches again and keeps the last good status on screen while
// it does, so the view never blanks. Only the newest request may write its answer.
import { create } from 'zustand';
import type { AppStatus } from '../../electron/core/ipc/contract';
import { ApiError, call } from '../api';
import { strings } from '../strings';

export interface StatusState {
  status: AppStatus | null;
  /** A request is under way (the first load or a refresh). */
  loading: boolean;
  /** Why the latest request failed; kept while a retry is under way (so nothing jumps), cleared
   *  by the next success. */
  error: ApiError | null;
  /** When `status` was last received (ms since the epoch). */
  receivedAt: number | null;
  load: () => Promise<void>;
  refresh: () => Promise<void>;
}

let latestRequest = 0;

export const useStatusStore = create<StatusState>()((set, get) => ({
  status: null,
  loading: false,
  error: null,
  receivedAt: null,

  load: async () => {
    const { status, loading } = get();
    if (status || loading) return;
    await get().refresh();
  },

  refresh: async () => {
    const request = ++latestRequest;
    set({ loading: true });
    try {
      const status = await call('app.status', {});
      if (request === latestRequest) set({ status, loading: false, error: null, receivedAt: Date.now() });
    } catch (err) {
      if (request !== latestRequest) return;
      const error = err instanceof ApiError ? err : new ApiError('internal', strings.errors.internal, 'app.status');
      set({ error, loading: false });
    }
  },
}));
