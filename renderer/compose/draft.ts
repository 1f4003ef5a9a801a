// The draft being written, kept in localStorage on every change, so nothing is lost when Tern
// closes, crashes or the window reloads (UX.md: "never loses a word"). One draft at a time;
// what it replies to and what it quotes are part of it.
import { useEffect, useState } from 'react';

import type { Visibility } from '../posts/model';

export const VISIBILITIES = ['PUBLIC', 'UNLISTED', 'FOLLOWERS_ONLY', 'DIRECT'] as const satisfies readonly Visibility[];

export interface Draft {
  text: string;
  contentWarning: string;
  /** Whether the content warning field is shown. */
  hasContentWarning: boolean;
  visibility: Visibility;
  /** The ActivityPub id of the post this one replies to. */
  inReplyTo: string | null;
  /** The ActivityPub id of the post this one quotes. */
  quote: string | null;
}

const KEY = 'tern.compose.draft.v1';

export const EMPTY_DRAFT: Draft = { text: '', contentWarning: '', hasContentWarning: false, visibility: 'PUBLIC', inReplyTo: null, quote: null };

/** The kept draft; anything unreadable or out of shape reads as the empty draft's parts. */
export function readDraft(): Draft {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return EMPTY_DRAFT;
    const value = JSON.parse(raw) as Partial<Draft>;
    return {
      text: typeof value.text === 'string' ? value.text : '',
      contentWarning: typeof value.contentWarning === 'string' ? value.contentWarning : '',
      hasContentWarning: value.hasContentWarning === true,
      visibility: (VISIBILITIES as readonly string[]).includes(value.visibility ?? '') ? (value.visibility as Visibility) : 'PUBLIC',
      inReplyTo: typeof value.inReplyTo === 'string' && value.inReplyTo !== '' ? value.inReplyTo : null,
      quote: typeof value.quote === 'string' && value.quote !== '' ? value.quote : null,
    };
  } catch {
    return EMPTY_DRAFT;
  }
}

export function writeDraft(draft: Draft): void {
  try {
    if (draft.text === '' && draft.contentWarning === '' && draft.inReplyTo === null && draft.quote === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, JSON.stringify(draft));
  } catch {
    // Storage full or disabled: the draft still lives in the window.
  }
}

export function isEmptyDraft(draft: Draft): boolean {
  return draft.text.trim() === '' && draft.contentWarning.trim() === '';
}

/** The draft, saved as it changes. */
export function useDraft(): [Draft, (change: Partial<Draft>) => void, () => void] {
  const [draft, setDraft] = useState(readDraft);
  useEffect(() => writeDraft(draft), [draft]);
  const change = (partial: Partial<Draft>) => setDraft((d) => ({ ...d, ...partial }));
  // Kept at once, not after the next render: sending a reply or a quote rewrites the address,
  // which remounts Compose (App keys views by address) before an effect would have run, and the
  // new one read the sent draft back.
  const clear = () => {
    const next = { ...EMPTY_DRAFT, visibility: draft.visibility };
    writeDraft(next);
    setDraft(next);
  };
  return [draft, change, clear];
}
