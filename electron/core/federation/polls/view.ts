// A Question's poll as the UI shows it (PollView): options with their tallies (null where
// they are not known or withheld), how many voted, the end, whether it is over, and the
// author's own choices in someone else's poll. Remote JSON is read totally; names are shown as
// labels (plain text, no bidi controls).
import type { PollView } from '../../ipc/polls-contract';
import type { Json } from '../ap';
import { plainLabel } from '../sanitize';
import { isClosed, pollOf } from './question';

export function pollViewOf(object: Json, votedFor: string[] | null, now: Date = new Date()): PollView | null {
  const poll = pollOf(object);
  if (!poll) return null;
  const known = poll.options.map((o) => o.votes).filter((v): v is number => v !== null);
  // Some servers leave votersCount out (or at 0); for a single choice the options add up to it.
  const voters = poll.votersCount !== null && poll.votersCount > 0 ? poll.votersCount : poll.kind === 'oneOf' && known.length > 0 ? known.reduce((a, b) => a + b, 0) : poll.votersCount;
  return {
    kind: poll.kind,
    options: poll.options.map((o) => ({ name: plainLabel(o.name), votes: o.votes })),
    votersCount: voters,
    endTime: poll.endTime,
    closed: isClosed(poll, now),
    hideTotals: poll.hideTotals,
    myVotes: votedFor === null ? null : votedFor.map(plainLabel),
  };
}
