// Reading a fetched ActivityPub document — a post or an actor the author looks up, a mentioned
// actor, an actor refreshed — into JSON with its HTML sanitized (sanitize.ts), the form every
// caller stores or reads. Parsing and sanitizing cost the thread that does it up to ≈ 0.3 ms per
// KiB of a hostile document, and a document may be 1 MiB (net/document-loader.ts): a post with
// 16 contentMap languages of 62 KB of markup each took 200–300 ms, an actor with 16 such profile
// fields 190–310 ms, 12,000 tags with markup in their names 40–90 ms. On the main thread (the
// listener, IPC and the window) that is a stall, so there a document over READ_INLINE_CHARS is
// read on the page reader's worker (webmention/source-parse.ts), and only its sanitized result
// comes back. Smaller ones — nearly all: a Mastodon post is 2–5 KB, an actor 3–10 KB, and one
// with many emoji 60 KB — are read where they arrive, in at most a few milliseconds. Other
// threads (the inbox processor) read every document where they are.
import { isMainThread } from 'node:worker_threads';
import { readDocumentInWorker } from '../webmention/source-parse';
import { MAX_DOCUMENT_CHARS, readDocumentHere, type DocumentReading } from './document-reading';
import { adoptSanitizedDocument } from './sanitize';

/** Documents up to this many characters are read on the thread that fetched them. */
export const READ_INLINE_CHARS = 32 * 1024;

/** Reads a fetched document: here when small or off the main thread, else on the page reader's
 * worker (one document at a time there, under its deadline). */
export async function readDocument(text: string, maxChars = MAX_DOCUMENT_CHARS): Promise<DocumentReading> {
  if (!isMainThread || text.length <= READ_INLINE_CHARS) return readDocumentHere(text, maxChars);
  const reading = await readDocumentInWorker(text, maxChars);
  if (reading.ok) adoptSanitizedDocument(reading.doc);
  return reading;
}
