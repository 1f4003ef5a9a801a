// Quote posts: the post another post quotes, as each family of servers names it.
//  * `quote` — FEP-044f, Mastodon 4.5 and GoToSocial (an IRI, or the object);
//  * `quoteUrl` (as:quoteUrl) — Misskey and its forks, Akkoma, Pleroma;
//  * `quoteUri` — Fedibird; `_misskey_quote` — Misskey, Sharkey, Firefish, Iceshrimp;
//  * a `tag` Link of FEP-e232 whose rel is Misskey's `_misskey_quote` (or names a quote).
// The first http(s) one, in that order (a post that carries several names one post with them).
// The renderer shows the quoted post inside the quoting one (it looks it up by this id).
import { asArray, httpUrl, idOf, isObject, str, type Json } from './ap';
import { boundedList } from './objects';

const FIELDS = ['quote', 'quoteUrl', 'quoteUri', '_misskey_quote'] as const;
const QUOTE_RELS = ['https://misskey-hub.net/ns#_misskey_quote', 'http://fedibird.com/ns#quoteUri', 'https://w3id.org/fep/044f#quote'];

/** The id of the post `object` quotes, or null. */
export function quotedIdOf(object: Json): string | null {
  for (const field of FIELDS) {
    const id = httpUrl(idOf(object[field]));
    if (id !== null) return id;
  }
  for (const tag of boundedList(object.tag)) {
    if (!isObject(tag) || str(tag.type) !== 'Link') continue;
    const rels = asArray(tag.rel).filter((r): r is string => typeof r === 'string');
    if (!rels.some((rel) => QUOTE_RELS.includes(rel) || /#_?quote(Url|Uri)?$/i.test(rel))) continue;
    const id = httpUrl(str(tag.href));
    if (id !== null) return id;
  }
  return null;
}
