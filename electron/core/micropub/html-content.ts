// Micropub's `content: [{html}]` (§3.3.2: the value is HTML) as the Markdown Tern stores for a
// post: what Compose writes, renders and edits (q=source answers it). The HTML is reduced to
// Mastodon's allowlist first (the one sanitizer), then each allowed element becomes its Markdown
// — paragraphs, line breaks, emphasis, strike-through, code, quotes, lists and links — and text is
// escaped, so what the app wrote as text is never read as Markdown (or HTML) again. A bare URL is
// the exception: the renderer (renderPost: marked, GFM) links it as it stands, so it is written
// as it stands, or as <url> where the text around it would change what marked takes as the URL.
import { parseDocument } from 'htmlparser2';
import { Lexer } from 'marked';
import { sanitizeContentHtml } from '../federation/sanitize';

type Node = ReturnType<typeof parseDocument>['children'][number];
interface Element {
  name: string;
  attribs: Record<string, string>;
  children: Node[];
}

const isElement = (node: Node): node is Node & Element => 'name' in node && 'children' in node;
const isText = (node: Node): node is Node & { data: string } => node.type === 'text';

/** Characters Markdown (or the renderer's HTML escaping) would read as syntax inside a line, and
 * what reads as a character reference (`&copy;`, `&#x3c;`): marked passes those through, so text
 * that said `&copy;` showed ©; and the `#` of `&#x3c;` began a hashtag. */
const escapeInline = (text: string) => text.replace(/[\\`*_[\]<>~|]|&#?(?=\w+;)/g, (c) => c.replace(/./g, '\\$&'));

/** At a line's start, what would open a list, a heading or a quote. */
const escapeLineStart = (text: string) => text.replace(/^(\s*)([-+#]|\d+[.)])(?=\s|$)/, (_, space: string, mark: string) => `${space}${mark.replace(/([-+#.)])$/, '\\$1')}`);

// The renderer's own rules for a bare URL (renderPost lexes with gfm and breaks): where one is
// taken to run, and the trailing punctuation it gives back.
const { url: URL_RULE, _backpedal: BACKPEDAL } = Lexer.rules.inline.breaks;
/** Where marked tries a bare URL: a scheme anywhere; `www.` after a space, `(`, `*`, `_` or `~`
 * (marked's text rule), or after a character escaped here (an escape ends marked's text run). */
const URL_START = /(?:[hH][tT][tT][pP][sS]?|[fF][tT][pP]):\/\/|(?<=^|[\s(*_~\\`[\]<>|])www\./g;
const ESCAPED = /[\\`*_[\]<>~|&]/;

/** The longest run (up to a space or `<`) read as a bare URL, and how many such characters one
 * content may have read so: marked gives back trailing punctuation a character a pass, each pass
 * over the whole run (`https://x.org/)))…`: 6 ms for 2,000 characters, 54 ms for 8,000), and an
 * app may send a megabyte. Past either, a run is escaped as text, as every run was before. */
const MAX_URL_RUN = 2048;
const MAX_URL_CHARS = 32 * 1024;

/** The bare URL marked would link at the start of `text`, as its url tokenizer cuts it. A run of
 * `?!.,:;*_'"~` at the end is never kept (no pass matches it), so it is cut at once. */
function urlAt(text: string, budget: { left: number }): string | null {
  let url = URL_RULE.exec(text)?.[0] ?? '';
  if (url.length > MAX_URL_RUN || url.length > budget.left) return null;
  budget.left -= url.length;
  for (let before = ''; before !== url; ) {
    before = url.replace(/[?!.,:;*_'"~]+$/, '');
    url = BACKPEDAL.exec(before)?.[0] ?? '';
  }
  return url === '' ? null : url;
}

/** Text outside a link: escaped, but for the bare URLs the renderer will link, which are left as
 * they are (a backslash in one became part of its address: `a%5C_b`). */
function escapeText(text: string, budget: { left: number }): string {
  let out = '';
  let from = 0;
  for (const start of text.matchAll(URL_START)) {
    if (start.index < from) continue;
    const url = urlAt(text.slice(start.index), budget);
    if (url === null) continue;
    const end = start.index + url.length;
    out += escapeInline(text.slice(from, start.index)) + bareUrl(url, text.slice(end));
    from = end;
  }
  return out + escapeInline(text.slice(from));
}

/** A URL the renderer links, written so that it is linked whole and alone: as it is, unless a
 * backslash escaping what follows it (up to the next space) would run on into it, or a `*` or
 * `~` in it could close an emphasis around it — then as <url> (marked's autolink, which emphasis
 * skips), or as a link showing the same text if it has no scheme (`www.`) or has a `>`. */
function bareUrl(url: string, after: string): string {
  if (!/[*~]/.test(url) && !ESCAPED.test(/^\S*/.exec(after)![0])) return url;
  const www = /^www\./i.test(url);
  if (!www && !url.includes('>')) return `<${url}>`;
  return `[${escapeInline(url)}](<${(www ? `http://${url}` : url).replace(/[<>\s]/g, encodeURIComponent)}>)`;
}

function textOf(node: Node): string {
  if (isText(node)) return node.data;
  return isElement(node) ? node.children.map(textOf).join('') : '';
}

/** Where a node is: `inLink`, inside an <a>, where nothing is linked again and all text is
 * escaped; `urlChars`, what is left of the content's MAX_URL_CHARS. */
interface Context {
  inLink: boolean;
  urlChars: { left: number };
}

function inline(nodes: Node[], context: Context): string {
  return nodes.map((node) => render(node, context)).join('');
}

/** Wraps non-blank content in a marker, the spaces kept outside (`** x**` is no emphasis). */
function wrap(content: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(content)!;
  return match[2] === '' ? content : `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

function block(content: string): string {
  return `\n\n${content.trim()}\n\n`;
}

/** Each line of `content` after the first indented by `indent` (a list item's continuation). */
function indentRest(content: string, indent: string): string {
  return content.replace(/\n(?=.)/g, `\n${indent}`);
}

function render(node: Node, context: Context): string {
  if (isText(node)) {
    const text = node.data.replace(/\s+/g, ' ');
    return context.inLink ? escapeInline(text) : escapeText(text, context.urlChars);
  }
  if (!isElement(node)) return '';
  const children = node.children;
  switch (node.name) {
    case 'p':
      return block(lines(inline(children, context)));
    case 'br':
      return '\n';
    case 'strong':
    case 'b':
      return wrap(inline(children, context), '**');
    case 'em':
    case 'i':
      return wrap(inline(children, context), '*');
    case 'del':
      return wrap(inline(children, context), '~~');
    case 'code': {
      const code = textOf(node).replace(/\s+/g, ' ');
      const ticks = '`'.repeat(Math.max(0, ...(code.match(/`+/g) ?? []).map((t) => t.length)) + 1);
      return code === '' ? '' : `${ticks}${/^`|`$/.test(code) ? ` ${code} ` : code}${ticks}`;
    }
    case 'pre': {
      const code = textOf(node).replace(/\n$/, '');
      const fence = '`'.repeat(Math.max(3, ...(code.match(/`+/g) ?? []).map((t) => t.length + 1)));
      return `\n\n${fence}\n${code}\n${fence}\n\n`;
    }
    case 'blockquote':
      return block(
        tidy(inline(children, context))
          .split('\n')
          .map((line) => (line === '' ? '>' : `> ${line}`))
          .join('\n'),
      );
    case 'ul':
    case 'ol': {
      let n = Number(node.attribs.start) || 1;
      const items = children.filter((c): c is Node & Element => isElement(c) && c.name === 'li');
      const list = items.map((item) => {
        const marker = node.name === 'ol' ? `${n++}. ` : '- ';
        return `${marker}${indentRest(tidy(lines(inline(item.children, context))), ' '.repeat(marker.length))}`;
      });
      return block(list.join('\n'));
    }
    case 'a': {
      const href = node.attribs.href;
      if (!href) return inline(children, context);
      const text = inline(children, { ...context, inLink: true });
      const shown = textOf(node).trim();
      // A hashtag link is its #tag again (Tern links it to its own tag page); a link showing its
      // own address is that address (auto-linked when rendered).
      if (/\bhashtag\b/.test(node.attribs.class ?? '') && /^#[\p{L}\p{M}\p{N}_]+$/u.test(shown)) return shown;
      if (shown === href || `${shown}/` === href || shown === href.replace(/^https?:\/\//, '')) return href;
      return `[${text.trim() || escapeInline(href)}](<${href.replace(/[<>\s]/g, encodeURIComponent)}>)`;
    }
    default:
      return inline(children, context);
  }
}

/** Lines of a paragraph: spaces around line breaks trimmed, each line's start escaped. */
function lines(content: string): string {
  return content
    .split('\n')
    .map((line) => escapeLineStart(line.trim()))
    .join('\n');
}

function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}

/** The Markdown for an app's HTML content. */
export function htmlToMarkdown(html: string): string {
  const clean = sanitizeContentHtml(html);
  return tidy(inline(parseDocument(clean, { decodeEntities: true }).children, { inLink: false, urlChars: { left: MAX_URL_CHARS } }));
}
