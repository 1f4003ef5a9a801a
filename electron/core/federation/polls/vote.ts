// The author votes in someone else's poll (reference §8 "Voting in a remote poll", with the
// checks the service behind the spec left to its UI): one Note per chosen option — `name` =
// the option, no content, `inReplyTo` = the Question, to the poll's author only — each stored
// as a transient outbox object and queued to the author's personal inbox; the choices are kept
// in the Question's voted_for_answers. All of it in one transaction, or nothing.
import { eq } from 'drizzle-orm';
import { inbox, type InboxObject } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { BadInputError, ConflictError, NotFoundError } from '../../errors';
import { httpUrl, idOf, type Json } from '../ap';
import { allocatePublicId, saveOutboxObject } from '../outbox-store';
import { findInbox } from '../process/store';
import { plainLabel } from '../sanitize';
import { targetOfActor } from '../recipients';
import { requireLocal, type ActionDeps } from '../actions/deps';
import { isClosed, pollOf } from './question';

export function voteInPoll(deps: ActionDeps, apId: string, choices: string[]): InboxObject {
  const local = requireLocal(deps);
  const now = deps.clock();
  const row = deps.db.transaction((tx) => {
    const question = findInbox(tx, apId);
    if (!question || question.apType !== 'Question' || question.isDeleted) throw new NotFoundError('That poll is not stored here (or was deleted).');
    const poll = pollOf(question.apObject as Json);
    if (!poll) throw new NotFoundError('That post has no poll to vote in.');
    if (question.votedForAnswers !== null) throw new ConflictError('You have already voted in this poll.');
    if (isClosed(poll, now)) throw new ConflictError('This poll has closed.');
    // The UI shows names as labels (markup and bidi controls removed: polls/view.ts); the vote carries the name as the poll
    // has it, or the poll's server would not recognise it.
    const chosen: string[] = [];
    for (const choice of new Set(choices)) {
      const option = poll.options.find((o) => o.name === choice) ?? poll.options.find((o) => plainLabel(o.name) === choice);
      if (!option) throw new BadInputError(`This poll has no option “${choice}”.`);
      if (!chosen.includes(option.name)) chosen.push(option.name);
    }
    if (chosen.length === 0) throw new BadInputError('Choose an option to vote.');
    if (poll.kind === 'oneOf' && chosen.length > 1) throw new BadInputError('This poll takes a single choice.');

    const object = question.apObject as Json;
    const context = httpUrl(idOf(object.context) ?? idOf(object.conversation));
    const target = targetOfActor(tx, question.apActorId, true);
    for (const name of chosen) {
      const publicId = allocatePublicId();
      const note = saveOutboxObject(tx, local, {
        publicId,
        apObject: {
          id: local.objectUrl(publicId),
          type: 'Note',
          attributedTo: local.id,
          name,
          inReplyTo: question.apId,
          to: [question.apActorId],
          cc: [],
          published: now.toISOString(),
          ...(context ? { context, conversation: context } : {}),
        },
        visibility: 'DIRECT',
        now,
        apContext: question.apContext,
        isTransient: true,
      });
      enqueueDeliveries(tx, { outboxObjectId: note.id, recipients: target ? [target] : [], now });
    }
    return tx.update(inbox).set({ votedForAnswers: chosen, updatedAt: now }).where(eq(inbox.id, question.id)).returning().get()!;
  });
  deps.wake();
  return row;
}
