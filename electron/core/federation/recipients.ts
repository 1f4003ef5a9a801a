// Who receives what we publish (reference §5.1): the audience of an object or activity
// (to/cc/bto/bcc) turned into a SET of delivery targets, so every shared inbox gets exactly one
// row. Our followers collection expands to each follower's shared inbox (or own inbox); a cached
// actor gives its shared inbox (or own inbox); an actor whose document is not cached gives an
// `actor:` address the delivery loop resolves once online — so computing recipients never
// needs the network and posting works offline.
import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import { prepared, type DbOrTx } from '../../../db/client';
import { actor, outbox, outgoingActivity, OWN_INBOX_SQL, SHARED_INBOX_SQL, type Actor } from '../../../db/schema';
import { actorAddress } from '../delivery/addresses';
import { PUBLIC, httpUrl, idsOf, inboxOf, type Json } from './ap';
import { isLocalActorId, isLocalUrl, type LocalActor } from './identity';

const PUBLIC_ALIASES = new Set([PUBLIC, 'as:Public', 'Public']);

/** The inbox a cached actor receives at: its shared inbox when it has one (an `endpoints`
 * object; a string `endpoints` is an IRI we do not fetch, so the actor's own inbox), else its
 * own inbox. `personal` forces the actor's own inbox (Like, Follow, Accept…: §5.1). */
export function inboxOfActor(row: Pick<Actor, 'apActor'>, personal = false): string | null {
  return inboxOf(row.apActor as Json, !personal);
}

// Each follower's shared inbox and own inbox, read from the index of where actors receive
// (ix_actor_inboxes, revision ae35abd14d3a), looked up by follower: no follower's document is
// read. Anyone may follow, with a document of their choosing: decoding each follower's document
// to find its inbox held the main thread 114–228 ms for every post at 10,000 followers with 4 KB
// documents; from the index, 2–4 ms. The index reads the shapes inboxOf reads, but for an
// `endpoints` array past its first item (to the own inbox then: it reaches the actor too).
// Named (INDEXED BY): looking an actor up by id, SQLite takes the table's own key instead, and
// reads each document to work the values out again.
export const FOLLOWER_INBOXES = `
SELECT ${SHARED_INBOX_SQL} AS shared, ${OWN_INBOX_SQL} AS own
FROM actor INDEXED BY ix_actor_inboxes WHERE id IN (SELECT actor_id FROM follower)`;

/** One target per follower (its shared inbox, else its own): shared inboxes collapse into one. */
export function followerInboxes(db: DbOrTx): string[] {
  const rows = prepared<[], { shared: unknown; own: unknown }>(db, FOLLOWER_INBOXES).all();
  // Each text checked once: a shared inbox is the same text for all its followers.
  const checked = new Map<string, string | null>();
  const url = (value: unknown): string | null => {
    if (typeof value !== 'string') return null;
    let href = checked.get(value);
    if (href === undefined) checked.set(value, (href = httpUrl(value)));
    return href;
  };
  const inboxes = new Set<string>();
  for (const row of rows) {
    const inbox = url(row.shared) ?? url(row.own);
    if (inbox) inboxes.add(inbox);
  }
  return [...inboxes];
}

/** Where one actor receives: the cached actor's inbox (shared preferred unless `personal`),
 * else an `actor:` address resolved at delivery time. */
export function targetOfActor(db: DbOrTx, actorId: string, personal = false): string | null {
  if (!httpUrl(actorId)) return null;
  const row = db.select({ apActor: actor.apActor }).from(actor).where(eq(actor.apId, actorId)).get();
  if (row) return inboxOfActor(row, personal) ?? actorAddress(actorId);
  return actorAddress(actorId);
}

/** The audience of an object or activity as delivery targets (deduplicated). `followers`: the
 * followers' inboxes, for a caller that asks of many objects at once (read once, not per object). */
export function computeRecipients(db: DbOrTx, local: LocalActor, object: Json, followers: () => string[] = () => followerInboxes(db)): string[] {
  const targets = new Set<string>();
  const audience = ['to', 'cc', 'bto', 'bcc'].flatMap((key) => idsOf(object[key]));
  for (const id of new Set(audience)) {
    if (PUBLIC_ALIASES.has(id) || isLocalActorId(id, local)) continue;
    if (id === local.followers) {
      for (const inbox of followers()) targets.add(inbox);
      continue;
    }
    // Our other collections (following, featured) are not audiences anyone delivers to.
    if (isLocalUrl(id, local)) continue;
    const target = targetOfActor(db, id);
    if (target) targets.add(target);
  }
  return [...targets];
}

/** Where earlier activities about these outbox rows went (an edit or deletion reaches everyone
 * the original did, even followers who left since). */
export function earlierRecipients(db: DbOrTx, outboxObjectIds: number[]): string[] {
  if (outboxObjectIds.length === 0) return [];
  const rows = db
    .selectDistinct({ recipient: outgoingActivity.recipient })
    .from(outgoingActivity)
    // Webmention rows go to endpoints, not inboxes: an Update or Delete is never POSTed there.
    .where(and(inArray(outgoingActivity.outboxObjectId, outboxObjectIds), isNotNull(outgoingActivity.recipient), isNull(outgoingActivity.webmentionTarget)))
    .all();
  return rows.map((r) => r.recipient);
}

/** Our own activities that carried a post: the post row and its Update rows. */
export function postActivityIds(db: DbOrTx, postId: number): number[] {
  const updates = db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.relatesToOutboxObjectId, postId), eq(outbox.apType, 'Update')))
    .all();
  return [postId, ...updates.map((u) => u.id)];
}
