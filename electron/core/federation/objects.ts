// What a received object IS, decided once for the inbox processor, look-up and views: which
// types are posts (Mastodon's supported and "converted" types: Note, Question; Article, Page,
// Video, Audio, Image, Event), which are not posts at all (activities, actors, collections,
// tombstones), who wrote it (`attributedTo` as a string, an object or a list — PeerTube lists the
// account and its channel), where its page is (`url` as a string, a Link or a list of Links), and
// whether its `summary` is a content warning or an excerpt. Everything else an object may be is
// kept and shown as a link card. Pure functions over remote JSON; nothing here touches the network.
import { ACTOR_TYPES, actorIdOf, asArray, httpUrl, idOf, isObject, originOf, str, typeOf, type Json } from './ap';
import { withoutTrailingSlashes } from '../trailing-slashes';

/** Object types Tern shows as posts. */
export const POST_OBJECT_TYPES: readonly string[] = ['Note', 'Article', 'Question', 'Page', 'Video', 'Audio', 'Image', 'Event'];
const POSTS = new Set(POST_OBJECT_TYPES);

/** Types whose `summary` is a content warning (Mastodon's rule: a status's spoiler text); on the
 * others (an Article's or a Page's lead, a Video's description) it is an excerpt. */
const WARNING_TYPES = new Set(['Note', 'Question']);

/** Types whose `name` is not a title (a Question's names are its poll's options). */
const UNTITLED_TYPES = new Set(['Note', 'Question']);

/** Activity types (ActivityStreams and the fediverse's extensions): never a post in themselves. */
export const ACTIVITY_TYPES = new Set([
  'Create', 'Update', 'Delete', 'Follow', 'Accept', 'Reject', 'TentativeAccept', 'TentativeReject', 'Undo', 'Like',
  'Dislike', 'Announce', 'Block', 'Move', 'Flag', 'Add', 'Remove', 'EmojiReact', 'EmojiReaction', 'Join', 'Leave',
  'Invite', 'Offer', 'Lock', 'Read', 'View', 'Listen', 'Ignore', 'Arrive', 'Travel', 'QuoteRequest',
]);

/** Objects that are not posts and not activities: nothing to show in a stream. */
const NOT_POSTS = new Set([
  ...ACTOR_TYPES, 'Tombstone', 'CacheFile', 'Collection', 'OrderedCollection', 'CollectionPage', 'OrderedCollectionPage',
  'Link', 'Mention', 'Hashtag', 'Emoji', 'PropertyValue', 'Key', 'Relationship', 'Profile', 'Place',
]);

/** Every type that is not a post (for queries: rows of these types never show as posts). */
export const NON_POST_TYPES: readonly string[] = [...ACTIVITY_TYPES, ...NOT_POSTS];

export const isPostObjectType = (type: string | null): boolean => type !== null && POSTS.has(type);

/** An object the stream can show: a post, or something unknown shown as a link card. */
export function isShowableType(type: string | null): boolean {
  return type !== null && !ACTIVITY_TYPES.has(type) && !NOT_POSTS.has(type);
}

/** Shown as a link card: an object of a type Tern has no view for. */
export const isCardType = (type: string | null): boolean => isShowableType(type) && !isPostObjectType(type);

/** The activity an Announce carries when it boosts an activity rather than an object (Lemmy's
 * communities announce their members' Create, Update, Like, Delete…); null otherwise. */
export function announcedActivity(announce: Json): Json | null {
  const inner = announce.object;
  return isObject(inner) && ACTIVITY_TYPES.has(typeOf(inner) ?? '') ? inner : null;
}

interface Attribution {
  id: string;
  type: string | null;
}

function attributionsOf(object: Json, kindOf?: (id: string) => string | null): Attribution[] {
  return asArray(object.attributedTo).flatMap((entry) => {
    const id = idOf(entry);
    if (!id) return [];
    return [{ id, type: typeOf(entry) ?? kindOf?.(id) ?? null }];
  });
}

/**
 * The author of an object: the first actor in `attributedTo` that is not a Group (PeerTube sends
 * `[Person, Group]` — the account and its channel; Mobilizon credits a group's event to the group
 * and names its organiser in `actor`), else the first one, else `actor`. `kindOf` tells the type
 * of an actor known only by its id (the actor cache), when the caller has one.
 */
export function authorOf(object: Json, kindOf?: (id: string) => string | null): string | null {
  const attributed = attributionsOf(object, kindOf);
  const person = attributed.find((a) => a.type !== 'Group');
  if (person) return person.id;
  const organiser = actorIdOf(object);
  return organiser ?? attributed[0]?.id ?? null;
}

/** Whether an actor is one of those the object is credited to (`attributedTo`, any shape). */
export function isAttributedTo(object: Json, actorId: string): boolean {
  const same = (a: string) => withoutTrailingSlashes(a) === withoutTrailingSlashes(actorId);
  return attributionsOf(object).some((a) => same(a.id)) || same(actorIdOf(object) ?? '');
}

/** Whether an activity's actor may be taken as the object's author: it is credited with it
 * (`attributedTo` or `actor`), or — the object crediting nobody, as Zap and Hubzilla send their
 * posts — the object's id is on the actor's own server (a server speaks for its own objects). */
export function isCreatedBy(object: Json, actorId: string): boolean {
  if (isAttributedTo(object, actorId)) return true;
  if (attributionsOf(object).length > 0 || actorIdOf(object) !== null) return false;
  const objectId = idOf(object);
  return objectId !== null && originOf(objectId) !== null && originOf(objectId) === originOf(actorId);
}

/** Every id the object is credited to, for messages. */
export const attributedIds = (object: Json): string[] => attributionsOf(object).map((a) => a.id);

/** Entries of a remote list (attachment, tag, url, icon…) read for a view or the search index.
 * The stored JSON may be a whole 1 MiB body of one list (5,000 attachments), and views are built
 * on the main thread for every page shown: reading all of them cost 80 ms a post. No server
 * sends anywhere near this many of what a post shows (Mastodon takes 4 attachments). */
export const MAX_LIST_ENTRIES = 100;

/** `value` as a list (asArray), its first MAX_LIST_ENTRIES entries. */
export const boundedList = (value: unknown): unknown[] => asArray(value).slice(0, MAX_LIST_ENTRIES);

/** The first http(s) URL of an image-ish value: a string, a Link/Image object, or a list. */
export function imageUrlOf(value: unknown): string | null {
  for (const item of asArray(value)) {
    if (typeof item === 'string') return httpUrl(item);
    if (isObject(item)) {
      const url = httpUrl(item.url) ?? httpUrl(idOf(item.url)) ?? httpUrl(item.href);
      if (url) return url;
      if (Array.isArray(item.url)) return imageUrlOf(item.url);
    }
  }
  return null;
}

/** An attachment's description (its alt text), as Mastodon reads it: `summary`, else `name`
 * (app/lib/activitypub/parser/media_attachment_parser.rb). GoToSocial writes it in `summary`
 * alone, Hollo in both, most others in `name`. Raw: the caller makes it plain text. */
export function attachmentDescription(attachment: Json): string | null {
  for (const key of ['summary', 'name'] as const) {
    const text = str(attachment[key]);
    if (text !== null && text.trim() !== '') return text;
  }
  return null;
}

interface LinkLike {
  href: string;
  mediaType: string | null;
}

/** `url` (or any such field) as links: strings, Link objects (`href`), or a list of both. */
export function linksOf(value: unknown): LinkLike[] {
  return boundedList(value).flatMap((entry) => {
    if (typeof entry === 'string') return httpUrl(entry) ? [{ href: httpUrl(entry)!, mediaType: null }] : [];
    if (!isObject(entry)) return [];
    const href = httpUrl(entry.href) ?? httpUrl(entry.url) ?? (typeof entry.url !== 'string' ? linksOf(entry.url)[0]?.href : null);
    return href ? [{ href, mediaType: str(entry.mediaType) ?? str(entry.mimeType) }] : [];
  });
}

/** The page of the original: a `text/html` link when `url` lists several (PeerTube, Funkwhale),
 * else a link that does not say what it is, else the id (never a media file); '' when none of
 * them is an http(s) URL (a row of an imported database may hold any id): the UI links it. */
export function originalUrlOf(object: Json, apId: string): string {
  const links = linksOf(object.url);
  const html = links.find((l) => l.mediaType !== null && /^text\/html\b/i.test(l.mediaType));
  return html?.href ?? links.find((l) => l.mediaType === null)?.href ?? httpUrl(apId) ?? '';
}

/** Whether the object's `summary` is a content warning (Note, Question, or marked sensitive). */
export function summaryIsWarning(object: Json): boolean {
  return object.sensitive === true || WARNING_TYPES.has(typeOf(object) ?? '');
}

/** Whether the object's `name` is its title. */
export const nameIsTitle = (object: Json): boolean => !UNTITLED_TYPES.has(typeOf(object) ?? 'Note');

/** A natural-language field (`content`, `summary`, `name`): the plain property, else the first
 * entry of its language map (`contentMap`…: some servers send only the map, and which language
 * the reader prefers is not known here). Stored sanitized like the plain field (sanitize.ts). */
export function languageField(object: Json, key: 'content' | 'summary' | 'name'): string | null {
  const plain = str(object[key]);
  if (plain !== null) return plain;
  const map = object[`${key}Map`];
  if (!isObject(map)) return null;
  return Object.values(map).find((v): v is string => typeof v === 'string') ?? null;
}

/** A name for a Mention that came without one (Smithereen): @user@host from its href, the
 * user being the path's last segment (`/users/alice`, `/@alice`). */
export function mentionNameOf(href: string): string {
  try {
    const url = new URL(href);
    const last = url.pathname.split('/').filter(Boolean).at(-1)?.replace(/^@/, '');
    return last ? `@${decodeURIComponent(last)}@${url.host}` : `@${url.host}`;
  } catch {
    return href;
  }
}
