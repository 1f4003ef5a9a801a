// People and webmentions by relevance over a window of their newest matches: weighted columns
// (a name above a bio), more occurrences first, newer first on a tie; past the window the older
// matches follow newest first, and paging by offset reaches every match once.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite, type Sqlite } from '../../../db/client';
import { createFieldSearch, FIELD_WINDOW, FIELD_WINDOW_CHARS, rankByWeightedFields } from './field-search';

const m = (word: string) => `\u0002${word}\u0003`;
const row = (rowid: number, fields: string[]) => ({ rowid, fields });

it('ranks a match in a heavier column first, then more occurrences, then newest first', () => {
  const weights = [4, 4, 1];
  const ranked = rankByWeightedFields(
    [
      row(1, ['Ana', '@ana@a.example', `likes ${m('boats')} and trains`]),
      row(2, [`${m('Boats')} Fan`, '@fan@b.example', 'likes water and trains']),
      row(3, ['Bea', '@bea@c.example', `likes ${m('boats')} and ${m('boats')}`]),
      row(4, ['Cy', '@cy@d.example', `likes ${m('boats')} and trains`]),
    ],
    weights,
  );
  expect(ranked.map((r) => r.rowid)).toEqual([2, 3, 4, 1]);
  expect(rankByWeightedFields([], weights)).toEqual([]);
});

let sqlite: Sqlite;
beforeEach(() => {
  sqlite = openSqlite(':memory:');
  sqlite.exec("CREATE VIRTUAL TABLE search_person USING fts5(name, handle, bio, tokenize = 'unicode61 remove_diacritics 2')");
});
afterEach(() => sqlite.close());

/** Numbers of one width: names of one length tie, and newer come first. */
const pad = (n: number) => String(n).padStart(5, '0');
function people(rows: { rowid: number; name: string; bio?: string }[]) {
  const add = sqlite.prepare('INSERT INTO search_person (rowid, name, handle, bio) VALUES (?, ?, ?, ?)');
  sqlite.transaction(() => rows.forEach((r) => add.run(r.rowid, r.name, `@u${pad(r.rowid)}@r.example`, r.bio ?? '')))();
}
const search = () => createFieldSearch(sqlite, 'search_person', [4, 4, 1], "char(2), char(3), '…', 16");
/** Every match, page by page (offset cursor, as search.query pages). */
function allPages(match: string, limit: number): number[] {
  const found: number[] = [];
  const s = search();
  for (let offset = 0; ; offset += limit) {
    const page = s.page(match, offset, limit);
    found.push(...page.rows.map((r) => r.rowid));
    if (!page.more) return found;
  }
}

it('fewer matches than the window: ranked, with snippets, paged to the last', () => {
  people([
    { rowid: 1, name: 'Old Sailor', bio: 'boats' },
    { rowid: 2, name: 'Boats Daily' },
    { rowid: 3, name: 'Nobody', bio: 'trains' },
    { rowid: 4, name: 'Quiet', bio: 'boats and more boats' },
  ]);
  const first = search().page('"boats"', 0, 2);
  expect(first.rows).toEqual([
    { rowid: 2, snippet: `${m('Boats')} Daily` },
    { rowid: 4, snippet: `${m('boats')} and more ${m('boats')}` },
  ]);
  expect(first.more).toBe(true);
  expect(search().page('"boats"', 2, 2)).toEqual({ rows: [{ rowid: 1, snippet: m('boats') }], more: false });
  expect(search().page('"nothing"', 0, 5)).toEqual({ rows: [], more: false });
});

it('more matches than the window: its best first, then the older newest first; every match once', () => {
  const n = FIELD_WINDOW + 150;
  people(Array.from({ length: n }, (_, i) => ({ rowid: i + 1, name: `User ${pad(i + 1)}` })));
  // Named for it twice: one in the window (the newest 2,000) ranks first; one older does not.
  sqlite.prepare(`UPDATE search_person SET name = 'User User ${pad(2100)}' WHERE rowid = 2100`).run();
  sqlite.prepare(`UPDATE search_person SET name = 'User User ${pad(100)}' WHERE rowid = 100`).run();
  const first = search().page('"user" *', 0, 3);
  expect(first.rows.map((r) => r.rowid)).toEqual([2100, n, n - 1]);
  expect(first.rows[0]!.snippet).toBe(`${m('User')} ${m('User')} ${pad(2100)}`);
  // Past the window: the older matches, newest first, with their snippets.
  const past = search().page('"user" *', FIELD_WINDOW, 3);
  expect(past.rows).toEqual([150, 149, 148].map((rowid) => ({ rowid, snippet: `${m('User')} ${pad(rowid)}` })));
  expect(search().page('"user" *', FIELD_WINDOW + 50, 1).rows.map((r) => r.rowid)).toEqual([100]);
  const found = allPages('"user" *', 50);
  expect(found).toHaveLength(n);
  expect(new Set(found).size).toBe(n);
});

it('long texts: the window stops at about FIELD_WINDOW_CHARS, and paging still reaches every match once', () => {
  const long = `boats ${'word '.repeat(20_000)}`;
  const n = Math.ceil(FIELD_WINDOW_CHARS / long.length) + 10;
  people(Array.from({ length: n }, (_, i) => ({ rowid: i + 1, name: `Sailor ${i + 1}`, bio: long })));
  const found = allPages('"boats"', 7);
  expect(found).toHaveLength(n);
  expect(new Set(found).size).toBe(n);
  // The older than the window come last, newest first: the oldest is the last match.
  expect(found.at(-1)).toBe(1);
});
