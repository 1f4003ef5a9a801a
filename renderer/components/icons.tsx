// The few icons Tern draws, as inline SVG (no icon font, nothing loaded from elsewhere).
// Decorative: each is hidden from assistive technology; the text beside it carries the meaning.
import type { ReactNode } from 'react';

function Icon({ children, className }: { children: ReactNode; className?: string | undefined }) {
  return (
    <svg
      className={className ? `icon ${className}` : 'icon'}
      viewBox="0 0 24 24"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

export const OverviewIcon = () => (
  <Icon>
    <rect x="3.5" y="3.5" width="7" height="8" rx="1.5" />
    <rect x="13.5" y="3.5" width="7" height="5" rx="1.5" />
    <rect x="13.5" y="11.5" width="7" height="9" rx="1.5" />
    <rect x="3.5" y="14.5" width="7" height="6" rx="1.5" />
  </Icon>
);

export const RefreshIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="M20 11a8 8 0 0 0-14.3-4.9L4 8" />
    <path d="M4 4v4h4" />
    <path d="M4 13a8 8 0 0 0 14.3 4.9L20 16" />
    <path d="M20 20v-4h-4" />
  </Icon>
);

export const CheckIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="9" />
    <path d="m8 12.5 2.7 2.7L16.2 9.5" />
  </Icon>
);

export const AttentionIcon = () => (
  <Icon>
    <path d="M12 3.8 2.8 19.5h18.4z" />
    <path d="M12 10v4.2" />
    <path d="M12 17.2v.1" />
  </Icon>
);

export const DisconnectedIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7.5v5.5" />
    <path d="M12 16.4v.1" />
  </Icon>
);

export const StreamIcon = () => (
  <Icon>
    <path d="M4 6.5h16" />
    <path d="M4 12h16" />
    <path d="M4 17.5h10" />
  </Icon>
);

export const BellIcon = () => (
  <Icon>
    <path d="M6.5 16.5V11a5.5 5.5 0 0 1 11 0v5.5l1.5 1.5H5z" />
    <path d="M10 20.5a2.2 2.2 0 0 0 4 0" />
  </Icon>
);

export const PenIcon = () => (
  <Icon>
    <path d="M4 20h4L19.3 8.7a2.1 2.1 0 0 0-3-3L5 17v3z" />
    <path d="m14.5 7.5 3 3" />
  </Icon>
);

export const PersonIcon = () => (
  <Icon>
    <circle cx="12" cy="8.5" r="3.8" />
    <path d="M4.5 20a7.5 7.5 0 0 1 15 0" />
  </Icon>
);

export const PeopleIcon = () => (
  <Icon>
    <circle cx="9" cy="9" r="3.3" />
    <path d="M3 19.5a6 6 0 0 1 12 0" />
    <path d="M15.5 5.9a3.3 3.3 0 0 1 0 6.2" />
    <path d="M17.5 14.3a6 6 0 0 1 3.5 5.2" />
  </Icon>
);

export const OutboxIcon = () => (
  <Icon>
    <path d="M3.5 13.5h4.5l1.5 2.5h5l1.5-2.5h4.5" />
    <path d="M5.5 8 3.5 13.5V19a1.5 1.5 0 0 0 1.5 1.5h14a1.5 1.5 0 0 0 1.5-1.5v-5.5L18.5 8" />
    <path d="M12 11V3.5" />
    <path d="m9 6.5 3-3 3 3" />
  </Icon>
);

export const GearIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="3" />
    <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z" />
  </Icon>
);

export const ReplyIcon = () => (
  <Icon>
    <path d="M9.5 7 4.5 12l5 5" />
    <path d="M4.5 12H14a5.5 5.5 0 0 1 5.5 5.5V19" />
  </Icon>
);

export const QuoteIcon = () => (
  <Icon>
    <path d="M5 18.5h14a1.5 1.5 0 0 0 1.5-1.5v-10A1.5 1.5 0 0 0 19 5.5H5A1.5 1.5 0 0 0 3.5 7v10A1.5 1.5 0 0 0 5 18.5z" />
    <path d="M8 10.5h8M8 13.5h5" />
  </Icon>
);

export const BoostIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="m17 3.5 3 3-3 3" />
    <path d="M4 11.5v-1a4 4 0 0 1 4-4h12" />
    <path d="m7 20.5-3-3 3-3" />
    <path d="M20 12.5v1a4 4 0 0 1-4 4H4" />
  </Icon>
);

export const HeartIcon = () => (
  <Icon>
    <path d="M12 20s-7.5-4.4-7.5-10.1A4.4 4.4 0 0 1 12 7a4.4 4.4 0 0 1 7.5 2.9C19.5 15.6 12 20 12 20z" />
  </Icon>
);

export const SmileIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="8.5" />
    <path d="M8.5 14a4 4 0 0 0 7 0" />
    <path d="M9.5 9.75h.01M14.5 9.75h.01" strokeWidth="2.4" />
  </Icon>
);

export const BookmarkIcon = () => (
  <Icon>
    <path d="M6.5 4h11v16.5L12 16.5l-5.5 4z" />
  </Icon>
);

export const MoreIcon = () => (
  <Icon>
    <circle cx="5.5" cy="12" r="1" />
    <circle cx="12" cy="12" r="1" />
    <circle cx="18.5" cy="12" r="1" />
  </Icon>
);

export const PinIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <path d="M9 3.5h6" />
    <path d="M10 3.5v5.5l-3.5 4h11L14 9V3.5" />
    <path d="M12 13v7.5" />
  </Icon>
);

export const GlobeIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="8.5" />
    <path d="M3.5 12h17" />
    <path d="M12 3.5c2.3 2.4 3.5 5.2 3.5 8.5s-1.2 6.1-3.5 8.5c-2.3-2.4-3.5-5.2-3.5-8.5S9.7 5.9 12 3.5z" />
  </Icon>
);

export const UnlistedIcon = () => (
  <Icon>
    <rect x="4.5" y="10.5" width="15" height="10" rx="2" />
    <path d="M8 10.5V7.5a4 4 0 0 1 7.7-1.5" />
  </Icon>
);

export const LockIcon = () => (
  <Icon>
    <rect x="4.5" y="10.5" width="15" height="10" rx="2" />
    <path d="M8 10.5V7.5a4 4 0 0 1 8 0v3" />
  </Icon>
);

export const AtIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="3.5" />
    <path d="M15.5 8.5v5a2.5 2.5 0 0 0 5 0V12a8.5 8.5 0 1 0-3.3 6.7" />
  </Icon>
);

export const BackIcon = () => (
  <Icon>
    <path d="M19.5 12h-15" />
    <path d="m10 6-6 6 6 6" />
  </Icon>
);

export const ClockIcon = () => (
  <Icon>
    <circle cx="12" cy="12" r="8.5" />
    <path d="M12 7.5V12l3 2" />
  </Icon>
);

export const SendIcon = () => (
  <Icon>
    <path d="M20.5 3.5 10 14" />
    <path d="m20.5 3.5-6.5 17-4-6.5-6.5-4z" />
  </Icon>
);

export const KeyboardIcon = () => (
  <Icon>
    <rect x="2.5" y="6" width="19" height="12" rx="2" />
    <path d="M6 10h.01M10 10h.01M14 10h.01M18 10h.01M8 14h8" />
  </Icon>
);

export const SearchIcon = () => (
  <Icon>
    <circle cx="10.5" cy="10.5" r="6" />
    <path d="m15 15 5.5 5.5" />
  </Icon>
);

export const CloseIcon = () => (
  <Icon>
    <path d="M6 6l12 12M18 6 6 18" />
  </Icon>
);

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

export const KeyIcon = () => (
  <Icon>
    <circle cx="8" cy="15" r="4" />
    <path d="M11 12l8-8" />
    <path d="M16 7l3 3" />
    <path d="M14 9l2 2" />
  </Icon>
);

/** Polls: three bars of a result. */
export const PollIcon = () => (
  <Icon>
    <path d="M4.5 6.5h11" />
    <path d="M4.5 12h15" />
    <path d="M4.5 17.5h7" />
  </Icon>
);

/** Webmentions: two linked rings (a link between pages). */
export const WebmentionIcon = () => (
  <Icon>
    <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" />
    <path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
  </Icon>
);
