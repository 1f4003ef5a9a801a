// The polls service the IPC handlers call: the author's polls for the Polls place, and voting
// in someone else's poll.
import { and, desc, eq } from 'drizzle-orm';
import { outbox } from '../../../../db/schema';
import type { PostView } from '../../ipc/author-contract';
import type { PollsView } from '../../ipc/polls-contract';
import { requireLocal, type ActionDeps } from '../actions/deps';
import { actorsById, inboxPostView, outboxPostView, ownActorView } from '../actions/views';
import { voteInPoll } from './vote';

export type PollService = ReturnType<typeof createPollService>;

export function createPollService(deps: ActionDeps & { displayName: () => string }) {
  return {
    list(): PollsView {
      const me = ownActorView(requireLocal(deps), deps.displayName());
      const now = deps.clock();
      const rows = deps.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.apType, 'Question'), eq(outbox.isDeleted, false), eq(outbox.isTransient, false)))
        .orderBy(desc(outbox.apPublishedAt), desc(outbox.id))
        .all();
      const views = rows.map((row) => outboxPostView(row, me)).map((view) => ({ ...view, poll: view.poll && { ...view.poll, closed: view.poll.closed || isPast(view.poll.endTime, now) } }));
      // Open polls first, the one ending soonest on top; then the closed ones, newest first.
      const open = views.filter((v) => v.poll && !v.poll.closed).sort((a, b) => (a.poll!.endTime ?? '').localeCompare(b.poll!.endTime ?? ''));
      const closed = views.filter((v) => !v.poll || v.poll.closed);
      return { items: [...open, ...closed] };
    },
    vote(apId: string, choices: string[]): PostView {
      const row = voteInPoll(deps, apId, choices);
      return inboxPostView(row, actorsById(deps.db, [row.actorId]).get(row.actorId));
    },
  };
}

const isPast = (iso: string | null, now: Date) => iso !== null && Date.parse(iso) <= now.getTime();
