// Votes on our polls: a Note whose `name` is one of the options, replying to one of our
// Questions (Mastodon's shape; see test/fixtures/README.md). Any other name makes it a reply:
// Friendica names every item that has a title, replies included. A valid vote is stored as a
// transient inbox object (kept out of the stream and of replies_count), becomes a poll_answer row,
// and the Question's tallies are recounted from poll_answer. A vote the poll cannot take — after
// it closed, the same option twice, a second choice in a single-choice poll — is dropped:
// processed with its reason, never retried, nothing stored.
// (The service behind the spec let the unique constraint fail and retried such votes until
// they errored: reference §8 and §13.10.)
import type { DbOrTx } from '../../../../db/client';
import type { Actor, InboxObject, OutboxObject } from '../../../../db/schema';
import { prepared } from '../../../../db/client';
import type { Json } from '../ap';
import { canView } from '../object-access';
import { isClosed, pollOf } from '../polls/question';
import { recountPoll } from '../polls/tallies';
import { drop } from './context';
import { persistInboxObject } from './store';

/** Whether a created object is a vote on one of our polls rather than a reply: its name is one
 * of the poll's options, as Mastodon decides (ActivityPub::Activity::Create#poll_vote?). */
export function isPollVote(object: Json, parent: OutboxObject | undefined): boolean {
  if (parent?.apType !== 'Question' || typeof object.name !== 'string' || object.name === '') return false;
  const options = pollOf(parent.apObject as Json)?.options ?? [];
  return options.some((o) => o.name === object.name);
}

/** Drops (ActivityDropped) a vote the poll cannot take; returns the poll's kind otherwise. */
export function checkVote(db: DbOrTx, question: OutboxObject, actor: Pick<Actor, 'id' | 'apId'>, name: string, now: Date): 'oneOf' | 'anyOf' {
  const poll = pollOf(question.apObject as Json);
  if (question.isDeleted) drop('vote on a deleted poll');
  // A followers-only or direct poll takes votes only from those it was shown to.
  if (!canView(db, question, actor.apId)) drop('vote from an actor who cannot see the poll');
  if (!poll) drop('vote on a Question without options');
  if (isClosed(poll, now)) drop('vote after the poll closed');
  if (!poll.options.some((o) => o.name === name)) drop(`vote for an option the poll does not have: ${JSON.stringify(name.slice(0, 100))}`);
  const earlier = prepared<[number, number], string>(db, 'SELECT name FROM poll_answer WHERE outbox_object_id = ? AND actor_id = ?')
    .pluck()
    .all(question.id, actor.id);
  if (earlier.includes(name)) drop('duplicate vote: this actor already chose this option');
  if (poll.kind === 'oneOf' && earlier.length > 0) drop('second vote on a single-choice poll');
  return poll.kind;
}

export function onPollVoted(
  tx: DbOrTx,
  input: { vote: Json; voteId: string; question: OutboxObject; actor: Actor; now: Date; createRowId: number },
): InboxObject {
  const name = input.vote.name as string;
  const kind = checkVote(tx, input.question, input.actor, name, input.now);
  const row = persistInboxObject(tx, {
    object: input.vote,
    apId: input.voteId,
    actor: input.actor,
    now: input.now,
    hidden: true,
    isTransient: true,
    relatesToInboxObjectId: input.createRowId,
    relatesToOutboxObjectId: input.question.id,
  });
  prepared(tx, 'INSERT INTO poll_answer (created_at, outbox_object_id, poll_type, inbox_object_id, actor_id, name) VALUES (?, ?, ?, ?, ?, ?)').run(
    input.now.toISOString(),
    input.question.id,
    kind,
    row.id,
    input.actor.id,
    name,
  );
  recountPoll(tx, input.question, input.now);
  return row;
}
