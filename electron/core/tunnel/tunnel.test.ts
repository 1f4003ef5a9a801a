import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openCore } from '../core';
import { createHandlers, dispatch } from '../ipc/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import { BadInputError } from '../errors';
import { splitCommandLine } from './command-line';
import { publicUrlIn } from './public-url';
import { createTunnelRunner, type TunnelRunner, type TunnelStatus } from './runner';

const FAKE = resolve(import.meta.dirname, '../../../test/tunnel/fake-tunnel.mjs');
const fake = (args: string) => `"${process.execPath}" "${FAKE}" ${args}`;
const runners: TunnelRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
});

/** Resolves with the first status `test` accepts (checked now and on every change). */
function until(runner: TunnelRunner, test: (s: TunnelStatus) => boolean): Promise<TunnelStatus> {
  return new Promise((done) => {
    if (test(runner.status())) return done(runner.status());
    const off = runner.onChange((s) => {
      if (test(s)) {
        off();
        done(s);
      }
    });
  });
}

describe('splitCommandLine', () => {
  it('splits words like a shell, with quotes and escapes, and expands nothing', () => {
    expect(splitCommandLine('cloudflared tunnel --url http://127.0.0.1:4861')).toEqual(['cloudflared', 'tunnel', '--url', 'http://127.0.0.1:4861']);
    expect(splitCommandLine(`"/opt/my tools/ngrok" http 4861 --log 'stdout' a\\ b "say \\"hi\\""`)).toEqual(['/opt/my tools/ngrok', 'http', '4861', '--log', 'stdout', 'a b', 'say "hi"']);
    expect(splitCommandLine('echo $HOME; rm -rf * | x')).toEqual(['echo', '$HOME;', 'rm', '-rf', '*', '|', 'x']);
    expect(splitCommandLine('x ""')).toEqual(['x', '']);
  });
  it('refuses an empty command and unclosed quotes', () => {
    expect(() => splitCommandLine('   ')).toThrow(BadInputError);
    expect(() => splitCommandLine('ngrok "http 4861')).toThrow(/unclosed double quote/);
    expect(() => splitCommandLine("ngrok 'http")).toThrow(/unclosed single quote/);
  });
});

describe('publicUrlIn', () => {
  it('finds what cloudflared, ngrok and tailscale funnel print', () => {
    expect(publicUrlIn('INF |  https://quick-brown-fox.trycloudflare.com                 |')).toBe('https://quick-brown-fox.trycloudflare.com');
    expect(publicUrlIn('lvl=info msg="started tunnel" addr=http://localhost:4861 url=https://ab12.ngrok-free.app')).toBe('https://ab12.ngrok-free.app');
    expect(publicUrlIn('https://laptop.tail1234.ts.net/')).toBe('https://laptop.tail1234.ts.net');
  });
  it('skips links with a path, plain http and bare hosts', () => {
    expect(publicUrlIn('See https://developers.cloudflare.com/cloudflare-one/connections')).toBeNull();
    expect(publicUrlIn('msg="update available" url=https://ngrok.com/download')).toBeNull();
    expect(publicUrlIn('|-- / proxy http://127.0.0.1:4861')).toBeNull();
    expect(publicUrlIn('https://localhost')).toBeNull();
  });
});

describe('the tunnel runner (a real process)', () => {
  for (const [style, host] of [
    ['cloudflared', 'quick-brown-fox.trycloudflare.com'],
    ['ngrok', 'ab12.ngrok-free.app'],
    ['tailscale', 'laptop.tail1234.ts.net'],
  ] as const) {
    it(`reads the public address ${style} prints, and stops it`, async () => {
      const runner = createTunnelRunner();
      runners.push(runner);
      const started = await runner.start(fake(`--style ${style} --host ${host}`));
      expect(started.pid).toBeGreaterThan(0);
      const running = await until(runner, (s) => s.state === 'running');
      expect(running.publicUrl).toBe(`https://${host}`);
      expect(running.output.length).toBeGreaterThan(0);
      const pid = running.pid!;
      const stopped = await runner.stop();
      expect(stopped.state).toBe('stopped');
      expect(stopped.publicUrl).toBeNull();
      expect(() => process.kill(pid, 0)).toThrow(); // the process is gone
    });
  }

  it('reports a tunnel that exits on its own, with its last output', async () => {
    const runner = createTunnelRunner();
    runners.push(runner);
    await runner.start(fake('--fail'));
    const failed = await until(runner, (s) => s.state === 'failed');
    expect(failed.error).toBe('The tunnel exited with code 3.');
    await until(runner, (s) => s.output.some((line) => line.includes('failed to request quick Tunnel')));
  });

  it('says when the program does not exist', async () => {
    const runner = createTunnelRunner();
    runners.push(runner);
    const status = await runner.start(`${join(import.meta.dirname, 'no-such-tunnel')} --url x`);
    expect(status.state).toBe('failed');
    expect(status.error).toMatch(/no-such-tunnel was not found/);
  });

  it('starting again replaces the running tunnel', async () => {
    const runner = createTunnelRunner();
    runners.push(runner);
    await runner.start(fake('--host first.trycloudflare.com'));
    const first = (await until(runner, (s) => s.state === 'running')).pid!;
    await runner.start(fake('--host second.trycloudflare.com'));
    expect((await until(runner, (s) => s.state === 'running')).publicUrl).toBe('https://second.trycloudflare.com');
    expect(() => process.kill(first, 0)).toThrow();
  });
});

describe('the tunnel channels', () => {
  it('save the command, run it, report the address, stop it; a command that cannot be split is refused unsaved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-tunnel-'));
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    try {
      const runner = createTunnelRunner();
      runners.push(runner);
      const handlers = createHandlers(core, { tunnel: runner });
      const bad = await dispatch(handlers, 'tunnel.start', { command: 'ngrok "http 4861' }, () => {});
      expect(bad).toMatchObject({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/unclosed double quote/) } });
      expect(core.settings.get().tunnel.command).toBe('');

      const command = fake('--style ngrok --host ab12.ngrok-free.app');
      const started = await dispatch(handlers, 'tunnel.start', { command }, () => {});
      expect(started.ok).toBe(true);
      expect(core.settings.get().tunnel.command).toBe(command);
      await until(runner, (s) => s.state === 'running');
      const status = await dispatch(handlers, 'tunnel.status', {}, () => {});
      expect(status).toMatchObject({ ok: true, value: { state: 'running', publicUrl: 'https://ab12.ngrok-free.app' } });
      expect(await dispatch(handlers, 'tunnel.stop', {}, () => {})).toMatchObject({ ok: true, value: { state: 'stopped' } });

      // Without a runner (a caller that runs no tunnels), the channels say so.
      expect(await dispatch(createHandlers(core), 'tunnel.status', {}, () => {})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    } finally {
      core.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
