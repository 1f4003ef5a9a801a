// A private file written in full or not at all: a write that fails part-way (a full disk, a
// file-size limit) leaves neither the file nor its temp file behind.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writePrivateFile } from './private-file';

/** When set, the next file opened writes its first 1 KiB and then fails as a full disk does. */
const failing = vi.hoisted(() => ({ code: null as string | null }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const handle = await fs.open(...args);
      const code = failing.code;
      if (code === null) return handle;
      failing.code = null;
      return Object.assign(Object.create(handle) as typeof handle, {
        writeFile: async (data: Buffer) => {
          await handle.write(data.subarray(0, 1024));
          throw Object.assign(new Error(`${code}: no space left on device, write`), { code });
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      });
    },
  };
});

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('writePrivateFile', () => {
  it.each(['ENOSPC', 'EFBIG'])('a write failing part-way (%s) removes its temp file and writes nothing', async (code) => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-private-file-'));
    dirs.push(dir);
    failing.code = code;
    await expect(writePrivateFile(join(dir, 'exports', 'tern-archive-x.tar.gz'), Buffer.alloc(64 * 1024, 1))).rejects.toMatchObject({ code });
    expect(readdirSync(join(dir, 'exports'))).toEqual([]);
  });

  it('a write that succeeds leaves one file, 0600, in a 0700 folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-private-file-'));
    dirs.push(dir);
    await writePrivateFile(join(dir, 'exports', 'a.csv'), Buffer.from('x'));
    expect(readdirSync(join(dir, 'exports'))).toEqual(['a.csv']);
    expect(statSync(join(dir, 'exports', 'a.csv')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'exports')).mode & 0o777).toBe(0o700);
  });
});
