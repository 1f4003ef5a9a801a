// Sending Webmentions (W3C Webmention §3.1) through the delivery queue, with the same retry
// bookkeeping as ActivityPub deliveries (offline: nothing attempted, no try spent):
//  * queueWebmentions: in the transaction that publishes, edits or deletes a PUBLIC post, one
//    outgoing_activity row per external page the post links to — recipient
//    `webmention:<page>` (an address, see delivery/addresses.ts), webmention_target = page,
//    outbox_object_id = the post (its URL is the source). On an edit the pages the previous
//    version linked to are included (so a removed link is re-verified and dropped by the
//    receiver); on a delete, every page any version linked to (the source now answers 410).
//  * resolveWebmentionEndpoint: the loop's resolution step for those rows — endpoint discovery,
//    then the rows point at the endpoint URL;
//  * webmentionPayload: what is POSTed there (form-encoded source and target, unsigned).
import { and, eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../db/client';
import { outbox, outgoingActivity, storedValue, type JsonValue, type OutboxObject, type OutgoingActivity } from '../../../db/schema';
import { parseRecipient, webmentionAddress } from '../delivery/addresses';
import type { DeliveryPayload, ResolveOutcome } from '../delivery/loop';
import { notifyDeliveriesQueued } from '../delivery/queue';
import type { LocalActor } from '../federation/identity';
import type { HttpClient } from '../net/http-client';
import { BlockedAddressError, BodyTooLargeError, TooManyRedirectsError, UnsupportedSchemeError } from '../net/errors';
import { NoWebmentionEndpointError, TargetUnavailableError, discoverEndpoint } from './discover';
import { httpUrlOf, linkedPages } from './links';

type Json = { [key: string]: JsonValue };

/** Links to media files are not pages that could receive a webmention. */
const MEDIA = /\.(jpe?g|png|gif|webp|avif|svg|mp4|webm|mov|mp3|ogg|opus|wav|flac|pdf)$/i;

function tagHrefs(object: Json): Set<string> {
  const tags = Array.isArray(object.tag) ? object.tag : [];
  const out = new Set<string>();
  for (const tag of tags) {
    if (typeof tag === 'object' && tag !== null && !Array.isArray(tag) && typeof tag.href === 'string') {
      const url = httpUrlOf(tag.href);
      if (url) out.add(url.href);
    }
  }
  return out;
}

/** The external pages a post links to: <a href>s of its content (the first `maxChars` of it,
 * when given), except pages of `ownOrigin` (its author's), mentioned people and hashtags, and
 * media files. Webmentions go to them; link previews are read from them (previews/runner.ts). */
export function externalPages(object: Json, ownOrigin: string | null, maxChars = Infinity): string[] {
  const tags = tagHrefs(object);
  const content = typeof object.content === 'string' ? object.content.slice(0, maxChars) : '';
  return linkedPages(content).filter((href) => {
    const url = new URL(href);
    return url.origin !== ownOrigin && !tags.has(href) && !MEDIA.test(url.pathname);
  });
}

/** The external pages one version of the author's post links to. */
export function webmentionTargets(local: LocalActor, object: Json): string[] {
  return externalPages(object, new URL(local.baseUrl).origin);
}

/** The versions of a post: the current object, then those kept in `revisions`. */
export function versionsOf(post: Pick<OutboxObject, 'apObject' | 'revisions'>): Json[] {
  const earlier = (storedValue(post.revisions) ?? []).flatMap((r) =>
    typeof r === 'object' && r !== null && !Array.isArray(r) && typeof r.ap_object === 'object' && r.ap_object !== null && !Array.isArray(r.ap_object)
      ? [r.ap_object]
      : [],
  );
  return [post.apObject as Json, ...earlier];
}

/** Queues one webmention row per page linked from any of `versions` (public posts only);
 * returns how many. Call inside the transaction that writes the post. */
export function queueWebmentions(tx: DbOrTx, local: LocalActor, input: { post: Pick<OutboxObject, 'id' | 'visibility'>; versions: Json[]; now: Date }): number {
  if (input.post.visibility !== 'PUBLIC') return 0;
  const targets = [...new Set(input.versions.flatMap((v) => webmentionTargets(local, v)))];
  if (targets.length === 0) return 0;
  tx.insert(outgoingActivity)
    .values(
      targets.map((target) => ({
        createdAt: input.now,
        recipient: webmentionAddress(target),
        outboxObjectId: input.post.id,
        webmentionTarget: target,
        tries: 0,
        nextTry: input.now,
        isSent: false,
        isErrored: false,
      })),
    )
    .run();
  notifyDeliveriesQueued();
  return targets.length;
}

/** The form a webmention row POSTs: our post's URL as source, the linked page as target. */
export function webmentionPayload(db: DbOrTx, row: OutgoingActivity): DeliveryPayload {
  if (row.webmentionTarget === null || row.outboxObjectId === null) return { kind: 'cancel', reason: 'Not a webmention.' };
  const post = db.select({ apId: outbox.apId }).from(outbox).where(eq(outbox.id, row.outboxObjectId)).get();
  if (!post) return { kind: 'cancel', reason: 'The post this webmention is about is no longer stored.' };
  // Sent for deleted posts too: the receiver re-fetches the source, gets 410, and removes it.
  return { kind: 'form', body: new URLSearchParams({ source: post.apId, target: row.webmentionTarget }).toString() };
}

/** Discovers the endpoint of a `webmention:<page>` row and points every row waiting for that
 * page at it. */
export async function resolveWebmentionEndpoint(deps: { db: Db; client: Pick<HttpClient, 'fetch'> }, row: OutgoingActivity, signal?: AbortSignal): Promise<ResolveOutcome> {
  const parsed = parseRecipient(row.recipient);
  if (parsed?.kind !== 'webmention') return { kind: 'gone', reason: `“${row.recipient}” is not a webmention address.` };
  const page = parsed.url;
  const host = new URL(page).host;
  let endpoint: string;
  try {
    endpoint = await discoverEndpoint(deps.client, page, signal);
  } catch (error) {
    if (error instanceof NoWebmentionEndpointError) return { kind: 'gone', reason: `${page} does not accept webmentions (no endpoint advertised).` };
    if (error instanceof TargetUnavailableError && error.status < 500 && error.status !== 429 && error.status !== 408) {
      return { kind: 'gone', reason: `${host} answered HTTP ${error.status} for ${page}; no webmention sent.` };
    }
    if (error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError || error instanceof TooManyRedirectsError || error instanceof BodyTooLargeError) {
      return { kind: 'gone', reason: `Tern will not send a webmention to ${page}: ${error.message}.` };
    }
    return { kind: 'retry', reason: `Could not look for the webmention endpoint of ${page}: ${(error as Error).message}` };
  }
  deps.db
    .update(outgoingActivity)
    .set({ recipient: endpoint })
    .where(and(eq(outgoingActivity.recipient, row.recipient), eq(outgoingActivity.isSent, false), eq(outgoingActivity.isErrored, false)))
    .run();
  return { kind: 'resolved' };
}
