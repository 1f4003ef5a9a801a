// The delivery loop's resolution step for rows queued by address (delivery/addresses.ts):
// a post written offline to @bob@host, or to an actor whose document is not cached, is queued
// with `acct:bob@host` / `actor:<id>`; once online the loop hands such a row here. Resolving
// caches the actor, then in one transaction:
//   * links the mention in every post waiting for it that has not gone out to anyone yet —
//     re-rendered content, a Mention tag, the person addressed — so the post everyone receives
//     is the one the author meant (the loop holds a post's other rows back for a few tries);
//   * points every row waiting for that address at the person's inbox, dropping rows that
//     would now deliver the same activity to an inbox that already has (or will get) it.
import { and, eq, gt, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../../db/client';
import { outbox, outgoingActivity, type Actor, type OutgoingActivity } from '../../../../db/schema';
import type { FederationContext } from '../../ports';
import { parseRecipient } from '../../delivery/addresses';
import type { ResolveOutcome } from '../../delivery/loop';
import { BadInputError, NotFoundError } from '../../errors';
import { getOrFetchActor } from '../actors';
import type { LocalActor } from '../identity';
import { resolveHandle } from '../lookup';
import { isPostType, type ApObject } from '../outbox';
import { inboxOfActor } from '../recipients';
import { addressedPeople, buildPostObject, fieldsOf, mentionsOf } from './post-object';
import type { Json } from '../ap';

export interface DeferredDeps {
  db: Db;
  fed: FederationContext;
  clock: () => Date;
  local: LocalActor;
}

export async function resolveQueuedAddress(deps: DeferredDeps, row: OutgoingActivity): Promise<ResolveOutcome> {
  const target = parseRecipient(row.recipient);
  if (!target || target.kind === 'inbox') return { kind: 'gone', reason: `“${row.recipient}” is not a recipient Tern understands.` };
  const who = target.kind === 'acct' ? target.handle : target.url;
  let person: Actor;
  try {
    person = target.kind === 'acct' ? await resolveHandle(deps, target.handle) : await getOrFetchActor(deps, target.url);
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof BadInputError) {
      return { kind: 'gone', reason: `Could not find ${who}: ${error.message}` };
    }
    return { kind: 'retry', reason: `Could not look up ${who}: ${(error as Error).message}` };
  }
  const inboxUrl = inboxOfActor(person, true);
  if (!inboxUrl) return { kind: 'gone', reason: `${who} has no inbox to deliver to.` };

  deps.db.transaction((tx) => {
    const waiting = tx
      .select()
      .from(outgoingActivity)
      .where(and(eq(outgoingActivity.recipient, row.recipient), eq(outgoingActivity.isSent, false), eq(outgoingActivity.isErrored, false)))
      .all();
    if (target.kind === 'acct') {
      for (const id of new Set(waiting.map((w) => w.outboxObjectId))) if (id !== null) linkMention(tx, deps.local, id, target.handle, person);
    }
    for (const w of waiting) {
      const duplicate =
        w.outboxObjectId !== null &&
        tx
          .select({ id: outgoingActivity.id })
          .from(outgoingActivity)
          .where(
            and(
              eq(outgoingActivity.outboxObjectId, w.outboxObjectId),
              eq(outgoingActivity.recipient, inboxUrl),
              or(eq(outgoingActivity.isSent, true), and(eq(outgoingActivity.isErrored, false), lt(outgoingActivity.id, w.id))),
            ),
          )
          .get() !== undefined;
      if (duplicate) tx.delete(outgoingActivity).where(eq(outgoingActivity.id, w.id)).run();
      else tx.update(outgoingActivity).set({ recipient: inboxUrl }).where(eq(outgoingActivity.id, w.id)).run();
    }
  });
  return { kind: 'resolved' };
}

/**
 * Links a mention that resolved late into a post, if nothing of that post has been attempted to
 * anyone yet (once a server may have it, the post is what it is). Returns whether it changed.
 */
export function linkMention(tx: DbOrTx, local: LocalActor, postId: number, handle: string, person: Actor): boolean {
  const post = tx.select().from(outbox).where(eq(outbox.id, postId)).get();
  if (!post || !isPostType(post.apType) || post.isDeleted) return false;
  const attempted = tx
    .select({ id: outgoingActivity.id })
    .from(outgoingActivity)
    .where(
      and(
        eq(outgoingActivity.outboxObjectId, postId),
        // last_try: written as a request leaves (delivery/store.ts claim), so a Create still
        // waiting for its answer counts as attempted.
        or(eq(outgoingActivity.isSent, true), gt(outgoingActivity.tries, 0), isNotNull(outgoingActivity.lastTry)),
        sql`${outgoingActivity.recipient} NOT LIKE 'acct:%'`,
      ),
    )
    .get();
  if (attempted) return false;
  const object = post.apObject as ApObject;
  const existing = mentionsOf(object as Json);
  if (existing.some((m) => m.href === person.apId)) return false;
  const built = buildPostObject({
    local,
    id: post.apId,
    fields: fieldsOf(object as Json, post.source, post.visibility),
    mentions: [...existing, { href: person.apId, name: handle }],
    alsoAddressed: addressedPeople(local, object as Json),
    inReplyTo: typeof object.inReplyTo === 'string' ? object.inReplyTo : null,
    context: typeof object.context === 'string' ? object.context : null,
    published: String(object.published ?? post.apPublishedAt.toISOString()),
    ...(typeof object.updated === 'string' ? { updated: object.updated } : {}),
    base: object,
  });
  tx.update(outbox).set({ apObject: built.object }).where(eq(outbox.id, post.id)).run();
  return true;
}
