// Starts remote.ts as a child process (Node with tsx's loader, the same Node that runs the
// bench) and sends it one command at a time, resolving with the reply of the expected type.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command, Reply } from './remote-protocol';

export interface Remote {
  ask<T extends Reply['type']>(command: Command, expect: T, timeoutMs?: number): Promise<Extract<Reply, { type: T }>>;
  close(): Promise<void>;
  readonly pid: number | undefined;
}

export function startRemote(): Remote {
  const child: ChildProcess = fork(fileURLToPath(new URL('./remote.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));

  return {
    pid: child.pid,
    ask(command, expect, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`remote: no ${expect} within ${timeoutMs} ms`)), timeoutMs);
        const onMessage = (reply: Reply) => {
          if (reply.type === 'failed') done(new Error(`remote failed: ${reply.error}`));
          else if (reply.type === expect) done(null, reply as Extract<Reply, { type: typeof expect }>);
        };
        const onExit = () => done(new Error('remote exited'));
        function done(error: Error | null, reply?: Extract<Reply, { type: typeof expect }>) {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
          if (error) reject(error);
          else resolve(reply!);
        }
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(command);
      });
    },
    async close() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' } satisfies Command);
      const timer = setTimeout(() => child.kill('SIGTERM'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
