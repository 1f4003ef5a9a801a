// Rows → what the UI shows of a post (PostView). Remote JSON is read totally (any field may be
// missing or odd) and its HTML sanitized again here, before it leaves the core.
import { allRows, prepared, rowDecoder, type DbOrTx } from '../../../../db/client';
import { actor, storedValue, type Actor, type InboxObject, type JsonValue, type OutboxObject } from '../../../../db/schema';
import type { ActorView, AttachmentView, EventView, LinkPreviewView, PostView } from '../../ipc/author-contract';
import { storedPreviews } from '../../previews/opengraph';
import { proxyPath } from '../../media/paths';
import { summarizeActor } from '../actor-summary';
import { customEmojisOf } from '../custom-emoji';
import { quotedIdOf } from '../quotes';
import { httpUrl, idOf, isObject, str, typeOf, type Json } from '../ap';
import { attachmentDescription, boundedList, isCardType, languageField, linksOf, mentionNameOf, nameIsTitle, originalUrlOf, summaryIsWarning } from '../objects';
import type { LocalActor } from '../identity';
import { BIDI_CONTROLS, htmlToExcerpt, plainLabel, sanitizePlainText } from '../sanitize';
import { pollViewOf } from '../polls/view';
import { withSources } from '../../media/views';
import { contentHtmlOf } from './content-html';

export function ownActorView(local: LocalActor, displayName: string): ActorView {
  return { id: 0, apId: local.id, name: displayName || local.username, handle: local.handle, iconUrl: null, url: local.id };
}

export function actorView(row: Actor): ActorView {
  return summarizeActor(row);
}

const decodeActor = rowDecoder(actor);
// The ids as one JSON array: one statement, prepared once, for any number of them (drizzle's
// `IN (?, ?, …)` is new SQL, built and prepared again, for each count).
const ACTORS_BY_ID = 'SELECT * FROM actor WHERE id IN (SELECT value FROM json_each(?))';

/** Actors by row id, in one query. */
export function actorsById(db: DbOrTx, ids: number[]): Map<number, Actor> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  // allRows: these rows and their documents live while a page is made (see allRows).
  const rows = allRows(prepared<[string]>(db, ACTORS_BY_ID), JSON.stringify(unique));
  return new Map(rows.map((raw) => [raw.id as number, decodeActor(raw)]));
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

const descriptionOf = (a: Json): string | null => {
  const text = attachmentDescription(a);
  return text === null ? null : sanitizePlainText(text);
};

function attachmentOf(a: Json, ownBase: string | null): AttachmentView {
  return withSources(
    {
      url: httpUrl(a.url) ?? linksOf(a.url)[0]?.href ?? httpUrl(a.href) ?? '',
      mediaType: str(a.mediaType),
      name: descriptionOf(a),
      blurhash: str(a.blurhash),
      width: num(a.width),
      height: num(a.height),
    },
    str(a.type),
    ownBase,
  );
}

/** The media family of the file a type's `url` names (an Image's picture is in its `url`). */
const FAMILIES: Record<string, string> = { Video: 'video', Audio: 'audio', Image: 'image' };

/** The attachments, then — for the types that carry their media elsewhere — the first video, audio
 * (or an Image's picture) file among `url`'s Links (PeerTube lists one per resolution, Funkwhale the stream) and
 * the largest thumbnail (`icon`: PeerTube; `image`: Funkwhale's cover, Lemmy's preview, WordPress's
 * featured image). No thumbnail is added when one of them is already an attachment: WordPress names
 * its featured image as `image` (the attachment's own URL) and as `icon` (a 150px crop of it). */
function attachmentsOf(object: Json, ownBase: string | null): AttachmentView[] {
  const out = boundedList(object.attachment)
    .filter(isObject)
    .map((a) => attachmentOf(a, ownBase))
    .filter((a) => a.url !== '');
  if (!nameIsTitle(object)) return out;
  const links = mediaLinksOf(object.url);
  const family = FAMILIES[typeOf(object) ?? ''];
  const file =
    links.find((l) => family !== undefined && (l.mediaType ?? '').toLowerCase().startsWith(`${family}/`)) ??
    links.find((l) => /^(video|audio)\//i.test(l.mediaType ?? ''));
  if (file && !out.some((a) => a.url === file.href)) {
    out.push(attachmentOf({ type: 'Document', url: file.href, mediaType: file.mediaType, width: file.width, height: file.height }, ownBase));
  }
  // A PodcastEpisode's (Castopod's) file is its `audio`, whose `url` is a Link.
  const audio = isObject(object.audio) ? linksOf(object.audio.url)[0] : undefined;
  if (audio && !out.some((a) => a.url === audio.href)) {
    out.push(attachmentOf({ type: 'Audio', url: audio.href, mediaType: audio.mediaType ?? 'audio/mpeg' }, ownBase));
  }
  // `image` before `icon` when neither says its width (AS2: an icon is the small, square one).
  // Either may be the picture's IRI alone: Ghost's Article names its feature image so (Fedify
  // writes an `image` given as a URL as a bare string).
  const thumbnails = [...boundedList(object.image), ...boundedList(object.icon)]
    .map((a) => (typeof a === 'string' ? { url: a } : a))
    .filter(isObject)
    .sort((a, b) => (num(b.width) ?? 0) - (num(a.width) ?? 0))
    .map((a) => attachmentOf({ ...a, type: 'Image' }, ownBase))
    .filter((a) => a.url !== '');
  const same = out.findIndex((a) => thumbnails.some((t) => t.url === a.url));
  if (same !== -1) {
    // Lemmy names its image both as an attachment Link (no media type: a file) and as `image`.
    const thumbnail = thumbnails.find((t) => t.url === out[same]!.url)!;
    if (out[same]!.kind === 'file') out[same] = { ...thumbnail, name: out[same]!.name ?? thumbnail.name };
  } else if (thumbnails[0]) {
    out.push(thumbnails[0]);
  }
  return out;
}

/** Links of `url` with what media they are, including those a PeerTube HLS playlist Link
 * nests in its own `tag`. */
function mediaLinksOf(value: unknown): { href: string; mediaType: string | null; width: unknown; height: unknown }[] {
  return boundedList(value).flatMap((entry) => {
    if (!isObject(entry)) return [];
    const own = linksOf(entry).map((l) => ({ ...l, width: entry.width, height: entry.height }));
    return [...own, ...(Array.isArray(entry.tag) ? mediaLinksOf(entry.tag) : [])];
  });
}

/** The stored link previews (og_meta), checked again, their pictures through the media proxy. */
function previewsOf(ogMeta: unknown): { previews?: LinkPreviewView[] } {
  const previews = storedPreviews(storedValue(ogMeta as JsonValue)).map((p) => ({
    url: p.url,
    title: p.title,
    description: p.description,
    siteName: p.site_name,
    image: p.image,
    imageSrc: proxyPath(p.image),
  }));
  return previews.length > 0 ? { previews } : {};
}

/** The post it quotes, as an optional field (not itself: a post that names its own id). */
function quoteOf(object: Json, apId: string): { quote?: string } {
  const quote = quotedIdOf(object);
  return quote !== null && quote !== apId ? { quote } : {};
}

/** The custom emoji of a post, as an optional field: none for nearly every post. */
function emojisOf(object: Json): { emojis?: PostView['emojis'] } {
  const emojis = customEmojisOf(object.tag);
  return emojis.length > 0 ? { emojis } : {};
}

function tagsOf(object: Json): PostView['tags'] {
  const out: PostView['tags'] = [];
  for (const tag of boundedList(object.tag)) {
    if (!isObject(tag)) continue;
    const href = httpUrl(idOf(tag.href));
    const given = str(tag.name);
    if (tag.type === 'Hashtag') {
      const name = given === null ? null : hashtagName(given);
      if (name !== null) out.push({ type: 'Hashtag', name: sanitizePlainText(name), ...(href ? { href } : {}) });
    } else if (tag.type === 'Mention' && href) {
      // A Mention without a name (Smithereen) is named from its href; the processor names it from
      // the actor cache when it stores the post.
      out.push({ type: 'Mention', name: sanitizePlainText(withDomain(given ?? mentionNameOf(href), href)), href });
    }
  }
  return out;
}

/** A Hashtag's name as Mastodon writes it, `#name`, whatever the server sent: PeerTube's Videos
 * name their tags without the '#' and with no href (`{type: 'Hashtag', name: 'boats'}`),
 * Funkwhale's Audio with the '#' and no href; null when nothing is left. */
function hashtagName(name: string): string | null {
  const bare = name.trim().replace(/^#+/, '');
  return bare === '' ? null : `#${bare}`;
}

/** A mention named without its server (`@sedge`: Misskey and Pixelfed name a user of their own
 * server so) read as what it is, `@sedge@<the host of its href>`: shown bare, it would pass for
 * an account on the author's own server. */
function withDomain(name: string, href: string): string {
  const local = /^@?([^@\s]+)$/.exec(name.trim())?.[1];
  if (local === undefined) return name;
  try {
    return `@${local}@${new URL(href).host}`;
  } catch {
    return name;
  }
}

/** A time as sent, when it is one (ISO 8601 that Date reads); else null. */
function timeOf(value: unknown): string | null {
  const text = str(value);
  return text !== null && text.length <= 40 && Number.isFinite(Date.parse(text)) ? text : null;
}

const PLACE_MAX = 300;

/** A Place (or the first of several) as one line of text: its name, then the parts of its
 * PostalAddress that are given (Mobilizon sends " " for a missing street), or a plain string. */
function placeOf(value: unknown): string | null {
  for (const entry of boundedList(value)) {
    if (typeof entry === 'string' && !/^https?:/i.test(entry)) return sanitizePlainText(entry.trim().slice(0, PLACE_MAX)) || null;
    if (!isObject(entry)) continue;
    const address = isObject(entry.address) ? entry.address : null;
    const parts = [
      str(entry.name),
      ...(address ? [address.streetAddress, address.postalCode, address.addressLocality, address.addressRegion, address.addressCountry].map(str) : [str(entry.address)]),
    ]
      .map((p) => p?.trim() ?? '')
      .filter((p, i, all) => p !== '' && all.indexOf(p) === i);
    if (parts.length > 0) return sanitizePlainText(parts.join(', ').slice(0, PLACE_MAX));
  }
  return null;
}

/** When and where an Event takes place (null for any other type, or without a start time). */
function eventOf(object: Json): EventView | null {
  if (typeOf(object) !== 'Event') return null;
  const startTime = timeOf(object.startTime);
  if (startTime === null) return null;
  return { startTime, endTime: timeOf(object.endTime), place: placeOf(object.location), online: object.isOnline === true };
}

/** A collection's totalItems (Mastodon's likes/shares), when the object carries one. */
function totalOf(value: unknown): number | null {
  return isObject(value) ? num(value.totalItems) : null;
}

// The HTML shown for a text, sanitized within a budget per page: content-html.ts.
export { contentHtmlOf };

/** Text made only of white space and zero-width or invisible format characters (U+200B–U+200D,
 * U+2060, U+FEFF, U+00AD). */
const INVISIBLE_ONLY = /^[\s\u200B-\u200D\u2060\uFEFF\u00AD]*$/;

/** Plain text of an HTML field, whole (what a text node shows; no markup, entities decoded). */
const plain = (html: string | null): string | null => {
  const text = html ? htmlToExcerpt(html, 10_000) : '';
  return text === '' ? null : text;
};

/** The content as HTML. PeerTube sends its description as Markdown text (mediaType
 * text/markdown): its paragraphs and line breaks are kept, nothing else of Markdown is read. The
 * stored text is sanitized HTML already (entities escaped), and is sanitized again after. */
function contentOf(object: Json): string {
  // A PodcastEpisode (Castopod) has no content: its text is its `description` Note's.
  if (languageField(object, 'content') === null && isObject(object.description)) return contentOf(object.description);
  const content = languageField(object, 'content') ?? '';
  if (!/^text\/markdown\b/i.test(str(object.mediaType) ?? '') || /<[a-z/]/i.test(content)) return content;
  // Markdown in `content` with the server's own HTML of it in `contentMap` (Castopod's episode
  // description): that HTML.
  const rendered = isObject(object.contentMap) ? Object.values(object.contentMap).find((v): v is string => typeof v === 'string' && /<[a-z/]/i.test(v)) : undefined;
  if (rendered !== undefined) return rendered;
  return content
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p>${p.replace(/\r?\n/g, '<br>')}</p>`)
    .join('');
}

/** The `name` of a titled type; a PodcastEpisode (Castopod) has none, and its `audio` names it. */
function titleOf(object: Json, name: string | null): string | null {
  if (!nameIsTitle(object)) return null;
  const title = name ?? (isObject(object.audio) ? str(object.audio.name) : null);
  return title ? plainLabel(title) : null;
}

function common(object: Json, apId: string, ownBase: string | null = null) {
  const type = typeOf(object) ?? 'Object';
  const name = languageField(object, 'name');
  const summary = languageField(object, 'summary');
  // Mastodon's rule: a summary is a content warning on a Note or Question, or when the object
  // says it is sensitive; on an Article, a Page or a Video it is the lead, shown as an excerpt.
  const warns = summaryIsWarning(object);
  const warningText = warns ? plain(summary) : null;
  // Misskey (and its forks) send a warning left empty as U+200B, so that servers which read an
  // empty summary as none still hide the post: a warning with no visible character is a warning
  // without words (shown as "sensitive"), not one whose label is an invisible character.
  // Shown as a label: a bidi override in it would turn the post's header around.
  const label = warningText?.replace(BIDI_CONTROLS, '') ?? null;
  const warning = label !== null && INVISIBLE_ONLY.test(label) ? null : label;
  return {
    apId,
    url: originalUrlOf(object, apId),
    type,
    updated: str(object.updated),
    title: titleOf(object, name),
    contentHtml: contentHtmlOf(contentOf(object)),
    summary: warning,
    excerpt: warns ? null : plain(summary),
    sensitive: object.sensitive === true || warningText !== null,
    card: isCardType(type),
    inReplyTo: idOf(object.inReplyTo),
    attachments: attachmentsOf(object, ownBase),
    tags: tagsOf(object),
    ...emojisOf(object),
    ...quoteOf(object, apId),
    event: eventOf(object),
  };
}

export function inboxPostView(row: InboxObject, author: Actor | undefined): PostView {
  const object = row.apObject as Json;
  return {
    origin: 'inbox',
    id: row.id,
    ...common(object, row.apId),
    author: author ? actorView(author) : { id: row.actorId, apId: row.apActorId, name: row.apActorId, handle: null, iconUrl: null, url: row.apActorId },
    published: row.apPublishedAt.toISOString(),
    visibility: row.visibility,
    counts: { replies: row.repliesCount, likes: totalOf(object.likes), boosts: totalOf(object.shares) },
    mine: {
      own: false,
      liked: row.likedViaOutboxObjectApId !== null,
      boosted: row.announcedViaOutboxObjectApId !== null,
      bookmarked: row.isBookmarked,
      pinned: false,
    },
    boostedBy: null,
    markdown: null,
    deleted: row.isDeleted,
    poll: pollViewOf(object, row.votedForAnswers ?? null),
    ...previewsOf(row.ogMeta),
  };
}

export function outboxPostView(row: OutboxObject, me: ActorView): PostView {
  const object = row.apObject as Json;
  return {
    origin: 'outbox',
    id: row.id,
    ...common(object, row.apId, me.apId),
    author: me,
    published: row.apPublishedAt.toISOString(),
    visibility: row.visibility,
    counts: { replies: row.repliesCount, likes: row.likesCount, boosts: row.announcesCount },
    mine: { own: true, liked: false, boosted: false, bookmarked: false, pinned: row.isPinned },
    boostedBy: null,
    markdown: row.source,
    deleted: row.isDeleted,
    poll: pollViewOf(object, null),
    ...previewsOf(row.ogMeta),
  };
}
