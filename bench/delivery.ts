// Measures the delivery loop: signed POSTs per second to loopback inboxes (real SQLite queue,
// real HTTP signatures, real node:http servers answering 202). Not a unit test:
//   npx tsx bench/delivery.ts [rows=1000] [servers=100] [concurrency=8] [perHost=2] [sentRowsBefore=0]
import { mkdtempSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { manualSource } from '../electron/core/connectivity/watch';
import { openCore } from '../electron/core/core';
import { createDeliveryLoop } from '../electron/core/delivery/loop';
import { enqueueDeliveries } from '../electron/core/delivery/queue';
import { saveOutboxObject } from '../electron/core/federation/outbox-store';
import { deliveryPayload } from '../electron/core/federation/outbox';

const [rows = 1000, serverCount = 100, concurrency = 8, perHost = 2, sentBefore = 0] = process.argv[2] === '--servers' ? [] : process.argv.slice(2).map(Number);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bench-'));
  const core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
  core.settings.update({ baseUrl: 'http://127.0.0.1:9', username: 'alice' });
  core.connectivity.setSource(manualSource(true));
  const local = core.identity()!;

  // The inboxes run in a child process, so their HTTP parsing is not counted as Tern's time.
  const child = fork(new URL(import.meta.url).pathname, ['--servers', String(serverCount)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ports = await new Promise<number[]>((resolve) => child.once('message', (m) => resolve(m as number[])));
  const inboxes = ports.map((port) => `http://127.0.0.1:${port}/inbox`);

  // Old, already-sent rows in front of the queue (a long-used database).
  if (sentBefore > 0) {
    core.sqlite.exec('BEGIN');
    const stmt = core.sqlite.prepare(
      `INSERT INTO outgoing_activity (created_at, recipient, tries, is_sent, is_errored) VALUES ('2020-01-01T00:00:00.000Z', ?, 1, 1, 0)`,
    );
    for (let i = 0; i < sentBefore; i++) stmt.run(inboxes[i % inboxes.length]);
    core.sqlite.exec('COMMIT');
  }

  // `rows` deliveries: posts of ~600 bytes, each to every server's inbox.
  const posts = Math.ceil(rows / serverCount);
  const now = new Date();
  core.db.transaction((tx) => {
    for (let p = 0; p < posts; p++) {
      const post = saveOutboxObject(tx, local, {
        apObject: { type: 'Note', attributedTo: local.id, content: `<p>${'Benchmark post. '.repeat(30)}</p>`, to: ['https://www.w3.org/ns/activitystreams#Public'] },
        visibility: 'PUBLIC',
        now,
      });
      enqueueDeliveries(tx, { outboxObjectId: post.id, recipients: inboxes.slice(0, Math.min(serverCount, rows - p * serverCount)), now });
    }
  });

  const loop = createDeliveryLoop({
    sqlite: core.sqlite,
    clock: () => new Date(),
    client: core.fed.client,
    connectivity: core.connectivity,
    signer: () => ({ keyId: new URL(local.keyId), privateKey: core.fed.keys.rsa.privateKey }),
    payload: (row) => deliveryPayload(core.db, local, row),
    resolve: async () => ({ kind: 'retry', reason: 'n/a' }),
    options: { concurrency, perHost },
  });
  const started = performance.now();
  loop.start();
  await loop.drain();
  const seconds = (performance.now() - started) / 1000;
  child.send('count');
  const received = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const sent = core.db.get<{ n: number }>(sql`SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 1 AND id > ${sentBefore}`)!.n;
  console.log(
    JSON.stringify({ rows, servers: serverCount, concurrency, perHost, sentRowsBefore: sentBefore, sent, received, seconds: +seconds.toFixed(2), perSecond: Math.round(sent / seconds) }),
  );
  await loop.stop();
  child.kill();
  core.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The child: `serverCount` loopback inboxes answering 202; reports ports, then counts. */
async function serve(count: number) {
  let received = 0;
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ports.push((server.address() as AddressInfo).port);
  }
  process.send?.(ports);
  process.on('message', () => process.send?.(received));
}

if (process.argv[2] === '--servers') void serve(Number(process.argv[3]));
else void main();
