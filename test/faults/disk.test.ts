// The disk as a laptop's disk really fails: it fills up, or the data folder becomes read-only
// (a remount after an fs error, an external drive's switch). Tern says so in a sentence, keeps
// everything already stored intact (integrity_check), and recovers by itself once space or
// write access returns. A real small tmpfs is mounted for it, which needs root (CI runs as
// root; elsewhere these tests are skipped and say why).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../electron/core/core';
import { createHandlers, dispatch, type Handlers } from '../../electron/core/ipc/handlers';

function tryMount(dir: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return `mounting a small tmpfs needs root (${(error as Error).message.split('\n')[0]})`;
  }
}

const mountPoint = mkdtempSync(join(tmpdir(), 'tern-disk-'));
const cannotMount = tryMount(mountPoint);
if (cannotMount) console.log(`disk fault tests skipped: ${cannotMount}`);

describe.skipIf(cannotMount !== null)('a full disk and a read-only data folder', () => {
  let core: Core;
  let handlers: Handlers;
  const dataDir = join(mountPoint, 'tern');
  const filler = join(mountPoint, 'filler');
  const posts = () => (core.sqlite.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
  const post = (content: string) => dispatch(handlers, 'posts.create', { content, visibility: 'PUBLIC' }, () => {});

  beforeAll(async () => {
    core = await openCore({ dataDir, mode: 'headless' });
    core.settings.update({ baseUrl: 'https://tern.test', username: 'ana' });
    handlers = createHandlers(core);
  });
  afterAll(() => {
    try {
      core?.close();
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint], { stdio: 'pipe' });
      execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  it('a full disk: posting fails with a sentence, nothing stored is damaged, and posting works again once space returns', async () => {
    expect((await post('before the disk filled up')).ok).toBe(true);
    const before = posts();
    // Fill every byte left.
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try {
      for (let size = block.length; size >= 1; ) {
        try {
          writeSync(fd, block, 0, size);
        } catch {
          size = Math.floor(size / 2);
        }
      }
    } finally {
      closeSync(fd);
    }
    // Some posts may still fit in pages SQLite already has; the disk is full within a few.
    let failure: Awaited<ReturnType<typeof post>> | null = null;
    let stored = 0;
    for (let i = 0; i < 50 && failure === null; i++) {
      const result = await post(`while the disk is full ${i} ${'words '.repeat(15_000)}`);
      if (result.ok) stored++;
      else failure = result;
    }
    expect(failure).not.toBeNull();
    expect(failure).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect((failure as { error: { message: string } }).error.message).toMatch(/disk is full.*Nothing already saved was lost/);
    expect(posts()).toBe(before + stored);
    expect(core.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    // Reading still works while full.
    expect((await dispatch(handlers, 'app.status', {}, () => {})).ok).toBe(true);

    unlinkSync(filler);
    const after = await post('space is back');
    expect(after.ok).toBe(true);
    expect(posts()).toBe(before + stored + 1);
    expect(core.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a data folder that became read-only: Tern refuses to start with a sentence, touching nothing, and starts once it is writable again', async () => {
    const before = posts();
    core.close();
    execFileSync('mount', ['-o', 'remount,ro', mountPoint], { stdio: 'pipe' });
    try {
      await expect(openCore({ dataDir, mode: 'headless' })).rejects.toThrow(/read-only/);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint], { stdio: 'pipe' });
    }
    core = await openCore({ dataDir, mode: 'headless' });
    handlers = createHandlers(core);
    expect(posts()).toBe(before);
    expect((await post('writable again')).ok).toBe(true);
    expect(posts()).toBe(before + 1);
    expect(core.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
