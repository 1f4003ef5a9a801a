// The Electron boundary made visible: only the adapters named here import electron; every other
// shell module is plain Node, which is what lets their tests run without Electron.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const ADAPTERS = ['connectivity.ts', 'ipc.ts', 'notifications.ts', 'protocol.ts', 'security.ts', 'tray.ts', 'window.ts'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the shell’s Electron boundary', () => {
  it('only the thin adapters import electron', () => {
    const importers = sources(here)
      .filter((file) => /from ['"]electron['"]|require\(['"]electron['"]\)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(here, file))
      .sort();
    expect(importers).toEqual(ADAPTERS);
  });

  it('policy/ imports nothing of the shell’s adapters either', () => {
    for (const file of sources(join(here, 'policy'))) {
      const text = readFileSync(file, 'utf8');
      for (const adapter of ADAPTERS) expect(text, file).not.toContain(`'../${adapter.replace('.ts', '')}'`);
    }
  });
});
