// POST /inbox: the shared inbox and the actor's own (the same URL). Reads the body under a
// 1 MiB cap (413), rebuilds the request as the peer addressed it (public URL and Host, so the
// signature can verify behind a tunnel), and hands it to federation/inbox for the checks and
// the incoming_activity row. Answers 202 as soon as the row is written.
import type { Hono } from 'hono';
import { receiveInboxPost } from '../federation/inbox';
import { problem, type ListenerAppOptions, type ListenerCore, type ListenerEnv } from './context';
import { asAddressed, publicUrl, readCappedBody } from './http-parts';
import { clientAddress } from './client-address';

export const MAX_INBOX_BYTES = 1024 * 1024;

export function mountInboxRoute(app: Hono<ListenerEnv>, core: ListenerCore, options: ListenerAppOptions): void {
  const cap = options.maxInboxBytes ?? MAX_INBOX_BYTES;
  const log = options.log ?? (() => {});

  app.post('/inbox', async (c) => {
    const body = await readCappedBody(c.req.raw, cap);
    if (!body.ok) {
      // Close the connection: the rest of an oversized body is not worth reading to keep it alive.
      if (body.reason === 'too_large') return problem(c, 413, `body larger than ${cap} bytes`, { Connection: 'close' });
      return problem(c, 400, 'body could not be read');
    }
    const settings = core.settings.get();
    const url = publicUrl(c.req.raw, settings.baseUrl ?? c.var.local.baseUrl);
    const outcome = await receiveInboxPost(
      {
        db: core.db,
        fed: core.fed,
        clock: core.clock,
        settings: () => core.settings.get(),
        events: core.inboxEvents,
        onQueued: options.onQueued,
      },
      asAddressed(c.req.raw, url, body.bytes),
      body.bytes,
    );
    const from = clientAddress(c, settings.listener.behindProxy);
    if (outcome.status === 202) {
      if (outcome.queued === null) log(`inbox: 202 without queueing: ${outcome.reason} (from ${from})`);
      return c.body(null, 202);
    }
    log(`inbox: ${outcome.status} ${outcome.reason} (from ${from})`);
    return problem(c, outcome.status, outcome.reason);
  });
}
