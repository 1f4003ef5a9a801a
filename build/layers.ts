// Tern's layering, and the check that keeps it. The import graph is read from the code itself
// (TypeScript's own pre-parser: static imports, `import type`, export-from, dynamic import()),
// over product code only: tests and their rigs may import what they like. Two rules:
//   1. no circle of imports, of any length;
//   2. no arrow from a lower layer up to a higher one (same layer is fine).
// `npm run layers` prints the figures; build/layers.test.ts (in `npm test`) fails on a break.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The layers, top to bottom. A part is a folder (ending in `/`), a file, or a file pattern (`*`
 * stands for any run of characters but `/`); a file belongs to the most specific part that
 * names it. A file may import its own layer and any layer below it, never one above.
 * The renderer is its own stack; from electron/ it imports only the IPC contracts' types.
 */
export const LAYERS: readonly { name: string; parts: readonly string[] }[] = [
  { name: 'shell and entry points', parts: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/', 'electron/headless.ts', 'bench/', 'migrations/cli.ts', 'migrations/commands.ts'] },
  { name: 'renderer: the app', parts: ['renderer/main.tsx', 'renderer/App.tsx'] },
  {
    name: 'renderer: screens',
    parts: [
      'renderer/views/', 'renderer/apps/', 'renderer/compose/', 'renderer/content/', 'renderer/deliveries/', 'renderer/lists/', 'renderer/media/',
      'renderer/notifications/', 'renderer/people/', 'renderer/polls/', 'renderer/posts/', 'renderer/search/', 'renderer/settings/', 'renderer/webmentions/',
    ],
  },
  { name: 'renderer: shared components', parts: ['renderer/components/'] },
  // apps/pending.ts is a store (the Sidebar's badge reads it).
  { name: 'renderer: state', parts: ['renderer/store/', 'renderer/apps/pending.ts'] },
  { name: 'renderer: API, places, keys', parts: ['renderer/api.ts', 'renderer/changes.ts', 'renderer/headlessToken.ts', 'renderer/places.ts', 'renderer/keyboard.ts'] },
  { name: 'renderer: strings', parts: ['renderer/strings.ts'] },
  // Builds everything and hands it out; only the entry points (and tests) import it.
  { name: 'core wiring', parts: ['electron/core/core.ts', 'electron/core/core-host.ts'] },
  // Adapters: IPC handlers and HTTP routes, thin layers over the services.
  { name: 'ipc and listener', parts: ['electron/core/ipc/', 'electron/core/listener/', 'electron/core/mastodon/', 'electron/core/media/*-routes.ts'] },
  // The IPC contracts are the services' inputs and outputs (shared with the renderer), and the
  // deliveries' status is the Deliveries screen's view of the queue: both sit with the services.
  // So does the delivery loop as the app wires it to ActivityPub and Webmention (app-loop.ts),
  // and its worker thread, as the inbox's worker sits in federation/.
  {
    name: 'services',
    parts: [
      'electron/core/federation/', 'electron/core/indieauth/', 'electron/core/micropub/', 'electron/core/webmention/', 'electron/core/media/', 'electron/core/data/', 'electron/core/previews/',
      'electron/core/notifications/', 'electron/core/search/', 'electron/core/tunnel/', 'electron/core/settings-service.ts', 'electron/core/settings.ts', 'electron/core/status.ts', 'electron/core/changes.ts',
      'electron/core/ipc/*contract.ts', 'electron/core/ipc/channels.ts', 'electron/core/delivery/status.ts', 'electron/core/delivery/counts.ts',
      'electron/core/delivery/app-loop.ts', 'electron/core/delivery/worker*.ts',
    ],
  },
  { name: 'delivery', parts: ['electron/core/delivery/', 'electron/core/connectivity/'] },
  // The types services take from the core (FederationContext, the listener's switch).
  { name: 'ports', parts: ['electron/core/ports.ts'] },
  // worker-host.ts and worker-side.ts: how any worker thread of the core is run, knowing none
  // (compile-cache.ts: the compile cache of the bundled ones).
  {
    name: 'net and db',
    parts: [
      'electron/core/net/', 'db/', 'migrations/', 'electron/core/paths.ts', 'electron/core/folder-lock.ts', 'electron/core/errors.ts', 'electron/core/version.ts',
      'electron/core/worker-host.ts', 'electron/core/worker-side.ts', 'electron/core/compile-cache.ts', 'electron/core/trailing-slashes.ts', 'electron/core/without-nul.ts',
    ],
  },
];

/** Where product code lives; everything under these roots but tests is checked. */
export const PRODUCT_ROOTS = ['electron', 'renderer', 'db', 'migrations', 'bench'];

/** Test files and the rigs only tests use: free to import anything. */
export function isTestFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return /\.(test|timing)\.tsx?$/.test(name) || /^test-[\w-]+\.ts$/.test(name) || name === 'fakes.ts';
}

export interface Graph {
  files: string[];
  /** file → the product files it imports (repo-relative, `/`-separated). */
  edges: Map<string, Set<string>>;
}

const SOURCE = /\.(ts|tsx)$/;

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
  }
}

const toPosix = (path: string) => path.split(sep).join('/');

/** Reads the import graph of the product code under `root`. */
export function readGraph(root: string): Graph {
  const all: string[] = [];
  for (const top of PRODUCT_ROOTS) if (existsSync(join(root, top))) walk(join(root, top), all);
  const files = all.map((file) => toPosix(relative(root, file))).filter((file) => !isTestFile(file)).sort();
  const known = new Set(files);
  const options: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, allowImportingTsExtensions: true, jsx: ts.JsxEmit.ReactJSX };
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(fileName, join(root, file), options, ts.sys).resolvedModule;
      if (!resolved) continue;
      const target = toPosix(relative(root, resolved.resolvedFileName));
      if (known.has(target) && target !== file) targets.add(target);
    }
    edges.set(file, targets);
  }
  return { files, edges };
}

function matches(part: string, file: string): boolean {
  if (part.endsWith('/')) return file.startsWith(part);
  if (!part.includes('*')) return file === part;
  const pattern = part.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
  return new RegExp(`^${pattern}$`).test(file);
}

/** The part a file belongs to: the most specific (longest) one that names it, or its folder when none does. */
export function partOf(file: string): string {
  let best: string | null = null;
  for (const layer of LAYERS) for (const part of layer.parts) if (matches(part, file) && (best === null || part.length > best.length)) best = part;
  return best ?? `${dirname(file)}/ (unmapped)`;
}

/** The index of a file's layer in LAYERS (0 is the top), -1 when no part names it. */
export function layerOf(file: string): number {
  const part = partOf(file);
  return LAYERS.findIndex((layer) => layer.parts.includes(part));
}

/** Strongly connected components with more than one file (Tarjan): each is a circle. */
export function cycles(graph: Graph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    indexOf.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.edges.get(file) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, indexOf.get(next)!));
    }
    if (low.get(file) === indexOf.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.files) if (!indexOf.has(file)) visit(file);
  return found;
}

/** A shortest circle through `start` inside its component, for a readable message. */
export function circleThrough(graph: Graph, component: string[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.edges.get(file) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(next)) {
        from.set(next, file);
        queue.push(next);
      }
    }
  }
  return component;
}

export interface Report {
  files: number;
  fileArrows: number;
  parts: number;
  /** Arrows between parts (each counted once). */
  arrows: number;
  /** Part-to-part arrows from a lower layer to a higher one, with one file-level example each. */
  upward: { from: string; to: string; example: string }[];
  unmapped: string[];
  cycles: string[][];
}

export function report(graph: Graph): Report {
  const partArrows = new Map<string, string>();
  const parts = new Set<string>();
  const unmapped = new Set<string>();
  let fileArrows = 0;
  for (const [file, targets] of graph.edges) {
    parts.add(partOf(file));
    if (layerOf(file) < 0) unmapped.add(file);
    for (const target of targets) {
      fileArrows++;
      const [a, b] = [partOf(file), partOf(target)];
      if (a !== b && !partArrows.has(`${a} -> ${b}`)) partArrows.set(`${a} -> ${b}`, `${file} -> ${target}`);
    }
  }
  const upward = [...partArrows].flatMap(([key, example]) => {
    const [from, to] = key.split(' -> ') as [string, string];
    const [, target] = example.split(' -> ') as [string, string];
    const fromLayer = layerOf(example.split(' -> ')[0]!);
    const toLayer = layerOf(target);
    return fromLayer >= 0 && toLayer >= 0 && toLayer < fromLayer ? [{ from, to, example }] : [];
  });
  return { files: graph.files.length, fileArrows, parts: parts.size, arrows: partArrows.size, upward, unmapped: [...unmapped], cycles: cycles(graph) };
}

export function describe(graph: Graph, result: Report): string {
  const lines = [
    `Import graph of the product code: ${result.files} files, ${result.fileArrows} file imports; ` +
      `${result.parts} parts, ${result.arrows} arrows between parts, ${result.upward.length} upward, ${result.cycles.length} circles.`,
  ];
  for (const up of result.upward) lines.push(`  upward: ${up.from} -> ${up.to} (${up.example})`);
  for (const component of result.cycles) lines.push(`  circle of ${component.length} files: ${circleThrough(graph, component).join(' -> ')}`);
  for (const file of result.unmapped) lines.push(`  not in the layer map: ${file}`);
  return lines.join('\n');
}

if (process.argv[1] && toPosix(process.argv[1]).endsWith('build/layers.ts')) {
  const root = join(dirname(new URL(import.meta.url).pathname), '..');
  const graph = readGraph(root);
  const result = report(graph);
  console.log(describe(graph, result));
  if (result.upward.length + result.cycles.length + result.unmapped.length > 0) process.exitCode = 1;
}
