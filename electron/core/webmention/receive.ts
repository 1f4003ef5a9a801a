// Receiving a Webmention (W3C Webmention §3.2): the request checks that need no network —
// source and target are absolute http(s) URLs, not the same page, and the target is one of the
// author's public posts — and the queueing of a valid request as an `incoming_activity` row
// with `webmention_source` (the spec's column; the target rides in ap_object). Verification
// (fetching the source) is asynchronous, in the inbox processor (verify.ts): §3.2.1 "the
// receiver SHOULD queue and process the request asynchronously".
import { z } from 'zod';
import type { DbOrTx } from '../../../db/client';
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

/** The incoming_activity row a valid request becomes; returns its id. */
export function queueWebmention(db: DbOrTx, input: { source: string; target: string; now: Date }): number {
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
  return row.id;
}
