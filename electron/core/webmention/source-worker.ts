// The worker thread that reads remote HTML pages for the main thread (see source-parse.ts):
// webmention source pages (whether the page links to the target, and its sanitized
// microformats) and IndieAuth client pages (the h-app and rel=redirect_uri of a client_id) —
// the larger ActivityPub documents the author's look-ups fetch (federation/read-document.ts),
// long Markdown posts (federation/actions/render-off-thread.ts), and the heads of pages a post
// links to, for their link previews (previews/opengraph.ts), and the rel=webmention endpoint of
// a page Tern sends a webmention to (discover.ts).
// Parsing a page took from half a second (a 120 KB blog page with many microformats) to tens of
// seconds and a stack overflow (50,000 nested elements), so it never runs on the main thread.
// One page at a time; an exception is answered as the page's refusal.
import { parentPort } from 'node:worker_threads';
import { htmlLinksTo, webmentionLinkInHtml } from './links';
import { parseSource } from './microformats';
import { readClientPageHtml, type ClientPage } from '../indieauth/client-page';
import { readDocumentHere, type DocumentReading } from '../federation/document-reading';
import { hashtagHrefOf, renderPost, scanPost, type RenderedPost, type ResolvedMention } from '../federation/actions/markdown';
import { readLinkPreview, type LinkPreview } from '../previews/opengraph';

/** A page to read, and what to read it for. */
export type ReaderJob =
  | { kind: 'source'; html: string; url: string; target: string; other?: string }
  | { kind: 'client'; html: string; url: string }
  | { kind: 'document'; text: string; maxChars: number }
  | { kind: 'scan'; source: string }
  | { kind: 'render'; source: string; mentions: [string, ResolvedMention][]; baseUrl: string }
  | { kind: 'preview'; html: string; url: string; linked: string }
  | { kind: 'endpoint'; html: string };
export type ReaderTask = ReaderJob & { id: number };

export type ReaderResult =
  | { id: number; ok: true; kind: 'source'; links: boolean; linksOther: boolean; microformats: ReturnType<typeof parseSource> }
  | { id: number; ok: true; kind: 'client'; page: ClientPage }
  | { id: number; ok: true; kind: 'document'; reading: DocumentReading }
  | { id: number; ok: true; kind: 'scan'; scanned: { handles: string[]; hashtags: string[] } }
  | { id: number; ok: true; kind: 'render'; rendered: RenderedPost }
  | { id: number; ok: true; kind: 'preview'; preview: LinkPreview | null }
  | { id: number; ok: true; kind: 'endpoint'; href: string | null }
  | { id: number; ok: false; reason: string };

function read(task: ReaderTask): ReaderResult {
  if (task.kind === 'client') return { id: task.id, ok: true, kind: 'client', page: readClientPageHtml(task.html, task.url) };
  if (task.kind === 'document') return { id: task.id, ok: true, kind: 'document', reading: readDocumentHere(task.text, task.maxChars) };
  if (task.kind === 'scan') return { id: task.id, ok: true, kind: 'scan', scanned: scanPost(task.source) };
  if (task.kind === 'endpoint') return { id: task.id, ok: true, kind: 'endpoint', href: webmentionLinkInHtml(task.html) };
  if (task.kind === 'preview') return { id: task.id, ok: true, kind: 'preview', preview: readLinkPreview(task.html, task.url, task.linked) };
  if (task.kind === 'render') {
    const rendered = renderPost(task.source, { mentions: new Map(task.mentions), hashtagHref: hashtagHrefOf(task.baseUrl) });
    return { id: task.id, ok: true, kind: 'render', rendered };
  }
  const links = htmlLinksTo(task.html, task.url, task.target);
  // Whether it still links to the post its webmention is recorded for (verify.ts), if another.
  const linksOther = task.other !== undefined && htmlLinksTo(task.html, task.url, task.other);
  const microformats = links ? parseSource(task.html, task.url) : { items: [] };
  return { id: task.id, ok: true, kind: 'source', links, linksOther, microformats };
}

parentPort?.on('message', (task: ReaderTask) => {
  let result: ReaderResult;
  try {
    result = read(task);
  } catch (error) {
    const why = error instanceof RangeError ? 'its markup is nested too deeply to read' : `it could not be read (${(error as Error).message})`;
    result = { id: task.id, ok: false, reason: why };
  }
  parentPort?.postMessage(result);
});

// Loaded: the main thread's deadline for a page starts now, not while this module was loading.
parentPort?.postMessage({ ready: true });
