// The Tern under test: the real core on a temporary data folder, its real listener on
// 127.0.0.1:<free port>, and an identity whose base URL is that listener (so what peers sign,
// http://127.0.0.1:<port>/inbox, is what the listener checks). Outbound fetches may reach
// loopback (allowPrivateAddresses), as in headless --allow-private-addresses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore, type Core } from '../electron/core/core';
import type { LocalActor } from '../electron/core/federation/identity';
import { saveOutboxObject } from '../electron/core/federation/outbox-store';
import type { DbOrTx } from '../db/client';
import type { OutboxObject } from '../db/schema';

export interface BenchTern {
  core: Core;
  local: LocalActor;
  listenerUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function openBenchTern(): Promise<BenchTern> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-bench-'));
  // The inbox processor and the delivery loop on their worker threads, as the apps run them
  // (BENCH_INBOX_WORKER=0, BENCH_DELIVERY_WORKER=0: on this thread).
  const inboxWorker = process.env.BENCH_INBOX_WORKER !== '0';
  const deliveryWorker = process.env.BENCH_DELIVERY_WORKER !== '0';
  // The test certificate of the HTTPS servers the fan-out phase starts (its TLS rounds).
  const trustedCa = readFileSync(new URL('../test/fixtures/tls/localhost-cert.pem', import.meta.url), 'utf8');
  const core = await openCore({ dataDir, mode: 'headless', allowPrivateAddresses: true, inboxWorker, deliveryWorker, trustedCa });
  const running = await core.listener.start({ host: '127.0.0.1', port: 0 });
  core.settings.update({ baseUrl: running.url, username: 'bench', displayName: 'Bench' });
  const local = core.identity();
  if (!local) throw new Error('the bench identity did not take');
  return {
    core,
    local,
    listenerUrl: running.url,
    dataDir,
    async close() {
      await core.listener.stop();
      core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A public Note of ours, as compose would store it (without its deliveries). */
export function savePost(db: DbOrTx, local: LocalActor, now: Date, text: string): OutboxObject {
  return saveOutboxObject(db, local, {
    apObject: {
      type: 'Note',
      attributedTo: local.id,
      content: `<p>${text}</p>`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [local.followers],
      published: now.toISOString(),
    },
    visibility: 'PUBLIC',
    now,
  });
}
