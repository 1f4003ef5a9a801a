// Which of Tern's notifications a Mastodon client sees, and as what. Only types Mastodon has are
// used (clients drop or crash on invented ones); a notification with no Mastodon equivalent is
// left out of the API (the desktop app still shows it):
// - UNFOLLOW, UNDO_LIKE, UNDO_ANNOUNCE: Mastodon does not notify that something was taken back.
// - FOLLOW_REQUEST_ACCEPTED / _REJECTED: Mastodon has no type for an answer to one's own request
//   (a client sees it in the relationship's `following`/`requested`).
// - NEW_ / UPDATED_ / DELETED_WEBMENTION: no account stands behind a webmention, and every
//   Mastodon notification has one.
// - Typeless rows for a Move and for a report forwarded by a server: Mastodon has no `move` type
//   (that is Pleroma's), and `admin.report` carries an admin's Report entity Tern does not have.
// - Typeless rows for an approved quote (on the QuoteRequest): Mastodon's `quote` carries the
//   quoting status, which Tern holds only when its Create reached the author.
// - Typeless rows for the answer to the author's own quote (on the Accept or Reject): Mastodon
//   has no type for it (a client sees it in the status's `quote.state`).
// - follow_request: under manual approval a pending Follow is not a notification row in Tern
//   (it lives with the follow requests, /api/v1/follow_requests), so none is listed here.
// A typeless row on a Question is a poll that ended, ours or one the author voted in: `poll`.
import type { NotificationType } from '../../../db/schema';
import type { NotificationItem } from '../notifications/service';

const BY_SPEC_TYPE: Partial<Record<NotificationType, string>> = {
  NEW_FOLLOWER: 'follow',
  LIKE: 'favourite',
  ANNOUNCE: 'reblog',
  MENTION: 'mention',
};

/** Every Mastodon type this API can answer. */
export const MASTODON_NOTIFICATION_TYPES: readonly string[] = [...Object.values(BY_SPEC_TYPE), 'poll'];

/** The poll a typeless notification is about, if it is one. */
export const endedPollOf = (item: NotificationItem) =>
  item.type !== null ? null : item.outboxObject?.apType === 'Question' ? item.outboxObject : item.inboxObject?.apType === 'Question' ? item.inboxObject : null;

/** The Mastodon type of a notification, or null when Mastodon has none for it. */
export function mastodonTypeOf(item: NotificationItem): string | null {
  if (item.type !== null) return BY_SPEC_TYPE[item.type] ?? null;
  return endedPollOf(item) ? 'poll' : null;
}

/** The spec types to read for these Mastodon types; undefined: read all (poll rows are typeless,
 * so the SQL filter cannot name them; the mapped page is filtered instead). */
export function specTypesFor(mastodon: readonly string[]): NotificationType[] | undefined {
  if (mastodon.includes('poll')) return undefined;
  return (Object.entries(BY_SPEC_TYPE) as [NotificationType, string][]).filter(([, m]) => mastodon.includes(m)).map(([t]) => t);
}

/** What a count of these Mastodon types reads: the spec types, and the AP types of the objects
 * typeless rows must be about (an ended poll's Question). */
export function countedTypesFor(mastodon: readonly string[]): { types: NotificationType[]; typelessAbout: string[] } {
  return { types: specTypesFor(mastodon.filter((t) => t !== 'poll')) ?? [], typelessAbout: mastodon.includes('poll') ? ['Question'] : [] };
}
