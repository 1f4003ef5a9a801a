// Webmention endpoint discovery (W3C Webmention §3.1.2): fetch the target page through the one
// outbound client (SSRF guard, redirects checked hop by hop), then the first rel=webmention of
// the HTTP Link headers — read before any of the body, so a long page whose header names its
// endpoint is never downloaded — else the first <link>/<a rel=webmention> of an HTML body: its
// first DISCOVERY_MAX_BYTES (a longer page is searched that far, not refused), decoded with its
// charset, its start within bounds (source-parse.ts ENDPOINT_HTML_LIMITS) parsed on the page
// reader's worker, never on the calling thread (the delivery worker, or the main thread: 100,000
// unclosed <div>s then unmatched </b>s took htmlparser2 33 s there). Relative URLs are resolved
// against the page's URL AFTER redirects, an empty href is the page itself, and the endpoint's
// query string is kept as it is.
import type { HttpClient } from '../net/http-client';
import { readBodyStart, pageText } from '../net/page-text';
import { httpUrlOf, webmentionLinksInHeader } from './links';
import { readEndpointInPage } from './source-parse';

/** The target has no endpoint (or only an unusable one): sending can never succeed. */
export class NoWebmentionEndpointError extends Error {
  override name = 'NoWebmentionEndpointError';
}
/** The target page answered with an HTTP error. */
export class TargetUnavailableError extends Error {
  override name = 'TargetUnavailableError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Pages are searched up to this size. */
export const DISCOVERY_MAX_BYTES = 1024 * 1024;

export async function discoverEndpoint(client: Pick<HttpClient, 'fetch'>, target: string, signal?: AbortSignal): Promise<string> {
  const response = await client.fetch(target, {
    headers: { accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1' },
    // Above what is read: the client's own cap must not cut the part that is.
    maxBodyBytes: 2 * DISCOVERY_MAX_BYTES,
    ...(signal === undefined ? {} : { signal }),
  });
  const base = response.url || target;
  const header = response.ok ? webmentionLinksInHeader(response.headers.get('link'))[0] : undefined;
  const type = (response.headers.get('content-type') ?? 'text/html').toLowerCase();
  if (!response.ok || header !== undefined || !type.includes('html')) await response.body?.cancel().catch(() => {});
  if (!response.ok) throw new TargetUnavailableError(`${new URL(target).host} answered HTTP ${response.status} for ${target}`, response.status);
  let href = header ?? null;
  if (href === null && type.includes('html')) {
    const html = pageText(await readBodyStart(response, DISCOVERY_MAX_BYTES), type);
    const reading = await readEndpointInPage(html);
    if (!reading.ok) throw new NoWebmentionEndpointError(`${target} could not be read for its Webmention endpoint: ${reading.reason}`);
    href = reading.href;
  }
  if (href === null) throw new NoWebmentionEndpointError(`${target} advertises no Webmention endpoint`);
  const endpoint = httpUrlOf(href, base);
  if (endpoint === null) throw new NoWebmentionEndpointError(`${target} advertises an unusable Webmention endpoint (${href})`);
  // Fragments are never sent; the query string stays (webmention.rocks test 21).
  return endpoint.href;
}
