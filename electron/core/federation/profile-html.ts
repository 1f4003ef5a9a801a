// The author's profile text: written in Markdown, published as HTML (the actor's `summary`).
// Rendered with marked, then reduced to the same allowlist as remote HTML, so a pasted <script>
// or an odd tag never reaches a peer or the profile page.
import { marked } from 'marked';
import { escapeHtml, MAX_MARKDOWN_NESTING, moreEmphasisMarksThan, nestedTooDeeply } from './actions/markdown';
import { sanitizeContentHtml } from './sanitize';

/** marked pairs emphasis marks in time quadratic in their number (markedjs/marked#4099), and the
 * summary is rendered on the main thread: 5,000 characters of `1.*` took 700 ms. This many take
 * a few milliseconds; a profile has a handful. */
export const MAX_SUMMARY_EMPHASIS_MARKS = 256;

/** Why `markdown` cannot be a summary, or null. (settings-service.ts refuses it with this.) */
export function summaryProblem(markdown: string): string | null {
  if (nestedTooDeeply(markdown)) return `its Markdown is nested more than ${MAX_MARKDOWN_NESTING} levels deep`;
  if (moreEmphasisMarksThan(markdown, MAX_SUMMARY_EMPHASIS_MARKS)) return `its Markdown has more than ${MAX_SUMMARY_EMPHASIS_MARKS} emphasis marks (*, _ or ~)`;
  return null;
}

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

/** The last summary rendered: it is rendered for every fetch of the actor, every profile page and
 * every Mastodon account entity, and changes only when the author edits it. */
let last: { markdown: string; html: string } | null = null;

/** The summary as HTML. One saved before such summaries were refused (settings-service.ts) is
 * shown as its text: the actor, its page and its Mastodon account must render whatever it says. */
export function summaryToHtml(markdown: string): string {
  if (last?.markdown !== markdown) last = { markdown, html: renderSummary(markdown) ?? `<p>${escapeHtml(markdown)}</p>` };
  return last.html;
}
