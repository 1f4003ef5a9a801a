// The post types the UI shows, from the IPC contract: a PostView wherever a post appears, a
// ProfilePost (with its delivery state) for the author's own. Posts are named by their
// ActivityPub id everywhere: in addresses (#/thread?ap=…), in actions and as list keys.
import type { DeliveryState, PostView, ProfilePost } from '../../electron/core/ipc/author-contract';

export type { DeliveryState, PostView, ProfilePost };
export type Visibility = PostView['visibility'];

/** A post in a list: the author's own carry their delivery state. */
export type ShownPost = PostView & { delivery?: DeliveryState };

/** A boost and the boosted post share the post's id; the boost's own id keeps them apart. */
export const listKeyOf = (post: ShownPost) => (post.boostedBy ? `boost:${post.boostedBy.apId}` : post.apId);
