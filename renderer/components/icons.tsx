// The few icons Tern draws, each a shape of its own in renderer/icons/ (no icon font, nothing
// loaded from elsewhere). Decorative: each is hidden from assistive technology; the text beside
// it carries the meaning. Tern's mark, of two colours, stays an inline SVG.

/** An icon: a box painted in the text's colour through its shape (styles/icons.css, which
 * takes each shape from renderer/icons/). One element, not an inline SVG: a post draws seven,
 * and an SVG each cost Chromium a tree of SVG elements, layout objects and a transform of its
 * own (measured: 2,000 posts made 114,000 DOM nodes with SVG, 82,000 without). */
function Icon({ name, className }: { name: string; className?: string | undefined }) {
  return <span className={className ? `icon icon--${name} ${className}` : `icon icon--${name}`} aria-hidden="true" />;
}

export const OverviewIcon = () => <Icon name="overview" />;

export const RefreshIcon = ({ className }: { className?: string }) => <Icon name="refresh" className={className} />;

export const CheckIcon = () => <Icon name="check" />;

export const AttentionIcon = () => <Icon name="attention" />;

export const DisconnectedIcon = () => <Icon name="disconnected" />;

export const StreamIcon = () => <Icon name="stream" />;

export const BellIcon = () => <Icon name="bell" />;

export const PenIcon = () => <Icon name="pen" />;

export const PersonIcon = () => <Icon name="person" />;

export const PeopleIcon = () => <Icon name="people" />;

export const OutboxIcon = () => <Icon name="outbox" />;

export const GearIcon = () => <Icon name="gear" />;

export const ReplyIcon = () => <Icon name="reply" />;

export const QuoteIcon = () => <Icon name="quote" />;

export const BoostIcon = ({ className }: { className?: string }) => <Icon name="boost" className={className} />;

export const HeartIcon = () => <Icon name="heart" />;

export const SmileIcon = () => <Icon name="smile" />;

export const BookmarkIcon = () => <Icon name="bookmark" />;

export const MoreIcon = () => <Icon name="more" />;

export const PinIcon = ({ className }: { className?: string }) => <Icon name="pin" className={className} />;

export const GlobeIcon = () => <Icon name="globe" />;

export const UnlistedIcon = () => <Icon name="unlisted" />;

export const LockIcon = () => <Icon name="lock" />;

export const AtIcon = () => <Icon name="at" />;

export const BackIcon = () => <Icon name="back" />;

export const ClockIcon = () => <Icon name="clock" />;

export const SendIcon = () => <Icon name="send" />;

export const KeyboardIcon = () => <Icon name="keyboard" />;

export const SearchIcon = () => <Icon name="search" />;

export const CloseIcon = () => <Icon name="close" />;

/** Tern's mark: a tern in flight. */
export const TernMark = () => (
  <svg className="tern-mark" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
    <rect className="tern-mark-ground" width="32" height="32" rx="8" />
    <path
      d="M5 13c4.5-1 8.5.4 11 3.6 2-3.2 5.6-5 11-4.6-3.6 1.4-6.6 3.7-8.3 7.6-1 2.3-3.4 3.4-5.6 2.6 2-.6 3-1.9 3.1-3.4C13.7 15.8 10 13.8 5 13z"
      className="tern-mark-bird"
    />
  </svg>
);

export const KeyIcon = () => <Icon name="key" />;

/** Polls: three bars of a result. */
export const PollIcon = () => <Icon name="poll" />;

/** Webmentions: two linked rings (a link between pages). */
export const WebmentionIcon = () => <Icon name="webmention" />;
