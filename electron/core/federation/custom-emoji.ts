// Custom emoji (Mastodon's `toot:Emoji`, Misskey's, Akkoma's…): a post or a profile writes
// `:blobcat:` in its text, and lists in its `tag` an Emoji named `:blobcat:` whose `icon` is the
// picture. The views give the renderer each shortcode with that picture through Tern's media
// proxy (never the remote URL itself); the renderer shows it in place of the text.
import { isObject, str, typeOf } from './ap';
import { boundedList, imageUrlOf } from './objects';
import { proxyPath } from '../media/paths';

/** A shortcode and the picture to show for it. */
export interface CustomEmoji {
  /** Without its colons: `blobcat` for `:blobcat:`. */
  shortcode: string;
  /** The picture's own URL (for the Mastodon API's clients, which load pictures themselves). */
  url: string;
  /** The picture through Tern's media proxy: what Tern's own pages load. */
  src: string;
}

/** At most this many per post or profile (Mastodon's own posts rarely carry more than a dozen). */
const MAX_EMOJIS = 64;
/** What a shortcode may be: Mastodon's letters, digits and `_`, with the `-`, `+` and `.` that
 * Misskey's and Akkoma's allow. The renderer finds `:shortcode:` in text with the same class. */
const SHORTCODE = /^[A-Za-z0-9_.+-]{1,64}$/;

/** The custom emoji of a `tag` list: each Emoji with a shortcode and an http(s) picture, the
 * first of each shortcode. Iceshrimp.NET names one without its colons; both are read. */
export function customEmojisOf(tag: unknown): CustomEmoji[] {
  const out: CustomEmoji[] = [];
  const seen = new Set<string>();
  for (const entry of boundedList(tag)) {
    if (!isObject(entry) || typeOf(entry) !== 'Emoji') continue;
    const name = str(entry.name)?.trim();
    const shortcode = name?.startsWith(':') && name.endsWith(':') && name.length > 2 ? name.slice(1, -1) : name;
    if (!shortcode || !SHORTCODE.test(shortcode) || seen.has(shortcode)) continue;
    const url = imageUrlOf(entry.icon);
    const src = proxyPath(url);
    if (url === null || src === null) continue;
    seen.add(shortcode);
    out.push({ shortcode, url, src });
    if (out.length >= MAX_EMOJIS) break;
  }
  return out;
}
