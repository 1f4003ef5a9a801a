// How much HTML is in a string, measured without parsing it: the number of elements and an
// upper estimate of their nesting, by one regular-expression pass over the tags (linear, a few
// milliseconds per MiB, hostile input included). Parsers are recursive and slow on hostile
// input: microformats-parser overflowed its stack on 5,000 nested <div>s after seconds of work,
// and sanitize-html took 1.5 s on 50,000 of them — all on the main thread. Remote HTML is
// measured here first, and what is over the bounds is never handed to a parser (see sanitize.ts,
// webmention/source-parse.ts).

export interface HtmlSize {
  elements: number;
  depth: number;
}

// Elements that never have content, and those whose end tag may be left out (the parser closes
// them itself: <p>…<p>, <li>…<li>): neither adds to the nesting, so an ordinary page whose <p>s
// are never closed does not look deep.
const NO_NESTING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr',
  'p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'colgroup',
  'caption', 'rb', 'rt', 'rtc', 'rp', 'html', 'head', 'body',
]);

// A tag runs from its `<` to the first `>` after it, whatever lies between (`<b title="<">` is
// one element). Tried at a `<` with no `>` anywhere after it, the regex scans to the end of the
// input before failing, then tries again at the next `<`: quadratic, 66 s for 512 KiB of `<a<a…`.
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*?(\/?)>/g;

/** `html` up to its last `>`: every tag lies within it, and every `<a` in it has its `>`, so TAG
 * never fails after a scan and one pass is linear. */
const upToLastTagEnd = (html: string): string => html.slice(0, html.lastIndexOf('>') + 1);

/**
 * Counts elements and estimates nesting; stops counting once either passes its limit (the result
 * then is "over"), so measuring costs no more than the limits need.
 */
export function measureHtml(html: string, limits: HtmlSize = { elements: Number.POSITIVE_INFINITY, depth: Number.POSITIVE_INFINITY }): HtmlSize {
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  for (const match of upToLastTagEnd(html).matchAll(TAG)) {
    const closing = match[1] === '/';
    const name = match[2]!.toLowerCase();
    if (!closing) elements++;
    if (elements > limits.elements) break;
    if (NO_NESTING.has(name) || match[3] === '/') continue;
    if (closing) depth = Math.max(0, depth - 1);
    else if (++depth > deepest) {
      deepest = depth;
      if (deepest > limits.depth) break;
    }
  }
  return { elements, depth: deepest };
}

/** Why `html` is over `limits`, or null when it is within them. */
export function htmlOverLimits(html: string, limits: HtmlSize & { chars: number }): string | null {
  if (html.length > limits.chars) return `more than ${limits.chars} characters of HTML`;
  const size = measureHtml(html, limits);
  if (size.elements > limits.elements) return `more than ${limits.elements} HTML elements`;
  if (size.depth > limits.depth) return `HTML nested deeper than ${limits.depth} levels`;
  return null;
}

/**
 * The start of `html` that is within `limits`: cut before the tag (opening or closing) that
 * passes `tags` or the nesting that passes `depth`. Closing tags count too: a parser searches
 * its open elements for each one it meets (htmlparser2: 100,000 unclosed <div>s then unmatched
 * </b>s took 33 s), so what is parsed is bounded in both. One linear pass.
 */
export function htmlStartWithin(html: string, limits: { tags: number; depth: number }): string {
  let tags = 0;
  let depth = 0;
  for (const match of upToLastTagEnd(html).matchAll(TAG)) {
    const closing = match[1] === '/';
    const name = match[2]!.toLowerCase();
    if (++tags > limits.tags) return html.slice(0, match.index);
    if (NO_NESTING.has(name) || match[3] === '/') continue;
    if (closing) depth = Math.max(0, depth - 1);
    else if (++depth > limits.depth) return html.slice(0, match.index);
  }
  return html;
}
