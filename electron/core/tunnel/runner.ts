// Runs the author's tunnel command (cloudflared, ngrok, tailscale funnel…) as a child process
// of Tern, without a shell, reads its output line by line for the public https address it
// prints, and stops it when asked or when Tern quits. At most one runs; starting again stops
// the previous one first. What it printed last is kept (a few lines) so Settings can show why
// a tunnel did not come up.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { splitCommandLine } from './command-line';
import { publicUrlIn } from './public-url';

export type TunnelState = 'stopped' | 'starting' | 'running' | 'exited' | 'failed';

export interface TunnelStatus {
  state: TunnelState;
  /** The command line last started. */
  command: string | null;
  /** The public address it printed (running: it is up; exited: it was). */
  publicUrl: string | null;
  pid: number | null;
  /** Why it failed or exited, in a sentence. */
  error: string | null;
  /** Its last lines of output, oldest first. */
  output: string[];
}

export interface TunnelRunner {
  /** Starts `commandLine` (stopping one that runs). Resolves once the process is spawned. */
  start(commandLine: string): Promise<TunnelStatus>;
  /** Stops it: SIGTERM, then SIGKILL if it lingers. Resolves once it has exited. */
  stop(): Promise<TunnelStatus>;
  status(): TunnelStatus;
  onChange(listener: (status: TunnelStatus) => void): () => void;
}

export interface TunnelRunnerOptions {
  log?: (line: string) => void;
  /** How long a stopped tunnel may linger before SIGKILL. */
  killAfterMs?: number;
  /** Lines of output kept. */
  keepLines?: number;
  env?: NodeJS.ProcessEnv;
}

export function createTunnelRunner(options: TunnelRunnerOptions = {}): TunnelRunner {
  const log = options.log ?? (() => {});
  const keep = options.keepLines ?? 20;
  const listeners = new Set<(status: TunnelStatus) => void>();
  let status: TunnelStatus = { state: 'stopped', command: null, publicUrl: null, pid: null, error: null, output: [] };
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const set = (change: Partial<TunnelStatus>) => {
    status = { ...status, ...change };
    listeners.forEach((listener) => listener(status));
  };

  const onLine = (line: string) => {
    const text = line.trimEnd();
    if (text === '') return;
    set({ output: [...status.output, text].slice(-keep) });
    if (status.publicUrl === null) {
      const url = publicUrlIn(text);
      if (url) {
        log(`tunnel: public address ${url}`);
        set({ publicUrl: url, state: 'running' });
      }
    }
  };

  async function stop(): Promise<TunnelStatus> {
    const current = child;
    if (current === null) return status;
    set({ state: 'stopped', publicUrl: null });
    if (current.exitCode === null && current.signalCode === null) {
      current.kill('SIGTERM');
      const timer = setTimeout(() => current.kill('SIGKILL'), options.killAfterMs ?? 5000);
      await exited;
      clearTimeout(timer);
    }
    if (child === current) child = null;
    set({ state: 'stopped', pid: null });
    return status;
  }

  return {
    async start(commandLine) {
      const [program, ...args] = splitCommandLine(commandLine);
      await stop();
      set({ state: 'starting', command: commandLine, publicUrl: null, pid: null, error: null, output: [] });
      const spawned = spawn(program!, args, { shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, env: options.env ?? process.env });
      child = spawned;
      exited = new Promise<void>((resolve) => {
        spawned.once('close', (code, signal) => {
          if (child === spawned) {
            child = null;
            // Stopping is not failing; a tunnel that ends on its own is reported.
            if (status.state !== 'stopped') {
              const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
              set({ state: code === 0 ? 'exited' : 'failed', pid: null, error: `The tunnel ${how}.` });
              log(`tunnel: ${how}`);
            }
          }
          resolve();
        });
      });
      // 'spawn' or 'error' (a program that does not exist, one not executable) comes first.
      await new Promise<void>((resolve) => {
        spawned.once('spawn', () => {
          set({ pid: spawned.pid ?? null });
          log(`tunnel: started ${program} (pid ${spawned.pid})`);
          resolve();
        });
        spawned.once('error', (error: NodeJS.ErrnoException) => {
          if (child === spawned) child = null;
          const reason =
            error.code === 'ENOENT'
              ? `${program} was not found. Install it, or give its full path.`
              : error.code === 'EACCES'
                ? `${program} cannot be run (permission denied).`
                : `${program} could not be started: ${error.message}`;
          set({ state: 'failed', pid: null, error: reason });
          resolve();
        });
      });
      createInterface({ input: spawned.stdout! }).on('line', onLine);
      createInterface({ input: spawned.stderr! }).on('line', onLine);
      return status;
    },
    stop,
    status: () => status,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
