// What the search index holds of a row: plain text (never markup) and, for posts, the filter
// words of the `facets` column. Pure functions over the stored JSON, which came from remote
// servers: read totally (any field may be missing or odd).
import { Parser } from 'htmlparser2';
import { asArray, isObject, str, type Json } from '../federation/ap';
import { attachmentDescription, boundedList, isShowableType } from '../federation/objects';
import { summarize } from '../webmention/microformats';

// Tags whose text is not text a person reads (sanitizing removed them already; stored rows from
// elsewhere — an import — may still have them).
const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
// Tags that end a word: "<p>one</p><p>two</p>" is "one two", not "onetwo".
const BREAKS = new Set(['p', 'br', 'div', 'li', 'ul', 'ol', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'td', 'th']);

/** The text of some HTML: tags dropped, entities decoded, whitespace collapsed. Control
 * characters become spaces, so the snippet markers (\u0002, \u0003) appear only as markers. */
export function htmlToText(html: string): string {
  if (!html.includes('<') && !html.includes('&')) return clean(html);
  const parts: string[] = [];
  let skipping = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (SKIPPED.has(name)) skipping++;
        else if (BREAKS.has(name)) parts.push(' ');
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (BREAKS.has(name)) parts.push(' ');
      },
      ontext(text) {
        if (skipping === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return clean(parts.join(''));
}

function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
}

const textOf = (value: unknown) => {
  const s = str(value);
  return s ? htmlToText(s) : '';
};

export interface PostRowFields {
  src: 'inbox' | 'outbox';
  apType: string;
  apObject: string;
  isDeleted: number;
  visibility: string;
  publishedAt: string;
  actorId: number | null;
}

export interface PostDocument {
  body: string;
  facets: string;
  /** Seconds since 1970 (never negative), for the rowid. */
  publishedSeconds: number;
}

const VISIBILITY_WORD: Record<string, string> = { PUBLIC: 'vpublic', UNLISTED: 'vunlisted', FOLLOWERS_ONLY: 'vfollowers', DIRECT: 'vdirect' };

/** The facet words of the filters (query-to-match.ts writes the same words). */
export const FACET = { media: 'hmedia', poll: 'hpoll', reply: 'ireply', mine: 'imine', actor: (id: number) => `a${id}`, visibility: VISIBILITY_WORD } as const;

/** What the index holds of a post, or null when the row is not a post to find (a Like, a
 * Follow, an Announce, a deleted post). */
export function postDocument(row: PostRowFields): PostDocument | null {
  if (row.isDeleted || !isShowableType(row.apType)) return null;
  let object: unknown;
  try {
    object = JSON.parse(row.apObject);
  } catch {
    return null;
  }
  if (!isObject(object)) return null;
  const body = postText(object);
  const facets = [VISIBILITY_WORD[row.visibility] ?? 'vpublic'];
  if (asArray(object.attachment).some(isObject)) facets.push(FACET.media);
  if (object.type === 'Question' || Array.isArray(object.oneOf) || Array.isArray(object.anyOf)) facets.push(FACET.poll);
  if (object.inReplyTo !== undefined && object.inReplyTo !== null) facets.push(FACET.reply);
  if (row.src === 'outbox') facets.push(FACET.mine);
  else if (row.actorId !== null) facets.push(FACET.actor(row.actorId));
  const ms = Date.parse(row.publishedAt);
  return { body, facets: facets.join(' '), publishedSeconds: Number.isFinite(ms) ? Math.max(0, Math.floor(ms / 1000)) : 0 };
}

/** A post's readable text: title, content warning, content, image descriptions, poll options. */
function postText(object: Json): string {
  const parts = [object.type !== 'Note' ? textOf(object.name) : '', textOf(object.summary), textOf(object.content)];
  // The first entries only, as the views (objects.ts MAX_LIST_ENTRIES): this runs on the main thread.
  for (const a of boundedList(object.attachment)) if (isObject(a)) parts.push(textOf(attachmentDescription(a)));
  for (const o of [...boundedList(object.oneOf), ...boundedList(object.anyOf)]) if (isObject(o)) parts.push(textOf(o.name));
  return parts.filter((p) => p !== '').join(' \n ');
}

export interface PersonDocument {
  name: string;
  handle: string;
  bio: string;
}

/** What the index holds of a person: name, handle (and user name), bio and profile fields. */
export function personDocument(apActor: string, handle: string | null): PersonDocument | null {
  let doc: unknown;
  try {
    doc = JSON.parse(apActor);
  } catch {
    return null;
  }
  if (!isObject(doc)) return null;
  const fields = boundedList(doc.attachment)
    .filter(isObject)
    .map((f) => `${textOf(f.name)} ${textOf(f.value)}`.trim());
  return {
    name: textOf(doc.name),
    handle: [handle ?? '', textOf(doc.preferredUsername)].filter((h) => h !== '').join(' '),
    bio: [textOf(doc.summary), ...fields].filter((p) => p !== '').join(' \n '),
  };
}

export interface WebmentionDocument {
  body: string;
  author: string;
  source: string;
}

/** What the index holds of a received webmention: its entry's text, its author, its source URL. */
export function webmentionDocument(row: { source: string; target: string; sourceMicroformats: string | null; isDeleted: number }): WebmentionDocument | null {
  if (row.isDeleted) return null;
  let microformats: unknown;
  try {
    microformats = row.sourceMicroformats === null ? null : JSON.parse(row.sourceMicroformats);
  } catch {
    microformats = null;
  }
  const summary = summarize(microformats, row.target);
  return { body: clean(summary.excerpt), author: clean(summary.author.name ?? ''), source: row.source };
}
