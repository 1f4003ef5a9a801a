// HTML from a post or a profile, sanitized here before React puts it in the page (the core has
// sanitized it already; this is the second pass ARCHITECTURE.md asks for). A post's custom emoji
// are put in after, in place of their `:shortcode:` text (emoji.tsx).
import { useMemo } from 'react';
import type { EmojiView } from '../../electron/core/ipc/author-contract';
import { withCustomEmoji } from './emoji';
import { sanitizeHtml } from './sanitize';

export function Html({ html, className, id, emojis }: { html: string; className?: string; id?: string; emojis?: readonly EmojiView[] | undefined }) {
  const safe = useMemo(() => withCustomEmoji(sanitizeHtml(html), emojis), [html, emojis]);
  // remote-html: what every such block shares (Mastodon's hidden parts of long links stay hidden
  // wherever a post or profile is shown: a quote, a reply's context, a card).
  return <div id={id} className={className ? `remote-html ${className}` : 'remote-html'} dangerouslySetInnerHTML={{ __html: safe }} />;
}
