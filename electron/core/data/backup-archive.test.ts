// The archive as streams: a backup and a restore of a data folder hold a few MB whatever its
// size, and a hostile archive is refused from its first headers, before anything large is
// inflated.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import { BadInputError } from '../errors';
import { createBackup, readBackup } from './backup';
import { readTar, tarHeader, tarPadding, TAR_END, writeTar } from './tar';

const dirs: string[] = [];
const cores: Core[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-backup-archive-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** The process's peak RSS above its level at the start, sampled while `work` runs (the backup
 * thread's memory counts: it is in this process). */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ value: T; grewBy: number }> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, grewBy: peak - start };
  } finally {
    clearInterval(timer);
  }
}

const MB = 1024 * 1024;

describe('backup archives as streams', () => {
  it('backs up and restores a 256 MB upload holding memory far below its size', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const core = await openCore({ dataDir, mode: 'headless' });
    cores.push(core);
    // The backup thread started and warmed up first (loading its code takes tens of MB), so what
    // is measured is what the archive's size costs.
    await readBackup((await createBackup(core, { dest: tempDir() })).path, { extractTo: tempDir() });
    mkdirSync(core.paths.uploads, { recursive: true });
    const big = join(core.paths.uploads, 'big');
    writeFileSync(big, 'start');
    truncateSync(big, 256 * MB); // sparse: no disk taken, zeros read back

    const written = await peakGrowth(() => createBackup(core, { dest: tempDir() }));
    expect(written.value.bytes).toBeLessThan(2 * MB);
    console.log(`backup of 256 MB: RSS grew ${(written.grewBy / MB).toFixed(0)} MB`);
    expect(written.grewBy).toBeLessThan(96 * MB);

    const extracted = tempDir();
    const read = await peakGrowth(() => readBackup(written.value.path, { extractTo: extracted }));
    expect(read.value.manifest.entries.find((e) => e.name === 'uploads/big')?.bytes).toBe(256 * MB);
    expect(statSync(join(extracted, 'uploads', 'big')).size).toBe(256 * MB);
    console.log(`restore of 256 MB: RSS grew ${(read.grewBy / MB).toFixed(0)} MB`);
    expect(read.grewBy).toBeLessThan(96 * MB);
  });

  it('the manifest comes first, and the written archive is a plain tar.gz other tools read', async () => {
    const core = await openCore({ dataDir: tempDir(), mode: 'headless' });
    cores.push(core);
    const { path } = await createBackup(core, { dest: tempDir() });
    const entries = readTar(gunzipSync(readFileSync(path)), { maxEntryBytes: 1e9 });
    expect(entries[0]?.name).toBe('manifest.json');
    const manifest = JSON.parse(entries[0]?.data.toString() ?? '') as { entries: { name: string; bytes: number; sha256: string }[] };
    expect(manifest.entries.map((e) => e.name)).toEqual(entries.slice(1).map((e) => e.name));
    for (const [i, e] of manifest.entries.entries()) expect(createHash('sha256').update(entries[i + 1]?.data ?? Buffer.alloc(0)).digest('hex')).toBe(e.sha256);
  });

  it('a gzip bomb without a manifest (64 MB of zeros in a few kB) is refused at its first header', async () => {
    const size = 64 * MB;
    const tar = Buffer.concat([tarHeader({ name: 'uploads/a', type: 'file', mode: 0o600, mtime: new Date(0) }, size), Buffer.alloc(size), TAR_END]);
    const path = join(tempDir(), 'bomb.tar.gz');
    writeFileSync(path, gzipSync(tar, { level: 9 }));
    const refused = await readBackup(path).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadInputError);
    expect((refused as Error).message).toMatch(/does not start with a manifest/);
  });

  it('an entry larger than its manifest says is refused from its header, before its data is read', async () => {
    const db = Buffer.from('x');
    const manifest = Buffer.from(
      JSON.stringify({
        format: 1,
        ternVersion: 't',
        schemaRevision: '70cce0da20c3',
        createdAt: new Date(0).toISOString(),
        entries: [{ name: 'tern.db', type: 'file', bytes: 1, sha256: createHash('sha256').update(db).digest('hex') }],
      }),
    );
    const size = 32 * MB;
    const tar = Buffer.concat([
      writeTar([{ name: 'manifest.json', type: 'file', mode: 0o600, mtime: new Date(0), data: manifest }]).subarray(0, -1024),
      tarHeader({ name: 'tern.db', type: 'file', mode: 0o600, mtime: new Date(0) }, size),
      Buffer.alloc(size),
      tarPadding(size),
      TAR_END,
    ]);
    const path = join(tempDir(), 'lying.tar.gz');
    writeFileSync(path, gzipSync(tar));
    await expect(readBackup(path)).rejects.toThrow(/tern\.db does not match its manifest/);
  });
});
