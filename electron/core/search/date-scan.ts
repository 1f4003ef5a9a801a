// Newest-first search for a match that holds a phrase, in steps that each hold the main thread
// a bounded time. FTS5 cannot do it in one query: looking for a phrase, it walks the posts that
// hold all of the phrase's words until the words stand together, and checks a rowid bound only
// at a match — `"in ut"`, two words of every post that never stand together, read the whole
// index whatever the bounds (121 ms over 358,000 posts, any range; eight words 330 ms, three
// phrases of eight 880 ms; the audit's phrase of 160 words 480-830 ms over 60,000). (Words
// alone that never stand in one post together are read so too; they stay one query, as
// before.) A single word FTS5 reads within bounds and up to a limit. So a step reads the next
// posts, newest first, that hold one word of the query (the driver: the word whose first 1,000
// posts reach furthest back, so the fewest posts hold it), and checks each against the whole
// match on its text, in a scratch copy of the index's table (snippets.ts scratchCopy: same
// columns and tokenizer, so the answer is the index's own). The clock is looked at between a
// few texts, and the search stops after SCAN_BUDGET_MS with how far it got, for the next
// search to go on below.
import type { Sqlite } from '../../../db/client';
import { scratchCopy } from './snippets';

/** How long one search reads before it stops and says where it got to. The listener's rule is
 * 100 ms for a whole request; the Mastodon search answers in 10-20 ms more (its statuses), and
 * indexes what was written just before it (up to 25 ms). With 30, a search took 25-39 ms of
 * CPU, and 60-260 ms of wall time on the 2-core test machine under a load of 8-13 (the audit's
 * stall: 140 ms); 15 leaves room for such a machine. */
export const SCAN_BUDGET_MS = 15;
/** Posts of the driver read in the first step; each next step reads twice as many, up to
 * MAX_STEP (reading them is not stopped by the clock: 8,000 rowids take 1-3 ms). */
const FIRST_STEP = 1000;
const MAX_STEP = 8000;
/** Texts checked at a time between looks at the clock: a post's text is at most about 128 KiB
 * (64 KiB of content and as much of summary), so 16 of them take at most 10-20 ms; the usual
 * 300-character ones 10-30 µs each (a 2-word phrase; 160 words). */
const CHECK_CHUNK = 16;
/** The scratch table is emptied each chunk; made anew after this many texts, to keep it small. */
const MAX_ROWS_BEFORE_RESET = 4096;
/** Posts read in order for a chunk's texts (see `stretch`). */
const STRETCH = 4 * CHECK_CHUNK;

export interface ScanResult {
  /** Rowids of matches, newest first (maybe more than asked for). */
  rowids: number[];
  /** Every match in [floor, high) is in `rowids`: a next search goes on below floor. */
  floor: number;
  /** Nothing was left unread: floor is `low`. */
  exhausted: boolean;
}

export interface DateScan {
  /** Matches of `match` in [low, high), newest first, until `want` are found, everything was
   * read, or `budgetMs` have passed. `drivers`: PostMatch.drivers. */
  scan(match: string, drivers: readonly string[], low: number, high: number, want: number, budgetMs?: number): ScanResult;
  close(): void;
}

export function createDateScan(index: Sqlite, now: () => number = () => performance.now()): DateScan {
  // Rowids are bound as BigInt: FTS5 ignores a rowid constraint bound as a REAL (service.ts).
  const s = {
    // The next `n` posts below `top` that hold a word: FTS5 reads one word's list of posts within
    // bounds and stops at the limit (1,000 of a word in every post: 0.2-1 ms).
    holding: index.prepare('SELECT rowid FROM search_post WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT ?').pluck(),
    // The same of every post (no driver), from the table FTS5 keeps the texts in (its key is the rowid).
    posts: index.prepare('SELECT id FROM search_post_content WHERE id >= ? AND id < ? ORDER BY id DESC LIMIT ?').pluck(),
    // A chunk's texts: the stretch of posts from its first on, read in order (0.4 µs a text),
    // as far as STRETCH posts — all of the chunk when its posts stand close together (a driver
    // most posts hold) —, and what that missed by rowid each (2-8 µs a text).
    stretch: index.prepare(`SELECT id AS rowid, c0 AS body, c1 AS facets FROM search_post_content WHERE id >= ? AND id <= ? LIMIT ${STRETCH}`),
    texts: index.prepare('SELECT id AS rowid, c0 AS body, c1 AS facets FROM search_post_content WHERE id IN (SELECT value FROM json_each(?))'),
  };
  type Text = { rowid: number; body: string; facets: string };
  let scratch: { db: Sqlite; check: (rows: Text[], match: string) => number[]; rows: number } | null = null;

  function open(): NonNullable<typeof scratch> {
    // content='': the copy keeps no text, so emptying it is one command, not each text read again.
    const db = scratchCopy(index, "content=''");
    const clear = db.prepare("INSERT INTO page (page) VALUES ('delete-all')");
    const add = db.prepare('INSERT INTO page (rowid, body, facets) VALUES (?, ?, ?)');
    const matching = db.prepare('SELECT rowid FROM page WHERE page MATCH ?').pluck();
    const check = db.transaction((rows: Text[], match: string) => {
      clear.run();
      for (const r of rows) add.run(BigInt(r.rowid), r.body, r.facets);
      return matching.all(match) as number[];
    });
    return { db, check, rows: 0 };
  }

  /** Which of these rowids (ascending) match, by their texts in the scratch copy. */
  function check(match: string, rowids: number[]): number[] {
    if (scratch && scratch.rows > MAX_ROWS_BEFORE_RESET) {
      scratch.db.close();
      scratch = null;
    }
    scratch ??= open();
    const wanted = new Set(rowids);
    const rows = (s.stretch.all(BigInt(rowids[0]!), BigInt(rowids[rowids.length - 1]!)) as Text[]).filter((r) => wanted.delete(r.rowid));
    if (wanted.size > 0) rows.push(...(s.texts.all(JSON.stringify([...wanted])) as Text[]));
    scratch.rows += rows.length;
    return scratch.check(rows, match);
  }

  /** The next `n` posts below `top` (newest first) that hold `driver` (null: every post). */
  const next = (driver: string | null, low: number, top: number, n: number) =>
    (driver === null ? s.posts.all(BigInt(low), BigInt(top), n) : s.holding.all(driver, BigInt(low), BigInt(top), n)) as number[];

  /** The driver whose first FIRST_STEP posts below `top` reach furthest back (the fewest posts
   * hold it), with those posts; no driver: every post. */
  function pickDriver(drivers: readonly string[], low: number, top: number): { driver: string | null; candidates: number[] } {
    let best: { driver: string | null; candidates: number[] } | null = null;
    const reach = (c: number[]) => (c.length < FIRST_STEP ? -1 : c[c.length - 1]!);
    for (const driver of drivers) {
      const candidates = next(driver, low, top, FIRST_STEP);
      if (!best || reach(candidates) < reach(best.candidates) || (reach(candidates) === -1 && candidates.length < best.candidates.length)) best = { driver, candidates };
    }
    return best ?? { driver: null, candidates: next(null, low, top, FIRST_STEP) };
  }

  return {
    scan(match, drivers, low, high, want, budgetMs = SCAN_BUDGET_MS) {
      const start = now();
      const outOfTime = () => now() - start >= budgetMs;
      const found: number[] = [];
      let top = high;
      let size = FIRST_STEP;
      let driver: string | null | undefined;
      for (;;) {
        let candidates: number[];
        if (driver === undefined) ({ driver, candidates } = pickDriver(drivers, low, top));
        else candidates = next(driver, low, top, size);
        // Fewer than asked for: the driver's posts down to `low` are all here.
        const last = candidates.length < size;
        // Newest first, a few texts at a time; stopped between, everything from the last text
        // checked up has been (the posts between candidates hold no driver: no match).
        for (let from = 0; from < candidates.length; ) {
          const chunk = candidates.slice(from, from + CHECK_CHUNK);
          found.push(...check(match, chunk.toReversed()).sort((a, b) => b - a));
          from += chunk.length;
          const floor = chunk[chunk.length - 1]!;
          if (last && from === candidates.length) break;
          if (found.length >= want || outOfTime()) return { rowids: found, floor, exhausted: false };
        }
        if (last) return { rowids: found, floor: low, exhausted: true };
        top = candidates[candidates.length - 1]!;
        size = Math.min(MAX_STEP, size * 2);
      }
    },
    close() {
      scratch?.db.close();
      scratch = null;
    },
  };
}
