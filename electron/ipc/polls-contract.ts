// The polls part of the IPC contract: the poll inside a post (PollView, part of PostView), the
// poll builder's input to posts.create, voting in someone else's poll, and the Polls place.
// Spread into contract.ts; the renderer imports only the types.
import { z } from 'zod';
import { POLL_LIMITS } from '../federation/polls/question';
import type { PostView } from './author-contract';

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

export interface PollsView {
  /** The author's polls: open ones first (ending soonest first), then closed ones, newest first. */
  items: PostView[];
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

export const pollInputs = {
  'polls.list': z.object({}).strict(),
  'polls.vote': z
    .object({
      apId: z.string().trim().url().max(2048),
      choices: z.array(z.string().min(1).max(POLL_LIMITS.maxOptionChars * 2)).min(1).max(POLL_LIMITS.maxOptions),
    })
    .strict(),
} as const;

export interface PollOutputs {
  'polls.list': PollsView;
  'polls.vote': PostView;
}
