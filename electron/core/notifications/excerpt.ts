// The excerpt of a notification's post, made from a bounded prefix of its markup. The list is read
// on the app's thread whenever the window hears of a change, and a post's text was parsed whole
// for 140 characters: 50 mentions of 60 KB of markup (within the sanitizer's bounds, cheap to
// send) held the thread 99–141 ms for every page of 50, 2.6 ms each. Parsing the first 4 KiB costs
// 0.27 ms, and a post written by a person holds its first 140 characters of text well within it:
// a stored mention or hashtag is 110–140 characters of markup for its 4–15 of text, so it takes
// some 30 mentions of two-letter names in a row to run out (then the excerpt is shorter).
import { htmlToExcerpt } from '../federation/sanitize';

/** Characters of markup read for an excerpt: the text of an ordinary post's first 4 KiB is long
 * past the 140 characters shown, so its excerpt is the same as from the whole. */
export const EXCERPT_SOURCE_CHARS = 4096;

// What the parser reads as the start of a tag (htmlparser2's tokenizer, as unparsedText in
// sanitize.ts): "<" then a letter, "!", "/" or "?" — or a "<" the cut left last.
const TAG_START = /[a-zA-Z!/?]/;

/** Markup cut anywhere, without the tag or entity the cut left unfinished: the
 * parser drops an unfinished tag at the end of its input in most states, but gives "<", "</" or
 * "<br/" back as text, and reads "&am" as text and "&#6" as another character. */
export function withoutCutEnd(markup: string): string {
  let end = markup.length;
  const open = markup.lastIndexOf('<');
  if (open >= 0 && (open === end - 1 || TAG_START.test(markup[open + 1]!)) && !closes(markup, open)) end = open;
  return markup.slice(0, end).replace(/&[a-zA-Z0-9#]*$/, '');
}

/** Whether the tag opened at `open` ends before the markup does: a ">" outside a quoted value. */
function closes(markup: string, open: number): boolean {
  let quote: string | null = null;
  for (let i = open + 1; i < markup.length; i++) {
    const c = markup[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if ((c === '"' || c === "'") && markup[i - 1] === '=') quote = c;
    else if (c === '>') return true;
  }
  return false;
}

/** The first `n` characters (code points, as SQLite's substr counts them) of `text`, or null
 * when it has no more than that. */
function cutAt(text: string, n: number): string | null {
  if (text.length <= n) return null;
  let units = 0;
  let points = 0;
  for (const c of text) {
    if (points === n) return text.slice(0, units);
    units += c.length;
    points++;
  }
  return null;
}

/**
 * The plain-text excerpt of `html` (htmlToExcerpt: tags dropped, entities decoded, at most `max`
 * characters) read from its first EXCERPT_SOURCE_CHARS characters. When the markup goes on past
 * them, the excerpt ends with an ellipsis: the same as the whole's when the part read holds `max`
 * characters of text or more, else the text read and "…" (markup of more than ~29 characters per
 * character of text, which no person writes). Plain text, for a text node only, as htmlToExcerpt's.
 */
export function boundedExcerpt(html: string, max: number): string {
  const cut = cutAt(html, EXCERPT_SOURCE_CHARS);
  if (cut === null) return htmlToExcerpt(html, max);
  const text = htmlToExcerpt(withoutCutEnd(cut), Number.MAX_SAFE_INTEGER);
  return `${text.slice(0, max - 1).trimEnd()}…`;
}

/** A natural-language field of the JSON in `column` as languageField (federation/objects.ts)
 * reads it: the plain property when it is a string, else the first string of its language map.
 * (The map's first entry in document order: JSON.parse puts integer-like keys first, which no
 * language tag is.) */
const languageFieldSql = (column: string, key: 'content' | 'summary' | 'name') =>
  `CASE WHEN json_type(${column}, '$.${key}') = 'text' THEN ${column} ->> '$.${key}' ` +
  `WHEN json_type(${column}, '$.${key}Map') = 'object' THEN (SELECT lang.value FROM json_each(${column}, '$.${key}Map') AS lang WHERE lang.type = 'text' LIMIT 1) END`;

/** In SQL, the markup an excerpt is made of (excerptOf in service.ts): the title, else the content
 * warning, else the content; NULL when there is none (an empty one passes to the next, as `||`). */
export const excerptSourceSql = (column: string): string =>
  `COALESCE(${(['name', 'summary', 'content'] as const).map((key) => `NULLIF(${languageFieldSql(column, key)}, '')`).join(', ')})`;
