// The icon beside each kind of notification.
import { AtIcon, AttentionIcon, BellIcon, BoostIcon, CheckIcon, CloseIcon, HeartIcon, PersonIcon, QuoteIcon, SmileIcon } from '../components/icons';
import type { NotificationKind } from './groups';

export const KIND_ICONS: Record<NotificationKind, () => React.JSX.Element> = {
  NEW_FOLLOWER: PersonIcon,
  UNFOLLOW: PersonIcon,
  FOLLOW_REQUEST_ACCEPTED: CheckIcon,
  FOLLOW_REQUEST_REJECTED: CloseIcon,
  LIKE: HeartIcon,
  UNDO_LIKE: HeartIcon,
  ANNOUNCE: () => <BoostIcon />,
  UNDO_ANNOUNCE: () => <BoostIcon />,
  MENTION: AtIcon,
  NEW_WEBMENTION: BellIcon,
  UPDATED_WEBMENTION: BellIcon,
  DELETED_WEBMENTION: BellIcon,
};

/** Typeless notifications worded in notifications/typeless.ts: a move, a forwarded report, a
 * quote, the answer to the author's quote. */
export const TYPELESS_ICONS: Record<'moved' | 'report' | 'quoted' | 'quote-answered', () => React.JSX.Element> = {
  moved: PersonIcon,
  report: AttentionIcon,
  quoted: () => <BoostIcon />,
  'quote-answered': QuoteIcon,
};

/** An emoji reaction (a LIKE or UNDO_LIKE the core gives an emoji): not a heart, which is a like. */
export const REACTION_ICON = SmileIcon;
