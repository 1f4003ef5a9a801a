// Headless mode's federation options: --listen, --base-url, --username and
// --allow-private-addresses, parsed and then run: the listener answers on its own port,
// separate from the UI, and serves nothing of the IPC transport.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importFromMicroblogPub, parseHeadlessArgs, parseListenAddress, restoreFromArchive, startHeadless, UsageError, type Headless } from './headless';
import { writeMicroblogPubFolder } from '../test/microblogpub/fixture';
import { openCore } from './core/core';
import { createBackup } from './core/data/backup';

describe('parseHeadlessArgs (federation options)', () => {
  it('reads --listen, --base-url, --username and --allow-private-addresses', () => {
    const args = parseHeadlessArgs(
      ['--data-dir', '/tmp/x', '--listen', '127.0.0.1:4861', '--base-url', 'https://me.example/', '--username', 'alice', '--allow-private-addresses'],
      {},
    );
    expect(args).toMatchObject({
      listen: { host: '127.0.0.1', port: 4861 },
      baseUrl: 'https://me.example',
      username: 'alice',
      allowPrivateAddresses: true,
    });
  });

  it('leaves them out when not given', () => {
    const args = parseHeadlessArgs(['--data-dir', '/tmp/x'], {});
    expect(args).not.toHaveProperty('listen');
    expect(args).not.toHaveProperty('allowPrivateAddresses');
  });

  it.each([['--listen', '4861'], ['--listen', 'host:99999'], ['--base-url', 'ftp://x.example'], ['--username', 'no spaces']])(
    'refuses %s %s with a usage error',
    (flag, value) => {
      expect(() => parseHeadlessArgs(['--data-dir', '/tmp/x', flag, value], {})).toThrow(UsageError);
    },
  );

  it('parses IPv6 listen addresses in brackets', () => {
    expect(parseListenAddress('[::1]:4861')).toEqual({ host: '::1', port: 4861 });
  });
});

describe('parseHeadlessArgs (the token)', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const tokenFile = (text: string, mode: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-token-'));
    dirs.push(dir);
    const file = join(dir, 'token');
    writeFileSync(file, text);
    chmodSync(file, mode);
    return file;
  };

  it('refuses --token: every local user can read a command line (/proc/<pid>/cmdline)', () => {
    expect(() => parseHeadlessArgs(['--data-dir', '/tmp/x', '--token', 'b'.repeat(32)], {})).toThrow(/TERN_TOKEN.*--token-file/);
  });

  it('takes the token from TERN_TOKEN, else makes a random one', () => {
    expect(parseHeadlessArgs(['--data-dir', '/tmp/x'], { TERN_TOKEN: 'c'.repeat(32) }).token).toBe('c'.repeat(32));
    const random = parseHeadlessArgs(['--data-dir', '/tmp/x'], {}).token;
    expect(random).toMatch(/^[0-9a-f]{48}$/);
    expect(parseHeadlessArgs(['--data-dir', '/tmp/x'], { TERN_TOKEN: '' }).token).not.toBe('');
    expect(() => parseHeadlessArgs(['--data-dir', '/tmp/x'], { TERN_TOKEN: 'short' })).toThrow(UsageError);
  });

  it.skipIf(process.platform === 'win32')('takes the token from a file only its owner can read, and refuses one others can', () => {
    expect(parseHeadlessArgs(['--data-dir', '/tmp/x', '--token-file', tokenFile(`${'d'.repeat(32)}\n`, 0o600)], {}).token).toBe('d'.repeat(32));
    expect(() => parseHeadlessArgs(['--data-dir', '/tmp/x', '--token-file', tokenFile('e'.repeat(32), 0o644)], {})).toThrow(/chmod 600/);
    expect(() => parseHeadlessArgs(['--data-dir', '/tmp/x', '--token-file', join(tmpdir(), 'tern-no-such-token')], {})).toThrow(UsageError);
  });
});

describe('startHeadless with --listen', () => {
  let headless: Headless | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await headless?.close();
    headless = undefined;
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it('saves the identity, starts the listener, and keeps IPC off it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tern-headless-'));
    const staticDir = mkdtempSync(join(tmpdir(), 'tern-static-'));
    dirs.push(dataDir, staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    headless = await startHeadless({
      dataDir,
      staticDir,
      uiPort: 0,
      token: 'a'.repeat(32),
      log: () => {},
      listen: { host: '127.0.0.1', port: 0 },
      baseUrl: 'https://me.example',
      username: 'alice',
      allowPrivateAddresses: true,
    });
    expect(headless.listenerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The token in the link's fragment, which a browser never sends to a server.
    expect(headless.url).toBe(`${headless.origin}/#token=${'a'.repeat(32)}`);
    expect(headless.core.identity()?.id).toBe('https://me.example');
    expect(headless.core.fed.allowPrivateAddresses).toBe(true);
    const jrd = await fetch(`${headless.listenerUrl}/.well-known/webfinger?resource=acct:alice@me.example`);
    expect(jrd.status).toBe(200);
    const ipc = await fetch(`${headless.listenerUrl}/ipc/app.status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${'a'.repeat(32)}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(ipc.status).toBe(404);
  });
});

describe('--restore', () => {
  it('parses the archive path to an absolute one', () => {
    expect(parseHeadlessArgs(['--data-dir', '/tmp/x', '--restore', 'b.tar.gz'], {}).restore).toBe(resolve('b.tar.gz'));
  });

  it('restores an archive into a closed data folder and opens it once to upgrade it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tern-restore-'));
    try {
      const core = await openCore({ dataDir: join(root, 'a'), mode: 'headless' });
      core.sqlite.prepare("INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES ('2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', 'https://example.com/u', '{}', 'Person')").run();
      const { path } = await createBackup(core);
      core.close();
      const lines: string[] = [];
      await restoreFromArchive(path, join(root, 'b'), (l) => lines.push(l));
      expect(lines.at(-1)).toContain('Restored');
      const back = await openCore({ dataDir: join(root, 'b'), mode: 'headless' });
      expect(back.sqlite.prepare('SELECT count(*) FROM actor').pluck().get()).toBe(1);
      back.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('--import-microblogpub', () => {
  it('parses the folder to an absolute path', () => {
    expect(parseHeadlessArgs(['--data-dir', '/tmp/x', '--import-microblogpub', 'data'], {}).importMicroblogPub).toBe(resolve('data'));
  });

  it('moves a microblog.pub folder into a data folder and reports what came', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tern-mbp-cli-'));
    try {
      const fixture = writeMicroblogPubFolder(join(root, 'mbp'));
      const lines: string[] = [];
      await importFromMicroblogPub(fixture.folder, join(root, 'tern'), (l) => lines.push(l));
      expect(lines.join('\n')).toMatch(/Moved in from .*: @mo@mbp.example \(https:\/\/mbp.example\), 3 outbox, 3 inbox, 1 followers, 1 following, 2 uploads/);
      const back = await openCore({ dataDir: join(root, 'tern'), mode: 'headless' });
      expect(back.sqlite.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(3);
      expect(back.identity()?.handle).toBe('@mo@mbp.example');
      back.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the tunnel in headless mode', () => {
  it('starts the saved tunnel with Tern when asked to, and stops it on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tern-headless-tunnel-'));
    const staticDir = mkdtempSync(join(tmpdir(), 'tern-static-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    const fake = resolve(import.meta.dirname, '../test/tunnel/fake-tunnel.mjs');
    const command = `"${process.execPath}" "${fake}" --host tern-test.trycloudflare.com`;
    const lines: string[] = [];
    let headless: Headless | undefined;
    try {
      writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ tunnel: { command, startWithTern: true } }));
      headless = await startHeadless({ dataDir, staticDir, uiPort: 0, token: 'a'.repeat(32), log: (l) => lines.push(l) });
      const status = await fetch(`${headless.origin}/ipc/tunnel.status`, {
        method: 'POST',
        headers: { authorization: `Bearer ${'a'.repeat(32)}`, 'content-type': 'application/json', host: new URL(headless.origin).host },
        body: '{}',
      }).then((r) => r.json() as Promise<{ value: { state: string; pid: number } }>);
      expect(['starting', 'running']).toContain(status.value.state);
      const pid = status.value.pid;
      expect(pid).toBeGreaterThan(0);
      await headless.close();
      headless = undefined;
      expect(() => process.kill(pid, 0)).toThrow();
      expect(lines.some((l) => l.startsWith('tunnel: started'))).toBe(true);
    } finally {
      await headless?.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(staticDir, { recursive: true, force: true });
    }
  });
});
