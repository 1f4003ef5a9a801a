// The backup thread (backup.ts onBackupThread) holds tens of MB: with nothing to do for
// BACKUP_THREAD_IDLE_MS it ends, and the next job starts another.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BadInputError } from '../errors';
import { BACKUP_THREAD_IDLE_MS, backupThreadsAlive, readBackup } from './backup';

const dir = mkdtempSync(join(tmpdir(), 'tern-backup-idle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the backup thread when idle', () => {
  it('ends after BACKUP_THREAD_IDLE_MS with nothing to do, and the next job starts another', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const bad = join(dir, 'x.tar.gz');
      writeFileSync(bad, 'not gzip');
      expect(backupThreadsAlive()).toBe(0);
      await expect(readBackup(bad)).rejects.toBeInstanceOf(BadInputError);
      expect(backupThreadsAlive()).toBe(1);
      vi.advanceTimersByTime(BACKUP_THREAD_IDLE_MS - 1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(backupThreadsAlive()).toBe(1);
      vi.advanceTimersByTime(1);
      await vi.waitFor(() => expect(backupThreadsAlive()).toBe(0), { timeout: 5_000 });
      // A job after the stop gets a new thread, which answers as the first did.
      await expect(readBackup(bad)).rejects.toThrow('is not a Tern backup');
      expect(backupThreadsAlive()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
