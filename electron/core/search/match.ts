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
}

const NOTHING: PostMatch = { match: null, words: null, parts: [], low: null, high: null };

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
  const startSeconds = (d: Day) => Math.max(0, Math.floor(dayStart(d) / 1000));
  return {
    match,
    words: inBody,
    parts,
    // after:D is after the end of D: from the start of the next day on (day 32 is the 1st: Date rolls over).
    low: query.after ? rowidOfSecond(startSeconds({ ...query.after, day: query.after.day + 1 })) : null,
    high: query.before ? rowidOfSecond(startSeconds(query.before)) : null,
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
