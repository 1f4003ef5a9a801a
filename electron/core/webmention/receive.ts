// Receiving a Webmention (W3C Webmention §3.2): the request checks that need no network —
// source and target are absolute http(s) URLs, not the same page, and the target is one of the
// author's public posts — and the queueing of a valid request as an `incoming_activity` row
// with `webmention_source` (the spec's column; the target rides in ap_object). Verification
// (fetching the source) is asynchronous, in the inbox processor (verify.ts): §3.2.1 "the
// receiver SHOULD queue and process the request asynchronously".
import { z } from 'zod';
import { prepared, type DbOrTx } from '../../../db/client';
import { incomingActivity, type OutboxObject } from '../../../db/schema';
import { isPost } from '../federation/collections';
import { findLocalObject } from '../federation/object-access';
import type { LocalActor } from '../federation/identity';
import { httpUrlOf, samePage } from './links';

export const MAX_WEBMENTION_URL_CHARS = 2048;
/** Largest form body accepted by POST /webmention (two URLs and a little more). */
export const MAX_WEBMENTION_BODY_BYTES = 8 * 1024;

const httpUrl = z
  .string({ error: 'is missing' })
  .trim()
  .min(1, 'is missing')
  .max(MAX_WEBMENTION_URL_CHARS, `is longer than ${MAX_WEBMENTION_URL_CHARS} characters`)
  .refine((value) => httpUrlOf(value) !== null, 'must be an absolute http(s) URL');

export const webmentionRequestSchema = z.object({ source: httpUrl, target: httpUrl });

export type WebmentionCheck =
  | { ok: true; source: string; target: string; post: OutboxObject }
  | { ok: false; reason: string };

/** The local post a target URL names (/o/<publicId>, fragments ignored), if public or unlisted
 * and not deleted. */
export function targetPost(db: DbOrTx, local: LocalActor, target: string): OutboxObject | null {
  const url = httpUrlOf(target);
  const prefix = local.objectUrl('');
  if (url === null || !url.href.startsWith(prefix) || url.search !== '') return null;
  const publicId = url.href.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(publicId)) return null;
  const row = findLocalObject(db, local, publicId);
  if (!row || !isPost(row) || row.isDeleted) return null;
  return row.visibility === 'PUBLIC' || row.visibility === 'UNLISTED' ? row : null;
}

/** Checks a received form (already decoded) without touching the network. */
export function checkWebmentionRequest(db: DbOrTx, local: LocalActor, form: Record<string, unknown>): WebmentionCheck {
  const parsed = webmentionRequestSchema.safeParse(form);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `${String(issue.path[0] ?? 'request')} ${issue.message}` };
  }
  const source = httpUrlOf(parsed.data.source)!.href;
  const target = httpUrlOf(parsed.data.target)!.href;
  if (samePage(source, target)) return { ok: false, reason: 'source and target are the same page' };
  const post = targetPost(db, local, target);
  if (post === null) return { ok: false, reason: 'target is not one of this author’s public posts' };
  return { ok: true, source, target: post.apId, post };
}

/** Webmentions waiting to be verified, at most: past it a request is refused (429), so a flood
 * of distinct sources cannot pile up work (the rate limit alone lets 86,400 in a day). */
export const MAX_PENDING_WEBMENTIONS = 500;

export type QueueOutcome = { ok: true; id: number; coalesced: boolean } | { ok: false; reason: string };

// Both look-ups read the pending rows only (the partial index ix_incoming_activity_due): 1.8 ms
// to count past 5,000 pending activities, measured here.
const PENDING_SAME_SQL =
  'SELECT id, ap_object AS apObject FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0 AND tries = 0 AND webmention_source = ?';
const PENDING_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM incoming_activity WHERE is_processed = 0 AND is_errored = 0 AND webmention_source IS NOT NULL LIMIT ${MAX_PENDING_WEBMENTIONS})`;

/** The target a pending row was queued for; null when its ap_object is not an object with one — a
 * row another tool wrote may hold NULL, JSON null or worse, and such a row matches no request
 * (reading `.target` of null threw, and answered 500 to every request for that source). */
function queuedTarget(apObject: string | null): string | null {
  let queued: unknown;
  try {
    queued = apObject === null ? null : JSON.parse(apObject);
  } catch {
    return null;
  }
  if (typeof queued !== 'object' || queued === null || Array.isArray(queued)) return null;
  const { target } = queued as { target?: unknown };
  return typeof target === 'string' ? target : null;
}

/** Queues a valid request as an incoming_activity row. The same (source, target) already waiting
 * and not yet started is that row (its verification will read the page as it is then); a row
 * being verified may have read the page before this request, so it does not count. */
export function queueWebmention(db: DbOrTx, input: { source: string; target: string; now: Date }): QueueOutcome {
  const same = prepared<[string], { id: number; apObject: string | null }>(db, PENDING_SAME_SQL).all(input.source);
  const waiting = same.find((row) => {
    const target = queuedTarget(row.apObject);
    return target !== null && samePage(target, input.target);
  });
  if (waiting !== undefined) return { ok: true, id: waiting.id, coalesced: true };
  const pending = prepared<[], { n: number }>(db, PENDING_COUNT_SQL).get()?.n ?? 0;
  if (pending >= MAX_PENDING_WEBMENTIONS) return { ok: false, reason: `${pending} webmentions are waiting to be verified; try again later` };
  const row = db
    .insert(incomingActivity)
    .values({
      createdAt: input.now,
      webmentionSource: input.source,
      apObject: { type: 'Webmention', source: input.source, target: input.target },
      tries: 0,
      nextTry: input.now,
      isProcessed: false,
      isErrored: false,
    })
    .returning({ id: incomingActivity.id })
    .get();
  return { ok: true, id: row.id, coalesced: false };
}
