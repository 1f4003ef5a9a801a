// Handlers of the polls channels (polls-contract.ts): one-line adapters over the poll service.
import type { z } from 'zod';
import type { PollService } from '../federation/polls/service';
import type { pollInputs, PollOutputs } from './polls-contract';

type PollChannel = keyof typeof pollInputs;
export type PollHandlers = {
  [C in PollChannel]: (input: z.output<(typeof pollInputs)[C]>) => Promise<PollOutputs[C]> | PollOutputs[C];
};

/** The part of the core the polls handlers use. */
export interface PollHandlersCore {
  services: { polls: PollService };
}

export function createPollHandlers(core: PollHandlersCore): PollHandlers {
  const polls = core.services.polls;
  return {
    'polls.list': () => polls.list(),
    'polls.vote': ({ apId, choices }) => polls.vote(apId, choices),
  };
}
