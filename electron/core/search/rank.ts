// Relevance within a window of matches (service.ts): BM25's term-frequency part, from each
// match's text as FTS5's highlight() marks it (\u0002 before each matched word or phrase).
// Every match holds every word of the query, so what sets them apart is how often the words
// occur (saturating: the tenth time counts less than the second) against the text's length
// (the same words in a short post weigh more than in a long one). Ties: newer first.

const K1 = 1.2;
const B = 0.75;
const START = '\u0002'; // the highlight marker

export function rankByTermFrequency<T extends { rowid: number; marked: string }>(window: T[]): T[] {
  if (window.length === 0) return [];
  const scored = window.map((row) => {
    // indexOf, not a loop over each character: 3,000 texts of 400 characters took 5-15 ms so.
    let tf = 0;
    for (let i = row.marked.indexOf(START); i !== -1; i = row.marked.indexOf(START, i + 1)) tf++;
    return { row, tf, length: row.marked.length - 2 * tf };
  });
  const average = scored.reduce((sum, r) => sum + r.length, 0) / scored.length || 1;
  const score = (tf: number, length: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / average));
  return scored
    .map((r) => ({ row: r.row, score: score(r.tf, r.length) }))
    .sort((a, b) => b.score - a.score || b.row.rowid - a.row.rowid)
    .map((r) => r.row);
}
