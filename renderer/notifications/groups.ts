// Notifications grouped as the author reads them (UX.md): many likes of one post become "Ana
// and 4 others liked your post"; emoji reactions gather per post and per emoji ("Ana and Ben
// reacted with 🎉 to your post"), never with the likes; follows of the same kind gather too; a
// mention stays alone, since each says something of its own. Unread ones never mix with read
// ones, and the order of Tern's answer (unread first, then newest) is kept.
import type { Output } from '../../electron/core/ipc/contract';

export type NotificationItem = Output<'notifications.list'>['items'][number];
export type NotificationKind = NonNullable<NotificationItem['type']>;
export type NotificationActor = NonNullable<NotificationItem['actor']>;
export type NotificationReaction = NonNullable<NotificationItem['reaction']>;

export interface NotificationGroup {
  key: string;
  kind: NotificationKind | null;
  items: NotificationItem[];
  /** Distinct actors, newest first. */
  actors: NotificationActor[];
  isNew: boolean;
  /** The newest item's time. */
  createdAt: string;
  outboxObject: NotificationItem['outboxObject'];
  inboxObject: NotificationItem['inboxObject'];
  /** The emoji every item of the group reacted with (LIKE and UNDO_LIKE of a reaction). */
  reaction: NotificationReaction | null;
}

/** Kinds about one of the author's posts, gathered per post. */
const PER_POST: ReadonlySet<NotificationKind> = new Set(['LIKE', 'UNDO_LIKE', 'ANNOUNCE', 'UNDO_ANNOUNCE']);
/** Kinds about the author, gathered together. */
const PER_KIND: ReadonlySet<NotificationKind> = new Set(['NEW_FOLLOWER', 'UNFOLLOW']);

/** A reaction's emoji (a custom one's picture too: two servers' :blobcat: may differ), last in
 * the key: a post's id has no colon, so a reaction's key never meets a like's. */
function reactionKey(item: NotificationItem): string {
  const reaction = item.reaction;
  return reaction ? `:${reaction.emoji}${reaction.custom ? ` ${reaction.custom.url}` : ''}` : '';
}

function groupKey(item: NotificationItem): string {
  const read = item.isNew ? 'new' : 'read';
  if (item.type && PER_POST.has(item.type) && item.outboxObject) return `${read}:${item.type}:${item.outboxObject.id}${reactionKey(item)}`;
  if (item.type && PER_KIND.has(item.type)) return `${read}:${item.type}`;
  return `one:${item.id}`;
}

export function groupNotifications(items: readonly NotificationItem[]): NotificationGroup[] {
  const groups = new Map<string, NotificationGroup>();
  for (const item of items) {
    const key = groupKey(item);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        key,
        kind: item.type,
        items: [item],
        actors: item.actor ? [item.actor] : [],
        isNew: item.isNew,
        createdAt: item.createdAt,
        outboxObject: item.outboxObject,
        inboxObject: item.inboxObject,
        reaction: item.reaction ?? null,
      });
      continue;
    }
    group.items.push(item);
    if (item.actor && !group.actors.some((a) => a.id === item.actor!.id)) group.actors.push(item.actor);
    if (item.createdAt > group.createdAt) group.createdAt = item.createdAt;
  }
  return [...groups.values()];
}
