// Flag: a server forwards a report about the author (their actor and/or some of their posts),
// with the reporter's comment in `content`. Mastodon sends it from its instance actor, without
// an `id` and with `object` a list — so it gets a synthetic id (as the fork does, synthetic-id.ts),
// derived from its content so a redelivery is recognised as a duplicate. Stored, and a typeless notification
// (the spec has no REPORTED type) points at the Flag row with the reporting actor. A Flag that
// names nothing of ours is not ours to read.
import { notifications } from '../../../../db/schema';
import { idsOf } from '../ap';
import { isLocalActorId } from '../identity';
import { drop, processed, type ProcessDeps, type ProcessOutcome, type Received } from './context';
import { findInbox, findOutbox, persistActivity } from './store';

export async function onFlagged(deps: ProcessDeps, r: Received): Promise<ProcessOutcome> {
  const named = idsOf(r.activity.object);
  return deps.db.transaction((tx) => {
    const aboutUs = named.some((id) => isLocalActorId(id, deps.identity));
    const posts = named.map((id) => findOutbox(tx, id)).filter((row) => row !== undefined);
    if (!aboutUs && posts.length === 0) drop(`Flag of ${named.length === 0 ? 'nothing' : named.join(', ')}: nothing of ours`);
    if (findInbox(tx, r.id)) drop('duplicate: already processed');
    const flag = persistActivity(tx, {
      object: r.activity,
      apId: r.id,
      actor: r.actor,
      now: r.now,
      activityObjectApId: aboutUs ? deps.identity.id : posts[0]!.apId,
      relatesToOutboxObjectId: posts[0]?.id ?? null,
      relatesToInboxObjectId: null,
    });
    tx.insert(notifications).values({ createdAt: r.now, notificationType: null, isNew: true, actorId: r.actor.id, inboxObjectId: flag.id }).run();
    return processed(flag.id);
  });
}
