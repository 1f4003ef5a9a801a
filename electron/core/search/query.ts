// The search box's language, as people know it from Mastodon and mail clients: words (all must
// appear), "exact phrases", -word or -"phrase" to leave out, and operators:
//   from:@user@host (or from:me)   has:media  has:poll   is:reply  is:mine
//   before:YYYY-MM-DD  after:YYYY-MM-DD  during:YYYY-MM-DD
//   visibility:public|unlisted|followers|direct
// A leading - negates an operator too (-is:reply). Parsed into a typed query; mistakes are
// QuerySyntaxErrors with a sentence saying what to write instead. Unknown `word:` prefixes are
// words (a URL, "note:"), as Mastodon treats them.
import type { Visibility } from '../../../db/columns';

export interface Term {
  kind: 'word' | 'phrase';
  text: string;
  negated: boolean;
}

export type Filter =
  | { kind: 'from'; handle: string | 'me'; negated: boolean }
  | { kind: 'has'; what: 'media' | 'poll'; negated: boolean }
  | { kind: 'is'; what: 'reply' | 'mine'; negated: boolean }
  | { kind: 'visibility'; visibility: Visibility; negated: boolean };

/** A calendar day, as typed. */
export interface Day {
  year: number;
  month: number;
  day: number;
}

export interface SearchQuery {
  terms: Term[];
  filters: Filter[];
  /** Published before the start of this day. */
  before: Day | null;
  /** Published after the end of this day. */
  after: Day | null;
}

export class QuerySyntaxError extends Error {
  override name = 'QuerySyntaxError';
  constructor(message: string) {
    super(message);
  }
}

const VISIBILITY: Record<string, Visibility> = {
  public: 'PUBLIC',
  unlisted: 'UNLISTED',
  followers: 'FOLLOWERS_ONLY',
  'followers-only': 'FOLLOWERS_ONLY',
  private: 'FOLLOWERS_ONLY',
  direct: 'DIRECT',
};
const OPERATORS = new Set(['from', 'has', 'is', 'before', 'after', 'during', 'visibility']);
const HANDLE_RE = /^@?([^@\s]+)@([^@\s]+\.[^@\s]+)$/;
/** A word has a letter or digit; "!!!" would match nothing, and is left out. */
const WORDY = /[\p{L}\p{N}]/u;
/** Words and phrases a query may hold (after repeats are collapsed). Every one is another list
 * of posts FTS5 walks beside the others, and the 500 characters the search box takes hold 250
 * one-letter words; nobody searches for more than a few. A query over the limit is refused with
 * a sentence, not cut short (leaving out a -word would show what was to be left out). */
export const MAX_TERMS = 32;

/** Parses the search box's text; throws QuerySyntaxError with a sentence for the user. */
export function parseQuery(text: string): SearchQuery {
  const query: SearchQuery = { terms: [], filters: [], before: null, after: null };
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let negated = false;
    if (text[i] === '-' && i + 1 < text.length && !/\s/.test(text[i + 1]!)) {
      negated = true;
      i++;
    }
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      if (end === -1) throw new QuerySyntaxError('A quotation mark is not closed: end the phrase with ".');
      const phrase = text.slice(i + 1, end).replace(/\s+/g, ' ').trim();
      if (WORDY.test(phrase)) query.terms.push({ kind: 'phrase', text: phrase, negated });
      i = end + 1;
      continue;
    }
    let end = i;
    while (end < text.length && !/\s/.test(text[end]!)) end++;
    const token = text.slice(i, end);
    i = end;
    const colon = token.indexOf(':');
    const key = colon > 0 ? token.slice(0, colon).toLowerCase() : '';
    if (OPERATORS.has(key)) {
      operator(query, key, token.slice(colon + 1), negated);
      continue;
    }
    if (token.includes('"')) throw new QuerySyntaxError(`A quotation mark inside “${token}”: put the whole phrase in quotes, "like this".`);
    if (WORDY.test(token)) query.terms.push({ kind: 'word', text: token, negated });
  }
  query.terms = collapseRepeats(query.terms);
  if (query.terms.length > MAX_TERMS) {
    throw new QuerySyntaxError(`Search for at most ${MAX_TERMS} words and phrases at a time (this has ${query.terms.length}).`);
  }
  if (query.terms.length > 0 && query.terms.every((t) => t.negated) && query.filters.every((f) => f.negated) && !query.before && !query.after) {
    throw new QuerySyntaxError('Say what to look for, not only what to leave out (a word, or from:, has:, is:…).');
  }
  if (query.before && query.after && dayNumber(query.before) <= dayNumber(query.after) + 1) {
    throw new QuerySyntaxError(`No day is both before ${dayText(query.before)} and after ${dayText(query.after)}.`);
  }
  return query;
}

/** The terms with repeats left out: `ut ut ut` asks no more than `ut`, and FTS5 would walk
 * the word's posts once per repeat (FTS5 folds case, so `Ut` repeats `ut`; only A-Z are folded
 * here, which FTS5 surely folds alike). */
function collapseRepeats(terms: Term[]): Term[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = `${t.negated ? '-' : ''}${t.kind}:${t.text.replace(/[A-Z]/g, (c) => c.toLowerCase())}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function operator(query: SearchQuery, key: string, rawValue: string, negated: boolean): void {
  const value = rawValue.toLowerCase();
  if (value === '') throw new QuerySyntaxError(`${key}: needs a value, for example ${EXAMPLES[key]}.`);
  if (key === 'from') {
    if (value === 'me' || value === '@me') {
      query.filters.push({ kind: 'from', handle: 'me', negated });
      return;
    }
    const m = HANDLE_RE.exec(rawValue);
    if (!m) throw new QuerySyntaxError(`from: takes someone’s address, like from:@ana@example.social, or from:me — not “${rawValue}”.`);
    query.filters.push({ kind: 'from', handle: `@${m[1]}@${m[2]!.toLowerCase()}`, negated });
  } else if (key === 'has') {
    if (value !== 'media' && value !== 'poll') throw new QuerySyntaxError(`has: takes media or poll, not “${rawValue}”.`);
    query.filters.push({ kind: 'has', what: value, negated });
  } else if (key === 'is') {
    if (value !== 'reply' && value !== 'mine') throw new QuerySyntaxError(`is: takes reply or mine, not “${rawValue}”.`);
    query.filters.push({ kind: 'is', what: value, negated });
  } else if (key === 'visibility') {
    const visibility = VISIBILITY[value];
    if (!visibility) throw new QuerySyntaxError(`visibility: takes public, unlisted, followers or direct, not “${rawValue}”.`);
    query.filters.push({ kind: 'visibility', visibility, negated });
  } else {
    if (negated) throw new QuerySyntaxError(`-${key}: cannot be negated; use ${key === 'before' ? 'after:' : 'before:'} instead.`);
    const day = parseDay(rawValue, key);
    if (key === 'before' || key === 'during') query.before = later(query.before, key === 'during' ? nextDay(day) : day, 'min');
    if (key === 'after' || key === 'during') query.after = later(query.after, key === 'during' ? previousDay(day) : day, 'max');
  }
}

const EXAMPLES: Record<string, string> = {
  from: 'from:@ana@example.social',
  has: 'has:media',
  is: 'is:reply',
  before: 'before:2024-05-01',
  after: 'after:2024-05-01',
  during: 'during:2024-05-01',
  visibility: 'visibility:public',
};

function parseDay(value: string, key: string): Day {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : null;
  const date = day ? new Date(Date.UTC(day.year, day.month - 1, day.day)) : null;
  if (!day || !date || date.getUTCMonth() !== day.month - 1 || date.getUTCDate() !== day.day) {
    throw new QuerySyntaxError(`${key}: takes a date as YYYY-MM-DD, like ${EXAMPLES[key]} — not “${value}”.`);
  }
  return day;
}

const dayNumber = (d: Day) => Date.UTC(d.year, d.month - 1, d.day) / 86_400_000;
const fromNumber = (n: number): Day => {
  const date = new Date(n * 86_400_000);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
};
const nextDay = (d: Day) => fromNumber(dayNumber(d) + 1);
const previousDay = (d: Day) => fromNumber(dayNumber(d) - 1);
const later = (current: Day | null, day: Day, keep: 'min' | 'max') =>
  current === null ? day : (keep === 'min' ? dayNumber(day) < dayNumber(current) : dayNumber(day) > dayNumber(current)) ? day : current;
export const dayText = (d: Day) => `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;

/** Whether a query has anything that could match: a word or phrase, or a filter. */
export const isEmptyQuery = (q: SearchQuery) => q.terms.length === 0 && q.filters.length === 0 && !q.before && !q.after;
