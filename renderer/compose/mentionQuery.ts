// Where the author is typing a mention (UX.md "Compose": mention autocomplete from known
// actors): the `@name` or `@name@host` just before the caret, and how a chosen handle replaces
// it. Pure text functions; MentionSuggestions.tsx asks Tern and shows the choices.

/** A mention being typed: it starts at `start` (the @) and runs to the caret. */
export interface MentionAt {
  start: number;
  /** What follows the @, as typed ("be", "ben@gts.ex"). */
  typed: string;
}

/** At least this many characters after the @ before Tern is asked (a one-letter prefix finds everyone). */
export const MIN_TYPED = 2;

// The @ starts the text or follows a space or an opening bracket (not an e-mail address's @);
// then a user name, and optionally @ and the start of a host.
const MENTION_BEFORE_CARET = /(?:^|[\s([{"'])@([A-Za-z0-9_][A-Za-z0-9_.-]*(?:@[A-Za-z0-9.-]*)?)$/;

/** The mention the caret is at the end of, or null. */
export function mentionAt(text: string, caret: number): MentionAt | null {
  const match = MENTION_BEFORE_CARET.exec(text.slice(0, caret));
  if (!match) return null;
  const typed = match[1]!;
  if (typed.length < MIN_TYPED) return null;
  return { start: caret - typed.length - 1, typed };
}

/** The search words for a mention: its parts as prefixes ("ben@gts.ex" → "ben gts ex"). */
export function searchTextOf(typed: string): string {
  return typed
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .join(' ');
}

/** Whether a known handle fits what was typed (the search matches words anywhere; a mention
 * is typed from its start). */
export function handleFits(handle: string, typed: string): boolean {
  const [user = '', host] = typed.toLowerCase().split('@', 2);
  const [, handleUser = '', handleHost = ''] = handle.toLowerCase().split('@');
  return handleUser.startsWith(user) && (host === undefined || handleHost.startsWith(host));
}

/** The text with the mention replaced by `handle` and a space, and where the caret goes. */
export function insertMention(text: string, at: MentionAt, caret: number, handle: string): { text: string; caret: number } {
  const after = text.slice(caret);
  const inserted = `${handle}${after.startsWith(' ') ? '' : ' '}`;
  return { text: text.slice(0, at.start) + inserted + after, caret: at.start + inserted.length + (after.startsWith(' ') ? 1 : 0) };
}
