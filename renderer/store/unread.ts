// The number of unread notifications, for the sidebar's badge. Asked for when the app opens,
// every half minute while it is open, and at once after the author reads something.
import { create } from 'zustand';
import { call } from '../api';

export const UNREAD_POLL_MS = 30_000;

interface UnreadState {
  count: number;
  refresh: () => Promise<void>;
  set: (count: number) => void;
}

export const useUnreadStore = create<UnreadState>()((set) => ({
  count: 0,
  refresh: async () => {
    try {
      const { count } = await call('notifications.unreadCount', {});
      set({ count });
    } catch {
      // The badge keeps its last number; the status line already says when Tern is unreachable.
    }
  },
  set: (count) => set({ count }),
}));
