// Handlers of the author's channels (author-contract.ts): one-line adapters over the author
// service, the delivery queue and the connectivity watch.
import type { z } from 'zod';
import type { Db } from '../../../db/client';
import type { ConnectivityWatch } from '../connectivity/watch';
import type { AuthorService } from '../federation/actions';
import type { SettingsStore } from '../settings';
import { waitingToSend } from '../delivery/status';
import type { authorInputs, AuthorOutputs, ConnectivityView } from './author-contract';

type AuthorChannel = keyof typeof authorInputs;
export type AuthorHandlers = {
  [C in AuthorChannel]: (input: z.output<(typeof authorInputs)[C]>) => Promise<AuthorOutputs[C]> | AuthorOutputs[C];
};

/** The part of the core the author's handlers use. */
export interface AuthorHandlersCore {
  db: Db;
  services: { author: AuthorService };
  connectivity: Pick<ConnectivityWatch, 'state'>;
  settings: Pick<SettingsStore, 'update'>;
}

export function createAuthorHandlers(core: AuthorHandlersCore): AuthorHandlers {
  const author = core.services.author;
  const connectivity = (): ConnectivityView => {
    const waiting = waitingToSend(core.db);
    return { ...core.connectivity.state(), queued: waiting.deliveries, waiting };
  };
  return {
    'posts.create': (input) => author.createPost(input),
    'posts.edit': (input) => author.editPost(input),
    'posts.delete': ({ apId }) => author.deletePost(apId),
    'posts.pin': ({ apId }) => author.setPinned(apId, true),
    'posts.unpin': ({ apId }) => author.setPinned(apId, false),
    'posts.like': ({ apId }) => author.like(apId),
    'posts.unlike': ({ apId }) => author.unlike(apId),
    'posts.boost': ({ apId }) => author.boost(apId),
    'posts.unboost': ({ apId }) => author.unboost(apId),
    'posts.bookmark': ({ apId }) => author.bookmark(apId, true),
    'posts.unbookmark': ({ apId }) => author.bookmark(apId, false),
    'social.follow': ({ target }) => author.follow(target),
    'social.unfollow': ({ actorApId }) => author.unfollow(actorApId),
    'social.acceptRequest': ({ inboxObjectId }) => author.acceptRequest(inboxObjectId),
    'social.rejectRequest': ({ inboxObjectId }) => author.rejectRequest(inboxObjectId),
    'social.removeFollower': ({ actorApId }) => author.removeFollower(actorApId),
    'quotes.revoke': ({ inboxObjectId }) => author.revokeQuote(inboxObjectId),
    'quotes.allowAgain': ({ inboxObjectId }) => author.allowQuote(inboxObjectId),
    'quotes.askAgain': ({ apId }) => author.askQuoteAgain(apId),
    'lookup.resolve': ({ query }) => author.lookup(query),
    'posts.quoted': ({ apId, by }) => author.quoted(apId, by),
    'thread.get': ({ apId, cursor, limit }) => author.thread(apId, { cursor: cursor ?? null, limit }),
    'timeline.stream': (page) => author.stream(page),
    'timeline.profile': (page) => author.profile(page),
    'people.list': ({ limit }) => author.people(limit),
    'people.page': ({ list, cursor, limit }) => author.peoplePage(list, { cursor: cursor ?? null, limit }),
    'deliveries.list': (input) => author.deliveries(input),
    'deliveries.retryNow': ({ id }) => author.retryNow(id),
    'connectivity.get': () => connectivity(),
    'connectivity.setWorkOffline': ({ workOffline }) => {
      core.settings.update({ workOffline });
      return connectivity();
    },
  };
}
