import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from './core';
import { DataFolderInUseError, lockDataFolder } from './folder-lock';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-lock-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Another process holding the folder's lock, as a second Tern would. */
async function holderProcess(dir: string) {
  const script = `
    const { lockDataFolder } = await import(${JSON.stringify(new URL('./folder-lock.ts', import.meta.url).href)});
    lockDataFolder(${JSON.stringify(dir)});
    console.log('held');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line === 'held' && resolve());
    child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}

describe('one Tern per data folder', () => {
  it('a second core on the same folder is refused with a sentence, and the first keeps working', async () => {
    const dir = tempDir();
    const first = await openCore({ dataDir: dir, mode: 'headless' });
    await expect(openCore({ dataDir: dir, mode: 'headless' })).rejects.toThrow(DataFolderInUseError);
    await expect(openCore({ dataDir: dir, mode: 'headless' })).rejects.toThrow(/Another Tern is already running on the data folder/);
    // The refused open touched nothing: the first core still reads and writes its database.
    expect(first.services.status).toBeDefined();
    first.sqlite.prepare('CREATE TABLE IF NOT EXISTS lock_probe (x)').run();
    expect(first.sqlite.prepare('SELECT count(*) AS n FROM lock_probe').get()).toEqual({ n: 0 });
    first.close();
    // Closed: the folder is free again.
    const again = await openCore({ dataDir: dir, mode: 'headless' });
    again.close();
  });

  it('a Tern in another process holds the folder; once it is killed (SIGKILL) the folder is free, no stale lock', async () => {
    const dir = tempDir();
    const child = await holderProcess(dir);
    try {
      expect(() => lockDataFolder(dir)).toThrow(DataFolderInUseError);
      await expect(openCore({ dataDir: dir, mode: 'headless' })).rejects.toThrow(DataFolderInUseError);
      // Refused before the database was created.
      expect(existsSync(join(dir, 'tern.db'))).toBe(false);
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    expect(existsSync(join(dir, 'tern.db'))).toBe(true);
    core.close();
  });
});
