// Remote HTML is made safe here, in the core, before it is stored (ARCHITECTURE: "sanitized in
// the core before it is stored or shown, and again in the renderer"). The allowlist is the one
// Mastodon applies to incoming statuses: a handful of inline/block tags, links, and the
// microformat and mention classes; everything else — script, style, img, iframe, on* handlers,
// javascript: URLs — is removed. Plain-text fields (`name`) keep no markup at all.
import sanitizeHtml from 'sanitize-html';
import { Parser } from 'htmlparser2';
import { ACTOR_TYPES, isObject, typeOf, type Json } from './ap';
import { htmlOverLimits } from '../net/html-bounds';

export const LINK_REL = 'nofollow noopener noreferrer';

/** Mastodon's allowlist, read by both passes: sanitize-html's options below (when a post is
 * stored) and sanitize-stored.ts (each time a view is built). */
export const CONTENT_ALLOWLIST = {
  tags: ['p', 'br', 'a', 'span', 'strong', 'em', 'b', 'i', 'u', 'del', 'pre', 'code', 'blockquote', 'ul', 'ol', 'li'],
  // Mastodon keeps microformats (h-card, u-url, …) and its own presentation classes; any other
  // class could restyle the app's own UI, so it is dropped.
  classes: [/^[hpuedt]-/, 'mention', 'hashtag', 'ellipsis', 'invisible', 'quote-inline'] as Array<string | RegExp>,
  schemes: ['http', 'https', 'mailto'],
  /** Whether `name` is a class `tag` may keep (classes are kept on a and span; on p only
   * `quote-inline`, Mastodon's "RE: <link>" fallback of a quote post, hidden when the quoted
   * post is shown). */
  classAllowed(tag: string, name: string): boolean {
    if (tag === 'p') return name === 'quote-inline';
    if (tag !== 'a' && tag !== 'span') return false;
    return CONTENT_ALLOWLIST.classes.some((c) => (typeof c === 'string' ? c === name : c.test(name)));
  },
} as const;

const CONTENT_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...CONTENT_ALLOWLIST.tags],
  allowedAttributes: { a: ['href', 'rel', 'class'], span: ['class'], p: ['class'] },
  allowedClasses: { a: CONTENT_ALLOWLIST.classes, span: CONTENT_ALLOWLIST.classes, p: ['quote-inline'] },
  allowedSchemes: [...CONTENT_ALLOWLIST.schemes],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // script, style, textarea… are removed with their text, other tags are unwrapped.
  disallowedTagsMode: 'discard',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: LINK_REL } }),
  },
};


/**
 * What sanitize-html is given at most. Parsing is on the main thread and costs about a
 * millisecond per KiB of markup (more when deep), so remote HTML over these bounds is not parsed
 * at all: it is kept as its text (tags cut out by one linear pass), which is what a reader
 * needs of a post nobody writes by hand — no post of Mastodon (500 characters) or of a blog
 * comes near them.
 */
export const HTML_LIMITS = { chars: 64 * 1024, elements: 2_000, depth: 100 } as const;

/** The text of HTML too large to parse: tags removed, what remains escaped, as one paragraph. */
export function unparsedText(html: string): string {
  // Only what a parser reads as a tag (< then a letter, !, / or ?): a lone "a < b" is text,
  // and with no > after it the pattern would have taken the rest of the post with it.
  const text = html
    .replace(/<[a-zA-Z!/?][^>]*>?/g, ' ')
    .slice(0, HTML_LIMITS.chars)
    .replace(/&(?![a-zA-Z]+;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\s+/g, ' ')
    .trim();
  // Escaping lengthens the text: cut it to the bound again, never inside an entity.
  const within = text.length + 7 > HTML_LIMITS.chars ? text.slice(0, HTML_LIMITS.chars - 7).replace(/&[a-zA-Z0-9#]*$/, '') : text;
  return within === '' ? '' : `<p>${within}</p>`;
}

/** HTML from a remote server (content, summary), reduced to Mastodon's allowlist. What it
 * returns is always within HTML_LIMITS: the stored content is sanitized again each time a view is
 * built, and a sanitized text that had grown past the bounds (each link gains its rel, `&` becomes
 * `&amp;`) was then cut to its first 64 KiB with every tag dropped — an article of 62 KB with
 * 1,200 links was stored whole and shown as its first quarter. Such a text is kept as text now,
 * whole up to the bound, the same when stored and when shown. */
export function sanitizeContentHtml(html: string): string {
  if (htmlOverLimits(html, HTML_LIMITS) !== null) return unparsedText(html);
  const clean = sanitizeHtml(html, CONTENT_OPTIONS);
  return clean.length > HTML_LIMITS.chars ? unparsedText(html) : clean;
}

// Elements whose text is no text for a reader: dropped with their tags.
const HIDDEN_TEXT = new Set(['script', 'style', 'template', 'noscript', 'textarea', 'title', 'iframe', 'noembed', 'noframes', 'xmp']);
const LOOKS_LIKE_A_TAG = /<(?=[a-zA-Z!/?])/g;

/**
 * A reader of the text of markup: tags and comments removed, and the text inside the `hidden`
 * elements too. One parser per reader, its handlers made once (sanitize-html's closures per
 * call kept most of each call alive past the next minor GC: see sanitize-stored.ts).
 */
function textReader(hidden: ReadonlySet<string>, decodeEntities: boolean): (markup: string) => string {
  let out = '';
  let depth = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (hidden.has(name)) depth++;
      },
      onclosetag(name) {
        if (hidden.has(name) && depth > 0) depth--;
      },
      ontext(text) {
        if (depth === 0) out += text;
      },
    },
    { decodeEntities, lowerCaseTags: true },
  );
  return (markup) => {
    out = '';
    depth = 0;
    try {
      parser.reset();
      parser.end(markup);
      return out;
    } finally {
      out = '';
    }
  };
}

/** The text of some markup as written: tags, comments and hidden elements' text removed,
 * entities left as they are (decoding `&lt;b&gt;` would make markup of a plain text). */
const textOf = textReader(HIDDEN_TEXT, false);

/**
 * The one rule for plain-text fields from outside (names of attachments, tags, poll options and
 * apps, a user name, a webmention author's name…): stored and shown as text, so no markup may
 * remain in them. Tags are removed (with the text of script/style), nothing else is changed —
 * `R&D`, `a < b` and `&lt;b&gt;` stay exactly as sent. What still looks like a tag after that
 * (markup built from the pieces of removed tags) is broken up.
 */
export function sanitizePlainText(text: string): string {
  if (!text.includes('<')) return text;
  let out = htmlOverLimits(text, HTML_LIMITS) === null ? text : text.replace(/<[^>]*>?/g, '');
  for (let pass = 0; pass < 3 && /<[a-zA-Z!/?]/.test(out); pass++) out = textOf(out);
  return out.replace(LOOKS_LIKE_A_TAG, '< ');
}

/**
 * Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). One of them in a name
 * reorders whatever is shown after it: "Ana Lima\u202E liked your post" reads backwards, and a
 * preferredUsername "\u202Elaicos.nodotsam" shows as "mastodon.social". Nobody needs them in a
 * name or a label (the renderer isolates each one anyway). The marks U+200E and U+200F are
 * kept: they are single strong characters with no scope (they cannot turn the text after them
 * around), and names written in Arabic or Hebrew use them to place their punctuation.
 */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** A plain-text field from outside as the UI shows it as a name or a label (an actor's name, a
 * poll option, a content warning, a title): no markup (sanitizePlainText) and no bidi controls.
 * Applied when a view is built, not when stored: a vote must carry an option's name as sent. */
export function plainLabel(text: string): string {
  return sanitizePlainText(text).replace(BIDI_CONTROLS, '');
}

/** An absolute http(s) URL, or null: every URL field from outside is one of these or dropped
 * (javascript:, data:, file: and the rest are never kept, linked or fetched). */
export function httpUrlOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** A URL field as AS2 allows it (a URL, a Link {href}, an Image {url}, or an array of these),
 * with every non-http(s) URL dropped; undefined when nothing is left. */
function cleanUrlField(value: unknown): unknown {
  if (typeof value === 'string') return httpUrlOrNull(value) ?? undefined;
  if (Array.isArray(value)) {
    const kept = value.map(cleanUrlField).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (isObject(value)) {
    const out: Json = { ...value };
    for (const key of ['href', 'url']) {
      if (!(key in out)) continue;
      const clean = cleanUrlField(out[key]);
      if (clean === undefined) delete out[key];
      else out[key] = clean;
    }
    if (typeof out.name === 'string') out.name = sanitizePlainText(out.name);
    return out.href === undefined && out.url === undefined ? undefined : out;
  }
  return undefined;
}

/** Each entry of a list field (attachment, tag, oneOf…) cleaned by `clean`; one entry or many. */
function mapEntries(value: unknown, clean: (entry: Json) => Json): unknown {
  const list = unfoldedPhpList(value);
  if (Array.isArray(list)) return list.map((v) => (isObject(v) ? clean(v) : v));
  return isObject(list) ? clean(list) : list;
}

const INDEX_KEY = /^(0|[1-9]\d{0,5})$/;

/** A list PHP wrote as an object: Pixelfed builds a reply's `tag` with array_merge() of the
 * parent author's Mention (an associative array) and the list of other mentions and hashtags,
 * which json_encode() writes as ONE object — the Mention's keys beside "0", "1", … holding the
 * rest. Read as the list it was meant to be (the Mention first, then the entries in index
 * order), so those mentions (ours among them) and hashtags are not lost, and are cleaned like
 * any entry. Anything else is returned as it is. */
export function unfoldedPhpList(value: unknown): unknown {
  if (!isObject(value)) return value;
  const indexed = new Set(Object.keys(value).filter((k) => INDEX_KEY.test(k) && isObject(value[k])));
  if (indexed.size === 0) return value;
  const head: Json = {};
  for (const [k, v] of Object.entries(value)) if (!indexed.has(k)) head[k] = v;
  const rest = [...indexed].sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
  return Object.keys(head).length > 0 ? [head, ...rest] : rest;
}

/** A nested object (attachment, tag, poll option, icon): its name plain, its URLs http(s) only. */
function cleanEntry(entry: Json): Json {
  const out: Json = { ...entry };
  for (const key of ['name', 'preferredUsername']) if (typeof out[key] === 'string') out[key] = sanitizePlainText(out[key]);
  for (const key of ['url', 'href']) {
    if (!(key in out)) continue;
    const clean = cleanUrlField(out[key]);
    if (clean === undefined) delete out[key];
    else out[key] = clean;
  }
  for (const key of ['icon', 'image']) {
    if (!(key in out)) continue;
    const clean = cleanUrlField(out[key]);
    if (clean === undefined) delete out[key];
    else out[key] = clean;
  }
  return out;
}

/** `clean`, run once for each distinct string (within one object). */
function onceEach(clean: (s: string) => string): (s: string) => string {
  const done = new Map<string, string>();
  return (s) => {
    let out = done.get(s);
    if (out === undefined) done.set(s, (out = clean(s)));
    return out;
  };
}

function mapStrings(value: unknown, clean: (s: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? clean(v) : v]));
  return value;
}

// What these functions returned, by identity: passing their result through them again (the
// processor sanitizes an object, wraps it in its activity, and the store sanitizes whatever it
// writes) returns it at once instead of running sanitize-html over the same HTML again. Results
// are never mutated afterwards — callers copy ({ ...x }) — so identity means "already clean".
const cleanObjects = new WeakSet<object>();
const cleanActivities = new WeakSet<object>();
const cleanActors = new WeakSet<object>();

/** A copy of an object with its HTML fields sanitized: content, summary (and their language
 * maps) as HTML; name (and nameMap) as plain text. Other fields are kept as sent. */
export function sanitizeObjectHtml<T extends Json>(object: T): T {
  if (cleanObjects.has(object)) return object;
  const out: Json = { ...object };
  // Mastodon sends each text twice, as content and as contentMap's one language: sanitized once
  // (measured: 80 µs a post's HTML; 145 µs for the object before).
  const cleanHtml = onceEach(sanitizeContentHtml);
  for (const key of ['content', 'summary', 'contentMap', 'summaryMap']) {
    if (key in out) out[key] = mapStrings(out[key], cleanHtml);
  }
  for (const key of ['name', 'nameMap']) {
    if (key in out) out[key] = mapStrings(out[key], sanitizePlainText);
  }
  // Misskey's MFM source is rendered by nobody but Misskey; keep it, but never as markup.
  if (typeof out._misskey_content === 'string') out._misskey_content = sanitizePlainText(out._misskey_content);
  // Plain names and http(s)-only URLs, here and in what the object carries: attachments, tags
  // (their icons too), poll options, its own icon and image.
  for (const key of ['url', 'icon', 'image']) {
    if (!(key in out)) continue;
    const clean = cleanUrlField(out[key]);
    if (clean === undefined) delete out[key];
    else out[key] = clean;
  }
  if (typeof out.preferredUsername === 'string') out.preferredUsername = sanitizePlainText(out.preferredUsername);
  for (const key of ['attachment', 'tag', 'oneOf', 'anyOf']) {
    if (key in out) out[key] = mapEntries(out[key], cleanEntry);
  }
  // Castopod's PodcastEpisode (the Podcast Index's draft vocabulary) has no content of its own:
  // its text is in a `description` Note, its file in an `audio` object. Cleaned as the object's
  // own content (HTML) and as an attachment (plain name, http(s)-only URLs).
  if (isObject(out.description)) {
    const description = cleanDescription(out.description, cleanHtml, 1);
    if (description === undefined) delete out.description;
    else out.description = description;
  }
  if (isObject(out.audio)) out.audio = cleanEntry(out.audio);
  cleanObjects.add(out);
  return out as T;
}

/** How many `description` objects deep a description is kept: Castopod sends one. */
const DESCRIPTION_DEPTH = 3;

/** A `description` object cleaned as content: its HTML sanitized, its name plain, and the
 * description it has in turn the same way — the view reads the text of the first one that has
 * content, however deep (actions/views.ts contentOf), so none may be stored raw. One deeper than
 * DESCRIPTION_DEPTH is dropped (undefined). */
function cleanDescription(value: Json, cleanHtml: (s: string) => string, depth: number): Json | undefined {
  if (depth > DESCRIPTION_DEPTH) return undefined;
  const description: Json = { ...value };
  for (const key of ['content', 'contentMap', 'summary', 'summaryMap']) if (key in description) description[key] = mapStrings(description[key], cleanHtml);
  for (const key of ['name', 'nameMap']) if (key in description) description[key] = mapStrings(description[key], sanitizePlainText);
  if (isObject(description.description)) {
    const inner = cleanDescription(description.description, cleanHtml, depth + 1);
    if (inner === undefined) delete description.description;
    else description.description = inner;
  }
  return description;
}

/** An activity with its own HTML fields and those of an embedded object (one level, and a
 * Create inside an Announce) sanitized, so no stored row carries raw remote HTML. */
export function sanitizeActivityHtml<T extends Json>(activity: T): T {
  if (cleanActivities.has(activity)) return activity;
  // A copy: the top level may be a result shared through cleanObjects.
  const out: Json = { ...sanitizeObjectHtml(activity) };
  if (isObject(out.object)) {
    const inner = sanitizeObjectHtml(out.object);
    out.object = isObject(inner.object) ? { ...inner, object: sanitizeObjectHtml(inner.object) } : inner;
  }
  cleanActivities.add(out);
  return out as T;
}

/** An actor document with its profile HTML sanitized: summary, name, and PropertyValue fields. */
export function sanitizeActorHtml<T extends Json>(doc: T): T {
  if (cleanActors.has(doc)) return doc;
  const out: Json = { ...sanitizeObjectHtml(doc) };
  // One field or a list of them: AS2 lets a single value stand for a one-element list.
  if ('attachment' in out) {
    out.attachment = mapEntries(out.attachment, (a) => (typeof a.value === 'string' ? { ...a, value: sanitizeContentHtml(a.value) } : a));
  }
  cleanActors.add(out);
  cleanObjects.add(out);
  return out as T;
}

/** A fetched document's HTML sanitized as what it is: an actor's profile, or an activity or
 * object with the object it embeds (federation/read-document.ts, on whichever thread reads it). */
export function sanitizeDocumentHtml(doc: Json): Json {
  return ACTOR_TYPES.has(typeOf(doc) ?? '') ? sanitizeActorHtml(doc) : sanitizeActivityHtml(doc);
}

/**
 * Records `doc` — the result of sanitizeDocumentHtml on the page reader's worker, received here as
 * a structured clone (its identity lost in passing) — as clean, so the functions above return it
 * (and the object it embeds) at once instead of sanitizing the same HTML again on this thread:
 * that is what the worker was for. Only for what sanitizeDocumentHtml returned.
 */
export function adoptSanitizedDocument(doc: Json): Json {
  cleanObjects.add(doc);
  if (ACTOR_TYPES.has(typeOf(doc) ?? '')) {
    cleanActors.add(doc);
    return doc;
  }
  cleanActivities.add(doc);
  if (isObject(doc.object)) {
    cleanObjects.add(doc.object);
    if (isObject(doc.object.object)) cleanObjects.add(doc.object.object);
  }
  return doc;
}

// Elements whose text is not shown when their tags are dropped (sanitize-html's nonTextTags).
const NO_TEXT = new Set(['script', 'style', 'textarea', 'option', 'xmp']);
/** Text with its entities decoded (a page of 50 notifications spent 8 ms in each scavenge when
 * this was sanitize-html with no tag allowed). */
const decodedTextOf = textReader(NO_TEXT, true);

/** Plain text of some HTML for a one-line preview: tags dropped (block ends become spaces),
 * entities decoded, whitespace collapsed, cut to `max` characters with an ellipsis. The result
 * is text for a text node, never for innerHTML. */
export function htmlToExcerpt(html: string, max = 140): string {
  const bounded = htmlOverLimits(html, HTML_LIMITS) === null ? html : unparsedText(html);
  const spaced = bounded.replace(/<br\s*\/?>|<\/(p|li|blockquote|pre)>/gi, ' ');
  const text = decodedTextOf(spaced).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}
