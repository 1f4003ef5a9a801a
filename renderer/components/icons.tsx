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
