// What an IndieAuth client's HTML page (its client_id URL) says of it: the h-app / h-x-app's
// name, home page and logo, and the rel="redirect_uri" links. This runs on the page reader's
// worker thread (webmention/source-parse.ts), never on the main thread: anyone may name any page
// as a client_id in an /auth request, and microformats-parser took 300 ms for a 500 KB page of
// h-apps and overflowed the stack on 20,000 nested elements.
import { mf2 } from 'microformats-parser';

export interface ClientPage {
  name: string | null;
  url: string | null;
  logoUrl: string | null;
  redirectUris: string[];
}

/** `value` resolved against `base` when it is an http(s) URL; null otherwise. */
export function httpUrlOrNull(value: unknown, base: string): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

const first = (values: unknown): unknown => (Array.isArray(values) ? values[0] : undefined);

/** Reads the page `html`, fetched from `base` (the URL after redirects). Throws what the parser
 * throws (a RangeError on markup nested too deep for it). */
export function readClientPageHtml(html: string, base: string): ClientPage {
  const parsed = mf2(html, { baseUrl: base });
  const redirectUris = (parsed.rels.redirect_uri ?? []).map((u) => httpUrlOrNull(u, base)).filter((u): u is string => u !== null);
  const app = parsed.items.find((item) => item.type?.some((t) => t === 'h-app' || t === 'h-x-app'));
  const props = (app?.properties ?? {}) as Record<string, unknown>;
  const name = first(props.name);
  const logo = first(props.logo);
  const logoValue = typeof logo === 'object' && logo !== null && 'value' in logo ? (logo as { value: unknown }).value : logo;
  return {
    name: typeof name === 'string' && name.trim() ? name.trim().slice(0, 200) : null,
    url: httpUrlOrNull(first(props.url), base),
    logoUrl: httpUrlOrNull(logoValue, base),
    redirectUris,
  };
}
