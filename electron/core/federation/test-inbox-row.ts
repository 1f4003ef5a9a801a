// Test support: an inbox row as the views read it, built in memory around a remote object (no
// database), for tests of what a post looks like. Not imported by production code.
import type { InboxObject } from '../../../db/schema';

/** An inbox row holding `apObject`; the few fields the views read besides it can be given. */
export function fakeInboxRow(
  apObject: Record<string, unknown>,
  fields: { apId?: string; apActorId?: string; apPublishedAt?: Date } = {},
): InboxObject {
  return {
    id: 1,
    apObject,
    apId: fields.apId ?? 'https://x.example/n/1',
    actorId: 1,
    apActorId: fields.apActorId ?? 'https://x.example/u/ana',
    apPublishedAt: fields.apPublishedAt ?? new Date('2024-01-01T00:00:00Z'),
    visibility: 'PUBLIC',
    repliesCount: 0,
    likedViaOutboxObjectApId: null,
    announcedViaOutboxObjectApId: null,
    isBookmarked: false,
    isDeleted: false,
  } as unknown as InboxObject;
}
