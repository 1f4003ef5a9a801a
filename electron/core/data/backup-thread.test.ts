// Backups are written and read on the backup thread (backup.ts onBackupThread): the whole data
// folder passes through them, and gzipSync held the main thread 3 s for 100 MB of uploads.
// zlib's synchronous functions are refused on this thread: an archive made or read here instead
// of on the backup thread fails.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openCore } from '../core';
import { BadInputError } from '../errors';
import { createBackup, readBackup } from './backup';

vi.mock('node:zlib', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:zlib')>();
  const refused = () => {
    throw new Error('zlib ran synchronously on the main thread');
  };
  return { ...real, default: { ...real, gzipSync: refused, gunzipSync: refused }, gzipSync: refused, gunzipSync: refused };
});

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-backup-thread-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the backup thread', () => {
  it('writes an archive and reads it back, with its uploads, off this thread', async () => {
    const core = await openCore({ dataDir: tempDir(), mode: 'headless' });
    try {
      mkdirSync(core.paths.uploads, { recursive: true });
      writeFileSync(join(core.paths.uploads, 'a'.repeat(64)), 'an upload');
      const made = await createBackup(core, { dest: tempDir() });
      expect(made.rows).toBeGreaterThan(0);
      const extracted = tempDir();
      const { manifest } = await readBackup(made.path, { extractTo: extracted });
      expect(manifest.entries.map((e) => e.name)).toContain(`uploads/${'a'.repeat(64)}`);
      expect(readFileSync(join(extracted, 'uploads', 'a'.repeat(64)), 'utf8')).toBe('an upload');
    } finally {
      core.close();
    }
  });

  it('answers a bad archive with the BadInputError it raised there, message and all', async () => {
    const bad = join(tempDir(), 'x.tar.gz');
    writeFileSync(bad, 'not gzip');
    const refusal = readBackup(bad);
    await expect(refusal).rejects.toBeInstanceOf(BadInputError);
    await expect(refusal).rejects.toThrow(`${bad} is not a Tern backup (it is not a gzip archive, or it is damaged).`);
  });
});
