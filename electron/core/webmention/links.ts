// Reading links out of HTML and Link headers for Webmention (W3C Recommendation, §3.1.2 and
// §3.2.2): where a page advertises its endpoint, whether a source links to a target, and which
// external pages one of the author's posts links to. Pure functions over strings; the parser is
// htmlparser2 (sanitize-html's own), so comments, escaped markup and entities are read the way
// a browser reads them — a <link> inside a comment or written as &lt;link&gt; is no link.
import { Parser } from 'htmlparser2';
import { linkValues } from '../net/link-header';

const hasRel = (rel: string | undefined, wanted: string) =>
  rel !== undefined && rel.toLowerCase().split(/[\t\n\f\r ]+/).includes(wanted);

/** The endpoints a `Link` header advertises with rel=webmention, in order, unresolved. Handles
 * several values in one header, quoted and unquoted rel, several rels, any casing. */
export function webmentionLinksInHeader(header: string | null): string[] {
  if (!header) return [];
  const found: string[] = [];
  // `<uri>; param=value; …` values separated by commas outside <…> and quotes (RFC 8288).
  const re = /<([^>]*)>((?:\s*;\s*[^;,"=]+(?:=(?:"[^"]*"|[^;,]*))?)*)/;
  for (const match of linkValues(header, re)) {
    const [, uri = '', params = ''] = match;
    for (const param of params.matchAll(/;\s*([^;=\s]+)\s*(?:=\s*("([^"]*)"|[^;,]*))?/g)) {
      const name = (param[1] ?? '').toLowerCase();
      const value = (param[3] ?? param[2] ?? '').trim();
      if (name === 'rel' && hasRel(value, 'webmention')) {
        found.push(uri);
        break;
      }
    }
  }
  return found;
}

/** A parser that records the first `<link>`/`<a>` with rel=webmention and an href. */
function endpointParser(): { parser: Parser; found: () => string | null } {
  let found: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (found !== null || (name !== 'link' && name !== 'a')) return;
        // A rel=webmention element without href advertises nothing (webmention.rocks test 20).
        if (attribs.href !== undefined && hasRel(attribs.rel, 'webmention')) found = attribs.href;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  return { parser, found: () => found };
}

/** The first `<link>` or `<a>` with rel=webmention and an href, in document order (spec:
 * "the first HTTP Link header takes precedence, followed by the first <link> or <a> element"). */
export function webmentionLinkInHtml(html: string): string | null {
  const { parser, found } = endpointParser();
  parser.end(html);
  return found();
}

/** An absolute http(s) URL without its fragment, or null. */
export function httpUrlOf(value: string, base?: string): URL | null {
  try {
    const url = new URL(value, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url;
  } catch {
    return null;
  }
}

/** Two URLs name the same page: equal once parsed, fragments ignored (a trailing slash after the
 * host is the same page by URL parsing already). */
export function samePage(a: string, b: string): boolean {
  const x = httpUrlOf(a);
  const y = httpUrlOf(b);
  return x !== null && y !== null && x.href === y.href;
}

const LINKING_ATTRIBUTES: Record<string, string[]> = {
  a: ['href'],
  link: ['href'],
  area: ['href'],
  img: ['src'],
  video: ['src'],
  audio: ['src'],
  source: ['src'],
  blockquote: ['cite'],
  q: ['cite'],
  ins: ['cite'],
  del: ['cite'],
};

/** Whether an HTML source links to the target (§3.2.2: "the receiver SHOULD use per-media-type
 * rules to determine whether the source document mentions the target URL"): an href, src or
 * cite, resolved against the source's own URL. */
export function htmlLinksTo(html: string, sourceUrl: string, target: string): boolean {
  let linked = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (linked) return;
        for (const attribute of LINKING_ATTRIBUTES[name] ?? []) {
          const value = attribs[attribute];
          const url = value === undefined ? null : httpUrlOf(value, sourceUrl);
          if (url !== null && samePage(url.href, target)) linked = true;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return linked;
}

/** The external pages a post's HTML links to: absolute http(s) hrefs of <a> elements, without
 * mentions and hashtags (those point at fediverse accounts and tag pages, not at pages that
 * expect a webmention), in order, deduplicated, fragments removed. */
export function linkedPages(html: string): string[] {
  const found = new Set<string>();
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name !== 'a' || attribs.href === undefined) return;
        const classes = (attribs.class ?? '').split(/\s+/);
        if (classes.includes('mention') || classes.includes('hashtag') || hasRel(attribs.rel, 'tag')) return;
        const url = httpUrlOf(attribs.href);
        if (url !== null) found.add(url.href);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return [...found];
}
