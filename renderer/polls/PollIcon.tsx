// The Polls place's icon: three bars of a result, drawn like the other icons (decorative).
export const PollIcon = () => (
  <svg
    className="icon"
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
    <path d="M4.5 6.5h11" />
    <path d="M4.5 12h15" />
    <path d="M4.5 17.5h7" />
  </svg>
);
