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

const HOST_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)+\.?$/i;
const bare = (host: string) => host.toLowerCase().replace(/^www\./, '').replace(/\.$/, '');

/**
 * Where a link preview says it leads: the link's own host (without `www.`), always — a page's
 * `og:site_name` is only what the page says of itself ("accounts.google.com" on a page of
 * evil.example) — and the site's name beside it when that says something the host does not
 * ("Birds Weekly · birds.example"). A site name that is another host name is left out: it can
 * only mislead.
 */
export function previewSource(href: string, siteName: string | null): { site: string | null; host: string } {
  const host = bare(hostOf(href));
  const site = siteName?.trim() ?? '';
  if (site === '' || bare(site) === host || HOST_NAME.test(site)) return { site: null, host };
  return { site, host };
}
