// Relevance within the window: more occurrences first (saturating), shorter text first for the
// same count, newer first on a tie.
import { expect, it } from 'vitest';
import { rankByTermFrequency } from './rank';

const row = (rowid: number, marked: string) => ({ rowid, marked });
const m = (word: string) => `\u0002${word}\u0003`;

it('ranks by occurrences, then by shortness, then newest first', () => {
  const filler = ' and some more words about the day'.repeat(3);
  const ranked = rankByTermFrequency([
    row(1, `${m('tern')} once${filler}`),
    row(2, `${m('tern')} ${m('tern')} ${m('tern')} thrice${filler}`),
    row(3, `${m('tern')} short`),
    row(4, `${m('tern')} once${filler}`),
    row(5, `${m('tern')} ${m('tern')} twice${filler}`),
  ]);
  const order = ranked.map((r) => r.rowid);
  // Same length: more occurrences first, then newer first.
  expect(order.filter((id) => id !== 3)).toEqual([2, 5, 4, 1]);
  // Same count: the short post above the long ones (as BM25, even above more occurrences in a long text).
  expect(order.indexOf(3)).toBeLessThan(order.indexOf(4));
  expect(rankByTermFrequency([])).toEqual([]);
});

it('weighs length against the window’s average: the same post ranks higher among long texts than among short ones', () => {
  const text = (length: number, marks: number) => `${`${m('tern')} `.repeat(marks)}${'x'.repeat(length)}`;
  const twice = row(1, text(100, 2));
  // Among texts of about its length, saying it twice wins.
  expect(rankByTermFrequency([twice, row(2, text(95, 1)), row(3, text(110, 1))]).map((r) => r.rowid)).toEqual([1, 2, 3]);
  // Among much shorter texts, its length costs more than the second occurrence brings.
  expect(rankByTermFrequency([twice, row(2, text(5, 1)), row(3, text(8, 1))]).map((r) => r.rowid)).toEqual([2, 3, 1]);
});
