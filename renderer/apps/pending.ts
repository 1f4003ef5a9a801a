// Sign-in requests waiting for the author. An app's page waits ("Open Tern to approve") while
// the author is somewhere else in Tern, so the sidebar asks as soon as Tern says a request came
// (and every half minute besides, for those that expired) and shows the count on Apps; the Apps
// view shows the requests themselves, and says when sign-ins were refused because too many wait.
import { useEffect } from 'react';
import { useChanges } from '../changes';
import { create } from 'zustand';
import type { PendingAuthorization, SignInRefusals } from '../../electron/core/ipc/apps-contract';
import { call } from '../api';

export const PENDING_POLL_MS = 30_000;

interface PendingState {
  pending: PendingAuthorization[];
  /** Sign-ins refused lately for want of a place (the Apps view's notice). */
  refusals: SignInRefusals;
  refresh: () => Promise<void>;
}

export const usePendingStore = create<PendingState>()((set) => ({
  pending: [],
  refusals: { count: 0, lastAt: null },
  refresh: async () => {
    try {
      const [pending, refusals] = await Promise.all([call('apps.pending', {}), call('apps.refusals', {})]);
      set({ pending, refusals });
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
