// The worker thread that reads webmention source pages (see source-parse.ts): whether the page
// links to the target, and its sanitized microformats. Parsing a page took from half a second
// (a 120 KB blog page with many microformats) to tens of seconds and a stack overflow (50,000
// nested elements), so it never runs on the main thread. One page at a time; an exception is
// answered as the page's refusal.
import { parentPort } from 'node:worker_threads';
import { htmlLinksTo } from './links';
import { parseSource } from './microformats';

export interface SourceTask {
  id: number;
  html: string;
  url: string;
  target: string;
}

export type SourceResult =
  | { id: number; ok: true; links: boolean; microformats: ReturnType<typeof parseSource> }
  | { id: number; ok: false; reason: string };

parentPort?.on('message', (task: SourceTask) => {
  let result: SourceResult;
  try {
    const links = htmlLinksTo(task.html, task.url, task.target);
    const microformats = links ? parseSource(task.html, task.url) : { items: [] };
    result = { id: task.id, ok: true, links, microformats };
  } catch (error) {
    const why = error instanceof RangeError ? 'its markup is nested too deeply to read' : `it could not be read (${(error as Error).message})`;
    result = { id: task.id, ok: false, reason: why };
  }
  parentPort?.postMessage(result);
});

// Loaded: the main thread's deadline for a page starts now, not while this module was loading.
parentPort?.postMessage({ ready: true });
