// What the shell remembers between runs, in one small JSON file in the data folder
// (shell-state.json): the window's bounds and whether the close-to-tray hint was shown. Written
// atomically; a missing or damaged file means "nothing remembered", never a failure to start.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { windowStateSchema, type WindowState } from './policy/window-state';

export const SHELL_STATE_FILE = 'shell-state.json';

const shellStateSchema = z.object({
  window: windowStateSchema.nullable().catch(null).default(null),
  closeHintShown: z.boolean().catch(false).default(false),
});

export interface ShellState {
  window: WindowState | null;
  closeHintShown: boolean;
}

export interface ShellStateStore {
  get(): ShellState;
  update(patch: Partial<ShellState>): ShellState;
}

export function createShellStateStore(dataDir: string): ShellStateStore {
  const path = join(dataDir, SHELL_STATE_FILE);
  let current = read();

  function read(): ShellState {
    try {
      const parsed = shellStateSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // Absent or not JSON: start from nothing.
    }
    return { window: null, closeHintShown: false };
  }

  return {
    get: () => current,
    update(patch) {
      current = { ...current, ...patch };
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, path);
      return current;
    },
  };
}
