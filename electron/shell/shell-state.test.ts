import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createShellStateStore, SHELL_STATE_FILE } from './shell-state';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tern-shell-'));
  dirs.push(d);
  return d;
};

describe('shell state (window bounds, close hint) in the data folder', () => {
  it('remembers the window and the hint across runs', () => {
    const d = dir();
    const first = createShellStateStore(d);
    expect(first.get()).toEqual({ window: null, closeHintShown: false });
    first.update({ window: { bounds: { x: 5, y: 6, width: 900, height: 700 }, maximized: false } });
    first.update({ closeHintShown: true });
    const again = createShellStateStore(d);
    expect(again.get()).toEqual({ window: { bounds: { x: 5, y: 6, width: 900, height: 700 }, maximized: false }, closeHintShown: true });
    expect(JSON.parse(readFileSync(join(d, SHELL_STATE_FILE), 'utf8'))).toEqual(again.get());
  });

  it('a damaged file means nothing remembered, never a failure to start', () => {
    const d = dir();
    writeFileSync(join(d, SHELL_STATE_FILE), '{not json');
    expect(createShellStateStore(d).get()).toEqual({ window: null, closeHintShown: false });
    writeFileSync(join(d, SHELL_STATE_FILE), JSON.stringify({ window: { bounds: 'x' }, closeHintShown: true }));
    expect(createShellStateStore(d).get()).toEqual({ window: null, closeHintShown: true });
  });
});
