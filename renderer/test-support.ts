// What the renderer's unit tests share. Not imported by the app.
import { afterEach, beforeEach, vi } from 'vitest';

/** A localStorage kept in memory (vitest runs the renderer's unit tests in Node, which has none),
 * empty at the start of each test of the file that calls this; returns what it holds. */
export function memoryLocalStorage(): Map<string, string> {
  const store = new Map<string, string>();
  beforeEach(() => {
    store.clear();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => void store.set(key, value),
      removeItem: (key: string) => void store.delete(key),
    });
  });
  afterEach(() => vi.unstubAllGlobals());
  return store;
}
