// Custom emoji (`:blobcat:` in a post or a name, with its picture in the post's or the actor's
// `tag`): shown as the picture, through Tern's media proxy. The core gives each shortcode with
// its proxy path (federation/custom-emoji.ts); only such a path is ever put in an `src` here, and
// only in place of the `:shortcode:` text — the HTML around it has been sanitized already.
import { Fragment, type ReactNode } from 'react';
import type { EmojiView } from '../../electron/core/ipc/author-contract';

/** `:shortcode:` in text, with the characters federation/custom-emoji.ts allows in one. */
const SHORTCODE_IN_TEXT = /:([A-Za-z0-9_.+-]{1,64}):/g;
const PROXY = '/media/proxy/';

function byShortcode(emojis: readonly EmojiView[] | undefined): Map<string, string> | null {
  if (!emojis || emojis.length === 0) return null;
  const map = new Map<string, string>();
  for (const e of emojis) if (e.src.startsWith(PROXY)) map.set(e.shortcode, e.src);
  return map.size > 0 ? map : null;
}

/** `text` split where a known `:shortcode:` stands: strings, and the shortcodes with their pictures. */
function pieces(text: string, known: Map<string, string>): (string | { shortcode: string; src: string })[] {
  const out: (string | { shortcode: string; src: string })[] = [];
  let from = 0;
  for (const match of text.matchAll(SHORTCODE_IN_TEXT)) {
    const src = known.get(match[1]!);
    if (src === undefined) continue;
    if (match.index > from) out.push(text.slice(from, match.index));
    out.push({ shortcode: match[1]!, src });
    from = match.index + match[0].length;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/** Sanitized HTML with each known `:shortcode:` of its text (not inside code) shown as its picture. */
export function withCustomEmoji(html: string, emojis: readonly EmojiView[] | undefined): string {
  const known = byShortcode(emojis);
  if (known === null || !html.includes(':')) return html;
  const template = document.createElement('template');
  template.innerHTML = html;
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if (!(node.parentElement?.closest('code, pre') ?? null)) texts.push(node as Text);
  }
  for (const text of texts) {
    const parts = pieces(text.data, known);
    if (parts.length === 1 && typeof parts[0] === 'string') continue;
    const fragment = document.createDocumentFragment();
    for (const part of parts) {
      if (typeof part === 'string') {
        fragment.append(part);
        continue;
      }
      const img = document.createElement('img');
      img.className = 'custom-emoji';
      img.src = part.src;
      img.alt = `:${part.shortcode}:`;
      img.title = `:${part.shortcode}:`;
      img.draggable = false;
      img.loading = 'lazy';
      fragment.append(img);
    }
    text.replaceWith(fragment);
  }
  return template.innerHTML;
}

/** Plain text (a display name) with each known `:shortcode:` shown as its picture. */
export function EmojiText({ text, emojis }: { text: string; emojis?: readonly EmojiView[] | undefined }): ReactNode {
  const known = byShortcode(emojis);
  if (known === null) return text;
  return pieces(text, known).map((part, i) =>
    typeof part === 'string' ? (
      <Fragment key={i}>{part}</Fragment>
    ) : (
      <img key={i} className="custom-emoji" src={part.src} alt={`:${part.shortcode}:`} title={`:${part.shortcode}:`} draggable={false} loading="lazy" />
    ),
  );
}
