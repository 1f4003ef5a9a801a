// The author's profile text: written in Markdown, published as HTML (the actor's `summary`).
// Rendered with marked, then reduced to the same allowlist as remote HTML, so a pasted <script>
// or an odd tag never reaches a peer or the profile page.
import { marked } from 'marked';
import { sanitizeContentHtml } from './sanitize';

export function summaryToHtml(markdown: string): string {
  if (markdown.trim() === '') return '';
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: true });
  return sanitizeContentHtml(html).trim();
}
