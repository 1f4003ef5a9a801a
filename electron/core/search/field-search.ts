// People and webmentions by relevance (service.ts): FTS5 tables of a few weighted columns
// (search_person: name, handle, bio; search_webmention: body, author, source) ranked over a
// bounded window of their newest matches, as posts are (rank.ts), not with FTS5's bm25 over
// every match. Anyone can add rows to both (each actor that follows or mentions is stored with
// the name it chose; anyone can send a webmention), and bm25 scores and sorts every match before
// LIMIT: 80,000 people named "User n", a search for "user": 135-258 ms; 100,000 webmentions
// holding "hello": 170-230 ms. Here the newest WINDOW matches are read with their columns
// marked (highlight()), scored by BM25's term-frequency part over the weighted columns, and
// sorted: a page of those people 10 ms (search.query, all of it), of those webmentions 5 ms,
// whatever the number of matches. What changes: a query with more matches than the window ranks
// its newest ones only (the best of the rest may come after less good newer ones), and the
// older follow, newest first: positions stay the same from page to page, so paging by offset
// still reaches every match once. With fewer, all are ranked, much as bm25 ranked them (no IDF:
// every match holds every word; length in characters, against the window's average).
import type { Sqlite } from '../../../db/client';
import { marksIn, rankScored } from './rank';

/** Matches ranked by relevance: the newest this-many (people, webmentions: a few hundred
 * characters each; 2,000 people "User n" read marked in 4-6 ms, 2,000 webmentions in 3-4 ms). */
export const FIELD_WINDOW = 2000;
/** And at most about this many characters of their text: FTS5 reads each match's whole text to
 * mark it (7 ns a character for a bio of 60 words, 66 ns when every tenth word matches), and a
 * bio may be as long as an actor's document (256 KiB): 1,000 such would take seconds. Checked
 * after each match, so the window goes over by one match's text at most. */
export const FIELD_WINDOW_CHARS = 500_000;

/** `fields`: each column as FTS5's highlight() marks it (\u0002 before each matched word). The
 * score is BM25's term part (rank.ts), the columns weighed as bm25(table, …weights) weighs them
 * (a match in a name counts four times one in a bio), the length that of all columns. */
export function rankByWeightedFields<T extends { rowid: number; fields: readonly string[] }>(window: T[], weights: readonly number[]): T[] {
  return rankScored(
    window.map((row) => {
      let tf = 0;
      let length = 0;
      row.fields.forEach((text, column) => {
        const hits = marksIn(text);
        tf += hits * (weights[column] ?? 1);
        length += text.length - 2 * hits;
      });
      return { row, tf, length };
    }),
  );
}

export interface FieldSearch {
  /** The matches of `match` (an FTS5 MATCH expression) at positions offset..offset+limit in
   * relevance order, with snippets; `more`: there are matches after them. */
  page(match: string, offset: number, limit: number): { rows: { rowid: number; snippet: string }[]; more: boolean };
}

/** `table`: an FTS5 table of `weights.length` columns; `snippet`: snippet()'s arguments after
 * the column (the marks, the ellipsis, the tokens). */
export function createFieldSearch(sqlite: Sqlite, table: string, weights: readonly number[], snippet: string): FieldSearch {
  const marked = weights.map((_, column) => `highlight(${table}, ${column}, char(2), char(3))`).join(', ');
  const s = {
    // Newest first: FTS5 reads its lists of rows in rowid order, so this stops at the window.
    window: sqlite.prepare(`SELECT rowid, ${marked} FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC`).raw(true),
    // Matches older than the window, newest first; those passed over are read as rowids alone.
    below: sqlite.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ? OFFSET ?`).pluck(),
    // The page's snippets. The rowids are bounds FTS5 reads within (bound as BigInt: a JS number
    // binds as a REAL, and FTS5 then ignores a rowid bound beside MATCH); the list filters the
    // matches between them (+rowid: a filter, not a lookup by rowid, which made FTS5 evaluate
    // the MATCH once per rowid: 21 people of "user*" took 62-86 ms so, 0.2-7 ms this way).
    snippets: sqlite.prepare(
      `SELECT rowid, snippet(${table}, -1, ${snippet}) AS snippet FROM ${table}
       WHERE ${table} MATCH ? AND rowid >= ? AND rowid <= ? AND +rowid IN (SELECT value FROM json_each(?))`,
    ),
  };

  /** The newest matches, up to FIELD_WINDOW and about FIELD_WINDOW_CHARS; `complete`: no more. */
  function window(match: string): { rows: { rowid: number; fields: string[] }[]; complete: boolean } {
    const rows: { rowid: number; fields: string[] }[] = [];
    let chars = 0;
    for (const [rowid, ...fields] of s.window.iterate(match) as Iterable<[number, ...string[]]>) {
      rows.push({ rowid, fields });
      chars += fields.reduce((sum, f) => sum + f.length, 0);
      // Leaving the loop resets the statement: the rest is never read.
      if (rows.length >= FIELD_WINDOW || chars >= FIELD_WINDOW_CHARS) return { rows, complete: false };
    }
    return { rows, complete: true };
  }

  return {
    page(match, offset, limit) {
      const { rows, complete } = window(match);
      const ranked = rankByWeightedFields(rows, weights).slice(offset, offset + limit + 1);
      const rowids = ranked.map((r) => r.rowid);
      if (rowids.length < limit + 1 && !complete) {
        const oldest = rows.at(-1)!.rowid;
        const skip = Math.max(0, offset - rows.length);
        rowids.push(...(s.below.all(match, BigInt(oldest), limit + 1 - rowids.length, skip) as number[]));
      }
      const shown = rowids.slice(0, limit);
      if (shown.length === 0) return { rows: [], more: false };
      const found = s.snippets.all(match, BigInt(Math.min(...shown)), BigInt(Math.max(...shown)), JSON.stringify(shown)) as { rowid: number; snippet: string }[];
      const snippets = new Map(found.map((r) => [r.rowid, r.snippet]));
      return { rows: shown.map((rowid) => ({ rowid, snippet: snippets.get(rowid) ?? '' })), more: rowids.length > limit };
    },
  };
}
