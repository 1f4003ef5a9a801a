// The author's profile text: written in Markdown, published as HTML (the actor's `summary`).
// Rendered with marked, then reduced to the same allowlist as remote HTML, so a pasted <script>
// or an odd tag never reaches a peer or the profile page.
import { marked } from 'marked';
import { escapeHtml, nestedTooDeeply } from './actions/markdown';
import { sanitizeContentHtml } from './sanitize';

/** The summary as HTML, or null when marked cannot read it: marked recurses once per level of
 * block quote, list or emphasis, and a few thousand levels (`>>>>…`, within the 5,000
 * characters of a summary) overflow its stack — deeper than MAX_MARKDOWN_NESTING is not read. */
export function renderSummary(markdown: string): string | null {
  if (markdown.trim() === '') return '';
  if (nestedTooDeeply(markdown)) return null;
  let html: string;
  try {
    html = marked.parse(markdown, { async: false, gfm: true, breaks: true });
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
  return sanitizeContentHtml(html).trim();
}

/** The summary as HTML. One saved before such summaries were refused (settings-service.ts) is
 * shown as its text: the actor, its page and its Mastodon account must render whatever it says. */
export function summaryToHtml(markdown: string): string {
  return renderSummary(markdown) ?? `<p>${escapeHtml(markdown)}</p>`;
}
