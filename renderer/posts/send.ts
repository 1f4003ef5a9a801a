// The channels behind a post's actions, in one place: each toggle is a pair of channels taking
// the post's ActivityPub id.
import { call } from '../api';

/** A post's toggles (actions.ts keeps their optimistic state). */
export type Flag = 'liked' | 'boosted' | 'bookmarked' | 'pinned';

const CHANNELS = {
  liked: ['posts.like', 'posts.unlike'],
  boosted: ['posts.boost', 'posts.unboost'],
  bookmarked: ['posts.bookmark', 'posts.unbookmark'],
  pinned: ['posts.pin', 'posts.unpin'],
} as const satisfies Record<Flag, readonly [string, string]>;

export async function sendToggle(apId: string, flag: Flag, wanted: boolean): Promise<void> {
  const [on, off] = CHANNELS[flag];
  await call(wanted ? on : off, { apId });
}

export const channelOf = (flag: Flag, wanted: boolean) => CHANNELS[flag][wanted ? 0 : 1];
