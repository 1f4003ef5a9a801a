// The author's actions and reads as one service, returning the views of the IPC contract.
// The IPC handlers are one-line adapters over these methods.
import type {
  LookupView,
  QuotedView,
  PageOf,
  PeopleView,
  PersonView,
  PostView,
  ProfilePost,
  ThreadView,
  FollowStateName,
  ActorView,
  DeliveriesView,
} from '../../ipc/author-contract';
import { listDeliveries, retryNow, type QueueContext } from '../../delivery/status';
import { follower, following, inbox, outbox } from '../../../../db/schema';
import { BadInputError, NotFoundError } from '../../errors';
import { eq } from 'drizzle-orm';
import { str, type Json } from '../ap';
import { lookup } from '../lookup';
import { sanitizeStoredHtml } from '../sanitize-stored';
import { createPost, editPost, type EditInput, type PostInput } from './compose';
import { requireLocal, type ActionDeps } from './deps';
import { boost, like, setBookmarked, unboost, unlike } from './interactions';
import { listPeople, listPeopleKnown, peopleByAccount, peoplePage, relationOf, type PeopleList } from './people';
import { deletePost, setPinned } from './posts';
import { allowQuoteAgain, revokeQuoteApproval, type AllowedQuote, type RevokedQuote } from './quote-approvals';
import { askQuoteAgain } from './quote-requests';
import { acceptRequest, follow, followStateOf, rejectRequest, removeFollower, unfollow } from './social';
import { getThread } from './thread';
import { createReads } from './reads';
import { homeStream, profilePost, profilePosts } from './timeline';
import { actorsById, actorView, inboxPostView, outboxPostView, ownActorView } from './views';
import type { InboxObject } from '../../../../db/schema';

export interface AuthorServiceDeps extends ActionDeps {
  /** The author's display name (settings). */
  displayName: () => string;
  /** What the delivery loop is doing now, for delivery states. */
  queue: () => QueueContext;
}

export type AuthorService = ReturnType<typeof createAuthorService>;

export function createAuthorService(deps: AuthorServiceDeps) {
  const me = (): ActorView => ownActorView(requireLocal(deps), deps.displayName());
  const inboxView = (row: InboxObject): PostView => inboxPostView(row, actorsById(deps.db, [row.actorId]).get(row.actorId));
  const page = (input: { cursor?: string | null; limit?: number }) => ({ cursor: input.cursor ?? null, limit: input.limit ?? 30 });

  async function lookupView(query: string): Promise<LookupView> {
    const local = requireLocal(deps);
    const found = await lookup({ db: deps.db, fed: deps.fed, clock: deps.clock, local }, query);
    if (found.kind === 'own') return { kind: 'post', post: outboxPostView(found.row, me()) };
    if (found.kind === 'object') return { kind: 'post', post: inboxView(found.row) };
    const summary = str((found.actor.apActor as Json).summary);
    return {
      kind: 'actor',
      actor: actorView(found.actor),
      followState: followStateOf(deps.db, found.actor),
      summaryHtml: summary ? sanitizeStoredHtml(summary) : null,
      followsYou: deps.db.select({ id: follower.id }).from(follower).where(eq(follower.actorId, found.actor.id)).get() !== undefined,
    };
  }

  return {
    /** Reads by row and key (the Mastodon client API). */
    reads: createReads(deps.db, me, deps.clock),
    async createPost(input: PostInput): Promise<ProfilePost> {
      return profilePost(deps.db, me(), await createPost(deps, input), deps.queue(), deps.clock());
    },
    async editPost(input: EditInput): Promise<ProfilePost> {
      return profilePost(deps.db, me(), await editPost(deps, input), deps.queue(), deps.clock());
    },
    deletePost: (apId: string) => deletePost(deps, apId),
    setPinned: (apId: string, pinned: boolean): ProfilePost => profilePost(deps.db, me(), setPinned(deps, apId, pinned), deps.queue(), deps.clock()),
    like: async (apId: string) => inboxView(await like(deps, apId)),
    unlike: (apId: string) => inboxView(unlike(deps, apId)),
    boost: async (apId: string) => inboxView(await boost(deps, apId)),
    unboost: (apId: string) => inboxView(unboost(deps, apId)),
    bookmark: async (apId: string, on: boolean) => inboxView(await setBookmarked(deps, apId, on)),

    async follow(target: string): Promise<{ actor: ActorView; state: FollowStateName }> {
      const result = await follow(deps, target);
      return { actor: actorView(result.actor), state: result.state };
    },
    unfollow(actorApId: string): { actor: ActorView; state: FollowStateName } {
      const result = unfollow(deps, actorApId);
      return { actor: actorView(result.actor), state: followStateOf(deps.db, result.actor) };
    },
    acceptRequest: (inboxObjectId: number) => acceptRequest(deps, inboxObjectId),
    rejectRequest: (inboxObjectId: number) => rejectRequest(deps, inboxObjectId),
    removeFollower: (actorApId: string) => removeFollower(deps, actorApId),
    /** Takes back the approval of one quote (the QuoteRequest's inbox row id). */
    revokeQuote: (inboxObjectId: number): RevokedQuote => revokeQuoteApproval(deps, inboxObjectId),
    /** Lets a quote whose approval the author revoked be approved when asked again (the same id). */
    allowQuote: (inboxObjectId: number): AllowedQuote => allowQuoteAgain(deps, inboxObjectId),
    /** Asks again for the approval of the author's quote post `apId`, which no answer came for. */
    askQuoteAgain: (apId: string): ProfilePost => profilePost(deps.db, me(), askQuoteAgain(deps, apId), deps.queue(), deps.clock()),

    lookup: lookupView,
    /** The post `apId` that the post `by` quotes (QuotedView): a stored one at once; another
     * fetched only when `by` is the author's own or from someone they follow (as link previews:
     * a stranger's post never makes Tern contact a server of its choosing unasked). */
    async quoted(apId: string, by: string): Promise<QuotedView> {
      const own = deps.db.select().from(outbox).where(eq(outbox.apId, apId)).get();
      if (own) return { kind: 'post', post: outboxPostView(own, me()) };
      const stored = deps.db.select().from(inbox).where(eq(inbox.apId, apId)).get();
      if (stored) return { kind: 'post', post: inboxView(stored) };
      const byOwn = deps.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.apId, by)).get() !== undefined;
      const quoting = byOwn ? null : deps.db.select({ actor: inbox.apActorId }).from(inbox).where(eq(inbox.apId, by)).get();
      const followed = quoting ? deps.db.select({ id: following.id }).from(following).where(eq(following.apActorId, quoting.actor)).get() !== undefined : false;
      if (!byOwn && !followed) return { kind: 'ask' };
      try {
        const found = await lookupView(apId);
        return found.kind === 'post' ? { kind: 'post', post: found.post } : { kind: 'gone' };
      } catch (error) {
        // Not there, or not a post Tern can look up (an address of the author's own server that is no post).
        if (error instanceof NotFoundError || error instanceof BadInputError) return { kind: 'gone' };
        throw error;
      }
    },
    thread: (apId: string, input: { cursor?: string | null; limit?: number } = {}): Promise<ThreadView> => getThread(deps, me(), apId, { cursor: input.cursor ?? null, limit: input.limit ?? 50 }),
    stream: (input: { cursor?: string | null; limit?: number }): PageOf<PostView> => homeStream(deps.db, me(), page(input), deps.clock()),
    profile: (input: { cursor?: string | null; limit?: number }): PageOf<ProfilePost> => profilePosts(deps.db, me(), page(input), deps.queue(), deps.clock()),
    people: (limit?: number): PeopleView => listPeople(deps.db, limit),
    /** The People view without the follow requests, a relationship, a page by account id: the
     * Mastodon client API's reads (people.ts). */
    peopleKnown: () => listPeopleKnown(deps.db),
    relationOf: (actorId: number) => relationOf(deps.db, actorId),
    peopleByAccount: (list: PeopleList, input: Parameters<typeof peopleByAccount>[2]) => peopleByAccount(deps.db, list, input),
    peoplePage: (list: PeopleList, input: { cursor?: string | null; limit?: number }): PageOf<PersonView> => peoplePage(deps.db, list, page(input)),
    deliveries: (input: { cursor?: string | null; limit?: number; state?: 'all' | 'pending' | 'failed' | 'sent'; postApId?: string }): DeliveriesView =>
      listDeliveries(deps.db, { ...page(input), state: input.state ?? 'all', ...(input.postApId ? { postApId: input.postApId } : {}) }, deps.queue()),
    retryNow(id?: number): { retried: number } {
      const retried = retryNow(deps.db, deps.clock(), id);
      deps.wake();
      return { retried };
    },
  };
}
