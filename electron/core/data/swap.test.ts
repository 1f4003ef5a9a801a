import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recoverDataFolder, swapIntoDataFolder } from './swap';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A data folder holding the "old" files and a complete staging folder of "new" ones. */
function folders() {
  dir = mkdtempSync(join(tmpdir(), 'tern-swap-'));
  for (const name of ['tern.db', 'settings.json']) writeFileSync(join(dir, name), `old ${name}`);
  mkdirSync(join(dir, 'backups'));
  writeFileSync(join(dir, 'tern.lock'), '');
  const staging = join(dir, '.restore-abc');
  mkdirSync(staging);
  for (const name of ['tern.db', 'settings.json']) writeFileSync(join(staging, name), `new ${name}`);
  return staging;
}
const read = (name: string) => readFileSync(join(dir, name), 'utf8');

describe('swapping data in, interrupted anywhere', () => {
  it('a whole swap: old files aside, new in place; backups and the lock stay', async () => {
    const staging = folders();
    const aside = await swapIntoDataFolder(dir, staging, 'before-restore-1');
    expect(aside).toBe(join(dir, 'before-restore-1'));
    expect(read('tern.db')).toBe('new tern.db');
    expect(readFileSync(join(aside!, 'tern.db'), 'utf8')).toBe('old tern.db');
    expect(existsSync(join(dir, 'tern.lock')) && existsSync(join(dir, 'backups'))).toBe(true);
    expect(existsSync(staging)).toBe(false);
  });

  it('killed while moving the old files aside: the next start finishes the swap', async () => {
    const staging = folders();
    writeFileSync(join(staging, '.swap.json'), JSON.stringify({ aside: 'before-restore-2', phase: 'aside' }));
    mkdirSync(join(dir, 'before-restore-2'));
    // One old file made it aside before the kill.
    writeFileSync(join(dir, 'before-restore-2', 'settings.json'), 'old settings.json');
    rmSync(join(dir, 'settings.json'));
    const said = await recoverDataFolder(dir, join(dir, 'backups'));
    expect(said.join()).toMatch(/finished putting the staged data/);
    expect(read('tern.db')).toBe('new tern.db');
    expect(read('settings.json')).toBe('new settings.json');
    expect(readFileSync(join(dir, 'before-restore-2', 'tern.db'), 'utf8')).toBe('old tern.db');
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('killed while moving the new files in: the next start moves the rest in', async () => {
    const staging = folders();
    writeFileSync(join(staging, '.swap.json'), JSON.stringify({ aside: 'before-restore-3', phase: 'in' }));
    mkdirSync(join(dir, 'before-restore-3'));
    for (const name of ['tern.db', 'settings.json']) {
      writeFileSync(join(dir, 'before-restore-3', name), `old ${name}`);
      rmSync(join(dir, name));
    }
    writeFileSync(join(dir, 'tern.db'), 'new tern.db'); // moved in before the kill
    rmSync(join(staging, 'tern.db'));
    await recoverDataFolder(dir, join(dir, 'backups'));
    expect(read('tern.db')).toBe('new tern.db');
    expect(read('settings.json')).toBe('new settings.json');
    expect(existsSync(staging)).toBe(false);
  });

  it('killed before the swap began (no journal): the staging is removed and the old data is untouched; backup temp folders too', async () => {
    const staging = folders();
    mkdirSync(join(dir, 'backups', '.backup-xyz'));
    const said = await recoverDataFolder(dir, join(dir, 'backups'));
    expect(said).toHaveLength(2);
    expect(read('tern.db')).toBe('old tern.db');
    expect(existsSync(staging)).toBe(false);
    expect(readdirSync(join(dir, 'backups'))).toEqual([]);
  });

  it('partly written uploads (temporary names) are removed; finished ones stay', async () => {
    folders();
    const uploads = join(dir, 'uploads');
    mkdirSync(uploads);
    writeFileSync(join(uploads, 'abc'), 'done');
    writeFileSync(join(uploads, 'abc.1234.tmp'), 'half');
    const said = await recoverDataFolder(dir, join(dir, 'backups'), uploads);
    expect(said.join()).toMatch(/1 partly written upload/);
    expect(readdirSync(uploads)).toEqual(['abc']);
  });

  it('an archive or a settings file not yet renamed into place (killed mid-write) is removed; finished backups stay', async () => {
    folders();
    const backups = join(dir, 'backups');
    writeFileSync(join(backups, 'tern-backup-2026-01-01.tar.gz'), 'done');
    writeFileSync(join(backups, 'tern-backup-2026-01-02.tar.gz.0a1b2c3d4e5f.tmp'), 'half');
    writeFileSync(join(dir, 'settings.json.tmp'), '{"half":');
    const said = await recoverDataFolder(dir, backups);
    // The staging folder of folders(), the settings file, the archive.
    expect(said).toHaveLength(3);
    expect(said.join('\n')).toMatch(/settings\.json\.tmp.*\n.*tar\.gz\.0a1b2c3d4e5f\.tmp/);
    expect(readdirSync(backups)).toEqual(['tern-backup-2026-01-01.tar.gz']);
    expect(readdirSync(dir).sort()).toEqual(['backups', 'settings.json', 'tern.db', 'tern.lock']);
    expect(read('settings.json')).toBe('old settings.json');
  });

  it('a partial export left by a crash (exports/*.tmp) is removed; finished exports stay', async () => {
    folders();
    const exports = join(dir, 'exports');
    mkdirSync(exports);
    writeFileSync(join(exports, 'tern-archive-2026-01-01.tar.gz'), 'done');
    writeFileSync(join(exports, 'tern-archive-2026-01-02.tar.gz.0a1b2c3d4e5f.tmp'), 'half');
    const said = await recoverDataFolder(dir, join(dir, 'backups'));
    expect(said.join('\n')).toMatch(/exports\/tern-archive-2026-01-02\.tar\.gz\.0a1b2c3d4e5f\.tmp/);
    expect(readdirSync(exports)).toEqual(['tern-archive-2026-01-01.tar.gz']);
  });

  it('a journal that does not name an aside folder of Tern’s is not followed (nothing moves)', async () => {
    const staging = folders();
    writeFileSync(join(staging, '.swap.json'), JSON.stringify({ aside: '../../elsewhere', phase: 'aside' }));
    await recoverDataFolder(dir, join(dir, 'backups'));
    expect(read('tern.db')).toBe('old tern.db');
    expect(existsSync(staging)).toBe(false);
  });
});
