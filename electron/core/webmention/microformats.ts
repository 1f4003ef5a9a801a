// What a Webmention's source says about itself, from its microformats2 (microformats-parser,
// the JavaScript twin of mf2py): the h-entry that links to the target, its kind (reply, like,
// repost, bookmark or plain mention — per the post-type discovery properties), its author's
// h-card and an excerpt. Also the sanitizing of the parsed JSON before it is stored: every
// `html` value (e-* properties) goes through the content sanitizer, strings are capped.
import { mf2 } from 'microformats-parser';
import type { JsonValue } from '../../../db/schema';
import { htmlToExcerpt, httpUrlOrNull, sanitizeContentHtml, sanitizePlainText } from '../federation/sanitize';
import { httpUrlOf, samePage } from './links';

export const WEBMENTION_KINDS = ['reply', 'like', 'repost', 'bookmark', 'mention'] as const;
export type WebmentionKind = (typeof WEBMENTION_KINDS)[number];

export interface WebmentionAuthor {
  name: string | null;
  url: string | null;
  photo: string | null;
}

export interface WebmentionSummary {
  kind: WebmentionKind;
  author: WebmentionAuthor;
  /** Plain text (never HTML), at most 280 characters. */
  excerpt: string;
  /** The entry's own URL, when it names one. */
  url: string | null;
  published: string | null;
}

type Item = { type?: unknown; properties?: Record<string, unknown[]>; children?: unknown[]; value?: unknown; html?: unknown };

const MAX_STRING = 10_000;
const MAX_HTML = 100_000;
const MAX_ITEMS = 20;
const MAX_DEPTH = 8;
const MAX_ARRAY = 50;
/** Properties kept per item (a real h-entry has a dozen or two). */
export const MAX_PROPERTIES = 64;
/** What one source may store in all, in characters of its values and names: a page of ~100 KB
 * whose one element carried 1,000 e-* classes was stored as 75.6 MB of JSON (each class a copy
 * of the element's HTML). Past the budget the rest is dropped. */
export const MAX_STORED_CHARS = 256 * 1024;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function types(item: Item): string[] {
  return Array.isArray(item.type) ? item.type.filter((t): t is string => typeof t === 'string') : [];
}

/** Parses a source page; the result is sanitized and bounded, ready to store. */
export function parseSource(html: string, baseUrl: string): { items: JsonValue[] } {
  const parsed = mf2(html, { baseUrl });
  const budget = { chars: MAX_STORED_CHARS };
  const items: JsonValue[] = [];
  for (const item of parsed.items.slice(0, MAX_ITEMS)) {
    if (budget.chars <= 0) break;
    items.push(clean(item, 0, '', budget));
  }
  return { items };
}

// Properties whose values are URLs (u-*): only http(s) ones are kept.
const URL_PROPERTIES = new Set(['url', 'photo', 'logo', 'uid', 'in-reply-to', 'like-of', 'repost-of', 'bookmark-of', 'syndication', 'featured', 'video', 'audio']);
// What summarize() reads, kept first when the budget runs short.
const SUMMARIZED = ['type', 'value', 'properties', 'in-reply-to', 'like-of', 'repost-of', 'bookmark-of', 'url', 'author', 'name', 'photo', 'published', 'content', 'summary'];
const rank = (key: string) => {
  const at = SUMMARIZED.indexOf(key);
  return at === -1 ? SUMMARIZED.length : at;
};

/** What is left to store of one source, in characters; every value kept spends from it. */
interface Budget {
  chars: number;
}

/** `text` cut to what the budget has left (at most `max`), spent from it. */
function spend(text: string, max: number, budget: Budget): string | null {
  if (budget.chars <= 0) return null;
  const kept = text.length > Math.min(max, budget.chars) ? text.slice(0, Math.min(max, budget.chars)) : text;
  budget.chars -= kept.length;
  return kept;
}

/** Sanitizes parsed microformats: `html` values through the content sanitizer, other strings
 * as plain text and capped, URL properties http(s) only, depth limited; properties per item
 * and the characters of the whole within MAX_PROPERTIES and the budget. */
function clean(value: unknown, depth: number, key: string, budget: Budget): JsonValue {
  if (typeof value === 'string') {
    const capped = spend(value, MAX_STRING, budget);
    if (capped === null) return null;
    return URL_PROPERTIES.has(key) ? httpUrlOrNull(capped) : sanitizePlainText(capped);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (depth > MAX_DEPTH || budget.chars <= 0) return null;
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const v of value.slice(0, MAX_ARRAY)) {
      if (budget.chars <= 0) break;
      const cleaned = clean(v, depth + 1, key, budget);
      if (cleaned !== null || !URL_PROPERTIES.has(key)) items.push(cleaned);
    }
    return items;
  }
  if (!isItem(value)) return null;
  const out: Record<string, JsonValue> = {};
  // What summarize() reads first, then the rest in page order, up to MAX_PROPERTIES.
  const entries = Object.entries(value)
    .sort(([a], [b]) => rank(a) - rank(b))
    .slice(0, MAX_PROPERTIES);
  for (const [k, v] of entries) {
    // Each name costs its length and the JSON around it.
    budget.chars -= k.length + 4;
    if (budget.chars <= 0) break;
    if (k === 'html' && typeof v === 'string') {
      const html = spend(v, MAX_HTML, budget);
      if (html === null) break;
      const safe = sanitizeContentHtml(html);
      // Sanitizing may lengthen it (escaped characters): what is stored is what counts.
      budget.chars -= Math.max(0, safe.length - html.length);
      if (budget.chars < 0) break;
      out[k] = safe;
      continue;
    }
    // An item's own `value` is a URL when it stands for a u-* property (an h-card as author url).
    out[k] = clean(v, depth + 1, k === 'value' ? '' : k, budget);
  }
  return out;
}

/** Every item and its children, depth first. */
function* walk(items: unknown[]): Generator<Item> {
  for (const item of items) {
    if (!isItem(item)) continue;
    yield item;
    if (Array.isArray(item.children)) yield* walk(item.children);
  }
}

function first(item: Item, property: string): unknown {
  return item.properties?.[property]?.[0];
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isItem(value) && typeof value.value === 'string') return value.value;
  return null;
}

/** A property's URL values: plain strings, or h-cite/h-entry objects with a url (or value). */
function urls(item: Item, property: string): string[] {
  return (item.properties?.[property] ?? []).flatMap((value) => {
    if (typeof value === 'string') return [value];
    if (isItem(value)) {
      const nested = (value.properties?.url ?? []).map(text).filter((u): u is string => u !== null);
      return nested.length > 0 ? nested : typeof value.value === 'string' ? [value.value] : [];
    }
    return [];
  });
}

const refersTo = (item: Item, property: string, target: string) => urls(item, property).some((u) => samePage(u, target));

function authorOf(entry: Item | null, items: unknown[]): WebmentionAuthor {
  const candidate = entry ? first(entry, 'author') : undefined;
  const card = isItem(candidate) ? candidate : [...walk(items)].find((i) => types(i).includes('h-card'));
  if (card === undefined) {
    const name = text(candidate);
    return { name: name && httpUrlOf(name) === null ? name : null, url: name && httpUrlOf(name) ? name : null, photo: null };
  }
  const url = text(first(card, 'url'));
  const photo = text(first(card, 'photo'));
  return {
    name: text(first(card, 'name'))?.trim() || null,
    url: url && httpUrlOf(url) ? httpUrlOf(url)!.href : null,
    photo: photo && httpUrlOf(photo) ? httpUrlOf(photo)!.href : null,
  };
}

/** Reads the stored (or freshly parsed) microformats of a source that mentions `target`. */
export function summarize(microformats: unknown, target: string): WebmentionSummary {
  const items = isItem(microformats) && Array.isArray((microformats as { items?: unknown }).items) ? ((microformats as { items: unknown[] }).items) : [];
  const entries = [...walk(items)].filter((i) => types(i).includes('h-entry') || types(i).includes('h-cite'));
  // The entry that points at the target by a response property, else the first entry.
  const properties = ['like-of', 'repost-of', 'bookmark-of', 'in-reply-to'] as const;
  const entry = entries.find((e) => properties.some((p) => refersTo(e, p, target))) ?? entries[0] ?? null;
  let kind: WebmentionKind = 'mention';
  if (entry) {
    if (refersTo(entry, 'like-of', target)) kind = 'like';
    else if (refersTo(entry, 'repost-of', target)) kind = 'repost';
    else if (refersTo(entry, 'bookmark-of', target)) kind = 'bookmark';
    else if (refersTo(entry, 'in-reply-to', target)) kind = 'reply';
  }
  const content = entry ? first(entry, 'content') : undefined;
  const body =
    isItem(content) && typeof content.html === 'string'
      ? htmlToExcerpt(content.html, 280)
      : (text(content) ?? text(entry ? first(entry, 'summary') : undefined) ?? text(entry ? first(entry, 'name') : undefined) ?? '');
  const url = entry ? text(first(entry, 'url')) : null;
  return {
    kind,
    author: authorOf(entry, items),
    excerpt: body.replace(/\s+/g, ' ').trim().slice(0, 280),
    url: url && httpUrlOf(url) ? httpUrlOf(url)!.href : null,
    published: entry ? text(first(entry, 'published')) : null,
  };
}
