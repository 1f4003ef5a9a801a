// What the UI shows of a remote actor next to a notification or a follow request: name, handle,
// avatar URL, profile URL — read from the cached actor document (untrusted JSON, read totally).
import type { Actor } from '../../../db/schema';
import { asArray, httpUrl, idOf, str, type Json } from './ap';
import { customEmojisOf, type CustomEmoji } from './custom-emoji';
import { imageUrlOf } from './objects';
import { proxyPath } from '../media/paths';
import { validHandle } from './actors';
import { plainLabel } from './sanitize';

export interface ActorSummary {
  /** actor.id (row) */
  id: number;
  apId: string;
  /** Display name; the preferredUsername when the actor has none. Plain text. */
  name: string;
  /** @user@host, when known. */
  handle: string | null;
  iconUrl: string | null;
  /** The avatar as the page loads it: through Tern's media proxy. */
  iconSrc?: string | null;
  /** The profile page for people (the actor's `url`), else its id. */
  url: string;
  /** Where the account moved (its own document's `movedTo`), when it did. */
  movedTo?: string;
  /** The custom emoji its name may show (`:blobcat:`), when it has any. */
  emojis?: CustomEmoji[];
}

/**
 * The longest name shown, in characters; a longer one is cut, with an ellipsis. A name from
 * outside has any length its server allows (a 100,000-character one made the "boosted" line 1.4
 * million pixels wide): 100 is the most the common servers let their users have (Pleroma and
 * Akkoma; Misskey 50, Mastodon 30), so no real name is cut.
 */
export const ACTOR_NAME_MAX_CHARS = 100;

export function summarizeActor(row: Actor): ActorSummary {
  const doc = row.apActor as Json;
  // A handle stored before handles were checked for bidi controls is no handle now.
  const handle = validHandle(row.handle);
  const name = nameOf(doc) || handle || row.apId;
  const movedTo = httpUrl(idOf(doc.movedTo));
  const emojis = customEmojisOf(doc.tag);
  return {
    id: row.id,
    apId: row.apId,
    name,
    handle,
    iconUrl: imageUrlOf(doc.icon),
    iconSrc: proxyPath(imageUrlOf(doc.icon)),
    url: httpUrl(doc.url) ?? httpUrl(idOf(asArray(doc.url)[0])) ?? row.apId,
    ...(movedTo ? { movedTo } : {}),
    ...(emojis.length > 0 ? { emojis } : {}),
  };
}

/** The display name, else the preferredUsername, as a label (no markup, no bidi controls), cut
 * to ACTOR_NAME_MAX_CHARS; '' when neither has a visible character. */
function nameOf(doc: Json): string {
  for (const given of [str(doc.name), str(doc.preferredUsername)]) {
    const label = given === null ? '' : plainLabel(given).trim();
    if (label === '') continue;
    if (label.length <= ACTOR_NAME_MAX_CHARS) return label;
    const chars = [...label];
    return chars.length > ACTOR_NAME_MAX_CHARS ? `${chars.slice(0, ACTOR_NAME_MAX_CHARS - 1).join('').trimEnd()}…` : label;
  }
  return '';
}
