// Links to other servers' pages (a post's original, a link card): only http(s) URLs become an
// href. The core sends only such URLs (or '' when it has none); this holds it in the renderer too,
// as its HTML is sanitized twice (ARCHITECTURE: in the core and again in the renderer).

/** The URL as an href when it is http(s); undefined otherwise (the element is then no link). */
export function externalHref(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** The host a URL names (with its port), or the text itself when it is no URL: for saying where
 * something lives ("Open on mastodon.example"). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
