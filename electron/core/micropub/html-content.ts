// Micropub's `content: [{html}]` (§3.3.2: the value is HTML) as the Markdown Tern stores for a
// post: what Compose writes, renders and edits (q=source answers it). The HTML is reduced to
// Mastodon's allowlist first (the one sanitizer), then each allowed element becomes its Markdown
// — paragraphs, line breaks, emphasis, strike-through, code, quotes, lists and links — and text is
// escaped, so what the app wrote as text is never read as Markdown (or HTML) again.
import { parseDocument } from 'htmlparser2';
import { sanitizeContentHtml } from '../federation/sanitize';

type Node = ReturnType<typeof parseDocument>['children'][number];
interface Element {
  name: string;
  attribs: Record<string, string>;
  children: Node[];
}

const isElement = (node: Node): node is Node & Element => 'name' in node && 'children' in node;
const isText = (node: Node): node is Node & { data: string } => node.type === 'text';

/** Characters Markdown (or the renderer's HTML escaping) would read as syntax inside a line. */
const escapeInline = (text: string) => text.replace(/[\\`*_[\]<>~|]/g, (c) => `\\${c}`);
/** At a line's start, what would open a list, a heading or a quote. */
const escapeLineStart = (text: string) => text.replace(/^(\s*)([-+#]|\d+[.)])(?=\s|$)/, (_, space: string, mark: string) => `${space}${mark.replace(/([-+#.)])$/, '\\$1')}`);

function textOf(node: Node): string {
  if (isText(node)) return node.data;
  return isElement(node) ? node.children.map(textOf).join('') : '';
}

function inline(nodes: Node[]): string {
  return nodes.map(render).join('');
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

function render(node: Node): string {
  if (isText(node)) return escapeInline(node.data.replace(/\s+/g, ' '));
  if (!isElement(node)) return '';
  const children = node.children;
  switch (node.name) {
    case 'p':
      return block(lines(inline(children)));
    case 'br':
      return '\n';
    case 'strong':
    case 'b':
      return wrap(inline(children), '**');
    case 'em':
    case 'i':
      return wrap(inline(children), '*');
    case 'del':
      return wrap(inline(children), '~~');
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
        tidy(inline(children))
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
        return `${marker}${indentRest(tidy(lines(inline(item.children))), ' '.repeat(marker.length))}`;
      });
      return block(list.join('\n'));
    }
    case 'a': {
      const href = node.attribs.href;
      const text = inline(children);
      if (!href) return text;
      const shown = textOf(node).trim();
      // A hashtag link is its #tag again (Tern links it to its own tag page); a link showing its
      // own address is that address (auto-linked when rendered).
      if (/\bhashtag\b/.test(node.attribs.class ?? '') && /^#[\p{L}\p{M}\p{N}_]+$/u.test(shown)) return shown;
      if (shown === href || `${shown}/` === href || shown === href.replace(/^https?:\/\//, '')) return href;
      return `[${text.trim() || escapeInline(href)}](<${href.replace(/[<>\s]/g, encodeURIComponent)}>)`;
    }
    default:
      return inline(children);
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
  return tidy(inline(parseDocument(clean, { decodeEntities: true }).children));
}
