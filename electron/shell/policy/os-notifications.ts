// Which OS notifications to show for notifications that just arrived: only the types the author
// left on in Settings (settings.osNotifications; a type not listed is on), one each when a few
// arrive together, one grouped notification when many do (UX.md: "grouped when many arrive at
// once"). Each says where a click leads: the post it is about, else the Notifications place.
// Pure: shell/notification-watch.ts feeds it, a NotifierPort shows the result.
import type { NotificationType } from '../../../db/columns';
import type { NotificationItem } from '../../core/notifications/service';

export type OsNotificationPrefs = Partial<Record<NotificationType, boolean>>;

export interface OsNotification {
  title: string;
  body: string;
  /** The in-app address a click opens (#/thread?ap=… or #/notifications). */
  route: string;
  /** The notification rows it stands for (a click may mark them read). */
  ids: number[];
}

/** More than this many at once become one grouped notification. */
export const GROUP_ABOVE = 3;

const ACTION: Record<NotificationType, string> = {
  NEW_FOLLOWER: 'followed you',
  UNFOLLOW: 'unfollowed you',
  FOLLOW_REQUEST_ACCEPTED: 'accepted your follow request',
  FOLLOW_REQUEST_REJECTED: 'rejected your follow request',
  LIKE: 'liked your post',
  UNDO_LIKE: 'no longer likes your post',
  ANNOUNCE: 'boosted your post',
  UNDO_ANNOUNCE: 'undid a boost of your post',
  MENTION: 'mentioned you',
  NEW_WEBMENTION: 'mentioned your post on their site',
  UPDATED_WEBMENTION: 'updated a mention of your post',
  DELETED_WEBMENTION: 'removed a mention of your post',
};

export function isTypeEnabled(prefs: OsNotificationPrefs, type: NotificationType | null): boolean {
  return type === null || prefs[type] !== false;
}

export function sentence(item: NotificationItem): string {
  const who = item.actor?.name || item.actor?.handle || 'Someone';
  // Typeless notifications on a Question: a poll ended (federation/polls/broadcast.ts).
  if (item.type === null && item.outboxObject?.apType === 'Question') return 'Your poll has ended';
  if (item.type === null && item.inboxObject?.apType === 'Question') return `A poll by ${who} you voted in has ended`;
  // Typeless notifications on a Move, a Flag, a QuoteRequest or the answer to one of ours
  // (federation/process/move.ts, flag.ts, quote-request.ts, quote-answer.ts).
  if (item.detail?.kind === 'moved') {
    const to = item.actor?.handle || who;
    return `${item.detail.from?.handle || item.detail.from?.name || 'Someone'} moved to ${to}; you now follow ${to}`;
  }
  if (item.detail?.kind === 'quoted') return `${who} quoted your post`;
  if (item.detail?.kind === 'quote-answered' && item.detail.revoked) return `${who} removed their approval of your quote of their post`;
  if (item.detail?.kind === 'quote-answered') return item.detail.approved ? `${who} approved your quote of their post` : `${who} did not approve your quote of their post`;
  if (item.detail?.kind === 'report') {
    const about = item.detail.posts.length === 0 ? 'you' : item.detail.posts.length === 1 ? 'your post' : 'your posts';
    return `${item.detail.server} forwarded a report about ${about}${item.detail.comment ? `: “${item.detail.comment}”` : ''}`;
  }
  // A LIKE or UNDO_LIKE of an emoji reaction: which emoji, as the core read it (one emoji, no
  // bidi controls: federation/reaction-emoji.ts); a custom one as its :shortcode:.
  if (item.reaction && item.type === 'LIKE') return `${who} reacted with ${item.reaction.emoji} to your post`;
  if (item.reaction && item.type === 'UNDO_LIKE') return `${who} took back a ${item.reaction.emoji} reaction to your post`;
  return `${who} ${item.type ? ACTION[item.type] : 'sent you a notification'}`;
}

/** #/thread?ap=… for the post a notification is about (ours, or the mention), else #/notifications. */
export function routeOf(item: NotificationItem): string {
  // A typeless notification on a remote Question: a poll the author voted in ended.
  const object = item.outboxObject ?? (item.type === 'MENTION' || (item.type === null && item.inboxObject?.apType === 'Question') ? item.inboxObject : null);
  if (object && !object.isDeleted) return `#/thread?${new URLSearchParams({ ap: object.apId }).toString()}`;
  // A report about one post of ours opens that post.
  const reported = item.detail?.kind === 'report' && item.detail.posts.length === 1 ? item.detail.posts[0] : undefined;
  if (reported && !reported.isDeleted) return `#/thread?${new URLSearchParams({ ap: reported.apId }).toString()}`;
  return '#/notifications';
}

/** `arrived`: notifications new since the last look, newest first. */
export function planOsNotifications(arrived: readonly NotificationItem[], prefs: OsNotificationPrefs): OsNotification[] {
  const shown = arrived.filter((item) => item.isNew && isTypeEnabled(prefs, item.type));
  if (shown.length === 0) return [];
  if (shown.length <= GROUP_ABOVE) {
    return shown.map((item) => ({ title: 'Tern', body: excerptLine(item), route: routeOf(item), ids: [item.id] }));
  }
  const names = [...new Set(shown.map(sentence))];
  const first = names.slice(0, 2).join('; ');
  const rest = shown.length - Math.min(2, names.length);
  return [
    {
      title: `Tern — ${shown.length} new notifications`,
      body: rest > 0 ? `${first}; and ${rest} more` : first,
      route: '#/notifications',
      ids: shown.map((item) => item.id),
    },
  ];
}

function excerptLine(item: NotificationItem): string {
  const excerpt = (item.type === 'MENTION' ? item.inboxObject : item.outboxObject)?.excerpt;
  return excerpt ? `${sentence(item)}: “${excerpt}”` : sentence(item);
}

const MARKUP_ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** A notification's body as the OS is handed it. Outside macOS and Windows, Electron passes it as
 * is to libnotify, and notification servers with the body-markup capability (GNOME Shell, KDE
 * Plasma, dunst, xfce4-notifyd…) read it as markup: a remote post's text "<a href=…>re-enter
 * your password</a>" would show as a link. There it is escaped, so it shows as the text it is.
 * The title is plain text in the Desktop Notifications spec (and is Tern's own). */
export function osNotificationBody(body: string, platform: NodeJS.Platform): string {
  if (platform === 'darwin' || platform === 'win32') return body;
  return body.replace(/[&<>]/g, (c) => MARKUP_ENTITY[c]!);
}
