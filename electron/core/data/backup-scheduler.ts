// The automatic daily backup: checks at start and then hourly, backs up when the newest archive
// is a day old (or there is none), and keeps only the newest `keep` archives. Only files named
// like Tern's backups are ever pruned; the copies made before an upgrade are left alone.
import { rm } from 'node:fs/promises';
import { createBackup, listBackups, type BackupDeps, type BackupResult } from './backup';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

export interface BackupSchedulerOptions {
  core: BackupDeps;
  clock?: () => Date;
  keep?: number;
  log?: (line: string) => void;
  /** How often to check (ms); an hour unless a test says otherwise. */
  intervalMs?: number;
}

export interface BackupScheduler {
  start(): void;
  stop(): Promise<void>;
  /** One check: backs up when due, then prunes. Resolves to the new backup, or null. */
  runIfDue(): Promise<BackupResult | null>;
}

export function createBackupScheduler(options: BackupSchedulerOptions): BackupScheduler {
  const { core } = options;
  const clock = options.clock ?? core.clock;
  const keep = Math.max(1, options.keep ?? 7);
  const log = options.log ?? (() => {});
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<BackupResult | null> | null = null;

  async function check(): Promise<BackupResult | null> {
    const newest = (await listBackups(core.paths.backups))[0];
    const due = newest === undefined || clock().getTime() - new Date(newest.createdAt).getTime() >= DAY_MS;
    const made = due ? await createBackup(core) : null;
    if (made) log(`daily backup written to ${made.path}`);
    for (const old of (await listBackups(core.paths.backups)).slice(keep)) await rm(old.path, { force: true });
    return made;
  }

  function runIfDue(): Promise<BackupResult | null> {
    // One check at a time: an hourly tick never overlaps a slow backup.
    running ??= check().finally(() => {
      running = null;
    });
    return running;
  }

  const tick = () => {
    runIfDue().catch((error: unknown) => log(`daily backup failed: ${(error as Error).message}`));
  };

  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, options.intervalMs ?? HOUR_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => null);
    },
    runIfDue,
  };
}
