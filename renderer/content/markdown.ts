// The live preview of what the author writes: Markdown as the core renders it (GitHub-flavoured,
// a line break is a break, raw HTML shown as text), then sanitized like any HTML Tern shows.
// Mentions and hashtags are marked as the core will link them when the post is saved (only then
// are handles resolved), so `@bob@host` is never mistaken for an e-mail address.
import { Marked, type TokenizerAndRendererExtension } from 'marked';
import { sanitizeHtml } from './sanitize';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// The core's rules (electron/core/federation/actions/markdown.ts): `@user@host[:port]`, and hashtags
// of letters, digits and '_' with at least one non-digit, each after a non-word character.
const MENTION_RE = /^@[A-Za-z0-9_][A-Za-z0-9_.-]*@(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d{1,5})?/;
const HASHTAG_RE = /^#[\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*/u;
const WORDISH_END = /[\p{L}\p{N}_@#/.-]$/u;

function marker(name: string, start: RegExp, pattern: RegExp, className: string): TokenizerAndRendererExtension {
  return {
    name,
    level: 'inline',
    start: (src) => {
      const i = src.search(start);
      return i < 0 ? undefined : i;
    },
    tokenizer(src, tokens) {
      const match = pattern.exec(src);
      const before = tokens.at(-1)?.raw ?? '';
      if (!match || WORDISH_END.test(before)) return undefined;
      return { type: name, raw: match[0] };
    },
    renderer: (token) => `<span class="${className}">${escapeHtml(token.raw)}</span>`,
  };
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  extensions: [marker('mention', /@[A-Za-z0-9_]/, MENTION_RE, 'mention'), marker('hashtag', /#[\p{L}\p{M}\p{N}_]/u, HASHTAG_RE, 'hashtag')],
});
marked.use({ renderer: { html: ({ text }) => escapeHtml(text) } });

export function previewMarkdown(source: string): string {
  return sanitizeHtml(marked.parse(source, { async: false }));
}
