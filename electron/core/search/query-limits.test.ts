// What bounds a query's cost before it reaches the index: repeated words and phrases collapse
// into one, a query holds at most MAX_TERMS of them, and what FTS5 reads as a phrase is marked
// (PostMatch.phrasal), with the single words that find its posts (drivers) and, per phrase, its
// length and the words every post holding it holds (phrases) — the date search steps through a
// phrase whose words are common (date-scan.ts) instead of reading the whole index at once.
import { describe, expect, it } from 'vitest';
import { postMatch, type ResolvedFrom } from './match';
import { MAX_TERMS, parseQuery, QuerySyntaxError } from './query';

const match = (text: string, resolve: (h: string) => ResolvedFrom = () => ({ me: false, actorIds: [] })) =>
  postMatch(parseQuery(text), resolve, (d) => Date.UTC(d.year, d.month - 1, d.day));

describe('repeats and the number of terms', () => {
  it('a word or phrase said again is one term (A-Z in any case); a phrase keeps its own repeats', () => {
    expect(parseQuery(`${'ut '.repeat(160)}`).terms).toEqual([{ kind: 'word', text: 'ut', negated: false }]);
    expect(parseQuery('in UT ut In "in ut" "In Ut" -ut -ut').terms).toEqual([
      { kind: 'word', text: 'in', negated: false },
      { kind: 'word', text: 'UT', negated: false },
      { kind: 'phrase', text: 'in ut', negated: false },
      { kind: 'word', text: 'ut', negated: true },
    ]);
    expect(parseQuery(`"${'ut '.repeat(160).trim()}"`).terms).toEqual([{ kind: 'phrase', text: 'ut '.repeat(160).trim(), negated: false }]);
  });

  it(`at most ${MAX_TERMS} different words and phrases: more is refused with a sentence`, () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(parseQuery(words(MAX_TERMS)).terms).toHaveLength(MAX_TERMS);
    expect(() => parseQuery(words(MAX_TERMS + 1))).toThrow(QuerySyntaxError);
    expect(() => parseQuery(words(MAX_TERMS + 1))).toThrow(`Search for at most ${MAX_TERMS} words and phrases at a time (this has ${MAX_TERMS + 1}).`);
    // Repeats do not count.
    expect(parseQuery(`${words(MAX_TERMS)} ${words(MAX_TERMS)}`).terms).toHaveLength(MAX_TERMS);
  });
});

describe('phrases, as FTS5 reads them', () => {
  it('words alone are no phrase: one FTS5 query finds them, as before', () => {
    expect(match('kingfisher heron has:media -gull kingf*')).toMatchObject({ phrasal: false, phrases: [] });
  });

  it('a quoted phrase, a word the tokenizer splits (don’t, a URL, x-ray), a prefix of several words, a negated phrase', () => {
    for (const text of ['"in ut"', 'don’t', 'https://example.com/a', 'x-ray', 'foo-ba*', 'tern -"grey heron"']) expect(match(text).phrasal, text).toBe(true);
    expect(match('"in ut" "In UT in ut" -"grey heron" foo-ba*').phrases).toEqual([
      { length: 2, words: ['"in"', '"ut"'] },
      { length: 4, words: ['"in"', '"ut"'] },
      { length: 2, words: ['"grey"', '"heron"'] },
      // The prefix ("ba*") is no word every post of the phrase holds.
      { length: 2, words: ['"foo"'] },
    ]);
  });

  it('a word with a mark the tokenizer may split at holds no certain words: it is no driver, and counts each piece', () => {
    const m = match('"a\u034fb\u034fc" tern');
    expect(m.phrasal).toBe(true);
    expect(m.phrases).toEqual([{ length: 3, words: [] }]);
    expect(m.drivers).toEqual(['"tern"']);
    // é as e and a combining accent: one word to FTS5, no certain driver.
    expect(match('cafe\u0301').drivers).toEqual([]);
  });

  it('drivers: a filter group of one facet word first, then each positive word of words and phrases, not negated ones or prefixes', () => {
    const resolve = (h: string): ResolvedFrom => ({ me: false, actorIds: h.startsWith('@ana') ? [7] : [7, 9] });
    expect(match('"In ut" dolor -sit kingf* has:media from:@ana@a.example', resolve).drivers).toEqual(['"hmedia"', '"a7"', '"in"', '"ut"', '"dolor"']);
    // Two authors are two facet words: a post of the match holds one of them, not each.
    expect(match('"in ut" from:@bo@b.example', resolve).drivers).toEqual(['"in"', '"ut"']);
    expect(match(`"${Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ')}"`).drivers).toHaveLength(8);
  });
});
