// Handlers of the polls channels (polls-contract.ts): one-line adapters over the poll service.
import type { z } from 'zod';
import type { Core } from '../core';
import type { pollInputs, PollOutputs } from './polls-contract';

type PollChannel = keyof typeof pollInputs;
export type PollHandlers = {
  [C in PollChannel]: (input: z.output<(typeof pollInputs)[C]>) => Promise<PollOutputs[C]> | PollOutputs[C];
};

export function createPollHandlers(core: Core): PollHandlers {
  const polls = core.services.polls;
  return {
    'polls.list': () => polls.list(),
    'polls.vote': ({ apId, choices }) => polls.vote(apId, choices),
  };
}
