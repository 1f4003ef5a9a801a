import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from '../core';
import { createCoreHost, type CoreHost } from '../core-host';
import { dispatch } from '../ipc/handlers';
import { createBackup } from './backup';
import { restoreInPlace } from './restore';
import { ConflictError } from '../errors';

const dirs: string[] = [];
const hosts: CoreHost[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-restore-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const runs: string[] = [];
async function hostOn(dataDir: string): Promise<CoreHost> {
  const host = await createCoreHost({
    open: () => openCore({ dataDir, mode: 'headless' }),
    run: (core) => {
      runs.push(`start ${core.paths.dir}`);
      return async () => {
        runs.push('stop');
      };
    },
  });
  hosts.push(host);
  return host;
}
function addActor(host: CoreHost, id: string) {
  host
    .current()
    .sqlite.prepare('INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES (?, ?, ?, ?, ?)')
    .run('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', id, '{}', 'Person');
}
const actors = (host: CoreHost) => host.current().sqlite.prepare('SELECT ap_id FROM actor ORDER BY id').pluck().all();

describe('restoring from the running app', () => {
  it('puts a backup of the list back with the core reopened on it, the replaced data moved aside', async () => {
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    addActor(host, 'https://a.example/u');
    mkdirSync(join(dataDir, 'uploads'), { recursive: true });
    writeFileSync(join(dataDir, 'uploads', 'blob'), 'kept');
    host.current().settings.update({ displayName: 'Backed up' });
    const backup = await createBackup(host.current());

    // What happens after the backup, and is undone by restoring it.
    addActor(host, 'https://b.example/u');
    host.current().settings.update({ displayName: 'Later' });
    rmSync(join(dataDir, 'uploads'), { recursive: true });
    runs.length = 0;

    const result = await host.handlers()['backup.restore']({ backup: basename(backup.path) });
    expect(result.restoredFrom).toBe(backup.path);
    expect(runs).toEqual(['stop', `start ${dataDir}`]);
    expect(actors(host)).toEqual(['https://a.example/u']);
    expect(host.current().settings.get().displayName).toBe('Backed up');
    expect(readFileSync(join(dataDir, 'uploads', 'blob'), 'utf8')).toBe('kept');
    // Nothing lost: the replaced database is beside, the backup itself still listed.
    expect(result.movedAside).toMatch(/before-restore-/);
    expect(existsSync(join(result.movedAside!, 'tern.db'))).toBe(true);
    expect(readdirSync(join(dataDir, 'backups'))).toContain(basename(backup.path));
  });

  it('one reopen at a time: a second while the first runs is refused as a conflict, touching nothing', async () => {
    const host = await hostOn(tempDir());
    const swapped: string[] = [];
    const first = host.reopen(async () => {
      swapped.push('first');
    });
    await expect(host.reopen(async () => swapped.push('second'))).rejects.toThrow(ConflictError);
    await first;
    expect(swapped).toEqual(['first']);
  });

  it('takes an absolute path to an archive elsewhere', async () => {
    const source = await hostOn(tempDir());
    addActor(source, 'https://elsewhere.example/u');
    const backup = await createBackup(source.current(), { dest: tempDir() });
    const host = await hostOn(tempDir());
    await host.handlers()['backup.restore']({ backup: backup.path });
    expect(actors(host)).toEqual(['https://elsewhere.example/u']);
  });

  it('refuses a damaged archive, an unknown name and a relative path before closing anything', async () => {
    const dataDir = tempDir();
    const host = await hostOn(dataDir);
    addActor(host, 'https://a.example/u');
    const core = host.current();
    const bad = join(tempDir(), 'tern-backup-2026-01-01T00-00-00-000Z.tar.gz');
    writeFileSync(bad, 'not gzip');
    const handlers = host.handlers();
    const call = async (backup: string) => dispatch(handlers, 'backup.restore', { backup }, () => {});
    expect(await call(bad)).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/is not a Tern backup/) } });
    expect(await call('tern-backup-2026-01-01T00-00-00-000Z.tar.gz')).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/There is no backup named/) } });
    expect(await call('backups/x.tar.gz')).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/full path/) } });
    expect(await call('')).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(host.current()).toBe(core);
    expect(actors(host)).toEqual(['https://a.example/u']);
  });

  it('without a host (a caller that cannot reopen), says how to restore instead', async () => {
    const host = await hostOn(tempDir());
    await expect(restoreInPlace(host.current(), undefined, '/x.tar.gz')).rejects.toThrow(/--restore/);
  });

  it('calls made while the data is swapped are answered by the reopened core', async () => {
    let during: Promise<unknown> | null = null;
    const dataDir = tempDir();
    const host = await createCoreHost({
      open: () => openCore({ dataDir, mode: 'headless' }),
      // Stopping the old core is the first step of a reopen: a call made then must wait.
      run: () => async () => {
        during ??= Promise.resolve(host.handlers()['app.status']({}));
      },
    });
    hosts.push(host);
    addActor(host, 'https://a.example/u');
    const backup = await createBackup(host.current());
    addActor(host, 'https://b.example/u');
    await host.handlers()['backup.restore']({ backup: backup.path });
    expect(during).not.toBeNull();
    expect(((await during) as unknown as { counts: { actor: number } }).counts.actor).toBe(1);
  });
});
