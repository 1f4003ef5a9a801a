// POST /inbox: the shared inbox and the actor's own (the same URL). Reads the body under a
// 1 MiB cap (413), rebuilds the request as the peer addressed it (public URL and Host, so the
// signature can verify behind a tunnel), and hands it to federation/inbox for the checks and
// the incoming_activity row. Answers 202 as soon as the row is written.
// Two doors, one set of checks: the Hono route below (app.fetch), and inboxRequestListener, which
// the running listener uses for POST /inbox straight on node:http — the same cap, the same
// receiveInboxPost, the same answers, without building a Hono context and two copies of the
// request per activity (that framework share was more than half the accept cost in the bench).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { inboxPostRequest, receiveInboxPost, storeInboxPost, type InboxCheck, type InboxOutcome, type InboxPost } from '../federation/inbox';
import { ChecksUnavailableError } from '../federation/inbox-worker-host';
import { problem, STORAGE_UNAVAILABLE, type ListenerAppOptions, type ListenerCore, type ListenerEnv } from './context';
import { publicUrl, readCappedBody } from './http-parts';
import { clientAddress, nodeClientAddress } from './client-address';
import { storageProblem } from '../../../db/storage-errors';
import type { AcceptFirst } from './accept-first';
import { withoutTrailingSlashes } from '../trailing-slashes';

export const MAX_INBOX_BYTES = 1024 * 1024;
/** Retry-After for a POST the checks worker could not take (it is starting again). */
const CHECKS_RETRY_AFTER_S = 30;

/** The listener's answer to an inbox POST: a status, and the error for a problem body. */
export type InboxAnswer =
  | { status: 202 }
  | { status: 400 | 401 | 403 | 413 | 503; error: string; close?: boolean; retryAfterSeconds?: number };

/** After the body is read: the checks, the row, and the answer (logged when refused, with who
 * called: `from`, see client-address.ts). */
async function answer(core: ListenerCore, options: ListenerAppOptions, post: InboxPost, from: string, acceptFirst?: AcceptFirst): Promise<InboxAnswer> {
  const log = options.log ?? (() => {});
  const outcome = await check(core, options, post, acceptFirst);
  if (outcome.status === 202) {
    if (outcome.queued === null) log(`inbox: 202 without queueing: ${outcome.reason} (from ${from})`);
    return { status: 202 };
  }
  log(`inbox: ${outcome.status} ${outcome.reason} (from ${from})`);
  if (outcome.status === 503) return { status: 503, error: outcome.reason, retryAfterSeconds: outcome.retryAfterSeconds };
  return { status: outcome.status, error: outcome.reason };
}

/**
 * The checks and the row (federation/inbox.ts). While the inbox loop runs on its workers, the
 * checks run on the inbox checks worker, never here (the JSON, the key document and an LD
 * signature are that thread's work, not this one's): a POST waits for the worker to be up, and
 * is answered 503 with Retry-After when it is not within CHECKS_WAIT_MS. Without workers (or
 * before the loop starts) they run here. The row is stored from here either way: to the
 * processor's connection when it runs on its worker (incoming-writer.ts), with the verdict and
 * actor document the checks produced. Checks run here wait while a burst of new connections is
 * being accepted (`acceptFirst`, accept-first.ts); a hand-over to the worker does not: it costs
 * this thread microseconds.
 */
async function check(core: ListenerCore, options: ListenerAppOptions, post: InboxPost, acceptFirst?: AcceptFirst): Promise<InboxOutcome> {
  const full = options.embeddedChecksAtOnce === undefined ? post : { ...post, embeddedChecksAtOnce: options.embeddedChecksAtOnce };
  const deps = {
    db: core.db,
    fed: core.fed,
    clock: core.clock,
    settings: () => core.settings.get(),
    events: core.inboxEvents,
    onQueued: options.onQueued,
    embeddedChecksAtOnce: options.embeddedChecksAtOnce,
  };
  const elsewhere = core.inboxAccept?.(full) ?? null;
  if (elsewhere !== null) {
    let checked: InboxCheck;
    try {
      checked = await elsewhere;
    } catch (error) {
      if (error instanceof ChecksUnavailableError) return { status: 503, reason: error.message, retryAfterSeconds: CHECKS_RETRY_AFTER_S };
      throw error;
    }
    return checked.status === 'store' ? storeInboxPost(deps, checked) : checked;
  }
  const here = () => receiveInboxPost(deps, inboxPostRequest(full), full.body);
  return acceptFirst ? acceptFirst.run(here) : here();
}

const tooLarge = (cap: number): InboxAnswer => ({ status: 413, error: `body larger than ${cap} bytes`, close: true });

export function mountInboxRoute(app: Hono<ListenerEnv>, core: ListenerCore, options: ListenerAppOptions): void {
  const cap = options.maxInboxBytes ?? MAX_INBOX_BYTES;

  app.post('/inbox', async (c) => {
    const body = await readCappedBody(c.req.raw, cap);
    let result: InboxAnswer;
    if (!body.ok) {
      // Close the connection: the rest of an oversized body is not worth reading to keep it alive.
      result = body.reason === 'too_large' ? tooLarge(cap) : { status: 400, error: 'body could not be read' };
    } else {
      const settings = core.settings.get();
      const url = publicUrl(c.req.raw, settings.baseUrl ?? c.var.local.baseUrl);
      const from = clientAddress(c, settings.listener.behindProxy);
      const headers: string[] = [];
      c.req.raw.headers.forEach((value, name) => headers.push(name, value));
      result = await answer(core, options, { url: url.href, headers, body: body.bytes }, from);
    }
    if (result.status === 202) return c.body(null, 202);
    return problem(c, result.status, result.error, {
      ...(result.close ? { Connection: 'close' } : {}),
      ...(result.retryAfterSeconds !== undefined ? { 'Retry-After': String(result.retryAfterSeconds) } : {}),
    });
  });
}

/** Whether node:http's `req.url` (path and query) is the inbox's path. */
export function isInboxPost(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url === undefined) return false;
  const q = req.url.indexOf('?');
  return (q < 0 ? req.url : req.url.slice(0, q)) === '/inbox';
}

/**
 * POST /inbox on node:http, answering exactly as the Hono app would (the 503 of an unconfigured
 * Tern, nosniff, problem+JSON bodies, 413 closing the connection, 500 on an internal error).
 */
export function inboxRequestListener(
  core: ListenerCore,
  options: ListenerAppOptions,
  acceptFirst?: AcceptFirst,
): (req: IncomingMessage, res: ServerResponse) => void {
  const cap = options.maxInboxBytes ?? MAX_INBOX_BYTES;
  const log = options.log ?? (() => {});

  const send = (res: ServerResponse, status: number, error: string | null, close = false, retryAfterSeconds?: number) => {
    if (res.headersSent) return;
    const headers: Record<string, string | number> = { 'X-Content-Type-Options': 'nosniff' };
    if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
    const text = error === null ? null : JSON.stringify({ error });
    if (text !== null) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(text);
    }
    if (close) headers.Connection = 'close';
    res.writeHead(status, headers);
    res.end(text ?? undefined);
  };

  return (req, res) => {
    const local = core.identity();
    if (local === null) return send(res, 503, 'this Tern has no public identity yet (base URL and user name)');
    void readBody(req, cap).then(
      async (body) => {
        if (!body.ok) {
          if (body.reason === 'too_large') return send(res, 413, `body larger than ${cap} bytes`, true);
          return send(res, 400, 'body could not be read');
        }
        const settings = core.settings.get();
        const baseUrl = withoutTrailingSlashes(settings.baseUrl ?? local.baseUrl);
        const from = nodeClientAddress(req, settings.listener.behindProxy);
        // The URL the peer addressed; its Host is set from it (inboxPostRequest).
        const post = { url: `${baseUrl}${req.url ?? '/inbox'}`, headers: req.rawHeaders, body: body.bytes };
        const result = await answer(core, options, post, from, acceptFirst);
        if (result.status === 202) return send(res, 202, null);
        send(res, result.status, result.error, result.close, result.retryAfterSeconds);
      },
    ).catch((error: unknown) => {
      log(`listener: POST /inbox: ${(error as Error)?.stack ?? String(error)}`);
      if (storageProblem(error) !== null) return send(res, STORAGE_UNAVAILABLE.status, STORAGE_UNAVAILABLE.error, false, STORAGE_UNAVAILABLE.retryAfterSeconds);
      send(res, 500, 'internal error');
    });
  };
}

type ReadBody = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too_large' | 'aborted' };

/** readCappedBody on node:http: Content-Length first, then counting while reading. */
function readBody(req: IncomingMessage, cap: number): Promise<ReadBody> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && (!/^\d+$/.test(declared.trim()) || Number(declared) > cap)) {
    req.resume(); // discarded; the answer closes the connection
    return Promise.resolve({ ok: false, reason: 'too_large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: ReadBody) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > cap) {
        chunks.length = 0;
        req.resume(); // keep draining into nothing until the connection closes
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}
