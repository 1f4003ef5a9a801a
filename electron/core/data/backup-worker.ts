// The backup thread (backup.ts onBackupThread): writes archives (hashes, tar, gzip) and reads
// them back (gunzip, checks, extraction) off the main thread, and looks at and stages a
// microblog.pub folder moved in (its database counted, upgraded, its rows copied). One job at a time, in order; an
// error is answered with its name and message, for the main thread to throw again.
import { parentPort } from 'node:worker_threads';
import type { BackupJob, BackupReply } from './backup';
import { readBackupHere, writeBackupArchive } from './backup-archive';
import { inspectMicroblogPub, stageMicroblogPub } from './microblogpub-import';
import type { Settings } from '../settings';

let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (job: BackupJob & { id: number }) => {
  queue = queue.then(async () => {
    let reply: BackupReply;
    try {
      const value =
        job.kind === 'create'
          ? await writeBackupArchive(job)
          : job.kind === 'read'
            ? await readBackupHere(job)
            : job.kind === 'inspectImport'
              ? await inspectMicroblogPub(job.folder, job.copy, job.enums)
              : await stageMicroblogPub(job.folder, job.dataDir, job.settings as Settings, new Date(job.now));
      reply = { id: job.id, ok: true, value };
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      reply = { id: job.id, ok: false, error: { name, message } };
    }
    parentPort?.postMessage(reply);
  });
});
