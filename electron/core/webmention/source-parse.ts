// Reading a webmention source page off the main thread. The page is measured first
// (net/html-bounds.ts: elements and nesting, one linear pass) and refused when over the bounds;
// what is within them is parsed in a worker thread (source-worker.ts), one page at a time, under
// a deadline. A page that is over the bounds, takes too long or breaks the parser is refused for
// good with its reason — retrying would read the same page again.
//
// The worker runs the bundled source-worker.cjs next to the app's bundle (build/build.mjs), or
// in development and tests the TypeScript source through tsx.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { htmlOverLimits } from '../net/html-bounds';
import type { SourceResult, SourceTask } from './source-worker';
import type { JsonValue } from '../../../db/schema';

/** A source page is read only within these (a long blog page has a few thousand elements). */
export const SOURCE_HTML_LIMITS = { chars: 1024 * 1024, elements: 30_000, depth: 400 } as const;
/** How long one page may take to parse, in the worker. */
export const SOURCE_PARSE_MS = 5_000;

export type SourceReading = { ok: true; links: boolean; microformats: { items: JsonValue[] } } | { ok: false; reason: string };

function workerEntry(): { file: string; execArgv: string[] } {
  // __dirname: the bundle's folder (both bundles have one, see build/build.mjs), or this source
  // file's under vitest; plain ESM (tsx scripts) has none, and runs from the repository root.
  const here = typeof __dirname === 'string' ? __dirname : join(process.cwd(), 'electron', 'core', 'webmention');
  const bundled = join(here, 'source-worker.cjs');
  if (existsSync(bundled)) return { file: bundled, execArgv: [] };
  return { file: join(here, 'source-worker.ts'), execArgv: ['--import', 'tsx'] };
}

interface Pending {
  task: SourceTask;
  resolve: (reading: SourceReading) => void;
}

let worker: Worker | null = null;
/** Whether `worker` has loaded its code (the deadline counts from then, not from its start). */
let ready = false;
let running: (Pending & { timer: NodeJS.Timeout }) | null = null;
const waiting: Pending[] = [];
let nextId = 1;

function startWorker(): Worker {
  const entry = workerEntry();
  const w = new Worker(entry.file, { execArgv: entry.execArgv, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  w.unref();
  w.on('message', (result: SourceResult | { ready: true }) => {
    if ('ready' in result) {
      if (worker === w) ready = true;
      return pump();
    }
    if (running === null || running.task.id !== result.id) return;
    const done = running;
    running = null;
    clearTimeout(done.timer);
    done.resolve(result.ok ? { ok: true, links: result.links, microformats: result.microformats } : { ok: false, reason: result.reason });
    pump();
  });
  const fail = (reason: string) => {
    if (worker === w) worker = null;
    const lost = running;
    running = null;
    if (lost !== null) {
      clearTimeout(lost.timer);
      lost.resolve({ ok: false, reason });
    }
    pump();
  };
  w.on('error', (error) => fail(`reading it failed (${error.message})`));
  w.on('exit', () => fail('the reader stopped while reading it'));
  return w;
}

function pump(): void {
  if (running !== null) return;
  const next = waiting[0];
  if (next === undefined) return;
  if (worker === null) {
    ready = false;
    worker = startWorker();
  }
  if (!ready) return;
  waiting.shift();
  const w = worker;
  const timer = setTimeout(() => {
    // The worker is stuck on this page: end it (a new one serves the next page).
    if (worker === w) worker = null;
    const lost = running;
    running = null;
    lost?.resolve({ ok: false, reason: `reading it took longer than ${SOURCE_PARSE_MS / 1000} s` });
    void w.terminate();
    pump();
  }, SOURCE_PARSE_MS);
  running = { ...next, timer };
  w.postMessage(next.task);
}

/**
 * Whether the HTML page `html` (at `url`) links to `target`, and its microformats when it does;
 * or why the page cannot be read.
 */
export function readSourcePage(html: string, url: string, target: string): Promise<SourceReading> {
  const over = htmlOverLimits(html, SOURCE_HTML_LIMITS);
  if (over !== null) return Promise.resolve({ ok: false, reason: over });
  return new Promise((resolve) => {
    waiting.push({ task: { id: nextId++, html, url, target }, resolve });
    pump();
  });
}

/** Ends the worker (tests, shutdown); a later page starts a new one. */
export async function stopSourceReader(): Promise<void> {
  const w = worker;
  worker = null;
  await w?.terminate();
}
