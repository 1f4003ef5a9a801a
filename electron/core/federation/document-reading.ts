// A fetched ActivityPub document read on the thread that runs this: bounded JSON, an object, its
// HTML sanitized as what it is (sanitize.ts sanitizeDocumentHtml), within the size Tern keeps.
// read-document.ts decides which thread that is; the page reader's worker runs it for the main
// thread (webmention/source-worker.ts).
import { jsonRefusal, parseBoundedJson } from '../net/bounded-json';
import { isObject, type Json } from './ap';
import { sanitizeDocumentHtml } from './sanitize';

/** The most a document may be, as JSON after sanitizing: what the store keeps of an object
 * (process/store.ts MAX_STORED_OBJECT_CHARS) and of an actor (actors.ts MAX_STORED_ACTOR_CHARS).
 * A larger one is refused here, before it is passed back to the main thread. */
export const MAX_DOCUMENT_CHARS = 256 * 1024;

/** The sanitized document, or why it cannot be read: a sentence's predicate (`${url} ${reason}`),
 * and whether asking again later may help (a server answering broken JSON may mend it). */
export type DocumentReading = { ok: true; doc: Json } | { ok: false; reason: string; retryable: boolean };

/** Reads `text` on this thread: bounded JSON, an object, sanitized, within `maxChars`. */
export function readDocumentHere(text: string, maxChars: number): DocumentReading {
  let json: unknown;
  try {
    json = parseBoundedJson(text);
  } catch (error) {
    return { ok: false, reason: `did not answer with usable JSON (${jsonRefusal(error)})`, retryable: true };
  }
  if (!isObject(json)) return { ok: false, reason: 'did not answer with a JSON object', retryable: false };
  const doc = sanitizeDocumentHtml(json);
  const chars = JSON.stringify(doc).length;
  if (chars > maxChars) {
    return { ok: false, reason: `is larger than Tern keeps (${chars} characters of JSON, at most ${maxChars})`, retryable: false };
  }
  return { ok: true, doc };
}

