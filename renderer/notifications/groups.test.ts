// How notifications gather into the groups the author reads.
import { describe, expect, it } from 'vitest';
import { groupNotifications, type NotificationItem } from './groups';

let nextId = 1;
function item(type: NotificationItem['type'], actorId: number, postId: number | null, isNew = true): NotificationItem {
  const id = nextId++;
  return {
    id,
    type,
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, 100 - id)).toISOString(),
    isNew,
    actor: { id: actorId, apId: `https://x.example/${actorId}`, name: `A${actorId}`, handle: null, iconUrl: null, url: '' },
    outboxObject: postId === null ? null : { id: postId, box: 'outbox', apId: `p${postId}`, apType: 'Note', excerpt: 'hi', isDeleted: false },
    inboxObject: null,
    webmentionId: null,
  };
}

describe('groupNotifications', () => {
  it('gathers likes of one post, each liker once, and keeps likes of another post apart', () => {
    const groups = groupNotifications([item('LIKE', 1, 7), item('LIKE', 2, 7), item('LIKE', 1, 7), item('LIKE', 3, 8)]);
    expect(groups.map((g) => [g.kind, g.outboxObject?.id, g.actors.map((a) => a.id)])).toEqual([
      ['LIKE', 7, [1, 2]],
      ['LIKE', 8, [3]],
    ]);
  });

  it('never mixes unread with read, and leaves each mention alone', () => {
    const groups = groupNotifications([item('NEW_FOLLOWER', 1, null), item('MENTION', 2, null), item('MENTION', 3, null), item('NEW_FOLLOWER', 4, null, false)]);
    expect(groups.map((g) => [g.kind, g.isNew, g.items.length])).toEqual([
      ['NEW_FOLLOWER', true, 1],
      ['MENTION', true, 1],
      ['MENTION', true, 1],
      ['NEW_FOLLOWER', false, 1],
    ]);
  });
});
