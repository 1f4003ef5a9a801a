// A parsed query (query.ts) as FTS5 MATCH expressions and rowid bounds. User text never reaches
// MATCH as syntax: every word and phrase is a quoted FTS5 string ("…", quotes doubled), so
// AND/OR/NOT/NEAR, parentheses, ^, * and column names typed by the user are only words.
import { FACET } from './text';
import { rowidOfSecond } from './indexer';
import type { Day, Filter, SearchQuery, Term } from './query';

const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;

/** A word or phrase as an FTS5 phrase; `word*` (two letters or more) is a prefix search. */
function phrase(term: Term): string {
  if (term.kind === 'word' && /^[^*]{2,}\*$/u.test(term.text)) return `${quote(term.text.slice(0, -1))} *`;
  return quote(term.text);
}

const inColumn = (column: string, expressions: string[]) => `{${column}} : (${expressions.join(' OR ')})`;

/** The terms alone (positive AND, negated NOT) in the given columns, or null when there are
 * no positive terms (people and webmentions are found by words only). */
export function termsMatch(terms: Term[], columns?: string): string | null {
  const positive = terms.filter((t) => !t.negated).map(phrase);
  if (positive.length === 0) return null;
  const scope = (e: string) => (columns ? `{${columns}} : ${e}` : e);
  const negative = terms.filter((t) => t.negated).map((t) => ` NOT ${scope(phrase(t))}`);
  return `${positive.map(scope).join(' AND ')}${negative.join('')}`;
}

/** Who from: means, resolved: the author, actor row ids (none: nobody known by that name). */
export type ResolvedFrom = { me: true } | { me: false; actorIds: number[] };

export interface PostMatch {
  /** null: the query can match nothing (from: someone unknown). */
  match: string | null;
  /** The positive words and phrases alone, in `body` (null: none): a post's snippet marks
   * these, and a post of `match` matches them. */
  words: string | null;
  /** Expressions that every post of `match` matches as well, when it has more than one
   * (words, phrases, filter groups; otherwise none): each positive word (not a phrase or a
   * prefix: those cost more to count) and each positive filter group. When one of them has few
   * matches, so has `match`, however common its other words. */
  parts: string[];
  /** Rowid bounds from before:/after: (rowid ≥ low, rowid < high). */
  low: number | null;
  high: number | null;
  /** Whether `match` holds a phrase: a term FTS5 reads as more than one word ("in ut", and a
   * word like don't or a URL, which the tokenizer splits), positive or negated. FTS5 looks for
   * the next post where a phrase's words stand together without regard to a rowid bound, so
   * such a match is searched in steps (date-scan.ts), not with one query over the index. */
  phrasal: boolean;
  /** Single words (FTS5 MATCH expressions, any column) each of which every post of `match`
   * holds: a positive term's words, a filter group of one facet word. A post's words FTS5 reads
   * within rowid bounds, as it does not a phrase. At most MAX_DRIVERS. */
  drivers: string[];
  /** Each phrase of `match` (positive or negated): how many words FTS5 reads in it, and words
   * (single-word MATCH expressions) that every post where it stands holds — all but a prefix;
   * none when that is not certain (a word with a mark). FTS5 looks for the phrase among the
   * posts that hold all its words: when one of them is rare, so is the looking. */
  phrases: { length: number; words: string[] }[];
}

const NOTHING: PostMatch = { match: null, words: null, parts: [], low: null, high: null, phrasal: false, drivers: [], phrases: [] };

/** Drivers looked at (date-scan.ts counts each one's posts in its first step to pick one). */
const MAX_DRIVERS = 8;
/** Where FTS5's tokenizer (unicode61) surely ends a word: anything but letters, digits, private
 * use and marks. It ends words at some marks too (U+034F, U+FE0F, spacing marks), and folds
 * others into the letter before (é written as e and U+0301): a piece holding a mark may be one
 * word or several, and is no driver. */
const SEPARATORS = /[^\p{L}\p{N}\p{Co}\p{M}]+/u;
const MARK = /\p{M}/u;

/** A term's words as FTS5 reads them, when that is certain; null when a piece holds a mark. */
function pieces(text: string): string[] | null {
  const parts = text.split(SEPARATORS).filter((p) => p !== '');
  return parts.some((p) => MARK.test(p)) ? null : parts;
}

const isPrefix = (term: Term) => term.kind === 'word' && /^[^*]{2,}\*$/u.test(term.text);

/** Whether FTS5 reads a term as a phrase (more than one word, or maybe so). */
function isPhrasal(term: Term): boolean {
  const p = pieces(isPrefix(term) ? term.text.slice(0, -1) : term.text);
  return p === null || p.length > 1;
}

/** A phrase's length and the words every post where it stands holds (PostMatch.phrases). */
function phraseOf(term: Term): { length: number; words: string[] } {
  const text = isPrefix(term) ? term.text.slice(0, -1) : term.text;
  const p = pieces(text);
  // With a mark, FTS5 may read more words than the pieces: count every letter, digit and mark.
  if (p === null) return { length: text.split(/[^\p{L}\p{N}\p{Co}]+/u).length, words: [] };
  return { length: p.length, words: [...new Set((isPrefix(term) ? p.slice(0, -1) : p).map((w) => quote(w.replace(/[A-Z]/g, (c) => c.toLowerCase()))))] };
}

/** The posts' MATCH: terms in `body`, filters as facet words, dates as rowid bounds. */
export function postMatch(query: SearchQuery, resolveFrom: (handle: string | 'me') => ResolvedFrom, dayStart: (d: Day) => number): PostMatch {
  const positive: string[] = [];
  const negative: string[] = [];
  const parts: string[] = [];
  const terms = query.terms.filter((t) => !t.negated).map(phrase);
  const inBody = terms.length > 0 ? `{body} : (${terms.join(' AND ')})` : null;
  if (inBody) positive.push(inBody);
  for (const t of query.terms.filter((t) => !t.negated && t.kind === 'word' && !t.text.endsWith('*'))) parts.push(`{body} : ${phrase(t)}`);
  for (const t of query.terms.filter((t) => t.negated)) negative.push(`{body} : ${phrase(t)}`);

  // Same-kind positive filters are alternatives (from:a from:b, visibility:public visibility:unlisted).
  const groups = new Map<string, string[]>();
  for (const filter of query.filters) {
    const words = facetWords(filter, resolveFrom);
    if (filter.negated) {
      if (words.length > 0) negative.push(inColumn('facets', words.map(quote)));
      continue;
    }
    const key = filter.kind === 'has' || filter.kind === 'is' ? `${filter.kind}:${filter.what}` : filter.kind;
    groups.set(key, [...(groups.get(key) ?? []), ...words]);
  }
  for (const facets of groups.values()) {
    if (facets.length === 0) return NOTHING;
    const group = inColumn('facets', [...new Set(facets)].map(quote));
    positive.push(group);
    parts.unshift(group);
  }
  // Only negations or dates: every post has one visibility word, so this is "all posts".
  if (positive.length === 0) positive.push(inColumn('facets', Object.values(FACET.visibility).map(quote)));
  const match = `${positive.join(' AND ')}${negative.map((n) => ` NOT ${n}`).join('')}`;
  if (terms.length + groups.size < 2) parts.length = 0;
  const drivers = new Set<string>();
  for (const facets of groups.values()) if (new Set(facets).size === 1) drivers.add(quote(facets[0]!));
  for (const t of query.terms.filter((t) => !t.negated && !(t.kind === 'word' && t.text.endsWith('*')))) {
    for (const piece of pieces(t.text) ?? []) drivers.add(quote(piece.replace(/[A-Z]/g, (c) => c.toLowerCase())));
  }
  const startSeconds = (d: Day) => Math.max(0, Math.floor(dayStart(d) / 1000));
  return {
    match,
    words: inBody,
    parts,
    // after:D is after the end of D: from the start of the next day on (day 32 is the 1st: Date rolls over).
    low: query.after ? rowidOfSecond(startSeconds({ ...query.after, day: query.after.day + 1 })) : null,
    high: query.before ? rowidOfSecond(startSeconds(query.before)) : null,
    phrasal: query.terms.some(isPhrasal),
    phrases: query.terms.filter(isPhrasal).map(phraseOf),
    drivers: [...drivers].slice(0, MAX_DRIVERS),
  };
}

function facetWords(filter: Filter, resolveFrom: (handle: string | 'me') => ResolvedFrom): string[] {
  switch (filter.kind) {
    case 'has':
      return [filter.what === 'media' ? FACET.media : FACET.poll];
    case 'is':
      return [filter.what === 'reply' ? FACET.reply : FACET.mine];
    case 'visibility':
      return [FACET.visibility[filter.visibility]!];
    case 'from': {
      const who = resolveFrom(filter.handle);
      return who.me ? [FACET.mine] : who.actorIds.map(FACET.actor);
    }
  }
}
