// Fetching one link preview: a GET of the page through Tern's one outbound client (its SSRF
// guard at connect time, its time limit, redirects re-checked hop by hop), reading only the
// start of the page: up to its </head>, at most PREVIEW_MAX_BYTES (a news site's page is often
// 1–2 MB, its <head> a few KiB), then the rest is not downloaded. Only HTML is read; its charset
// is the one the Content-Type or a <meta charset> names, else UTF-8 (net/page-text.ts). The head
// is parsed on the page reader's worker (webmention/source-parse.ts), never on the main thread.
import { isIP } from 'node:net';
import type { HttpClient } from '../net/http-client';
import { BlockedAddressError, RefusedHostError, TooManyRedirectsError, UnsupportedSchemeError } from '../net/errors';
import { pageText } from '../net/page-text';
import { readPreviewPage } from '../webmention/source-parse';
import type { LinkPreview } from './opengraph';

/** At most this much of a page is downloaded for its preview. */
export const PREVIEW_MAX_BYTES = 512 * 1024;
/** One page's fetch, redirects and reading included. */
export const PREVIEW_TIMEOUT_MS = 8_000;

export type PreviewOutcome =
  /** `page`: the address the preview was read at, after redirects. */
  | { kind: 'preview'; preview: LinkPreview; page: string }
  /** The page has no preview to give (not HTML, no title, an error status, refused): for good. */
  | { kind: 'none'; reason: string }
  /** No answer came (no network, a time-out, a refused or reset connection, a name that did not
   * resolve — what a laptop going offline looks like before the watch says so — or a private
   * address the link did not name, as a captive portal's): another try later. */
  | { kind: 'retry'; reason: string }
  /** The network in between answered, not the site: 511 Network Authentication Required, which
   * captive portals send for every page (RFC 6585 §6). Says nothing of the page: another try later. */
  | { kind: 'network'; reason: string };

/** Refused by Tern's own rules (a private address, another scheme, a redirect loop): no try
 * would do better. */
const refusedByTern = (error: unknown) => error instanceof BlockedAddressError || error instanceof UnsupportedSchemeError || error instanceof TooManyRedirectsError;

/** A private address the link did not name itself: a redirect led there, or the link's public
 * name resolved to one. That is what a captive portal does (its login page on 192.168.x.x or a
 * local name; its DNS answering every name with its own address), so it is the network's failure
 * as much as the page's; the guard still refused to connect, and the runner decides whose it is
 * (a page that gave a preview before, fetched again). A link to a private address or a local-only
 * name itself is refused for good. */
function blockedOnTheWay(error: unknown, url: string): boolean {
  if (!(error instanceof BlockedAddressError)) return false;
  let hop: URL;
  try {
    hop = new URL(error.url);
  } catch {
    return false;
  }
  const link = new URL(url);
  if (hop.href !== link.href) return true;
  return !(error instanceof RefusedHostError) && isIP(link.hostname.replace(/^\[|\]$/g, '')) === 0;
}

const HEAD_END = /<\/head[\s>]|<body[\s>]/i;

/** Reads the response's body until its head ends or PREVIEW_MAX_BYTES, then stops the download. */
async function readHead(response: Response): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tail = '';
  try {
    while (size < PREVIEW_MAX_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.byteLength > PREVIEW_MAX_BYTES - size ? value.subarray(0, PREVIEW_MAX_BYTES - size) : value;
      chunks.push(take);
      size += take.byteLength;
      // Looked for in the bytes as Latin-1 (ASCII markup reads the same in every charset the
      // decoder takes), with the end of the previous chunk in case the tag was split.
      const text = tail + Buffer.from(take.buffer, take.byteOffset, take.byteLength).toString('latin1');
      if (HEAD_END.test(text)) break;
      tail = text.slice(-8);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks);
}

/** The preview of the page at `url` (as a post links to it), or why there is none. */
export async function fetchLinkPreview(client: Pick<HttpClient, 'fetch'>, url: string, signal?: AbortSignal): Promise<PreviewOutcome> {
  const limit = AbortSignal.timeout(PREVIEW_TIMEOUT_MS);
  const both = signal ? AbortSignal.any([signal, limit]) : limit;
  let response: Response;
  try {
    response = await client.fetch(url, {
      headers: { accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1' },
      signal: both,
      // Above what is read: the client's own cap must not cut the part that is.
      maxBodyBytes: 2 * PREVIEW_MAX_BYTES,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = `${new URL(url).host} could not be reached (${(error as Error)?.message ?? String(error)})`;
    return refusedByTern(error) && !blockedOnTheWay(error, url) ? { kind: 'none', reason } : { kind: 'retry', reason };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    const reason = `${new URL(url).host} answered HTTP ${response.status}`;
    if (response.status === 511) return { kind: 'network', reason: `${reason} (the network asks to sign in)` };
    // Busy or failing for now (a link that spreads brings many readers at once): another try.
    return response.status === 429 || response.status >= 500 ? { kind: 'retry', reason } : { kind: 'none', reason };
  }
  const type = (response.headers.get('content-type') ?? '').trim().toLowerCase();
  if (!/^(text\/html|application\/xhtml\+xml)\b/.test(type) && type !== '') {
    await response.body?.cancel().catch(() => {});
    return { kind: 'none', reason: `not a web page (${type.split(';')[0]})` };
  }
  let bytes: Uint8Array;
  try {
    bytes = await readHead(response);
  } catch (error) {
    if (signal?.aborted) throw error;
    // Cut off while arriving (a time-out, a reset): another try.
    return { kind: 'retry', reason: `the page could not be read (${(error as Error)?.message ?? String(error)})` };
  }
  const html = pageText(bytes, type);
  const reading = await readPreviewPage(html, response.url || url, url);
  if (!reading.ok) return { kind: 'none', reason: reading.reason };
  return reading.preview === null ? { kind: 'none', reason: 'the page names no title' } : { kind: 'preview', preview: reading.preview, page: response.url || url };
}
