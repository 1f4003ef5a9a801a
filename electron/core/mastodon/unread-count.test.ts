// unread_count as Mastodon answers it: the notifications the API lists (of types[], not of
// exclude_types[]) newer than the notifications marker the app saved — without a marker, the
// unread ones — at most `limit` (default 100); v2's counts the groups they make (Mastodon 4.3).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor, notifications, type NotificationType } from '../../../db/schema';
import { issueToken } from '../indieauth/test-flow';
import { addFollower, addPost, openListeningCore, type ListeningCore } from '../listener/test-support';

let t: ListeningCore;
let token: string;
const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as unknown;
};
const unread = async (query = '') => ((await call('GET', `/api/v1/notifications/unread_count${query}`)) as { count: number }).count;
/** Mastodon 4.3's v2 counts groups: the two follows are one. */
const unreadGroups = async (query = '') => ((await call('GET', `/api/v2/notifications/unread_count${query}`)) as { count: number }).count;
const rows: number[] = [];

beforeAll(async () => {
  t = await openListeningCore('alice');
  token = await issueToken(t.url, t.core, ['read', 'write']);
  addFollower(t.core, 'https://one.example/u');
  const fan = t.core.db.select().from(actor).where(eq(actor.apId, 'https://one.example/u')).get()!;
  const poll = addPost(t.core, { type: 'Question', content: '<p>Which?</p>' });
  // A follow, an unfollow and an undone like (never listed), a follow, an ended poll, a follow already read.
  const made: [NotificationType | null, boolean][] = [
    ['NEW_FOLLOWER', true],
    ['UNFOLLOW', true],
    ['UNDO_LIKE', true],
    ['NEW_FOLLOWER', true],
    [null, true],
    ['NEW_FOLLOWER', false],
  ];
  for (const [type, isNew] of made) {
    const values = { createdAt: t.core.clock(), notificationType: type, isNew, actorId: fan.id, ...(type === null ? { outboxObjectId: poll.id } : {}) };
    rows.push(t.core.db.insert(notifications).values(values).returning().get().id);
  }
});
afterAll(async () => t?.close());

describe('unread_count', () => {
  it('without a marker counts the unread notifications the API lists, not an unfollow or an undone like', async () => {
    expect(await unread()).toBe(3);
    expect(await unreadGroups()).toBe(2);
  });

  it('honours types[] and exclude_types[], and counts at most limit', async () => {
    expect(await unread('?types[]=follow')).toBe(2);
    expect(await unread('?exclude_types[]=follow')).toBe(1);
    expect(await unread('?types[]=mention')).toBe(0);
    expect(await unread('?limit=1')).toBe(1);
    expect(await unreadGroups('?types[]=follow')).toBe(1);
    expect(await unreadGroups('?grouped_types[]=favourite')).toBe(3);
    expect(await unreadGroups('?exclude_types[]=follow')).toBe(1);
    expect(await unreadGroups('?types[]=mention')).toBe(0);
    expect(await unreadGroups('?limit=1')).toBe(1);
  });

  it('counts what is newer than the notifications marker the app saved', async () => {
    await call('POST', '/api/v1/markers', { notifications: { last_read_id: String(rows[3]) } });
    // The poll and the follow after it (read in the desktop app, but not by the phone).
    expect(await unread()).toBe(2);
    expect(await unreadGroups()).toBe(2);
    await call('POST', '/api/v1/markers', { notifications: { last_read_id: String(rows[5]) } });
    expect(await unread()).toBe(0);
    expect(await unreadGroups()).toBe(0);
  });
});
