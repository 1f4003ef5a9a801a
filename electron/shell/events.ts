// The shell's own IPC event names (not part of the typed contract: fire-and-forget hints).
// Shared by main and the preload; no electron import.
export const SHELL_EVENTS = {
  /** Page → main: the page saw an online/offline event; main looks at net.isOnline() again. */
  networkHint: 'shell:network-hint',
  /** Main → page: what the window shows changed (core/changes.ts); the kinds only. */
  changed: 'shell:changed',
} as const;
