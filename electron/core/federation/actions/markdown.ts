// The author's Markdown → safe HTML, as the service behind the spec renders posts: bare URLs
// auto-linked, `@user@host` mentions and `#tags` turned into links, raw HTML never passed
// through. Rendering is two passes so mentions can be resolved (asynchronously, maybe over the
// network) between them: `scanPost` finds the handles, `renderPost` renders with what resolved.
// Unresolved mentions stay plain text (microblog.pub does the same).
import { Marked, type Token, type Tokens, type TokenizerAndRendererExtension } from 'marked';
import sanitizeHtml from 'sanitize-html';

export interface ResolvedMention {
  /** The actor id (used for the link, the Mention tag and addressing). */
  href: string;
  /** `@user@host` as shown. */
  name: string;
}

export interface RenderedPost {
  html: string;
  /** Handles written in the text (`@user@host`, lower-cased host), in order, unique. */
  handles: string[];
  /** Hashtags, lower-cased, without '#', in order, unique. */
  hashtags: string[];
  /** The same hashtags as the author first wrote each (#TernApp, not #ternapp): the Hashtag tags'
   * names, from which Mastodon takes a tag's display name. Absent: as `hashtags`. */
  hashtagNames?: string[];
}

// `@user@host` with an optional port (loopback peers); the host never ends with a dot, so a
// sentence's full stop stays out of the mention.
const MENTION_RE = /^@([A-Za-z0-9_][A-Za-z0-9_.-]*)@((?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d{1,5})?)/;
// Mastodon's rule: letters, digits and '_', at least one that is not a digit.
const HASHTAG_RE = /^#([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*)/u;

interface MentionToken extends Tokens.Generic {
  type: 'mention';
  raw: string;
  handle: string;
}
interface HashtagToken extends Tokens.Generic {
  type: 'hashtag';
  raw: string;
  tag: string;
}

/** Mentions and hashtags start only after a non-word character (not inside e-mail addresses).
 * Only the last character is read (two code units: it may be a surrogate pair): a regex ending
 * in `$` tries every position of the whole text before it. */
function afterBoundary(tokens: Token[]): boolean {
  const last = tokens.at(-1);
  if (!last) return true;
  return !/[\p{L}\p{N}_@#/.-]$/u.test(last.raw.slice(-2));
}

/**
 * Where an inline extension's next token may start, for marked's start(): at every text token
 * marked asks with the rest of the paragraph, and a search from there to the end each time made
 * a 100,000-character post quadratic — 1.4–3 s to lex one of inline tags or dense Markdown, on
 * the thread that renders it (Micropub and the Mastodon API on the main thread). The rest of a
 * paragraph only loses characters at its front, so a candidate found once, counted from the
 * paragraph's end, stays the next one until the text passes it, and none found stays none.
 *
 * marked calls the extension's tokenizer with the same src, and the paragraph's token list (one
 * array per paragraph, or per nested inline run), in the same turn of its loop right before it
 * calls start() with src minus its first character: `saw` notes both, and the remembered search
 * is used only when start() is that call, for the same list, on a shorter rest. Otherwise — a
 * different marked — it searches as before.
 */
function nextCandidate(pattern: RegExp): { saw(src: string, tokens: readonly unknown[]): void; start(src: string): number | undefined } {
  let seenTokens: readonly unknown[] | null = null;
  let seenLength = -1;
  // Per list (a link's or an emphasis's text is lexed as its own run in the middle of its
  // paragraph): the last search's rest, how long, and its answer counted from the end (-1: none).
  const searched = new WeakMap<readonly unknown[], { length: number; fromEnd: number }>();
  return {
    saw(src, tokens) {
      seenTokens = tokens;
      seenLength = src.length;
    },
    start(src) {
      const paired = seenTokens !== null && src.length === seenLength - 1 ? seenTokens : null;
      const last = paired === null ? undefined : searched.get(paired);
      if (last !== undefined && src.length <= last.length) {
        if (last.fromEnd === -1) return undefined;
        if (last.fromEnd <= src.length) return src.length - last.fromEnd;
      }
      const at = src.search(pattern);
      if (paired !== null) searched.set(paired, { length: src.length, fromEnd: at < 0 ? -1 : src.length - at });
      return at < 0 ? undefined : at;
    },
  };
}

/** A hashtag's link: the author's own tag page (base: the local actor's baseUrl). */
export const hashtagHrefOf = (baseUrl: string) => (tag: string) => `${baseUrl}/t/${encodeURIComponent(tag)}`;

export function normalizeHandle(user: string, host: string): string {
  return `@${user}@${host.toLowerCase()}`;
}

function extensions(
  mentions: ReadonlyMap<string, ResolvedMention>,
  hashtagHref: (tag: string) => string,
): TokenizerAndRendererExtension[] {
  const mentionAt = nextCandidate(/@[A-Za-z0-9_]/);
  const hashtagAt = nextCandidate(/#[\p{L}\p{M}\p{N}_]/u);
  return [
    {
      name: 'mention',
      level: 'inline',
      start: (src) => mentionAt.start(src),
      tokenizer(src, tokens) {
        mentionAt.saw(src, tokens);
        const m = MENTION_RE.exec(src);
        if (!m || !afterBoundary(tokens as Token[])) return undefined;
        return { type: 'mention', raw: m[0], handle: normalizeHandle(m[1]!, m[2]!) } satisfies MentionToken;
      },
      renderer(token) {
        const resolved = mentions.get((token as MentionToken).handle);
        if (!resolved) return escapeHtml(token.raw);
        const user = (token as MentionToken).handle.split('@')[1] ?? '';
        return `<span class="h-card"><a href="${escapeHtml(resolved.href)}" class="u-url mention">@<span>${escapeHtml(user)}</span></a></span>`;
      },
    },
    {
      name: 'hashtag',
      level: 'inline',
      start: (src) => hashtagAt.start(src),
      tokenizer(src, tokens) {
        hashtagAt.saw(src, tokens);
        const m = HASHTAG_RE.exec(src);
        if (!m || !afterBoundary(tokens as Token[])) return undefined;
        return { type: 'hashtag', raw: m[0], tag: m[1]! } satisfies HashtagToken;
      },
      renderer(token) {
        const tag = (token as HashtagToken).tag;
        return `<a href="${escapeHtml(hashtagHref(tag.toLowerCase()))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(tag)}</span></a>`;
      },
    },
  ];
}

function lex(source: string, mentions: ReadonlyMap<string, ResolvedMention>, hashtagHref: (tag: string) => string) {
  const marked = new Marked({ gfm: true, breaks: true, extensions: extensions(mentions, hashtagHref) });
  // Raw HTML in the source is shown as text, never passed through.
  marked.use({ renderer: { html: ({ text }) => escapeHtml(text) } });
  return { marked, tokens: marked.lexer(source) };
}

function collect(marked: Marked, tokens: Token[]): { handles: string[]; hashtags: string[]; hashtagNames: string[] } {
  const handles = new Set<string>();
  // Lower-cased tag → the tag as first written.
  const hashtags = new Map<string, string>();
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'mention') handles.add((token as MentionToken).handle);
    if (token.type === 'hashtag') {
      const { tag } = token as HashtagToken;
      if (!hashtags.has(tag.toLowerCase())) hashtags.set(tag.toLowerCase(), tag);
    }
  });
  return { handles: [...handles], hashtags: [...hashtags.keys()], hashtagNames: [...hashtags.values()] };
}

/** The handles and hashtags a source mentions, without rendering. */
export function scanPost(source: string): { handles: string[]; hashtags: string[] } {
  const { marked, tokens } = lex(source, new Map(), () => '');
  const { handles, hashtags } = collect(marked, tokens);
  return { handles, hashtags };
}

/** Renders the author's Markdown to sanitized HTML, linking the mentions that resolved. */
export function renderPost(
  source: string,
  options: { mentions: ReadonlyMap<string, ResolvedMention>; hashtagHref: (tag: string) => string },
): RenderedPost {
  const { marked, tokens } = lex(source, options.mentions, options.hashtagHref);
  const { handles, hashtags, hashtagNames } = collect(marked, tokens);
  const html = sanitizePostHtml(marked.parser(tokens).trim());
  return { html, handles, hashtags, hashtagNames };
}

/** How deep the author's Markdown may nest. marked recurses, and copies the rest of the text,
 * once per level of block quote, list or emphasis: a few thousand levels overflow its stack,
 * 30,000 exhaust the page reader's heap — which does not always end the worker alone
 * (nodejs/node#47224: some allocations abort the whole process). markdown-it stops at 100 too
 * (its maxNesting). */
export const MAX_MARKDOWN_NESTING = 100;

const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1)*[ \t]*$/;

/** Whether a line of `source` has a run of more than MAX_MARKDOWN_NESTING block quote, list or
 * emphasis markers — `>`, `*`, `_`, `~`, and `-`, `+`, `1.`, `1)` before a space (else they are
 * text) — with spaces between them, but for a line that is a thematic break (`* * * *`). One
 * pass: a regex for the run would be retried from every position of a long line of runs just
 * under the bound. */
export function nestedTooDeeply(source: string): boolean {
  const spaceAt = (j: number) => j >= source.length || source[j] === ' ' || source[j] === '\t' || source[j] === '\n';
  let run = 0;
  let lineStart = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n') {
      run = 0;
      lineStart = i + 1;
      continue;
    }
    if (c === ' ' || c === '\t') continue;
    if ('>*_~'.includes(c)) run++;
    else if (c === '-' || c === '+') run = spaceAt(i + 1) ? run + 1 : 0;
    else if (c >= '0' && c <= '9') {
      let j = i;
      while (j < source.length && j - i < 9 && source[j]! >= '0' && source[j]! <= '9') j++;
      const marker = (source[j] === '.' || source[j] === ')') && spaceAt(j + 1);
      run = marker ? run + 1 : 0;
      i = marker ? j : j - 1;
    } else run = 0;
    if (run > MAX_MARKDOWN_NESTING) {
      const end = source.indexOf('\n', i);
      if (!THEMATIC_BREAK.test(source.slice(lineStart, end === -1 ? source.length : end))) return true;
      run = 0;
      i = (end === -1 ? source.length : end) - 1;
    }
  }
  return false;
}

/** Whether `source` holds more than `most` emphasis marks (`*`, `_`, `~`): marked pairs them in
 * time quadratic in their number (markedjs/marked#4099). Stops counting past `most`. */
export function moreEmphasisMarksThan(source: string, most: number): boolean {
  let n = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if ((c === 0x2a || c === 0x5f || c === 0x7e) && ++n > most) return true; // * _ ~
  }
  return false;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'a', 'span', 'em', 'strong', 'b', 'i', 'u', 'del', 's', 'code', 'pre', 'blockquote',
    'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'sup', 'sub',
  ],
  allowedAttributes: { a: ['href', 'rel', 'class', 'translate'], span: ['class', 'translate'], ol: ['start', 'reversed'], li: ['value'] },
  allowedClasses: { a: ['mention', 'hashtag', 'u-url', 'h-card', 'status-link', 'unhandled-link'], span: ['h-card', 'invisible', 'ellipsis'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: [...new Set([...(attribs.rel ?? '').split(/\s+/).filter(Boolean), 'nofollow', 'noopener', 'noreferrer'])].join(' ') },
    }),
  },
};

/** Sanitizes HTML we publish or show (remote HTML included): a small allow-list, no scripts,
 * no styles, no event handlers, http(s)/mailto links only. */
export function sanitizePostHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE);
}
