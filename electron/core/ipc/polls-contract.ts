// The polls part of the IPC contract: voting in someone else's poll and the Polls place; the poll
// inside a post (PollView, part of PostView) and the poll builder's input are post-poll-contract.ts.
// Spread into contract.ts; the renderer imports only the types.
import { z } from 'zod';
import { POLL_LIMITS } from '../federation/polls/question';
import type { PostView } from './author-contract';
import { pollInputSchema, type PollView } from './post-poll-contract';

// The poll inside a post is declared in post-poll-contract.ts (author-contract.ts needs it for
// PostView, and this file needs PostView): re-exported here.
export { pollInputSchema, type PollView };

export interface PollsView {
  /** The author's polls: open ones first (ending soonest first), then closed ones, newest first. */
  items: PostView[];
}

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
