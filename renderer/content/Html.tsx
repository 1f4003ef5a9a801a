// HTML from a post or a profile, sanitized here before React puts it in the page (the core has
// sanitized it already; this is the second pass ARCHITECTURE.md asks for).
import { useMemo } from 'react';
import { sanitizeHtml } from './sanitize';

export function Html({ html, className, id }: { html: string; className?: string; id?: string }) {
  const safe = useMemo(() => sanitizeHtml(html), [html]);
  return <div id={id} className={className} dangerouslySetInnerHTML={{ __html: safe }} />;
}
