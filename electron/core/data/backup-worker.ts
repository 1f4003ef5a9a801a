// The backup thread (backup.ts onBackupThread): writes archives (hashes, tar, gzip) and reads
// them back (gunzip, checks, extraction) off the main thread. One job at a time, in order; an
// error is answered with its name and message, for the main thread to throw again.
import { parentPort } from 'node:worker_threads';
import { readBackupHere, writeBackupArchive, type BackupJob, type BackupReply } from './backup';

let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (job: BackupJob & { id: number }) => {
  queue = queue.then(async () => {
    let reply: BackupReply;
    try {
      const value = job.kind === 'create' ? await writeBackupArchive(job) : await readBackupHere(job);
      reply = { id: job.id, ok: true, value };
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      reply = { id: job.id, ok: false, error: { name, message } };
    }
    parentPort?.postMessage(reply);
  });
});
