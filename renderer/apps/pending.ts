// Sign-in requests waiting for the author. An app's page waits ("Open Tern to approve") while
// the author is somewhere else in Tern, so the sidebar asks as soon as Tern says a request came
// (and every half minute besides, for those that expired) and shows the count on Apps; the Apps
// view shows the requests themselves.
import { useEffect } from 'react';
import { useChanges } from '../changes';
import { create } from 'zustand';
import type { PendingAuthorization } from '../../electron/core/ipc/apps-contract';
import { call } from '../api';

export const PENDING_POLL_MS = 30_000;

interface PendingState {
  pending: PendingAuthorization[];
  refresh: () => Promise<void>;
}

export const usePendingStore = create<PendingState>()((set) => ({
  pending: [],
  refresh: async () => {
    try {
      set({ pending: await call('apps.pending', {}) });
    } catch {
      // Keeps the last list; the status line already says when Tern is unreachable.
    }
  },
}));

/** The waiting requests, kept fresh while the calling component is mounted. */
export function usePendingApps(): PendingAuthorization[] {
  const pending = usePendingStore((s) => s.pending);
  const refresh = usePendingStore((s) => s.refresh);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), PENDING_POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  useChanges(['sign-ins'], () => void refresh());
  return pending;
}
