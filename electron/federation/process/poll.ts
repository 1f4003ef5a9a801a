// Votes on our polls: a Note with a `name` (the chosen option) replying to one of our Questions
// (Mastodon's shape; see test/fixtures/README.md). Polls are a later issue; for now the vote is
// stored as a transient inbox object (kept out of the stream and of replies_count) and nothing
// else happens. The poll work belongs here: validate the option and the end time, insert the
// poll_answer row (a duplicate vote must be a no-op, not an error — reference §13.10), recompute
// the Question's tallies from poll_answer, and queue the Question's Update.
import type { DbOrTx } from '../../../db/client';
import type { Actor, InboxObject, OutboxObject } from '../../../db/schema';
import type { Json } from '../ap';
import { persistInboxObject } from './store';

/** Whether a created object is a vote on one of our polls rather than a reply. */
export function isPollVote(object: Json, parent: OutboxObject | undefined): boolean {
  return parent?.apType === 'Question' && typeof object.name === 'string' && object.name !== '';
}

export function onPollVoted(
  tx: DbOrTx,
  input: { vote: Json; voteId: string; question: OutboxObject; actor: Actor; now: Date; createRowId: number },
): InboxObject {
  return persistInboxObject(tx, {
    object: input.vote,
    apId: input.voteId,
    actor: input.actor,
    now: input.now,
    hidden: true,
    isTransient: true,
    relatesToInboxObjectId: input.createRowId,
  });
}
