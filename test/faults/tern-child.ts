// A Tern process to kill: the real core on a data folder, doing one task, for the power-loss
// tests (power-loss.ts). Run with tsx:  tern-child.ts <dataDir> deliver|backup|restore <archive>|open|index|inbox <port>|upload <imagesDir>
// Prints "ready" once the core is open, or for `open` before it opens (the kill may land any time
// after), and "done" when the task has finished.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openCore } from '../../electron/core/core';
import type { DeliveryWorkerHost } from '../../electron/core/delivery/worker-host';
import { anyPending } from '../../electron/core/delivery/store';
import type { InboxWorkerHost } from '../../electron/core/federation/inbox-worker-host';
import { createHandlers, dispatch } from '../../electron/core/ipc/handlers';
import { createBackup, restoreBackup } from '../../electron/core/data/backup';
import { createSearchIndexer } from '../../electron/core/search/indexer';

const [dataDir, task, arg] = process.argv.slice(2);
if (!dataDir || !task) throw new Error('usage: tern-child.ts <dataDir> <task> [arg]');

if (task === 'restore') {
  console.log('ready');
  await restoreBackup(arg!, dataDir);
  const core = await openCore({ dataDir, mode: 'headless' });
  core.close();
  console.log('done');
  process.exit(0);
}

if (task === 'inbox') {
  // The listener on the given port, the inbox loop processing what arrives; runs until killed,
  // or with `drain` as the next argument processes what is due and exits.
  // The inbox processor on its worker thread, as the apps run it: the kill lands in either thread.
  const core = await openCore({ dataDir, mode: 'headless', allowPrivateAddresses: true, inboxWorker: true, listen: { host: '127.0.0.1', port: Number(arg) } });
  core.loops.inbox.start();
  // Up when its workers are (the listener's inserts and checks wait for them; the app starts the
  // checks worker with the first POST, which waits for it): a kill lands in the work.
  (core.loops.inbox as InboxWorkerHost).startChecks();
  await (core.loops.inbox as InboxWorkerHost).ready();
  console.log('ready');
  if (process.argv[5] === 'drain') {
    await core.loops.inbox.stop();
    await core.loops.inbox.drain();
    await core.listener.stop();
    core.close();
    console.log('done');
    process.exit(0);
  }
  await new Promise(() => {});
}

// Opening is the task itself for `open` (an upgrade may run): the kill may land inside it.
if (task === 'open') console.log('ready');
// Deliveries from the delivery worker, as the apps send them.
const core = await openCore({ dataDir, mode: 'headless', allowPrivateAddresses: true, deliveryWorker: task === 'deliver' });
if (task === 'deliver') {
  // The worker starts only when rows wait: a run after kills that had sent everything (it
  // happens) starts none, and waiting for it left nothing holding the process open.
  const work = anyPending(core.sqlite);
  core.loops.delivery.start();
  if (work) await (core.loops.delivery as DeliveryWorkerHost).ready();
}
if (task !== 'open') console.log('ready');
if (task === 'deliver') {
  await core.loops.delivery.drain();
  const pending = core.sqlite.prepare('SELECT count(*) AS n FROM outgoing_activity WHERE is_sent = 0 AND is_errored = 0').get() as { n: number };
  await core.loops.delivery.stop({ graceMs: 0 });
  console.log(pending.n === 0 ? 'done' : `pending ${pending.n}`);
} else if (task === 'backup') {
  await createBackup(core);
  console.log('done');
} else if (task === 'index') {
  // The search index's rebuild, step after step as the core's loop runs it.
  const indexer = createSearchIndexer(core.sqlite);
  while (indexer.step(25)) await new Promise((r) => setImmediate(r));
  console.log('done');
} else if (task === 'upload') {
  // Every image of the folder, uploaded as the renderer does: begin, chunks, finish (the
  // pipeline: sniffing, sharp, blurhash, files, row). One already stored comes back as it is.
  const handlers = createHandlers(core);
  const call = async (channel: string, input: Record<string, unknown>) => {
    const r = await dispatch(handlers, channel, input, () => {});
    if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
    return r.value as Record<string, unknown>;
  };
  for (const name of readdirSync(arg!).sort()) {
    const bytes = readFileSync(join(arg!, name));
    const { uploadId, chunkBytes } = (await call('media.uploadBegin', { contentType: 'image/jpeg', size: bytes.length })) as { uploadId: string; chunkBytes: number };
    for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
      await call('media.uploadChunk', { uploadId, offset, data: bytes.subarray(offset, offset + chunkBytes).toString('base64') });
    }
    await call('media.uploadFinish', { uploadId });
  }
  console.log('done');
} else if (task === 'open') {
  console.log('done');
} else {
  throw new Error(`unknown task ${task}`);
}
core.close();
process.exit(0);
