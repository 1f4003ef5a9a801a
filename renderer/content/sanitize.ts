// The renderer's own pass over HTML before it is shown (ARCHITECTURE.md: remote HTML is
// sanitized in the core before it is stored, and again here before it is rendered). A small
// allow-list like the core's: text formatting and links only — no images (remote URLs are never
// loaded until the media proxy exists), no styles (the CSP forbids them anyway), no handlers.
// Every link opens outside Tern's window, without a referrer.
import DOMPurify from 'dompurify';
import { hostBehindLink } from './link-claims';

const ALLOWED_TAGS = [
  'p', 'br', 'a', 'span', 'em', 'strong', 'b', 'i', 'u', 'del', 's', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'sup', 'sub',
];
const ALLOWED_ATTR = ['href', 'class', 'start', 'reversed', 'value', 'translate'];
const HTTP_OR_MAIL = /^(?:https?:|mailto:)/i;

const purify = DOMPurify();
// The host notes this pass adds (below): a remote post's own "link-host" class is taken off, so
// it cannot fake one.
const notes = new WeakSet<Node>();

purify.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'class' && !notes.has(node) && /\blink-host\b/.test(data.attrValue)) {
    data.attrValue = data.attrValue.replace(/\blink-host\b/g, ' ').trim();
  }
});

purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName !== 'A') return;
  const href = node.getAttribute('href') ?? '';
  if (!HTTP_OR_MAIL.test(href)) {
    node.removeAttribute('href');
    return;
  }
  node.setAttribute('target', '_blank');
  node.setAttribute('rel', 'noopener noreferrer nofollow');
  // Text that reads as an address on another server than the link opens: the real host is said
  // beside it (content/link-claims.ts). The window has no status bar that would show it.
  const behind = hostBehindLink(visibleText(node), href);
  if (behind !== null) {
    const note = node.ownerDocument.createElement('span');
    note.className = 'link-host';
    note.textContent = ` (${behind})`;
    notes.add(note);
    node.appendChild(note);
    node.setAttribute('title', href);
  }
});

/** A link's text as shown: without the parts Mastodon's long-link trimming hides (.invisible). */
function visibleText(node: Element): string {
  let text = '';
  for (const child of node.childNodes) {
    if (child.nodeType === child.TEXT_NODE) text += child.textContent ?? '';
    else if (child.nodeType === child.ELEMENT_NODE && !(child as Element).classList.contains('invisible')) text += visibleText(child as Element);
  }
  return text;
}

/** `html` with everything but text formatting and http(s)/mailto links removed. */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    KEEP_CONTENT: true,
  });
}
