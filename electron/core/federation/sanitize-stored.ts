// The second pass over stored HTML, each time a post's view is built (the first, sanitize-html
// with CONTENT_OPTIONS, ran when the post was stored; the renderer's DOMPurify is the third).
// It applies the same allowlist, written directly on htmlparser2's events: sanitize-html builds
// a dozen closures and a constructor per call, and V8 keeps much of each call alive past the
// next minor GC (objects reachable from the per-call constructor's map in old space), so that
// building a thread page of 50 stored posts cost 9 MB of surviving young objects and a 9–16 ms
// scavenge every 25 pages — the pages' p99. This pass allocates only its output.
//
// Safe for any input, not only for what the first pass wrote (a row may come from an import or
// a hand edit): every text and attribute value is escaped, only the allowlist's tags and
// attributes are written, a link's rel is always ours, and an href keeps only the allowed
// schemes. On what the first pass wrote it returns the same text (a test checks it on the
// corpora of real and hostile payloads), but for an element's classes past its 32nd.
import { Parser } from 'htmlparser2';
import { CONTENT_ALLOWLIST, HTML_LIMITS, LINK_REL, unparsedText } from './sanitize';
import { htmlOverLimits } from '../net/html-bounds';

const TAGS = new Set<string>(CONTENT_ALLOWLIST.tags);
const VOID = new Set(['br']);
/** Disallowed elements whose text is dropped with them (sanitize-html's nonTextTags). */
const NO_TEXT = new Set(['script', 'style', 'textarea', 'option', 'xmp']);
const SCHEMES = new Set<string>(CONTENT_ALLOWLIST.schemes);

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/** An href as the allowlist takes it: an allowed scheme, or a relative URL that is not
 * protocol-relative. Control characters and spaces are ignored in the check, as browsers do. */
export function hrefAllowed(href: string): boolean {
  // eslint-disable-next-line no-control-regex
  const bare = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (/^[/\\]{2}/.test(bare)) return false;
  const scheme = /^([^/?#\\]*?):/.exec(bare);
  return scheme === null || SCHEMES.has(scheme[1]!.toLowerCase());
}

/** The class names of an element that are read: Mastodon writes one to three (`u-url mention`);
 * a hostile server's 15,000 made each view of the post cost 10 ms. The rest are dropped. */
const MAX_CLASSES = 32;

function classesOf(tag: string, value: string): string {
  return value
    .split(/\s+/, MAX_CLASSES + 1)
    .filter((c) => c !== '' && CONTENT_ALLOWLIST.classAllowed(tag, c))
    .slice(0, MAX_CLASSES)
    .join(' ');
}

function openTag(name: string, attributes: Record<string, string>): string {
  let out = `<${name}`;
  if (name === 'a' || name === 'span' || name === 'p') {
    let rel = false;
    for (const [key, raw] of Object.entries(attributes)) {
      let value: string;
      if (key === 'class') value = classesOf(name, raw);
      else if (name === 'a' && key === 'href') value = hrefAllowed(raw) ? raw : '';
      else if (name === 'a' && key === 'rel') {
        value = LINK_REL;
        rel = true;
      } else continue;
      if (value !== '') out += ` ${key}="${escapeAttribute(value)}"`;
    }
    if (name === 'a' && !rel) out += ` rel="${LINK_REL}"`;
  }
  return VOID.has(name) ? `${out} />` : `${out}>`;
}

// One parser's state, reset for each call: the handlers are made once (no closure per call).
let out = '';
/** Open elements, each with whether its tags are written (allowed) or its text dropped. */
const open: Array<{ name: string; written: boolean; silent: boolean }> = [];
let silent = 0;
/** Whether an element was left out (its children are then joined to its parent). */
let dropped = false;

const parser = new Parser(
  {
    onopentag(name, attributes) {
      const written = TAGS.has(name) && silent === 0;
      if (!written) dropped = true;
      const quiet = NO_TEXT.has(name);
      open.push({ name, written, silent: quiet });
      if (quiet) silent++;
      if (written) out += openTag(name, attributes);
    },
    ontext(text) {
      if (silent === 0) out += escapeText(text);
    },
    onclosetag(name) {
      // htmlparser2 closes what it opened, in order (implied ends included).
      const top = open.at(-1);
      if (!top || top.name !== name) return;
      open.pop();
      if (top.silent) silent--;
      if (top.written && !VOID.has(name)) out += `</${name}>`;
    },
  },
  { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
);

function once(html: string): string {
  out = '';
  open.length = 0;
  silent = 0;
  dropped = false;
  try {
    parser.reset();
    parser.end(html);
    return out;
  } finally {
    out = '';
    open.length = 0;
    silent = 0;
  }
}

/** Stored content HTML, made safe again for a view (see the top of this file). When an element
 * was left out, its children join its parent, where a parser may read them as another tree
 * (`<li><div><li>` writes `<li><li>`, which reads as two siblings): that output is passed once
 * more, so what is returned reads back as written — a second call returns it unchanged. */
export function sanitizeStoredHtml(html: string): string {
  if (htmlOverLimits(html, HTML_LIMITS) !== null) return unparsedText(html);
  let clean = once(html);
  if (dropped) clean = once(clean);
  return clean.length > HTML_LIMITS.chars ? unparsedText(html) : clean;
}
