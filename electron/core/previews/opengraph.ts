// Link previews: what a web page says of itself in its <head> (OpenGraph `og:*`, Twitter's
// `twitter:*`, else its <title> and meta description), as the `og_meta` entries microblog.pub
// stores for the external links of a post: `{url, title, image, description, site_name}`
// (reference §4 "Link previews"; the same keys, so an imported microblog.pub database shows
// its previews as they were).
//
// Read with htmlparser2 (sanitize-html's own parser), so comments, entities and markup in
// attributes are read the way a browser reads them. Only the <head> is read: the parser stops
// at <body> (or the first element a head cannot hold). What comes out is plain text, trimmed,
// without control characters, cut to a bounded length; the image is an absolute http(s) URL.
// Pure: the page reader worker runs it (webmention/source-worker.ts), never the main thread.
import { Parser } from 'htmlparser2';
import { BIDI_CONTROLS } from '../federation/sanitize';

/** One link preview, as stored in `og_meta` (a JSON list of these). */
export interface LinkPreview {
  /** The page the post links to (as linked: the key the post's content is matched by). */
  url: string;
  title: string;
  description: string | null;
  /** An absolute http(s) URL of the page's picture. */
  image: string | null;
  site_name: string | null;
}

export const PREVIEW_TITLE_CHARS = 300;
export const PREVIEW_DESCRIPTION_CHARS = 600;
export const PREVIEW_SITE_CHARS = 100;
/** A post gets previews for at most this many of its links. */
export const MAX_PREVIEWS = 3;

// C0/C1 controls (tabs and newlines become spaces first); bidi controls are BIDI_CONTROLS, the
// one definition all remote labels are cleaned by.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/** Plain text for a preview: white space folded, controls out, cut at `max` characters. */
export function previewText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').replace(CONTROL, '').replace(BIDI_CONTROLS, '').trim();
  if (text === '') return null;
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('').trimEnd()}…` : text;
}

/** An absolute http(s) URL, resolved against `base`, or null. */
export function previewUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 2048) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

// Elements a <head> holds; anything else starts the body (as a browser's parser decides).
const HEAD_ELEMENTS = new Set(['html', 'head', 'meta', 'title', 'link', 'base', 'script', 'style', 'noscript', 'template']);

/**
 * The preview of a page from its HTML (or the start of it), or null when it names no title.
 * `pageUrl` is the page's address after redirects (relative image URLs are resolved against
 * it, or against its <base href>); `linkedUrl` is what the post links to, the entry's `url`.
 */
export function readLinkPreview(html: string, pageUrl: string, linkedUrl: string = pageUrl): LinkPreview | null {
  const meta = new Map<string, string>();
  let title = '';
  let inTitle = false;
  let sawTitle = false;
  let base = pageUrl;
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (done) return;
        if (!HEAD_ELEMENTS.has(name)) {
          done = true;
          return;
        }
        if (name === 'title' && !sawTitle) inTitle = true;
        if (name === 'base' && attribs.href !== undefined) base = previewUrl(attribs.href, pageUrl) ?? base;
        if (name !== 'meta') return;
        const key = (attribs.property ?? attribs.name ?? '').trim().toLowerCase();
        const content = attribs.content;
        // The first value of each key counts (og:image may repeat; the first is the main one).
        if (key !== '' && content !== undefined && !meta.has(key)) meta.set(key, content);
      },
      ontext(text) {
        if (inTitle && title.length < 4 * PREVIEW_TITLE_CHARS) title += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          sawTitle = true;
        }
        if (name === 'head') done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // Written in slices so a page's body is never parsed once its head is read.
  for (let at = 0; at < html.length && !done; at += 16 * 1024) parser.write(html.slice(at, at + 16 * 1024));
  if (!done) parser.end();

  const first = (...keys: string[]) => keys.map((k) => meta.get(k)).find((v) => v !== undefined && v.trim() !== '');
  const previewTitle = previewText(first('og:title', 'twitter:title') ?? title, PREVIEW_TITLE_CHARS);
  if (previewTitle === null) return null;
  return {
    url: linkedUrl,
    title: previewTitle,
    description: previewText(first('og:description', 'twitter:description', 'description'), PREVIEW_DESCRIPTION_CHARS),
    image: previewUrl(first('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'), base),
    site_name: previewText(first('og:site_name', 'application-name'), PREVIEW_SITE_CHARS),
  };
}

/**
 * The previews stored in an `og_meta` value, checked again on the way out: the column is a
 * user's file (another tool, an import from microblog.pub) as much as Tern's. Entries that are
 * not objects with an http(s) url and a title are left out; at most MAX_PREVIEWS.
 */
export function storedPreviews(value: unknown): LinkPreview[] {
  if (!Array.isArray(value)) return [];
  const out: LinkPreview[] = [];
  for (const entry of value.slice(0, 16)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    const e = entry as Record<string, unknown>;
    const url = previewUrl(e.url);
    const title = previewText(e.title, PREVIEW_TITLE_CHARS);
    if (url === null || title === null) continue;
    out.push({
      url,
      title,
      description: previewText(e.description, PREVIEW_DESCRIPTION_CHARS),
      image: previewUrl(e.image),
      site_name: previewText(e.site_name, PREVIEW_SITE_CHARS),
    });
    if (out.length >= MAX_PREVIEWS) break;
  }
  return out;
}
