// What changed in the core that the app's window shows, told to the window as it happens
// rather than found at its next poll: the inbox processor finished rows (new posts in the
// stream, new notifications), a link preview was stored, deliveries started or ended, a
// sign-in began waiting for the author, the network or the settings changed. A hint only —
// the kinds of change, never the rows: the window asks again through the ordinary IPC
// channels, which check and shape what they return. A burst (5,000 activities) is told as a
// few hints, not one per row. Carried to the window by the shell (Electron: webContents.send)
// or by the headless transport (GET /ipc/events, a server-sent event stream).

import { CHANGE_KINDS, type ChangeKind } from './ipc/changes-contract';

/** Changes within this long of the first are told together: at most a few hints a second. */
export const CHANGE_COALESCE_MS = 250;

export type ChangeListener = (kinds: ChangeKind[]) => void;

export interface ChangeFeed {
  /** Something of these kinds changed; told to the listeners within CHANGE_COALESCE_MS. */
  tell(...kinds: ChangeKind[]): void;
  /** Returns an unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  /** Drops what is waiting and every listener (the core closed). */
  close(): void;
}

export function createChangeFeed(options: { coalesceMs?: number; onListenerError?: (error: unknown) => void } = {}): ChangeFeed {
  const listeners = new Set<ChangeListener>();
  const waiting = new Set<ChangeKind>();
  let timer: NodeJS.Timeout | null = null;

  function flush(): void {
    timer = null;
    // In CHANGE_KINDS' order, so a hint reads the same whatever order the changes came in.
    const kinds = CHANGE_KINDS.filter((kind) => waiting.has(kind));
    waiting.clear();
    for (const listener of [...listeners]) {
      try {
        listener(kinds);
      } catch (error) {
        options.onListenerError?.(error);
      }
    }
  }

  return {
    tell(...kinds) {
      // Nobody listens (no window, no page): nothing is kept and no timer wakes the process.
      if (listeners.size === 0 || kinds.length === 0) return;
      for (const kind of kinds) waiting.add(kind);
      if (timer) return;
      timer = setTimeout(flush, options.coalesceMs ?? CHANGE_COALESCE_MS);
      timer.unref();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      if (timer) clearTimeout(timer);
      timer = null;
      waiting.clear();
      listeners.clear();
    },
  };
}
