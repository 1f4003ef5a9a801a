// POST /webmention: the Webmention receiver (W3C Webmention §3.2). Reads a form body under an
// 8 KiB cap, checks it without touching the network (webmention/receive.ts) — 400 with the
// reason when invalid — rate-limits, queues the mention as an incoming_activity row (the same
// pair already waiting is that row; too many waiting: 429) and answers 202 at once: the source
// is fetched and verified later by the inbox processor.
import type { Hono } from 'hono';
import { checkWebmentionRequest, MAX_WEBMENTION_BODY_BYTES, queueWebmention } from '../webmention/receive';
import { problem, type ListenerAppOptions, type ListenerCore, type ListenerEnv } from './context';
import { readCappedBody } from './http-parts';

/** When a sender refused for too many pending webmentions may try again. */
const PENDING_RETRY_AFTER_S = 300;

export type RateLimit = NonNullable<ListenerAppOptions['webmentionRateLimit']>;

/** Fixed-window counters: per source host (a site re-sending in a loop) and in all (a flood
 * from many hosts). Behind a tunnel every request comes from the tunnel's address, so the
 * client address cannot be the key. */
export function createRateLimiter(limits: RateLimit, clock: () => Date) {
  const perHost = limits.perSourceHost ?? 10;
  const total = limits.total ?? 60;
  const windowMs = limits.windowMs ?? 60_000;
  let windowStart = 0;
  let all = 0;
  const hosts = new Map<string, number>();
  return {
    /** Counts one request; returns the seconds to wait when it is over a limit. */
    take(sourceHost: string): number | null {
      const now = clock().getTime();
      if (now - windowStart >= windowMs) {
        windowStart = now;
        all = 0;
        hosts.clear();
      }
      const n = hosts.get(sourceHost) ?? 0;
      if (n >= perHost || all >= total) return Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      hosts.set(sourceHost, n + 1);
      all++;
      return null;
    },
  };
}

export function mountWebmentionRoute(app: Hono<ListenerEnv>, core: ListenerCore, options: ListenerAppOptions): void {
  const limiter = createRateLimiter(options.webmentionRateLimit ?? {}, core.clock);
  const log = options.log ?? (() => {});
  const refuse = (c: Parameters<typeof problem>[0], reason: string) => {
    log(`webmention: 400 ${reason}`);
    return problem(c, 400, reason);
  };

  app.post('/webmention', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      await c.req.raw.body?.cancel().catch(() => undefined);
      return refuse(c, 'send source and target as application/x-www-form-urlencoded');
    }
    const body = await readCappedBody(c.req.raw, MAX_WEBMENTION_BODY_BYTES);
    if (!body.ok) {
      if (body.reason === 'too_large') {
        return problem(c, 400, `body larger than ${MAX_WEBMENTION_BODY_BYTES} bytes`, { Connection: 'close' });
      }
      return refuse(c, 'body could not be read');
    }
    const params = new URLSearchParams(new TextDecoder().decode(body.bytes));
    const form: Record<string, string> = {};
    for (const name of ['source', 'target']) {
      const values = params.getAll(name);
      if (values.length > 1) return refuse(c, `${name} was given more than once`);
      if (values[0] !== undefined) form[name] = values[0];
    }
    const checked = checkWebmentionRequest(core.db, c.var.local, form);
    if (!checked.ok) return refuse(c, checked.reason);
    const wait = limiter.take(new URL(checked.source).host);
    if (wait !== null) return problem(c, 429, 'too many webmentions; try again later', { 'Retry-After': String(wait) });
    const queued = queueWebmention(core.db, { source: checked.source, target: checked.target, now: core.clock() });
    if (!queued.ok) {
      log(`webmention: 429 ${queued.reason}`);
      return problem(c, 429, queued.reason, { 'Retry-After': String(PENDING_RETRY_AFTER_S) });
    }
    if (queued.coalesced) return c.body('Accepted: this source is already waiting to be verified.\n', 202, { 'Content-Type': 'text/plain; charset=utf-8' });
    core.inboxEvents?.queued({ id: queued.id, apId: null, type: 'Webmention', sentBy: checked.source });
    return c.body('Accepted: the source will be verified shortly.\n', 202, { 'Content-Type': 'text/plain; charset=utf-8' });
  });
}
