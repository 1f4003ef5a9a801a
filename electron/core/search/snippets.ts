// The snippets of a page of posts ranked by relevance: FTS5's own snippet() over a scratch copy
// of search_post, in memory, that holds the page's texts alone. snippet() reads nothing but a
// row's text and the query's phrases in it, so the copy (made by the index's own CREATE
// statement: the same columns and tokenizer) gives what the index would. Asked for rows far
// apart — a filter's posts among a common word's, a page's 20 spread over thousands of matches —
// the index walks every match between them, or looks each row up in each of its segments
// (4-11 ms a page); the copy takes about 1 ms, however far apart they are.
import { openSqlite, type Sqlite } from '../../../db/client';

export interface PageSnippets {
  /** The snippets of these texts (search_post's rowid and body) for `words`, a MATCH
   * expression on `body` that each of them matches. */
  of(rows: readonly { rowid: number; body: string }[], words: string): Map<number, string>;
  close(): void;
}

/** An in-memory database with an empty copy of search_post named `page`, made by the index's
 * own CREATE statement (the same columns and tokenizer): a text matches there as it would in
 * the index. `options`: more FTS5 options for the copy (content='' for one that keeps no text). */
export function scratchCopy(index: Sqlite, options = ''): Sqlite {
  const create = index.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search_post'").pluck().get() as string | undefined;
  let copy = create?.replace(/^CREATE VIRTUAL TABLE search_post USING fts5\(/i, 'CREATE VIRTUAL TABLE page USING fts5(');
  if (!copy || copy === create || !copy.trimEnd().endsWith(')')) throw new Error(`search_post is not the FTS5 table this code knows: ${create ?? 'missing'}`);
  if (options) copy = `${copy.trimEnd().slice(0, -1)}, ${options})`;
  const db = openSqlite(':memory:');
  db.exec(copy);
  return db;
}

/** `args`: snippet()'s arguments after the column, as the index's own queries give them. */
export function createPageSnippets(index: Sqlite, args: string): PageSnippets {
  let scratch: { db: Sqlite; of: (rows: readonly { rowid: number; body: string }[], words: string) => { rowid: number; snippet: string }[] } | null = null;

  function open(): NonNullable<typeof scratch> {
    const db = scratchCopy(index);
    const clear = db.prepare('DELETE FROM page');
    const add = db.prepare('INSERT INTO page (rowid, body) VALUES (?, ?)');
    const snippets = db.prepare(`SELECT rowid, snippet(page, 0, ${args}) AS snippet FROM page WHERE page MATCH ?`);
    const of = db.transaction((rows: readonly { rowid: number; body: string }[], words: string) => {
      clear.run();
      for (const r of rows) add.run(BigInt(r.rowid), r.body);
      return snippets.all(words) as { rowid: number; snippet: string }[];
    });
    return { db, of };
  }

  return {
    of(rows, words) {
      if (rows.length === 0) return new Map();
      scratch ??= open();
      return new Map(scratch.of(rows, words).map((r) => [r.rowid, r.snippet]));
    },
    close() {
      scratch?.db.close();
      scratch = null;
    },
  };
}
