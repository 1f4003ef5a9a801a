// Verifying a queued Webmention (W3C Webmention §3.2.2) in the inbox processor: the source is
// fetched through the one outbound client (SSRF guard on every hop, redirects limited, body
// capped) and read in its declared charset (Content-Type, else <meta charset>); it must link to
// the target, and its microformats decide what the mention is. Then, in one transaction, the
// spec's one row per source:
//   new source that links            → webmention row + NEW_WEBMENTION
//   known source, content changed    → row updated + UPDATED_WEBMENTION (unchanged: nothing)
//   known source, now for another post that the page links to instead of the recorded one
//                                    → row moved to it + UPDATED_WEBMENTION
//   known source gone (404/410)      → is_deleted + DELETED_WEBMENTION
//   known source no longer linking   → is_deleted + DELETED_WEBMENTION
// and `webmentions_count` of the post(s) concerned is recounted. Anything refused (blocked
// address, oversized page, not linking, unknown target) stores nothing and says why; network
// trouble, a source slower than SOURCE_TIMEOUT_MS and 5xx are thrown, for the processor to retry
// later (a few times: inbox-loop.ts WEBMENTION_MAX_TRIES).
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, DbOrTx } from '../../../db/client';
import { notifications, outbox, webmention, type IncomingActivity, type JsonValue, type NotificationType, type Webmention } from '../../../db/schema';
import type { FederationContext } from '../ports';
import { isBlockedUrl } from '../federation/blocked-servers';
import type { LocalActor } from '../federation/identity';
import type { ProcessOutcome } from '../federation/process/context';
import { BlockedAddressError, BodyTooLargeError, HostNotFoundError, TooManyRedirectsError, UnsupportedSchemeError } from '../net/errors';
import { pageText } from '../net/page-text';
import { samePage } from './links';
import { readSourcePage } from './source-parse';
import { targetPost } from './receive';

/** Source pages are read up to this size. */
export const SOURCE_MAX_BYTES = 1024 * 1024;
/** One source's fetch, redirects and body included (the client's own limit is 10 s): a source
 * that sends its headers and then stalls holds one of the few verifying slots no longer. */
export const SOURCE_TIMEOUT_MS = 5_000;

export interface VerifyDeps {
  db: Db;
  fed: Pick<FederationContext, 'client'>;
  clock: () => Date;
  identity: LocalActor;
  settings: { blockedServers: string[] };
}

const queuedSchema = z.object({ source: z.string(), target: z.string() });
const dropped = (reason: string): ProcessOutcome => ({ status: 'dropped', reason });
const done: ProcessOutcome = { status: 'processed', inboxObjectId: null };

/** Whether a row of incoming_activity is a Webmention (not an ActivityPub activity). */
export const isQueuedWebmention = (row: IncomingActivity) => row.webmentionSource !== null;

export async function processIncomingWebmention(deps: VerifyDeps, row: IncomingActivity): Promise<ProcessOutcome> {
  const queued = queuedSchema.safeParse(row.apObject);
  if (!queued.success || queued.data.source !== row.webmentionSource) return dropped('malformed queued webmention');
  const { source, target } = queued.data;
  if (isBlockedUrl(source, deps.settings.blockedServers)) return dropped(`blocked server ${new URL(source).hostname}`);
  const post = targetPost(deps.db, deps.identity, target);
  if (post === null) return dropped('target is no longer one of the author’s public posts');

  let response: Response;
  let bytes: Uint8Array;
  const deadline = AbortSignal.timeout(SOURCE_TIMEOUT_MS);
  try {
    response = await deps.fed.client.fetch(source, {
      headers: { accept: 'text/html, application/xhtml+xml;q=0.9, text/plain;q=0.5, */*;q=0.1' },
      maxBodyBytes: SOURCE_MAX_BYTES,
      signal: deadline,
    });
    // The bytes, decoded below in the page's own charset (the client's cap cuts them off past it).
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (response.ok && !response.headers.has('content-encoding') && declared > SOURCE_MAX_BYTES) throw new BodyTooLargeError(response.url, SOURCE_MAX_BYTES);
    if (response.ok) bytes = new Uint8Array(await response.arrayBuffer());
    else {
      await response.body?.cancel().catch(() => {});
      bytes = new Uint8Array(0);
    }
  } catch (error) {
    if (deadline.aborted) throw new Error(`source did not answer within ${SOURCE_TIMEOUT_MS / 1000} s; will try again`, { cause: error });
    // These will not get better by waiting: refuse now, store nothing.
    if (error instanceof BlockedAddressError) return dropped(`source refused: ${error.message}`);
    if (error instanceof UnsupportedSchemeError) return dropped(`source refused: ${error.message}`);
    if (error instanceof HostNotFoundError) return dropped(`source refused: ${error.message}`);
    if (error instanceof BodyTooLargeError) return dropped(`source larger than ${SOURCE_MAX_BYTES} bytes`);
    if (error instanceof TooManyRedirectsError) return dropped(`source redirects too often: ${error.message}`);
    throw error;
  }

  const now = deps.clock();
  if (response.status === 404 || response.status === 410) {
    return forget(deps.db, source, now) ? done : dropped(`source answered HTTP ${response.status}; nothing was recorded for it`);
  }
  if (response.status === 429 || response.status >= 500) throw new Error(`source answered HTTP ${response.status}; will try again`);
  if (!response.ok) return dropped(`source answered HTTP ${response.status}`);

  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  const isHtml = type === '' || type.includes('html');
  const finalUrl = response.url || source;
  const body = pageText(bytes, type);
  // The post this source is recorded for now, if another: whether the page still links to it
  // decides whether the row moves (an edited reply that now answers another post).
  const recorded = deps.db.select().from(webmention).where(eq(webmention.source, source)).get();
  const other = recorded && !recorded.isDeleted && recorded.outboxObjectId !== post.id ? recorded.target : undefined;
  // Read off the main thread, within bounds; a page that cannot be read is refused for good.
  const reading = isHtml
    ? await readSourcePage(body, finalUrl, target, other)
    : { ok: true as const, links: body.includes(target), linksOther: other !== undefined && body.includes(other), microformats: { items: [] } };
  if (!reading.ok) return dropped(`source page refused: ${reading.reason}`);
  if (!reading.links) {
    return forget(deps.db, source, now, target) ? done : dropped('source does not link to target');
  }
  const microformats = reading.microformats;
  const checked = other === undefined ? null : { target: other, linked: reading.linksOther };
  return record(deps.db, { source, target: post.apId, outboxObjectId: post.id, microformats, now, other: checked });
}

function notify(db: DbOrTx, type: NotificationType, row: Pick<Webmention, 'id' | 'outboxObjectId'>, now: Date): void {
  db.insert(notifications).values({ createdAt: now, notificationType: type, isNew: true, outboxObjectId: row.outboxObjectId, webmentionId: row.id }).run();
}

/** webmentions_count: every webmention of the post that is not deleted, whatever its kind. */
export function recountWebmentions(db: DbOrTx, outboxObjectId: number): number {
  const count =
    db
      .select({ n: sql<number>`count(*)` })
      .from(webmention)
      .where(and(eq(webmention.outboxObjectId, outboxObjectId), eq(webmention.isDeleted, false)))
      .get()?.n ?? 0;
  db.update(outbox).set({ webmentionsCount: count }).where(eq(outbox.id, outboxObjectId)).run();
  return count;
}

/** Marks the source's row deleted (only if it is for `target`, when given); false when there was
 * nothing to delete. */
function forget(db: Db, source: string, now: Date, target?: string): boolean {
  return db.transaction((tx) => {
    const existing = tx.select().from(webmention).where(eq(webmention.source, source)).get();
    if (!existing || existing.isDeleted || (target !== undefined && !samePage(existing.target, target))) return false;
    tx.update(webmention).set({ isDeleted: true }).where(eq(webmention.id, existing.id)).run();
    recountWebmentions(tx, existing.outboxObjectId);
    notify(tx, 'DELETED_WEBMENTION', existing, now);
    return true;
  });
}

interface Verified {
  source: string;
  target: string;
  outboxObjectId: number;
  microformats: { items: JsonValue[] };
  now: Date;
  /** The other post this source was recorded for when the page was read, and whether the page
   * still links to it. */
  other: { target: string; linked: boolean } | null;
}

function record(db: Db, input: Verified): ProcessOutcome {
  return db.transaction((tx) => {
    const existing = tx.select().from(webmention).where(eq(webmention.source, input.source)).get();
    if (!existing) {
      const row = tx
        .insert(webmention)
        .values({ createdAt: input.now, isDeleted: false, source: input.source, sourceMicroformats: input.microformats, target: input.target, outboxObjectId: input.outboxObjectId })
        .returning()
        .get();
      recountWebmentions(tx, row.outboxObjectId);
      notify(tx, 'NEW_WEBMENTION', row, input.now);
      return done;
    }
    const sameTarget = existing.outboxObjectId === input.outboxObjectId;
    // One row per source (the spec's unique index): a page that mentions two of the author's
    // posts keeps the first one it was recorded for while it still names it. A page that no
    // longer does (a reply edited to answer another post) moves its row to the new post, whatever
    // order the sender notifies the two in (Tern's own edits send the new version's links first).
    // What was checked must still be the row's target (else keep the row, as before).
    const moves = input.other !== null && !input.other.linked && input.other.target === existing.target;
    if (!sameTarget && !existing.isDeleted && !moves) {
      return dropped(`this source is already recorded for ${existing.target} (one webmention per source)`);
    }
    const changed = existing.isDeleted || !sameTarget || JSON.stringify(existing.sourceMicroformats) !== JSON.stringify(input.microformats);
    if (!changed) return done;
    tx.update(webmention)
      .set({ isDeleted: false, sourceMicroformats: input.microformats, target: input.target, outboxObjectId: input.outboxObjectId })
      .where(eq(webmention.id, existing.id))
      .run();
    recountWebmentions(tx, input.outboxObjectId);
    if (!sameTarget) recountWebmentions(tx, existing.outboxObjectId);
    notify(tx, 'UPDATED_WEBMENTION', { id: existing.id, outboxObjectId: input.outboxObjectId }, input.now);
    return done;
  });
}
