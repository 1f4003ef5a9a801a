// The author's actions on a post — like, boost, bookmark, pin — shown at once (optimistic), with
// a pending mark while Tern records them (and, offline, until it can send them), and put back
// with the reason when Tern refuses, so the post offers to try again. Kept per post for the
// session, so every list showing the same post agrees.
import { create } from 'zustand';
import { toApiError } from '../api';
import { useConnectivityStore } from '../store/connectivity';
import type { PostView } from './model';
import { channelOf, sendToggle, type Flag } from './send';

export type { Flag };

interface Failure {
  flag: Flag;
  wanted: boolean;
  message: string;
}

type Flags<T> = Record<string, Partial<Record<Flag, T>>>;

interface PostActionsState {
  /** What the author asked for, by post id, until the lists catch up. */
  flags: Flags<boolean>;
  /** Being recorded by Tern now. */
  pending: Flags<true>;
  /** Recorded while offline: waits to be sent. */
  queued: Flags<true>;
  failed: Record<string, Failure | undefined>;
  /** Counts pins and unpins Tern recorded: the profile's order changes with each. */
  pinChanges: number;
  toggle: (post: PostView, flag: Flag) => Promise<void>;
  set: (apId: string, flag: Flag, wanted: boolean) => Promise<void>;
}

function without<T>(record: Flags<T>, key: string, flag: Flag): Flags<T> {
  const { [flag]: _gone, ...rest } = record[key] ?? {};
  return { ...record, [key]: rest };
}

export const usePostActions = create<PostActionsState>()((set, get) => ({
  flags: {},
  pending: {},
  queued: {},
  failed: {},
  pinChanges: 0,

  toggle: async (post, flag) => {
    const current = get().flags[post.apId]?.[flag] ?? post.mine[flag];
    await get().set(post.apId, flag, !current);
  },

  set: async (apId, flag, wanted) => {
    if (get().pending[apId]?.[flag]) return;
    const before = get().flags[apId]?.[flag];
    set((s) => ({
      flags: { ...s.flags, [apId]: { ...s.flags[apId], [flag]: wanted } },
      pending: { ...s.pending, [apId]: { ...s.pending[apId], [flag]: true } },
      queued: without(s.queued, apId, flag),
      failed: { ...s.failed, [apId]: undefined },
    }));
    try {
      await sendToggle(apId, flag, wanted);
      const offline = useConnectivityStore.getState().online === false;
      set((s) => ({
        pinChanges: flag === 'pinned' ? s.pinChanges + 1 : s.pinChanges,
        pending: without(s.pending, apId, flag),
        queued: offline && flag !== 'bookmarked' ? { ...s.queued, [apId]: { ...s.queued[apId], [flag]: true } } : s.queued,
      }));
    } catch (err) {
      const message = toApiError(err, channelOf(flag, wanted)).message;
      set((s) => {
        const flags = before === undefined ? without(s.flags, apId, flag) : { ...s.flags, [apId]: { ...s.flags[apId], [flag]: before } };
        return { flags, pending: without(s.pending, apId, flag), failed: { ...s.failed, [apId]: { flag, wanted, message } } };
      });
    }
  },
}));

// Once Tern may use the network again, what waited is on its way: the marks go.
useConnectivityStore.subscribe((state, previous) => {
  if (state.online && !previous.online) usePostActions.setState({ queued: {} });
});

/** A post's flags as the author last set them, with what is pending and what failed. */
export function usePostState(post: PostView) {
  const flags = usePostActions((s) => s.flags[post.apId]);
  const pending = usePostActions((s) => s.pending[post.apId]);
  const queued = usePostActions((s) => s.queued[post.apId]);
  const failed = usePostActions((s) => s.failed[post.apId]);
  const value = (flag: Flag) => flags?.[flag] ?? post.mine[flag];
  /** A count moved by what the author did since the list was loaded. */
  const count = (n: number | null, flag: Flag) => (n === null ? null : Math.max(0, n + Number(value(flag)) - Number(post.mine[flag])));
  return {
    liked: value('liked'),
    boosted: value('boosted'),
    bookmarked: value('bookmarked'),
    pinned: value('pinned'),
    likes: count(post.counts.likes, 'liked'),
    boosts: count(post.counts.boosts, 'boosted'),
    /** Waiting for Tern, or (offline) for the network. */
    waiting: (flag: Flag) => Boolean(pending?.[flag] || queued?.[flag]),
    failed,
  };
}
