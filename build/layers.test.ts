// The layering check (build/layers.ts) over Tern's own code, and over small made-up trees that
// show it sees every kind of import and catches what it should.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LAYERS, cycles, describe as describeGraph, isTestFile, layerOf, partOf, readGraph, report, type Graph } from './layers';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('Tern’s import graph', () => {
  const graph = readGraph(ROOT);
  const result = report(graph);
  // The figures, on every run (the same line `npm run layers` prints).
  console.log(describeGraph(graph, result));

  it('has no circle', () => {
    expect(result.cycles.map((component) => component.join(' -> '))).toEqual([]);
  });

  it('has no arrow from a lower layer to a higher one', () => {
    expect(result.upward.map((up) => up.example)).toEqual([]);
  });

  it('maps every product file to a layer', () => {
    expect(result.unmapped).toEqual([]);
  });

  it('lets only the entry points (and core-host.ts, which reopens it) import the composition root', () => {
    const importers = [...graph.edges].filter(([, targets]) => targets.has('electron/core/core.ts')).map(([file]) => file);
    expect(importers.length).toBeGreaterThan(0);
    for (const file of importers) expect(['shell and entry points', 'core wiring'], file).toContain(LAYERS[layerOf(file)]?.name);
  });

  it('reads the real tree (the figures are not of an empty graph)', () => {
    expect(result.files).toBeGreaterThan(200);
    expect(graph.edges.get('electron/core/core.ts')?.has('electron/core/ports.ts')).toBe(true);
  });
});

describe('the check', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  function tree(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), 'tern-layers-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  it('sees import type, export-from, dynamic import and folder indexes, and skips tests and packages', () => {
    const root = tree({
      'electron/a.ts': "import type { B } from './b';\nexport { c } from './c';\nconst d = await import('./d');\nimport { x } from './f';\nimport 'zod';\n",
      'electron/b.ts': 'export type B = 1;',
      'electron/c.ts': 'export const c = 1;',
      'electron/d.ts': 'export const d = 1;',
      'electron/f/index.ts': 'export const x = 1;',
      'electron/a.test.ts': "import { a } from './a';",
    });
    const graph = readGraph(root);
    expect(graph.files).not.toContain('electron/a.test.ts');
    expect([...graph.edges.get('electron/a.ts')!].sort()).toEqual(['electron/b.ts', 'electron/c.ts', 'electron/d.ts', 'electron/f/index.ts']);
  });

  it('finds a circle, however long, and only circles', () => {
    const graph: Graph = {
      files: ['a', 'b', 'c', 'd'],
      edges: new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['c'])],
        ['c', new Set(['a', 'd'])],
        ['d', new Set<string>()],
      ]),
    };
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
    graph.edges.get('c')!.delete('a');
    expect(cycles(graph)).toEqual([]);
  });

  it('reports an upward arrow (a service importing the composition root) and a circle through it', () => {
    const root = tree({
      'electron/core/core.ts': "import { follow } from './federation/follow';\nexport interface Core { x: 1 }\n",
      'electron/core/federation/follow.ts': "import type { Core } from '../core';\nexport const follow = (core: Core) => core;\n",
    });
    const result = report(readGraph(root));
    expect(result.upward).toEqual([{ from: 'electron/core/federation/', to: 'electron/core/core.ts', example: 'electron/core/federation/follow.ts -> electron/core/core.ts' }]);
    expect(result.cycles).toEqual([['electron/core/core.ts', 'electron/core/federation/follow.ts']]);
  });

  it('puts a file in the most specific part that names it', () => {
    expect(partOf('electron/core/ipc/author-contract.ts')).toBe('electron/core/ipc/*contract.ts');
    expect(partOf('electron/core/ipc/handlers.ts')).toBe('electron/core/ipc/');
    expect(partOf('electron/core/media/listener-routes.ts')).toBe('electron/core/media/*-routes.ts');
    expect(partOf('electron/core/media/store.ts')).toBe('electron/core/media/');
    expect(layerOf('electron/elsewhere/new.ts')).toBe(-1);
    expect(isTestFile('electron/core/net/test-server.ts')).toBe(true);
    expect(isTestFile('electron/core/net/http-client.ts')).toBe(false);
  });
});
