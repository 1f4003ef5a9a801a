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
// An emoji reaction (a LIKE pointing at an EmojiReact, or at a Misskey Like carrying its emoji:
// NotificationItem.reaction) is Pleroma's and Akkoma's `pleroma:emoji_reaction`, the type clients
// with reaction support read (megalodon, Pleroma-FE, Akkoma-FE); Mastodon's own clients skip a
// type they do not know, as Mastodon's documentation tells them to. It is no `favourite`: a
// client that asks for favourites only gets the likes.
import type { NotificationType } from '../../../db/schema';
import type { LikeKinds, NotificationItem } from '../notifications/service';

const BY_SPEC_TYPE: Partial<Record<NotificationType, string>> = {
  NEW_FOLLOWER: 'follow',
  LIKE: 'favourite',
  ANNOUNCE: 'reblog',
  MENTION: 'mention',
};

export const REACTION_NOTIFICATION = 'pleroma:emoji_reaction';

/** Every Mastodon type this API can answer. */
export const MASTODON_NOTIFICATION_TYPES: readonly string[] = [...Object.values(BY_SPEC_TYPE), 'poll', REACTION_NOTIFICATION];



/** What tells a notification's Mastodon type: a NotificationItem, or a NotificationKey (its
 * objects unread). */
type Typed = Pick<NotificationItem, 'type' | 'reaction'> & { outboxObject: { apType: string } | null; inboxObject: { apType: string } | null };

/** The poll a typeless notification is about, if it is one. */
export const endedPollOf = <T extends Typed>(item: T): T['outboxObject'] | T['inboxObject'] =>
  item.type !== null ? null : item.outboxObject?.apType === 'Question' ? item.outboxObject : item.inboxObject?.apType === 'Question' ? item.inboxObject : null;

/** The Mastodon type of a notification, or null when Mastodon has none for it. */
export function mastodonTypeOf(item: Typed): string | null {
  if (item.type === 'LIKE' && item.reaction) return REACTION_NOTIFICATION;
  if (item.type !== null) return BY_SPEC_TYPE[item.type] ?? null;
  return endedPollOf(item) ? 'poll' : null;
}

/** The spec types to read for these Mastodon types; undefined: read all (poll rows are typeless,
 * so the SQL filter cannot name them; the mapped page is filtered instead). */
export function specTypesFor(mastodon: readonly string[]): NotificationType[] | undefined {
  if (mastodon.includes('poll')) return undefined;
  const types = (Object.entries(BY_SPEC_TYPE) as [NotificationType, string][]).filter(([, m]) => mastodon.includes(m)).map(([t]) => t);
  return mastodon.includes(REACTION_NOTIFICATION) && !types.includes('LIKE') ? [...types, 'LIKE'] : types;
}

/** Which LIKE rows these Mastodon types want (when they want LIKE rows at all). */
export function likeKindsFor(mastodon: readonly string[]): LikeKinds {
  const likes = mastodon.includes('favourite');
  const reactions = mastodon.includes(REACTION_NOTIFICATION);
  return likes && reactions ? 'all' : reactions ? 'reactions' : 'likes';
}

/** What a count of these Mastodon types reads: the spec types, and the AP types of the objects
 * typeless rows must be about (an ended poll's Question). */
export function countedTypesFor(mastodon: readonly string[]): { types: NotificationType[]; typelessAbout: string[]; likes: LikeKinds } {
  return { types: specTypesFor(mastodon.filter((t) => t !== 'poll')) ?? [], typelessAbout: mastodon.includes('poll') ? ['Question'] : [], likes: likeKindsFor(mastodon) };
}
