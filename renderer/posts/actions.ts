// The author's actions on a post — like, boost, bookmark, pin — shown at once (optimistic), with
// a pending mark while Tern records them (and, offline, until it can send them; a like or a boost
// until the servers it is for have it), and put back with the reason when Tern refuses, so the
// post offers to try again — as it does when a like or a boost was recorded but a server was
// given up on. Kept per post for the session, so every list showing the same post agrees.
import { create } from 'zustand';
import { call, toApiError } from '../api';
import { useConnectivityStore } from '../store/connectivity';
import { strings } from '../strings';
import { ACTIVITY_OF, checkDelivery, waitBefore } from './delivered';
import type { PostView } from './model';
import { channelOf, sendToggle, type Flag } from './send';

export type { Flag };

interface Failure {
  flag: Flag;
  wanted: boolean;
  message: string;
  /** Recorded, but not delivered: the queue rows that failed, which "Try again" retries. */
  deliveryIds?: number[];
}

type Flags<T> = Record<string, Partial<Record<Flag, T>>>;

interface PostActionsState {
  /** What the author asked for, by post id, until the lists catch up. */
  flags: Flags<boolean>;
  /** Being recorded by Tern now. */
  pending: Flags<true>;
  /** Recorded while offline: waits to be sent. */
  queued: Flags<true>;
  /** Recorded, and on its way to the servers it is for (a like, a boost). */
  delivering: Flags<true>;
  failed: Record<string, Failure | undefined>;
  /** Counts pins and unpins Tern recorded: the profile's order changes with each. */
  pinChanges: number;
  toggle: (post: PostView, flag: Flag) => Promise<void>;
  set: (apId: string, flag: Flag, wanted: boolean) => Promise<void>;
  /** Sends again the deliveries of a failure that was recorded but not delivered. */
  retryDelivery: (apId: string) => Promise<void>;
}

function without<T>(record: Flags<T>, key: string, flag: Flag): Flags<T> {
  const { [flag]: _gone, ...rest } = record[key] ?? {};
  return { ...record, [key]: rest };
}

/** Each follow of a delivery, so a newer action on the same post and flag ends an older one. */
const follows = new Map<string, number>();
let followCount = 0;

export const usePostActions = create<PostActionsState>()((set, get) => ({
  flags: {},
  pending: {},
  queued: {},
  delivering: {},
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
      delivering: without(s.delivering, apId, flag),
      failed: { ...s.failed, [apId]: undefined },
    }));
    follows.delete(`${apId} ${flag}`);
    try {
      await sendToggle(apId, flag, wanted);
      const offline = useConnectivityStore.getState().online === false;
      set((s) => ({
        pinChanges: flag === 'pinned' ? s.pinChanges + 1 : s.pinChanges,
        pending: without(s.pending, apId, flag),
        queued: offline && flag !== 'bookmarked' ? { ...s.queued, [apId]: { ...s.queued[apId], [flag]: true } } : s.queued,
      }));
      if (wanted) void followDelivery(apId, flag, wanted);
    } catch (err) {
      const message = toApiError(err, channelOf(flag, wanted)).message;
      set((s) => {
        const flags = before === undefined ? without(s.flags, apId, flag) : { ...s.flags, [apId]: { ...s.flags[apId], [flag]: before } };
        return { flags, pending: without(s.pending, apId, flag), failed: { ...s.failed, [apId]: { flag, wanted, message } } };
      });
    }
  },

  retryDelivery: async (apId) => {
    const failure = get().failed[apId];
    if (!failure?.deliveryIds) return;
    set((s) => ({ failed: { ...s.failed, [apId]: undefined } }));
    try {
      for (const id of failure.deliveryIds) await call('deliveries.retryNow', { id });
    } catch (err) {
      set((s) => ({ failed: { ...s.failed, [apId]: { ...failure, message: toApiError(err, 'deliveries.retryNow').message } } }));
      return;
    }
    await followDelivery(apId, failure.flag, failure.wanted);
  },
}));

/** Keeps the pending mark of a like or a boost Tern recorded until the servers have it; when a
 * server was given up on, the post says so and offers to try again. */
async function followDelivery(apId: string, flag: Flag, wanted: boolean): Promise<void> {
  const type = ACTIVITY_OF[flag];
  if (!type) return;
  const key = `${apId} ${flag}`;
  const me = ++followCount;
  follows.set(key, me);
  const current = () => follows.get(key) === me;
  usePostActions.setState((s) => ({ delivering: { ...s.delivering, [apId]: { ...s.delivering[apId], [flag]: true } } }));
  let failure: Failure | undefined;
  try {
    for (let attempt = 0; current(); attempt++) {
      const outcome = await checkDelivery(apId, type);
      if (!current() || outcome.kind === 'delivered') break;
      if (outcome.kind === 'failed') {
        failure = { flag, wanted, message: strings.post.notDelivered(strings.post.flagVerb[flag](wanted), outcome.servers, outcome.why), deliveryIds: outcome.ids };
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, waitBefore(attempt, outcome.nextTry, Date.now())));
    }
  } catch {
    // The queue could not be read: the action was recorded, so the mark goes; Deliveries has the rest.
  }
  if (!current()) return;
  follows.delete(key);
  usePostActions.setState((s) => ({
    delivering: without(s.delivering, apId, flag),
    failed: failure ? { ...s.failed, [apId]: failure } : s.failed,
  }));
}

// Once Tern may use the network again, what waited is on its way: the marks go.
useConnectivityStore.subscribe((state, previous) => {
  if (state.online && !previous.online) usePostActions.setState({ queued: {} });
});

/** A post's flags as the author last set them, with what is pending and what failed. */
export function usePostState(post: PostView) {
  const flags = usePostActions((s) => s.flags[post.apId]);
  const pending = usePostActions((s) => s.pending[post.apId]);
  const queued = usePostActions((s) => s.queued[post.apId]);
  const delivering = usePostActions((s) => s.delivering[post.apId]);
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
    /** Waiting for Tern, for the network (offline), or for the servers to take it. */
    waiting: (flag: Flag) => Boolean(pending?.[flag] || queued?.[flag] || delivering?.[flag]),
    failed,
  };
}
