// Webmention endpoint discovery (W3C Webmention §3.1.2): fetch the target page through the one
// outbound client (SSRF guard, redirects checked hop by hop, body cap), then the first
// rel=webmention of the HTTP Link headers, else the first <link>/<a rel=webmention> of an HTML
// body; relative URLs are resolved against the page's URL AFTER redirects, an empty href is
// the page itself, and the endpoint's query string is kept as it is.
import type { HttpClient } from '../net/http-client';
import { httpUrlOf, webmentionLinkInRemoteHtml, webmentionLinksInHeader } from './links';

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

/** Pages are read up to this size when looking for the endpoint. */
export const DISCOVERY_MAX_BYTES = 1024 * 1024;

export async function discoverEndpoint(client: Pick<HttpClient, 'fetchText'>, target: string, signal?: AbortSignal): Promise<string> {
  const { response, text } = await client.fetchText(target, {
    headers: { accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1' },
    maxBodyBytes: DISCOVERY_MAX_BYTES,
    signal,
  });
  if (!response.ok) throw new TargetUnavailableError(`${new URL(target).host} answered HTTP ${response.status} for ${target}`, response.status);
  const base = response.url || target;
  const header = webmentionLinksInHeader(response.headers.get('link'))[0];
  const type = (response.headers.get('content-type') ?? 'text/html').toLowerCase();
  const href = header ?? (type.includes('html') ? await webmentionLinkInRemoteHtml(text) : null);
  if (href === null) throw new NoWebmentionEndpointError(`${target} advertises no Webmention endpoint`);
  const endpoint = httpUrlOf(href, base);
  if (endpoint === null) throw new NoWebmentionEndpointError(`${target} advertises an unusable Webmention endpoint (${href})`);
  // Fragments are never sent; the query string stays (webmention.rocks test 21).
  return endpoint.href;
}
