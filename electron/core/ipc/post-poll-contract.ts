// The poll inside a post (PollView, part of PostView) and the poll builder's input to
// posts.create: the part of the polls contract that author-contract.ts builds on, kept apart so
// that polls-contract.ts (which lists PostViews) and author-contract.ts do not import each other.
import { z } from 'zod';
import { POLL_LIMITS } from '../federation/polls/question';

export interface PollView {
  kind: 'oneOf' | 'anyOf';
  /** Tallies are null where not known, or withheld until the poll closes. */
  options: { name: string; votes: number | null }[];
  votersCount: number | null;
  /** ISO */
  endTime: string | null;
  closed: boolean;
  /** One of the author's polls whose totals others see only once it closes. */
  hideTotals: boolean;
  /** The author's choices in someone else's poll; null when they have not voted (or it is theirs). */
  myVotes: string[] | null;
}

/** The poll builder's part of posts.create. */
export const pollInputSchema = z
  .object({
    options: z
      .array(z.string().trim().min(1).max(POLL_LIMITS.maxOptionChars))
      .min(POLL_LIMITS.minOptions)
      .max(POLL_LIMITS.maxOptions)
      .refine((o) => new Set(o).size === o.length, 'must be different from each other'),
    multiple: z.boolean().default(false),
    durationSeconds: z.number().int().min(POLL_LIMITS.minSeconds).max(POLL_LIMITS.maxSeconds),
    hideTotals: z.boolean().default(false),
  })
  .strict();
