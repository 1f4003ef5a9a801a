// JSON-LD document and context loaders for Fedify (its `documentLoader` / `contextLoader`
// parameters), built on the safe client so actor, key and object fetches get the SSRF guard,
// timeouts and body cap. The contexts Fedify ships preloaded (ActivityStreams, security, …) are
// answered from memory and never fetched.
import { FetchError, preloadedContexts, type DocumentLoader, type RemoteDocument } from '@fedify/vocab-runtime';
import type { HttpClient } from './http-client';
import { jsonRefusal, parseBoundedJson } from './bounded-json';
import { linkValues } from './link-header';

export const ACTIVITY_ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

const JSON_LD_CONTEXT_REL = 'http://www.w3.org/ns/json-ld#context';
const AP_TYPES = ['application/activity+json', 'application/ld+json'];

function mediaType(contentType: string | null): string | null {
  return contentType === null ? null : (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

interface Link {
  uri: string;
  rel: string;
  type: string | undefined;
}

/** Just enough of RFC 8288 for the `rel` and `type` of each link. */
export function parseLinkHeader(header: string | null): Link[] {
  if (header === null) return [];
  const links: Link[] = [];
  for (const match of linkValues(header, /<([^>]*)>((?:\s*;\s*[^;,=]+(?:=(?:"[^"]*"|[^;,]*))?)*)/)) {
    const params = new Map<string, string>();
    for (const p of (match[2] ?? '').matchAll(/;\s*([^;,=\s]+)\s*(?:=\s*(?:"([^"]*)"|([^;,]*)))?/g)) {
      params.set((p[1] ?? '').toLowerCase(), (p[2] ?? p[3] ?? '').trim());
    }
    for (const rel of (params.get('rel') ?? '').split(/\s+/)) {
      if (rel !== '') links.push({ uri: match[1] ?? '', rel, type: params.get('type') });
    }
  }
  return links;
}

function preloaded(url: string): RemoteDocument | null {
  let href: string;
  try {
    href = new URL(url).href;
  } catch {
    return null;
  }
  return href in preloadedContexts ? { contextUrl: null, document: preloadedContexts[href], documentUrl: href } : null;
}

/** Resolves only the contexts Fedify ships; anything else is refused without a request. */
export const preloadedContextLoader: DocumentLoader = (url) => {
  const hit = preloaded(url);
  return hit === null ? Promise.reject(new FetchError(url, `Not a preloaded JSON-LD context: ${url}`)) : Promise.resolve(hit);
};

/** A document loader that fetches ActivityPub/JSON-LD documents through `client`. */
/**
 * Loads ActivityPub documents (actors, keys, objects). A redirect to another origin is refused:
 * a document is believed only from its own server, so an open redirect elsewhere cannot serve
 * a key or actor "as" that server.
 */
export function createDocumentLoader(client: HttpClient, options: { maxBodyBytes?: number } = {}): DocumentLoader {
  return loaderOver(client, true, options.maxBodyBytes);
}

/**
 * The largest ActivityPub document loaded (actors, keys, objects), whatever the client's own cap
 * (2 MiB): Mastodon's limit, and our inbox's. A document is parsed whole, then expanded by
 * Fedify on the thread that asked (a 2 MiB actor took 0.5–5 s to read as a key), and stored.
 */
export const ACTIVITY_DOCUMENT_MAX_BYTES = 1024 * 1024;

function loaderOver(client: HttpClient, sameOriginOnly: boolean, cap = ACTIVITY_DOCUMENT_MAX_BYTES): DocumentLoader {
  const maxBodyBytes = Math.min(client.maxBodyBytes ?? cap, cap, ACTIVITY_DOCUMENT_MAX_BYTES);
  const load = async (url: string, signal: AbortSignal | undefined, alternates: number): Promise<RemoteDocument> => {
    const hit = preloaded(url);
    if (hit !== null) return hit;
    const { response, text } = await client.fetchText(url, { headers: { accept: ACTIVITY_ACCEPT }, signal, maxBodyBytes });
    const documentUrl = response.url === '' ? url : response.url;
    if (sameOriginOnly && new URL(documentUrl).origin !== new URL(url).origin) {
      throw new FetchError(url, `${url} redirected to another server (${new URL(documentUrl).host})`);
    }
    if (!response.ok) {
      // The body is already read; hand Fedify a fresh copy it can clone and inspect.
      const copy = new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
      throw new FetchError(documentUrl, `HTTP ${response.status}: ${documentUrl}`, copy);
    }
    const type = mediaType(response.headers.get('content-type'));
    const links = parseLinkHeader(response.headers.get('link'));
    const isJsonLd = type === null || AP_TYPES.includes(type);
    if (!isJsonLd && type !== 'application/json') {
      const alternate = links.find((l) => l.rel === 'alternate' && l.type !== undefined && AP_TYPES.includes(mediaType(l.type) ?? ''));
      if (alternate !== undefined && alternates === 0) return load(new URL(alternate.uri, documentUrl).href, signal, 1);
      throw new FetchError(documentUrl, `Not an ActivityPub document (${type}): ${documentUrl}`);
    }
    let document: unknown;
    try {
      document = parseBoundedJson(text);
    } catch (error) {
      throw new FetchError(documentUrl, `Invalid JSON at ${documentUrl}: ${jsonRefusal(error)}`);
    }
    // A context Link only applies to plain JSON (JSON-LD 1.1 §9.2).
    const context = type === 'application/json' ? links.find((l) => l.rel === JSON_LD_CONTEXT_REL) : undefined;
    return { contextUrl: context === undefined ? null : new URL(context.uri, documentUrl).href, document, documentUrl };
  };
  return (url, options) => load(url, options?.signal, 0);
}

/**
 * A context loader: preloaded contexts first, other contexts fetched through `client` once and
 * kept (contexts do not change; a small bound keeps a hostile peer from filling memory).
 */
export function createContextLoader(client: HttpClient, maxEntries = 64): DocumentLoader {
  // Contexts are often served through redirects to another host (w3id.org, for one).
  const documents = loaderOver(client, false);
  const cache = new Map<string, RemoteDocument>();
  return async (url, options) => {
    const hit = preloaded(url) ?? cache.get(url);
    if (hit !== undefined && hit !== null) return hit;
    const loaded = await documents(url, options);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value ?? '');
    cache.set(url, loaded);
    return loaded;
  };
}
