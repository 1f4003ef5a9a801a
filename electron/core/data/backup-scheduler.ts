// The automatic daily backup: checks at start and then hourly, backs up when the newest archive
// is a day old (or there is none, or the newest is dated in the future), and keeps only the
// newest `keep` archives. Only files named like Tern's backups are ever pruned; the copies made
// before an upgrade are left alone.
import { rm } from 'node:fs/promises';
import { createBackup, listBackups, type BackupDeps, type BackupFile, type BackupResult } from './backup';

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

/**
 * Backups newest first, those dated in the future last. One written while the clock was ahead
 * (a dead RTC battery, a bad NTP answer) would otherwise count as the newest: no backup would be
 * due until that date, and rotation would keep it while pruning the real ones after it.
 */
function byAge(backups: BackupFile[], now: Date): BackupFile[] {
  const future = (b: BackupFile) => Date.parse(b.createdAt) > now.getTime();
  return [...backups.filter((b) => !future(b)), ...backups.filter(future)];
}

export function createBackupScheduler(options: BackupSchedulerOptions): BackupScheduler {
  const { core } = options;
  const clock = options.clock ?? core.clock;
  const keep = Math.max(1, options.keep ?? 7);
  const log = options.log ?? (() => {});
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<BackupResult | null> | null = null;

  async function check(): Promise<BackupResult | null> {
    const newest = byAge(await listBackups(core.paths.backups), clock())[0];
    const due = newest === undefined || clock().getTime() - Date.parse(newest.createdAt) >= DAY_MS || Date.parse(newest.createdAt) > clock().getTime();
    const made = due ? await createBackup(core) : null;
    if (made) log(`daily backup written to ${made.path}`);
    for (const old of byAge(await listBackups(core.paths.backups), clock()).slice(keep)) await rm(old.path, { force: true });
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
