// The hints the core sends the window when something it shows changed (core/changes.ts): their
// kinds, and how either end reads a hint off the wire. Shared with the renderer, which imports
// only the types and mirrors the values (renderer/changes.ts).

/** The parts of the window a change concerns. */
export const CHANGE_KINDS = ['timeline', 'notifications', 'previews', 'deliveries', 'sign-ins', 'status'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Headless: the event stream of hints (GET, the same token and origin checks as the IPC calls). */
export const CHANGES_HTTP_PATH = '/ipc/events';

/** A hint's kinds as sent over a wire (the preload, an event stream): only known kinds, each
 * once, in CHANGE_KINDS' order; anything else is dropped. The window never trusts what it is sent. */
export function parseChangeKinds(value: unknown): ChangeKind[] {
  if (!Array.isArray(value) || value.length > CHANGE_KINDS.length * 2) return [];
  return CHANGE_KINDS.filter((kind) => value.includes(kind));
}
