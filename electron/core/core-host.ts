// The running core, replaceable in place: restoring a backup or moving in from microblog.pub
// swaps the files of the data folder, which only works with the database closed. The host
// stops what runs on the core (loops, listener, backup schedule), closes it, lets the swap run
// on the closed folder, and opens the core again — on the new data, or on the old data when the
// swap failed (the swap leaves the old files in place until it has everything ready). IPC calls
// that arrive meanwhile wait for the reopened core instead of failing on a closed database.
import { CHANNELS, type Channel } from './ipc/contract';
import { createHandlers, type Handlers, type HandlerOptions } from './ipc/handlers';
import type { Core } from './core';
import { BadInputError, ConflictError } from './errors';

export interface CoreHostOptions {
  /** Opens the core on the data folder (the same options as at start). */
  open: () => Promise<Core>;
  /** Starts what runs on an open core (loops, backup schedule); returns how to stop it. */
  run: (core: Core) => () => Promise<void>;
  log?: (line: string) => void;
  /** What the handlers get besides the host (the tunnel runner…). */
  handlerOptions?: Omit<HandlerOptions, 'host'>;
}

export interface CoreHost {
  current(): Core;
  /** Stops and closes the core, runs `swap` on the closed data folder, and reopens the core.
   * When the swapped-in data does not open, `undo` (given what `swap` returned) puts the
   * previous data back, which is opened instead, and the reopen fails with a BadInputError. */
  reopen<T>(swap: (dataDir: string) => Promise<T>, undo?: (dataDir: string, swapped: T) => Promise<void>): Promise<T>;
  /** One handler per channel, always calling the current core's (waiting while it reopens). */
  handlers(): Handlers;
  onReopen(listener: (core: Core) => void): () => void;
  /** Stops and closes the core for good. */
  close(): Promise<void>;
}

export async function createCoreHost(options: CoreHostOptions): Promise<CoreHost> {
  const log = options.log ?? (() => {});
  let core = await options.open();
  let stop = options.run(core);
  let handlers: Handlers;
  let reopening: Promise<void> | null = null;
  const listeners = new Set<(core: Core) => void>();

  const host: CoreHost = {
    current: () => core,
    async reopen(swap, undo) {
      if (reopening) throw new ConflictError('Tern is already putting other data in place; wait for it to finish.');
      // Set before anything runs, so even a call made while the loops stop waits for the new core.
      let done!: () => void;
      reopening = new Promise<void>((resolve) => (done = resolve));
      try {
        const dataDir = core.paths.dir;
        await stop();
        core.close();
        let result: { ok: true; value: Awaited<ReturnType<typeof swap>> } | { ok: false; error: unknown };
        try {
          result = { ok: true, value: await swap(dataDir) };
        } catch (error) {
          result = { ok: false, error };
          log(`the data folder was left as it was: ${(error as Error).message}`);
        }
        try {
          core = await options.open();
        } catch (error) {
          // The swapped-in data passed its checks but does not open: the previous data goes back
          // in place and opens as before, rather than leaving the app on a closed database and
          // a folder the next start cannot open either.
          if (!result.ok || undo === undefined) throw error;
          log(`the new data could not be opened (${(error as Error).message}); the previous data was put back`);
          await undo(dataDir, result.value);
          core = await options.open();
          result = { ok: false, error: new BadInputError('The new data could not be opened, so the previous data was put back as it was; nothing was changed.') };
        }
        stop = options.run(core);
        handlers = makeHandlers(core);
        listeners.forEach((listener) => listener(core));
        if (!result.ok) throw result.error;
        return result.value;
      } finally {
        reopening = null;
        done();
      }
    },
    handlers: () => delegating,
    onReopen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await reopening;
      await stop();
      core.close();
    },
  };
  const makeHandlers = (c: Core) => createHandlers(c, { ...options.handlerOptions, host });
  handlers = makeHandlers(core);
  const delegating = Object.fromEntries(
    CHANNELS.map((channel) => [
      channel,
      async (input: unknown) => {
        // A call made while the data is being swapped is answered by the reopened core; the
        // reopen call itself is not waited for (it is the one running).
        if (reopening && !isReopenChannel(channel)) await reopening;
        return (handlers[channel] as (input: unknown) => unknown)(input);
      },
    ]),
  ) as unknown as Handlers;
  return host;
}

function isReopenChannel(channel: Channel): boolean {
  return channel === 'backup.restore' || channel === 'import.microblogpub';
}

export type { HandlerOptions };
