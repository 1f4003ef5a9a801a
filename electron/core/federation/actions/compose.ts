// Posting and editing (reference §1 Authoring, §5.1). Everything that needs the network — the
// parent of a reply, the people mentioned — is looked up first, with short deadlines and never
// when offline; then ONE transaction writes the outbox row, its tags and one outgoing_activity
// row per recipient. A post written offline is saved and queued like any other; recipients
// whose inbox is not known yet are queued by address and resolved by the delivery loop.
import { and, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { DbOrTx } from '../../../../db/client';
import { inbox, outbox, storedValue, taggedOutboxObject, type JsonValue, type OutboxObject, type Visibility } from '../../../../db/schema';
import { enqueueDeliveries } from '../../delivery/queue';
import { queueWebmentions } from '../../webmention/send';
import { acctAddress } from '../../delivery/addresses';
import { BadInputError, ConflictError, NotFoundError } from '../../errors';
import { httpUrl, idOf, type Json } from '../ap';
import type { LocalActor } from '../identity';
import { findOrFetchObject } from '../lookup';
import { AP_CONTEXT, isPostType, queuePostUpdate, type ApObject } from '../outbox';
import { quoteFields, toQuoteRequest, withQuoteFallback } from '../quoting';
import { quotedIdOf } from '../quotes';
import { findQuoteTarget, type QuoteTarget } from './quote-target';
import { allocatePublicId, saveOutboxObject } from '../outbox-store';
import { recountReplies } from '../process/counters';
import { computeRecipients } from '../recipients';
import { requireLocal, type ActionDeps } from './deps';
import { resolveMentions } from './mentions';
import { addressedPeople, buildPost, fieldsOf, mentionsOf } from './post-object';
import { scanPostAnywhere } from './render-off-thread';
import { questionFields, type PollSpec } from '../polls/question';
import { linkAttachments, resolveAttachments, toApAttachments, type AttachmentInput } from '../../media/attachments';
import { withoutNul } from '../../without-nul';

export interface PostInput {
  /** Markdown. */
  content: string;
  /** Makes the post an Article. */
  title?: string | null;
  visibility: Visibility;
  /** Content warning. */
  summary?: string | null;
  sensitive?: boolean;
  inReplyTo?: string | null;
  /** People to address besides those written as @user@host: handles or actor URLs. */
  mentions?: string[];
  /** Makes the post a poll (a Question): its text is the question. */
  poll?: PollSpec | null;
  /** Uploaded files (media.upload*), with alt text. */
  attachments?: AttachmentInput[];
  /** The id of a post to quote (quoting.ts): public or unlisted, the author's or someone's. */
  quote?: string | null;
}

export interface EditInput {
  apId: string;
  content: string;
  /** undefined keeps the title; null removes it. */
  title?: string | null;
  summary?: string | null;
  sensitive?: boolean;
}

interface Parent {
  apId: string;
  authorId: string | null;
  context: string | null;
}

const PARENT_LOOKUP_MS = 5_000;

/** The parent of a reply: stored, else fetched (and stored) when online; when it cannot be had,
 * the reply is still posted with inReplyTo and without its author. */
async function findParent(deps: ActionDeps, local: LocalActor, apId: string): Promise<Parent> {
  const lookupDeps = { db: deps.db, fed: deps.fed, clock: deps.clock, local, isOnline: deps.isOnline };
  try {
    const found = await Promise.race([
      findOrFetchObject(lookupDeps, apId),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), PARENT_LOOKUP_MS).unref()),
    ]);
    const row = found.kind === 'actor' ? null : found.row;
    if (!row) return { apId, authorId: null, context: null };
    const object = row.apObject as Json;
    // A received object's row is its author's (objects.ts authorOf decided it when it was stored).
    const authorId = found.kind === 'own' ? local.id : 'apActorId' in row ? row.apActorId : null;
    return { apId: row.apId, authorId, context: httpUrl(idOf(object.context) ?? idOf(object.conversation) ?? row.apContext) };
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    return { apId, authorId: null, context: null };
  }
}

/** The thread key stored in ap_context: the parent's context, else the root of the reply
 * chain as far as it is stored (the service behind the spec's `microblogpub:root:` key). */
function conversationKey(db: DbOrTx, parent: Parent): string {
  if (parent.context) return parent.context;
  let apId = parent.apId;
  for (let depth = 0; depth < 10; depth++) {
    const row =
      db.select({ o: inbox.apObject }).from(inbox).where(eq(inbox.apId, apId)).get() ??
      db.select({ o: outbox.apObject }).from(outbox).where(eq(outbox.apId, apId)).get();
    const up = row ? idOf((row.o as Json).inReplyTo) : null;
    if (!up) break;
    apId = up;
  }
  return `microblogpub:root:${apId}`;
}

function writeTags(tx: DbOrTx, outboxObjectId: number, hashtags: string[]): void {
  tx.delete(taggedOutboxObject).where(eq(taggedOutboxObject.outboxObjectId, outboxObjectId)).run();
  if (hashtags.length > 0) {
    tx.insert(taggedOutboxObject).values(hashtags.map((tag) => ({ outboxObjectId, tag }))).onConflictDoNothing().run();
  }
}

/** Publishes a Note (or an Article when titled): saved, tagged and queued in one transaction. */
export async function createPost(deps: ActionDeps, given: PostInput): Promise<OutboxObject> {
  const input = withoutNul(given);
  const local = requireLocal(deps);
  const content = input.content.trim();
  const media = resolveAttachments(deps.db, input.attachments ?? []);
  if (!content && !input.title && media.length === 0) throw new BadInputError('Write something before posting.');
  if (input.poll && !content) throw new BadInputError('Write the question of your poll.');
  if (input.poll && input.title) throw new BadInputError('A poll cannot have a title: write the question as the post.');
  // As on Mastodon: a poll carries no files.
  if (input.poll && media.length > 0) throw new BadInputError('A poll cannot have attachments: remove the files or the poll.');
  if (input.quote && input.poll) throw new BadInputError('A poll cannot quote a post: remove the quote or the poll.');
  const parent = input.inReplyTo ? await findParent(deps, local, input.inReplyTo) : null;
  const quoted = input.quote ? await findQuoteTarget(deps, local, input.quote) : null;
  const explicit = [...(input.mentions ?? [])];
  if (parent?.authorId && parent.authorId !== local.id) explicit.push(parent.authorId);
  const mentions = await resolveMentions(deps, local, { textHandles: (await scanPostAnywhere(content)).handles, explicit });
  if (input.visibility === 'DIRECT' && mentions.resolved.length === 0 && mentions.deferredHandles.length === 0) {
    throw new BadInputError('A direct message needs someone to send it to: mention them.');
  }

  const now = deps.clock();
  const publicId = allocatePublicId();
  const context = parent ? null : `${local.baseUrl}/contexts/${randomUUID().replaceAll('-', '')}`;
  const built = await buildPost({
    local,
    id: local.objectUrl(publicId),
    fields: { source: content, title: input.title?.trim() || null, summary: input.summary?.trim() || null, sensitive: input.sensitive ?? false, visibility: input.visibility },
    mentions: mentions.resolved,
    inReplyTo: parent?.apId ?? null,
    context: context ?? parent?.context ?? null,
    published: now.toISOString(),
  });
  if (input.poll) Object.assign(built.object, questionFields(input.poll, now));
  if (quoted) Object.assign(built.object, quoteFields(quoted.apId), { content: withQuoteFallback(String(built.object.content ?? ''), quoted.apId) });
  if (media.length > 0) built.object.attachment = toApAttachments(local, media);

  const row = deps.db.transaction((tx) => {
    const saved = saveOutboxObject(tx, local, {
      publicId,
      apObject: built.object,
      visibility: input.visibility,
      now,
      source: content,
      apContext: context ?? conversationKey(tx, parent!),
    });
    writeTags(tx, saved.id, built.hashtags);
    linkAttachments(tx, saved.id, media, now);
    const recipients = [...computeRecipients(tx, local, built.object), ...mentions.deferredHandles.map(acctAddress)];
    enqueueDeliveries(tx, { outboxObjectId: saved.id, recipients, now });
    queueWebmentions(tx, local, { post: saved, versions: [built.object], now });
    if (parent) recountReplies(tx, parent.apId);
    if (quoted && !quoted.own) requestQuote(tx, local, { post: saved, quoted, now });
    return saved;
  });
  deps.wake();
  deps.postWritten?.(row.id);
  return row;
}

/** Asks the quoted post's author to approve the quote: our QuoteRequest, linked to the quoting
 * post, queued to their own inbox (as a Follow goes). Asked even when their policy approves it
 * at once: that answer carries the QuoteAuthorization Mastodon 4.5 needs to show the quote.
 * Asked again the same way when no answer came (quote-requests.ts). */
export function requestQuote(tx: DbOrTx, local: LocalActor, input: { post: OutboxObject; quoted: QuoteTarget; now: Date }): void {
  const { post, quoted, now } = input;
  if (quoted.author === null) return;
  const request = saveOutboxObject(tx, local, {
    apObject: toQuoteRequest(local, post.apObject as Json, quoted.apId, quoted.author.apId, AP_CONTEXT, post.visibility === 'PUBLIC' || post.visibility === 'UNLISTED'),
    visibility: 'DIRECT',
    now,
    activityObjectApId: quoted.apId,
    relatesToOutboxObjectId: post.id,
    relatesToInboxObjectId: quoted.inboxRowId,
    relatesToActorId: quoted.author.rowId,
  });
  if (quoted.author.inbox) enqueueDeliveries(tx, { outboxObjectId: request.id, recipients: [quoted.author.inbox], now });
}

export function findOwnPost(db: DbOrTx, apId: string): OutboxObject {
  const row = db.select().from(outbox).where(eq(outbox.apId, apId)).get();
  // A vote in someone's poll is a transient Note: not a post to edit, pin or delete.
  if (!row || !isPostType(row.apType) || row.isTransient) throw new NotFoundError('That is not one of your posts.');
  if (row.isDeleted) throw new ConflictError('That post was deleted.');
  return row;
}

/**
 * The earlier versions one post keeps, as JSON bytes. Lists of posts no longer parse them
 * (db/columns.ts lazyJson), but an edit, the post's history and its Webmentions do, and the row
 * is read whole: 400 edits of a 20 KB post made a 24 MB row that held the main thread 450 ms on
 * each public outbox page. 2 MiB is a thousand edits of a short post, ten of the longest.
 */
export const MAX_REVISIONS_BYTES = 2 * 1024 * 1024;

/** Whether two versions of a post's object say the same, whenever they were written. */
function sameVersion(a: ApObject, b: ApObject): boolean {
  const { updated: _a, ...restA } = a;
  const { updated: _b, ...restB } = b;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

/**
 * Edits a post: the new version replaces the object (with `updated`), the previous one is
 * appended to `revisions` ({ap_object, source, updated}; a new list, never mutated), tags are
 * refreshed, a title and poll fields are kept, and an Update is queued to everyone the post
 * reached before plus anyone newly mentioned.
 */
export async function editPost(deps: ActionDeps, given: EditInput): Promise<OutboxObject> {
  const input = withoutNul(given);
  const local = requireLocal(deps);
  const row = findOwnPost(deps.db, input.apId);
  const old = row.apObject as ApObject;
  const content = input.content.trim();
  const previous = fieldsOf(old, row.source, row.visibility);
  const title = input.title === undefined ? previous.title : input.title?.trim() || null;
  if (!content && !title) throw new BadInputError('A post cannot be empty.');
  const mentions = await resolveMentions(deps, local, { textHandles: (await scanPostAnywhere(content)).handles, explicit: [] });

  const now = deps.clock();
  const previousStamp = String(old.updated ?? old.published ?? row.apPublishedAt.toISOString());
  // `updated` must move forward even if the clock did not (two edits in one millisecond).
  const updated = new Date(Math.max(now.getTime(), Date.parse(previousStamp) + 1)).toISOString();
  const built = await buildPost({
    local,
    id: row.apId,
    fields: {
      ...previous,
      source: content,
      title,
      summary: input.summary === undefined ? previous.summary : input.summary?.trim() || null,
      sensitive: input.sensitive ?? (input.summary === undefined ? previous.sensitive : false),
    },
    mentions: [...mentionsOf(old), ...mentions.resolved],
    alsoAddressed: addressedPeople(local, old),
    inReplyTo: idOf(old.inReplyTo),
    context: httpUrl(idOf(old.context)),
    published: String(old.published ?? row.apPublishedAt.toISOString()),
    updated,
    base: old,
  });
  // A quote post keeps its fallback link: the content was rendered again without it.
  const quotedId = quotedIdOf(old);
  if (quotedId !== null) built.object.content = withQuoteFallback(String(built.object.content ?? ''), quotedId);
  // An edit that changes nothing (a client saving again, the same text sent twice) is no
  // version: no revision kept, no Update sent to everyone the post reached.
  if (content === row.source && sameVersion(built.object, old)) return row;
  const revisions: JsonValue[] = [...(storedValue(row.revisions) ?? []), { ap_object: old, source: row.source, updated: previousStamp }];
  if (Buffer.byteLength(JSON.stringify(revisions)) > MAX_REVISIONS_BYTES) {
    throw new BadInputError('This post has been edited too often to keep another version (its earlier versions fill the 2 MiB Tern keeps of them): post the new text as a new post.');
  }

  const saved = deps.db.transaction((tx) => {
    // The quote's approval as it stands now, not as it stood when the edit began (an Accept or
    // the revocation of one may have come meanwhile: process/quote-answer.ts, quote-revocation.ts):
    // a revoked authorization is never sent again.
    const { quoteAuthorization: _then, ...edited } = built.object;
    const stamp = tx.select({ apObject: outbox.apObject }).from(outbox).where(eq(outbox.id, row.id)).get()?.apObject as ApObject | undefined;
    built.object = stamp?.quoteAuthorization === undefined ? edited : { ...edited, quoteAuthorization: stamp.quoteAuthorization };
    const next = tx
      .update(outbox)
      .set({ apObject: built.object, source: content, revisions, updatedAt: now, ogMeta: null }) // its link previews are fetched again (previews/runner.ts)
      .where(and(eq(outbox.id, row.id), eq(outbox.isDeleted, false)))
      .returning()
      .get();
    if (!next) throw new ConflictError('That post was deleted.');
    writeTags(tx, row.id, built.hashtags);
    queuePostUpdate(tx, local, { post: row, object: built.object, stamp: updated, now, more: mentions.deferredHandles.map(acctAddress) });
    // The previous version too: pages whose link was removed learn it by re-fetching the post.
    queueWebmentions(tx, local, { post: next, versions: [built.object, old], now });
    return next;
  });
  deps.wake();
  deps.postWritten?.(saved.id);
  return saved;
}
