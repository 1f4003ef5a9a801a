// Reading remote HTML pages off the main thread: webmention source pages, the pages Tern sends
// webmentions to (their endpoint: discover.ts), and the pages IndieAuth clients publish at their
// client_id (indieauth/client-page.ts); and the larger ActivityPub
// documents fetched on the main thread (federation/read-document.ts), and long Markdown posts
// (federation/actions/render-off-thread.ts). The page is measured first
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
import { entryOptions, type WorkerEntry } from '../worker-host';
import { htmlOverLimits, htmlStartWithin } from '../net/html-bounds';
import type { ReaderJob, ReaderResult, ReaderTask } from './source-worker';
import type { ClientPage } from '../indieauth/client-page';
import type { JsonValue } from '../../../db/schema';
import type { DocumentReading } from '../federation/document-reading';
import type { LinkPreview } from '../previews/opengraph';

/** A source page is read only within these (a long blog page has a few thousand elements). */
export const SOURCE_HTML_LIMITS = { chars: 1024 * 1024, elements: 30_000, depth: 400 } as const;
/** An IndieAuth client's page is fetched up to 512 KiB (indieauth/clients.ts); the same bounds
 * of markup apply (an app's home page may be a whole site's front page). */
export const CLIENT_HTML_LIMITS = { chars: 512 * 1024, elements: 30_000, depth: 400 } as const;
/** The head of a page a post links to, read for its link preview (previews/fetch-preview.ts
 * reads at most this much of it). */
export const PREVIEW_HTML_LIMITS = { chars: 512 * 1024, elements: 30_000, depth: 400 } as const;
/** How long one page may take to parse, in the worker. */
export const SOURCE_PARSE_MS = 5_000;

export type SourceReading = { ok: true; links: boolean; linksOther: boolean; microformats: { items: JsonValue[] } } | { ok: false; reason: string };
export type ClientPageReading = { ok: true; page: ClientPage } | { ok: false; reason: string };

function workerEntry(): WorkerEntry {
  // __dirname: the bundle's folder (both bundles have one, see build/build.mjs), or this source
  // file's under vitest; plain ESM (tsx scripts) has none, and runs from the repository root.
  const here = typeof __dirname === 'string' ? __dirname : join(process.cwd(), 'electron', 'core', 'webmention');
  const bundled = join(here, 'source-worker.cjs');
  if (existsSync(bundled)) return { file: bundled, execArgv: [], bundle: true };
  return { file: join(here, 'source-worker.ts'), execArgv: ['--import', 'tsx'] };
}

interface Pending {
  task: ReaderTask;
  resolve: (result: ReaderResult) => void;
}

let worker: Worker | null = null;
/** A reader with nothing to read for this long is ended (it holds tens of MB; the next page
 * starts another). */
export const READER_IDLE_MS = 60_000;
/** Reader threads whose 'exit' has not come yet. */
let readersAlive = 0;

/** How many page reader threads are running now (status and tests: the idle stop gives one back). */
export function readerThreadsAlive(): number {
  return readersAlive;
}
let idleTimer: NodeJS.Timeout | null = null;
/** Whether `worker` has loaded its code (the deadline counts from then, not from its start). */
let ready = false;
/** The task being read, and the worker reading it. */
let running: (Pending & { timer: NodeJS.Timeout; reader: Worker }) | null = null;
const waiting: Pending[] = [];
let nextId = 1;

function startWorker(): Worker {
  const entry = workerEntry();
  const w = new Worker(entry.file, { ...entryOptions(entry), resourceLimits: { maxOldGenerationSizeMb: 256 } });
  readersAlive++;
  w.unref();
  w.on('message', (result: ReaderResult | { ready: true }) => {
    if ('ready' in result) {
      if (worker === w) ready = true;
      return pump();
    }
    if (running === null || running.task.id !== result.id) return;
    const done = running;
    running = null;
    clearTimeout(done.timer);
    done.resolve(result);
    pump();
  });
  const fail = (reason: string) => {
    if (worker === w) worker = null;
    // A reader ended for being idle or stuck may say so after the next one has taken a task.
    const lost = running?.reader === w ? running : null;
    if (lost !== null) running = null;
    if (lost !== null) {
      clearTimeout(lost.timer);
      lost.resolve({ id: lost.task.id, ok: false, reason });
    }
    pump();
  };
  w.on('error', (error) => fail(`reading it failed (${error.message})`));
  w.on('exit', () => {
    readersAlive--;
    fail('the reader stopped while reading it');
  });
  return w;
}

function pump(): void {
  if (running !== null) return;
  const next = waiting[0];
  if (next === undefined) return idleStop();
  if (idleTimer !== null) clearTimeout(idleTimer);
  idleTimer = null;
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
    lost?.resolve({ id: lost.task.id, ok: false, reason: `reading it took longer than ${SOURCE_PARSE_MS / 1000} s` });
    void w.terminate();
    pump();
  }, SOURCE_PARSE_MS);
  running = { ...next, timer, reader: w };
  w.postMessage(next.task);
}

/** Ends the reader once it has had nothing to read for READER_IDLE_MS. */
function idleStop(): void {
  if (worker === null || idleTimer !== null) return;
  const idle = worker;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker !== idle || running !== null || waiting.length > 0) return;
    worker = null;
    void idle.terminate();
  }, READER_IDLE_MS);
  idleTimer.unref();
}

type Failure = Extract<ReaderResult, { ok: false }>;

/** Queues `job` for the worker: its result (the worker answers each task in its own kind), or
 * why the page could not be read. */
export function readInWorker<K extends ReaderJob['kind']>(job: Extract<ReaderJob, { kind: K }>): Promise<Extract<ReaderResult, { kind: K }> | Failure> {
  return new Promise((resolve) => {
    waiting.push({ task: { ...job, id: nextId++ }, resolve: resolve as (result: ReaderResult) => void });
    pump();
  });
}

/**
 * Whether the HTML page `html` (at `url`) links to `target` (and to `other`, when given), and its
 * microformats when it links to `target`; or why the page cannot be read.
 */
export async function readSourcePage(html: string, url: string, target: string, other?: string): Promise<SourceReading> {
  const over = htmlOverLimits(html, SOURCE_HTML_LIMITS);
  if (over !== null) return { ok: false, reason: over };
  const result = await readInWorker({ kind: 'source', html, url, target, ...(other === undefined ? {} : { other }) });
  return result.ok ? { ok: true, links: result.links, linksOther: result.linksOther, microformats: result.microformats } : { ok: false, reason: result.reason };
}

/** What the IndieAuth client page `html` (fetched from `url`, after redirects) says of its
 * client, or why it cannot be read. */
export async function readClientPage(html: string, url: string): Promise<ClientPageReading> {
  const over = htmlOverLimits(html, CLIENT_HTML_LIMITS);
  if (over !== null) return { ok: false, reason: over };
  const result = await readInWorker({ kind: 'client', html, url });
  return result.ok ? { ok: true, page: result.page } : { ok: false, reason: result.reason };
}

export type PreviewReading = { ok: true; preview: LinkPreview | null } | { ok: false; reason: string };

/** The link preview of the page `html` (fetched from `url`, after redirects; linked from a post
 * as `linked`), null when it names no title; or why it cannot be read. */
export async function readPreviewPage(html: string, url: string, linked: string): Promise<PreviewReading> {
  const over = htmlOverLimits(html, PREVIEW_HTML_LIMITS);
  if (over !== null) return { ok: false, reason: over };
  const result = await readInWorker({ kind: 'preview', html, url, linked });
  return result.ok ? { ok: true, preview: result.preview } : { ok: false, reason: result.reason };
}

/** A page Tern sends a webmention to is searched for its endpoint within these: the first
 * tags of its first MiB (the endpoint is named in the <head>, or early in the body). */
export const ENDPOINT_HTML_LIMITS = { tags: 20_000, depth: 400 } as const;

/** The href of the first <link>/<a rel=webmention> of `html` (its start within
 * ENDPOINT_HTML_LIMITS), read on the worker; or why the page could not be read. */
export async function readEndpointInPage(html: string): Promise<{ ok: true; href: string | null } | { ok: false; reason: string }> {
  const result = await readInWorker({ kind: 'endpoint', html: htmlStartWithin(html, ENDPOINT_HTML_LIMITS) });
  return result.ok ? { ok: true, href: result.href } : { ok: false, reason: result.reason };
}

/** A fetched ActivityPub document read on the worker (read-document.ts readDocumentHere there):
 * sanitized, or why not. A document the worker could not finish (its deadline, a crash) may read
 * another time: retryable. */
export async function readDocumentInWorker(text: string, maxChars: number): Promise<DocumentReading> {
  const result = await readInWorker({ kind: 'document', text, maxChars });
  return result.ok ? result.reading : { ok: false, reason: `could not be read (${result.reason})`, retryable: true };
}

/** Ends the worker (tests, shutdown); a later page starts a new one. */
export async function stopSourceReader(): Promise<void> {
  const w = worker;
  worker = null;
  await w?.terminate();
}
