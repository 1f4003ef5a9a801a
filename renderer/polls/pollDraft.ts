// The poll being built in Compose, kept beside the draft (its own key, so the draft's shape
// stays as it is) and turned into the poll part of posts.create.
import { useEffect, useState } from 'react';
import type { Input } from '../../electron/core/ipc/contract';

export interface PollDraft {
  on: boolean;
  options: string[];
  multiple: boolean;
  durationSeconds: number;
  hideTotals: boolean;
}

const KEY = 'tern.compose.poll.v1';
export const MAX_OPTIONS = 10;
export const EMPTY_POLL: PollDraft = { on: false, options: ['', ''], multiple: false, durationSeconds: 86_400, hideTotals: false };

export function readPollDraft(): PollDraft {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return EMPTY_POLL;
    const v = JSON.parse(raw) as Partial<PollDraft>;
    const options = Array.isArray(v.options) ? v.options.filter((o): o is string => typeof o === 'string').slice(0, MAX_OPTIONS) : [];
    return {
      on: v.on === true,
      options: options.length >= 2 ? options : [...options, '', ''].slice(0, 2),
      multiple: v.multiple === true,
      durationSeconds: typeof v.durationSeconds === 'number' ? v.durationSeconds : EMPTY_POLL.durationSeconds,
      hideTotals: v.hideTotals === true,
    };
  } catch {
    return EMPTY_POLL;
  }
}

export function usePollDraft(): [PollDraft, (change: Partial<PollDraft>) => void, () => void] {
  const [poll, setPoll] = useState(readPollDraft);
  useEffect(() => {
    try {
      if (!poll.on) localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, JSON.stringify(poll));
    } catch {
      // Storage full or disabled: the poll still lives in the window.
    }
  }, [poll]);
  const change = (partial: Partial<PollDraft>) => setPoll((p) => ({ ...p, ...partial }));
  return [poll, change, () => setPoll(EMPTY_POLL)];
}

type PollInput = NonNullable<Input<'posts.create'>['poll']>;

/** The poll part of posts.create, or null when no poll is added; 'incomplete' when it cannot be sent. */
export function pollInput(poll: PollDraft): PollInput | null | 'incomplete' {
  if (!poll.on) return null;
  const options = poll.options.map((o) => o.trim()).filter((o) => o !== '');
  if (options.length < 2 || new Set(options).size !== options.length) return 'incomplete';
  return { options, multiple: poll.multiple, durationSeconds: poll.durationSeconds, hideTotals: poll.hideTotals };
}
