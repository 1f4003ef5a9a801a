// Queued activities that must no longer go out, decided when the payload is built (so a row
// revived by "Retry now", or one queued before the author changed their mind, is caught too):
// an activity the author undid, an edit of a post deleted since, and a Delete for a server that
// never had (nor may have had) the post, a QuoteRequest for a quote post deleted since. Each answer is the reason the author sees on the row.
// Also: a dropped follower's waiting rows of posts they may no longer see.
import { and, eq, inArray, isNull, or, isNotNull } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { outbox, outgoingActivity, type OutboxObject, type OutgoingActivity } from '../../../db/schema';
import { hostOfRecipient } from '../delivery/addresses';
import type { Json } from './ap';
import type { LocalActor } from './identity';
import { computeRecipients, followerInboxes, postActivityIds, targetOfActor } from './recipients';

const POST_TYPES: readonly string[] = ['Note', 'Article', 'Question'];

type Own = Pick<OutboxObject, 'apType' | 'isDeleted' | 'undoneByOutboxObjectId' | 'relatesToOutboxObjectId'>;

/** Why `own` (an outbox activity, not a post) is not sent on `row`, or null when it is. */
export function withheldReason(db: DbOrTx, row: OutgoingActivity, own: Own): string | null {
  if (POST_TYPES.includes(own.apType)) return null;
  const host = hostOfRecipient(row.recipient);
  // An undone Follow or Like sent after its Undo would stand again at the peer (it processes
  // them in the order received): the Undo queued behind it is all that is still needed.
  if (own.undoneByOutboxObjectId !== null) return `The ${own.apType} was undone before it reached ${host}; not sent.`;
  const post = own.relatesToOutboxObjectId === null ? undefined : db.select().from(outbox).where(eq(outbox.id, own.relatesToOutboxObjectId)).get();
  const ofPost = post !== undefined && POST_TYPES.includes(post.apType);
  // Mastodon turns an Update of a status it does not know into a Create (update.rb): the deleted
  // post would appear there, with its edited text, until the Delete lands.
  if (own.apType === 'Update' && ofPost && post.isDeleted) return `The post was deleted before this edit reached ${host}; not sent.`;
  // A quote's approval asked for a post that no longer exists: nothing to approve.
  if (own.apType === 'QuoteRequest' && ofPost && post.isDeleted) return `The quoting post was deleted before its quote request reached ${host}; not sent.`;
  if (own.isDeleted && own.apType !== 'Delete') return `The ${own.apType} was withdrawn before it reached ${host}; not sent.`;
  if (own.apType === 'Delete' && ofPost && !mayHaveReached(db, postActivityIds(db, post.id), row.recipient)) {
    return `${host} never received the post; no Delete needed.`;
  }
  return null;
}

/** Whether a Create or Update of the post was sent, or a request of it left Tern (last_try: it
 * may have arrived, answered or not — Tern stopped, the network dropped, a crash), to this
 * recipient or to another inbox on its server (a shared inbox and a personal one). A try that
 * never left (refused, stopped before its request went out) leaves no last_try (delivery/loop.ts). */
function mayHaveReached(db: DbOrTx, carriers: number[], recipient: string): boolean {
  const rows = db
    .selectDistinct({ recipient: outgoingActivity.recipient })
    .from(outgoingActivity)
    .where(
      and(
        inArray(outgoingActivity.outboxObjectId, carriers),
        isNull(outgoingActivity.webmentionTarget),
        or(eq(outgoingActivity.isSent, true), isNotNull(outgoingActivity.lastTry)),
      ),
    )
    .all();
  const host = hostOfRecipient(recipient);
  return rows.some((r) => r.recipient === recipient || hostOfRecipient(r.recipient) === host);
}

const CLOSED = ['FOLLOWERS_ONLY', 'DIRECT'] as const;

/**
 * After a follower is dropped (removed by the author, an Undo of their Follow, their Block):
 * their inboxes' waiting rows of followers-only and direct posts (Create or Update) are
 * cancelled, unless the inbox still serves someone the
 * post addresses (a shared inbox with another follower, an addressee). Otherwise the post went
 * out to them offline-queued, before the Reject. Returns how many rows were cancelled.
 */
export function cancelForFormerFollower(db: DbOrTx, local: LocalActor, actorApId: string): number {
  const inboxes = [targetOfActor(db, actorApId), targetOfActor(db, actorApId, true)].filter((x): x is string => x !== null);
  if (inboxes.length === 0) return 0;
  const waiting = db
    .select({ row: outgoingActivity, own: outbox })
    .from(outgoingActivity)
    .innerJoin(outbox, eq(outbox.id, outgoingActivity.outboxObjectId))
    .where(
      and(
        inArray(outgoingActivity.recipient, inboxes),
        eq(outgoingActivity.isSent, false),
        eq(outgoingActivity.isErrored, false),
        isNull(outgoingActivity.webmentionTarget),
        inArray(outbox.visibility, [...CLOSED]),
      ),
    )
    .all();
  // The followers' inboxes once for all the rows: read again for each waiting row, 20 posts
  // waiting for a server of 10,000 followers held the thread 2.1–2.5 s (removing a follower).
  let followers: string[] | null = null;
  const followersOnce = () => (followers ??= followerInboxes(db));
  let cancelled = 0;
  for (const { row, own } of waiting) {
    const post = POST_TYPES.includes(own.apType)
      ? own
      : own.apType === 'Update' && own.relatesToOutboxObjectId !== null
        ? db.select().from(outbox).where(eq(outbox.id, own.relatesToOutboxObjectId)).get()
        : undefined;
    if (post === undefined || !POST_TYPES.includes(post.apType)) continue;
    if (computeRecipients(db, local, post.apObject as Json, followersOnce).includes(row.recipient)) continue;
    const reason = `No one at ${hostOfRecipient(row.recipient)} may see this post any more (they no longer follow you); not sent.`;
    cancelled += db
      .update(outgoingActivity)
      .set({ isErrored: true, nextTry: null, error: reason })
      .where(and(eq(outgoingActivity.id, row.id), eq(outgoingActivity.isSent, false)))
      .run().changes;
  }
  return cancelled;
}
