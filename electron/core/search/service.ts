// search.query: the search box's text parsed (query.ts), turned into FTS5 MATCH expressions
// (match.ts) and run over the index the indexer keeps (indexer.ts), newest first or by relevance
// (posts: rank.ts over the newest matches; people and webmentions: field-search.ts, the same
// over their weighted columns), with highlighted snippets; the hits become the views the rest of
// the app shows (PostView, ActorView). Writes not yet indexed are indexed first, so a post just
// written is found.
import { inArray } from 'drizzle-orm';
import type { Db, Sqlite } from '../../../db/client';
import { inbox, outbox, webmention } from '../../../db/schema';
import { BadInputError } from '../errors';
import type { LocalActor } from '../federation/identity';
import { actorsById, actorView, inboxPostView, outboxPostView, ownActorView } from '../federation/actions/views';
import type { ActorView } from '../ipc/author-contract';
import type { PersonHit, PostHit, SearchKind, SearchResults, WebmentionHit } from '../ipc/search-contract';
import { summarize } from '../webmention/microformats';
import type { SearchIndexer } from './indexer';
import { createDateScan } from './date-scan';
import { createFieldSearch } from './field-search';
import { postMatch, termsMatch, type PostMatch, type ResolvedFrom } from './match';
import { rankByTermFrequency } from './rank';
import { createPageSnippets } from './snippets';
import { isEmptyQuery, parseQuery, QuerySyntaxError, type Day, type SearchQuery } from './query';

export interface SearchInput {
  text: string;
  sort: 'relevance' | 'date';
  kind: SearchKind;
  cursor?: string | null;
  limit: number;
}

/** Where a page of posts by date (SearchService.postsByDate) stopped short, for the next call to
 * go on: below rowid `high`, `skip` matches still to pass over. */
export interface DateResume {
  high: number;
  skip: number;
}

export interface SearchServiceDeps {
  db: Db;
  sqlite: Sqlite;
  indexer: SearchIndexer;
  identity: () => LocalActor | null;
  displayName: () => string;
}

/** Relevance ranks the newest this-many matches. Not with FTS5's bm25: before scoring, bm25
 * counts the posts holding each word or phrase in the whole index (its IDF), which for a word
 * in a million posts costs 20 ms, and for a phrase of common words 100 ms and more. Instead each
 * match's text comes back highlighted, and the score is BM25's term part — how often the words
 * occur (saturating), against the post's length — computed here (rank.ts): every match holds
 * every word (AND), so the corpus-wide weight of a word changes little in the order, and the
 * cost stays that of reading the window, whatever the words. 2,500, not 3,000 as first: beside
 * a filter of 1 post in 125, a word in every post has its window's posts spread over 300,000
 * (each read on its own), and 3,000 of them took 40-47 ms at p99 on the bench's 2-core
 * machine under load (2,500: 34 ms). A query with a word or a filter in fewer posts is ranked
 * in full (relevanceWindow). */
export const RELEVANCE_WINDOW = 2500;
/** How much a phrase search may read in one query, newest first: posts FTS5 reads looking for
 * a phrase, times the phrase's words. FTS5 looks for a phrase among the posts that hold all of
 * its words, from the newest below the bounds down to the oldest (a rowid bound is checked at a
 * match only: date-scan.ts), each post costing about 0.15-0.35 µs a word ("in ut" over 358,000
 * posts: 121 ms; 8 words: 330 ms). When each phrase has a word fewer posts hold than this
 * allows, one query (6-14 ms at most, as a step of date-scan.ts); otherwise the search goes in
 * steps (date-scan.ts), which check texts at 15-40 µs each: a phrase with a rarer word is found
 * as fast as before. */
const PHRASE_WORD_POSTS = 40_000;
/** Words of a phrase counted (the first; most phrases have a rarer word among them). */
const PHRASE_WORDS_COUNTED = 3;
/** People and webmentions shown beside the posts when searching everything. */
const SIDE_HITS = 5;
const MAX_ROWID = 2 ** 62;
// Rowids are bound as BigInt: a JS number is bound as a REAL, and FTS5 then ignores a rowid
// constraint beside MATCH.
const MARK = "char(2), char(3), '…'";
const POST_SNIPPET = `${MARK}, 32`;

export type SearchService = ReturnType<typeof createSearchService>;

export function createSearchService(deps: SearchServiceDeps) {
  const { sqlite } = deps;
  const s = {
    byDate: sqlite.prepare(
      `SELECT rowid, ref, snippet(search_post, 0, ${POST_SNIPPET}) AS snippet FROM search_post
       WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
    ),
    // Posts below a rowid holding a word, counted up to a limit (a single word: FTS5 reads its
    // list of posts within the bounds, 0.1-0.2 µs a post).
    holdingBelow: sqlite.prepare('SELECT count(*) FROM (SELECT rowid FROM search_post WHERE search_post MATCH ? AND rowid < ? LIMIT ?)').pluck(),
    // The rowid of the match `offset` places down: a page far down starts there, and the matches
    // above it are passed over as rowids (10,000 of a word in every post: 1-2 ms), not read.
    nthByDate: sqlite
      .prepare('SELECT rowid FROM search_post WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT 1 OFFSET ?')
      .pluck(),
    // The window: each match's body with its matches marked; `ref` is read for the page only.
    byRank: sqlite.prepare(
      `SELECT rowid, highlight(search_post, 0, char(2), char(3)) AS marked FROM search_post
       WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
    ),
    // The same, oldest first, for a stretch of rowids that holds no more matches than the
    // window: FTS5 reads a common word's list of posts forwards by skipping to the next
    // candidate, backwards page by page (a filter of 1,000 posts and a word in every post: 15 ms
    // newest first, 7 ms oldest first; visibility:direct and such a word: 24 ms, 19 ms).
    forRankOldestFirst: sqlite.prepare(
      `SELECT rowid, highlight(search_post, 0, char(2), char(3)) AS marked FROM search_post
       WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? LIMIT ${RELEVANCE_WINDOW}`,
    ),
    // The rowid of a part's RELEVANCE_WINDOW-th newest match (none: it has fewer).
    windowStart: sqlite
      .prepare(`SELECT rowid FROM search_post WHERE search_post MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT 1 OFFSET ${RELEVANCE_WINDOW - 1}`)
      .pluck(),
    // The page's rows of the window, by rowid (no MATCH: FTS5 reads each from its content table
    // at once); their snippets come from snippets.ts.
    texts: sqlite.prepare('SELECT rowid, ref, body FROM search_post WHERE rowid IN (SELECT value FROM json_each(?))'),
    actorsByHandle: sqlite.prepare('SELECT id FROM actor WHERE handle IN (?, ?)').pluck(),
  };

  const pageSnippets = createPageSnippets(sqlite, POST_SNIPPET);
  // The weights bm25 had (a name or handle four times a bio; a webmention's text twice its
  // author, four times its source), the snippets as long as before.
  const people = createFieldSearch(sqlite, 'search_person', [4, 4, 1], `${MARK}, 16`);
  const webmentions = createFieldSearch(sqlite, 'search_webmention', [2, 1, 0.5], `${MARK}, 24`);
  const dateScan = createDateScan(sqlite);

  function me(): ActorView {
    const local = deps.identity();
    return local ? ownActorView(local, deps.displayName()) : { id: 0, apId: '', name: deps.displayName() || 'You', handle: null, iconUrl: null, url: '' };
  }

  function resolveFrom(handle: string | 'me'): ResolvedFrom {
    const own = deps.identity()?.handle.toLowerCase();
    if (handle === 'me' || handle.toLowerCase() === own) return { me: true };
    const [, user, host] = handle.split('@');
    return { me: false, actorIds: s.actorsByHandle.all(handle, `@${user!.toLowerCase()}@${host}`) as number[] };
  }

  function postHits(query: SearchQuery, input: SearchInput, limit: number): { hits: PostHit[]; next: string | null } {
    const m = postMatch(query, resolveFrom, (d: Day) => new Date(d.year, d.month - 1, d.day).getTime());
    if (m.match === null) return { hits: [], next: null };
    const low = m.low ?? 0;
    let high = m.high ?? MAX_ROWID;
    let rows: { rowid: number; ref: number; snippet: string }[];
    let next: string | null = null;
    // Filters alone have no words to rank by: newest first.
    if (input.sort === 'date' || !query.terms.some((t) => !t.negated)) {
      if (input.cursor?.startsWith('d')) high = Math.min(high, Number(input.cursor.slice(1)));
      const page = byDate(m, low, high, 0, limit);
      rows = page.rows;
      // A match with a phrase may stop short of a full page (date-scan.ts): the next page goes on
      // below where it stopped.
      if (page.next) next = `d${page.next.high}`;
    } else {
      const offset = input.cursor?.startsWith('r') ? Number(input.cursor.slice(1)) : 0;
      const window = relevanceWindow(m.match, m.parts, low, high);
      const ranked = rankByTermFrequency(window).slice(offset, offset + limit + 1);
      if (ranked.length > limit) next = `r${offset + limit}`;
      rows = pageRows(m.words!, ranked.slice(0, limit).map((r) => r.rowid));
    }
    rows = rows.slice(0, limit);
    return { hits: postViews(rows), next };
  }

  /** Matches newest first below `high`: `skip` passed over, then up to `limit` with snippets;
   * `next`: where the next page starts, null at the end. A match without a phrase is one
   * query (the matches passed over read as rowids alone); one with a phrase is searched in
   * steps for at most SCAN_BUDGET_MS (date-scan.ts), and may come back short of `limit` with
   * a `next` that goes on below where it stopped. */
  function byDate(m: PostMatch, low: number, high: number, skip: number, limit: number): { rows: { rowid: number; ref: number; snippet: string }[]; next: DateResume | null } {
    if (!m.phrasal || phrasesAreRare(m, high)) {
      let top = high;
      if (skip > 0) {
        const at = s.nthByDate.get(m.match, BigInt(low), BigInt(high), skip) as number | undefined;
        if (at === undefined) return { rows: [], next: null };
        top = at + 1;
      }
      const rows = s.byDate.all(m.match, BigInt(low), BigInt(top), limit + 1) as { rowid: number; ref: number; snippet: string }[];
      return { rows: rows.slice(0, limit), next: rows.length > limit ? { high: rows[limit - 1]!.rowid, skip: 0 } : null };
    }
    const scan = dateScan.scan(m.match!, m.drivers, low, high, skip + limit + 1);
    const page = scan.rowids.slice(skip, skip + limit);
    const next =
      scan.rowids.length > skip + limit ? { high: page[limit - 1]!, skip: 0 } : scan.exhausted ? null : { high: scan.floor, skip: Math.max(0, skip - scan.rowids.length) };
    return { rows: pageRows(m.words, page), next };
  }

  /** Whether FTS5 reads at most PHRASE_WORD_POSTS (posts × words) looking for the match's
   * phrases below `high` — down to the oldest post, whatever `low` (see PHRASE_WORD_POSTS).
   * Counting reads at most twice that many posts. */
  function phrasesAreRare(m: PostMatch, high: number): boolean {
    let left = PHRASE_WORD_POSTS;
    let counting = 2 * PHRASE_WORD_POSTS;
    for (const phrase of m.phrases) {
      const cap = Math.floor(left / phrase.length) + 1;
      let fewest = Infinity;
      for (const word of phrase.words.slice(0, PHRASE_WORDS_COUNTED)) {
        if (counting < cap) return false;
        const n = s.holdingBelow.get(word, BigInt(high), cap) as number;
        counting -= n;
        fewest = Math.min(fewest, n);
        if (n < cap) break;
      }
      if (fewest >= cap) return false;
      left -= fewest * phrase.length;
    }
    return true;
  }

  /** The newest RELEVANCE_WINDOW matches, each with its text marked (in no particular order).
   * Every match is a match of each part (a filter group, a word), so from the RELEVANCE_WINDOW-th
   * newest match of a part on there are no more matches than the window holds — all of them
   * when a part has fewer: that stretch is read oldest first, and what it lacks newest first
   * below it. The part whose matches reach furthest back (a filter beside a common word) gives
   * the longest stretch; finding each part's start reads RELEVANCE_WINDOW rowids. */
  function relevanceWindow(match: string, parts: string[], low: number, high: number): { rowid: number; marked: string }[] {
    type Marked = { rowid: number; marked: string };
    let start = high;
    for (const part of parts) {
      const rowid = s.windowStart.get(part, BigInt(low), BigInt(high)) as number | undefined;
      if (rowid === undefined) return s.forRankOldestFirst.all(match, BigInt(low), BigInt(high)) as Marked[];
      start = Math.min(start, rowid);
    }
    const newest = start < high ? (s.forRankOldestFirst.all(match, BigInt(start), BigInt(high)) as Marked[]) : [];
    if (newest.length === RELEVANCE_WINDOW) return newest;
    return [...newest, ...(s.byRank.all(match, BigInt(low), BigInt(start), RELEVANCE_WINDOW - newest.length) as Marked[])];
  }

  /** The page's rows (rowids in page order) with their refs and snippets for the query's words
   * (none: filters alone, and a phrase left out — the text's start, as snippet() gives it). */
  function pageRows(words: string | null, rowids: number[]): { rowid: number; ref: number; snippet: string }[] {
    if (rowids.length === 0) return [];
    const found = s.texts.all(JSON.stringify(rowids)) as { rowid: number; ref: number; body: string }[];
    const snippets = words ? pageSnippets.of(found, words) : new Map(found.map((r) => [r.rowid, textStart(r.body)]));
    const byRowid = new Map(found.map((r) => [r.rowid, r]));
    return rowids.flatMap((rowid) => {
      const row = byRowid.get(rowid);
      return row ? [{ rowid, ref: row.ref, snippet: snippets.get(rowid) ?? '' }] : [];
    });
  }

  function postViews(rows: { ref: number; snippet: string }[]): PostHit[] {
    const ids = (src: number) => rows.filter((r) => r.ref % 2 === src).map((r) => Math.floor(r.ref / 2));
    const inboxIds = ids(0);
    const outboxIds = ids(1);
    const received = new Map(inboxIds.length ? deps.db.select().from(inbox).where(inArray(inbox.id, inboxIds)).all().map((r) => [r.id, r]) : []);
    const own = new Map(outboxIds.length ? deps.db.select().from(outbox).where(inArray(outbox.id, outboxIds)).all().map((r) => [r.id, r]) : []);
    const actors = actorsById(deps.db, [...received.values()].map((r) => r.actorId));
    const author = outboxIds.length ? me() : null;
    const hits: PostHit[] = [];
    for (const r of rows) {
      const id = Math.floor(r.ref / 2);
      const row = r.ref % 2 === 0 ? received.get(id) : own.get(id);
      if (!row) continue; // deleted since it was indexed; its queued change removes it
      const post = r.ref % 2 === 0 ? inboxPostView(row as typeof inbox.$inferSelect, actors.get((row as typeof inbox.$inferSelect).actorId)) : outboxPostView(row as typeof outbox.$inferSelect, author!);
      hits.push({ post, snippet: r.snippet });
    }
    return hits;
  }

  function peopleHits(query: SearchQuery, limit: number, offset: number): { hits: PersonHit[]; more: boolean } {
    // Names are typed in part ("ana" for Anastasia): each word of a people search is a prefix.
    const match = termsMatch(query.terms.map((t) => (t.kind === 'word' && !t.text.endsWith('*') ? { ...t, text: `${t.text}*` } : t)));
    if (match === null) return { hits: [], more: false };
    const { rows, more } = people.page(match, offset, limit);
    const actors = actorsById(deps.db, rows.map((r) => r.rowid));
    const hits = rows.flatMap((r) => {
      const a = actors.get(r.rowid);
      return a ? [{ actor: actorView(a), snippet: r.snippet }] : [];
    });
    return { hits, more };
  }

  function webmentionHits(query: SearchQuery, limit: number, offset: number): { hits: WebmentionHit[]; more: boolean } {
    const match = termsMatch(query.terms);
    if (match === null) return { hits: [], more: false };
    const { rows, more } = webmentions.page(match, offset, limit);
    const ids = rows.map((r) => r.rowid);
    const found = ids.length ? deps.db.select().from(webmention).where(inArray(webmention.id, ids)).all() : [];
    const byId = new Map(found.map((w) => [w.id, w]));
    const posts = new Map(
      found.length ? deps.db.select({ id: outbox.id, apId: outbox.apId }).from(outbox).where(inArray(outbox.id, found.map((w) => w.outboxObjectId))).all().map((p) => [p.id, p.apId]) : [],
    );
    const hits = rows.flatMap((r): WebmentionHit[] => {
      const w = byId.get(r.rowid);
      if (!w) return [];
      const summary = summarize(w.sourceMicroformats, w.target);
      return [{ id: w.id, source: w.source, kind: summary.kind, authorName: summary.author.name, post: { apId: posts.get(w.outboxObjectId) ?? w.target }, receivedAt: w.createdAt.toISOString(), snippet: r.snippet }];
    });
    return { hits, more };
  }

  function parse(text: string): SearchQuery {
    let query: SearchQuery;
    try {
      query = parseQuery(text);
    } catch (error) {
      if (error instanceof QuerySyntaxError) throw new BadInputError(error.message);
      throw error;
    }
    if (isEmptyQuery(query)) throw new BadInputError('Type a word to look for (punctuation alone finds nothing).');
    return query;
  }

  return {
    /** Closes what the service opened of its own (the scratch tables of snippets.ts and date-scan.ts). */
    close(): void {
      pageSnippets.close();
      dateScan.close();
    },
    /** Posts newest first, `offset` of them passed over, for the Mastodon API's search (which
     * pages by offset). Without `resume`, the first call; a match with a phrase may stop short
     * of `limit` (after SCAN_BUDGET_MS, date-scan.ts) and give a `resume`: the caller asks again
     * with it (and the posts still wanted), letting the listener answer others in between. */
    postsByDate(input: { text: string; offset: number; limit: number; resume?: DateResume | null }): { hits: PostHit[]; resume: DateResume | null } {
      const query = parse(input.text);
      // As query() below, but with half its time: the API's request has its search to do too.
      if (!input.resume) deps.indexer.drain(25);
      const m = postMatch(query, resolveFrom, (d: Day) => new Date(d.year, d.month - 1, d.day).getTime());
      if (m.match === null) return { hits: [], resume: null };
      const high = Math.min(m.high ?? MAX_ROWID, input.resume?.high ?? MAX_ROWID);
      const { rows, next } = byDate(m, m.low ?? 0, high, input.resume ? input.resume.skip : input.offset, input.limit);
      return { hits: postViews(rows), resume: rows.length < input.limit ? next : null };
    },
    query(input: SearchInput): SearchResults {
      const query = parse(input.text);
      // What was written since the loop's last step (a post just sent) is found at once.
      deps.indexer.drain(50);
      const progress = deps.indexer.progress();
      const results: SearchResults = { posts: [], people: [], webmentions: [], nextCursor: null, indexing: progress.remaining > 0 ? { percent: progress.percent } : null };
      const offset = input.cursor?.startsWith('r') ? Number(input.cursor.slice(1)) : 0;
      if (input.kind === 'all' || input.kind === 'posts') {
        const { hits, next } = postHits(query, input, input.limit);
        results.posts = hits;
        results.nextCursor = next;
      }
      if (input.kind === 'people' || (input.kind === 'all' && !input.cursor)) {
        const limit = input.kind === 'people' ? input.limit : SIDE_HITS;
        const { hits, more } = peopleHits(query, limit, input.kind === 'people' ? offset : 0);
        results.people = hits;
        if (input.kind === 'people' && more) results.nextCursor = `r${offset + limit}`;
      }
      if (input.kind === 'webmentions' || (input.kind === 'all' && !input.cursor)) {
        const limit = input.kind === 'webmentions' ? input.limit : SIDE_HITS;
        const { hits, more } = webmentionHits(query, limit, input.kind === 'webmentions' ? offset : 0);
        results.webmentions = hits;
        if (input.kind === 'webmentions' && more) results.nextCursor = `r${offset + limit}`;
      }
      return results;
    },
  };
}

/** The start of a text, as FTS5's snippet() gives it when no word of the query is in it: the
 * first 32 words, and … when there are more. */
function textStart(body: string): string {
  const words = body.split(/\s+/).filter((w) => w !== '');
  return words.length > 32 ? `${words.slice(0, 32).join(' ')}…` : words.join(' ');
}
