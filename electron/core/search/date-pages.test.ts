// Pages of posts by date when a phrase of common words is searched in steps (date-scan.ts): the
// desktop's pages (search.query, by cursor) and the Mastodon API's (search.postsByDate, by
// offset, resumed) hold the posts one search without a time limit finds, in the same order,
// however often a step stops short. The clock is a fake one that moves 10 ms at each look, so
// each search step checks two chunks of texts and stops.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCore, type Core } from '../core';
import { createSearchIndexer } from './indexer';

const ROWS = 600;
// 100 words: more than 400 posts hold "ut", so FTS5 would read them all at once (service.ts
// PHRASE_WORD_POSTS): the search goes in steps.
const PHRASE = `"${Array.from({ length: 100 }, () => 'ut').join(' ')}"`;
let dataDir: string;
let core: Core;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tern-search-date-pages-'));
  core = await openCore({ dataDir, mode: 'headless' });
  const t = '2024-01-01T00:00:00.000Z';
  core.sqlite
    .prepare("INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, 'https://r.example/u/ana', '{}', 'Person', '@ana@r.example')")
    .run(t, t);
  // One post in 7 holds "ut" 120 times in a row; the others hold it, and "in", apart.
  core.sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at,
         ap_object, visibility, is_bookmarked, is_deleted, replies_count)
       SELECT ?, ?, 1, 'r.example', 0, 'https://r.example/u/ana', 'Note', 'https://r.example/n/' || i,
         strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || i || ' minutes'),
         json_object('type', 'Note', 'content', '<p>' || CASE WHEN i % 7 = 0 THEN 'post ' || i || ' ' || replace(hex(zeroblob(120)), '00', 'ut ')
           ELSE 'ut in post ' || i || ' in ut' END || '</p>'), 'PUBLIC', 0, 0, 0
       FROM n`,
    )
    .run(ROWS, t, t);
  const indexer = createSearchIndexer(core.sqlite);
  while (indexer.step(5_000));
});
afterAll(() => {
  core?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const search = () => core.services!.search;
const ids = (hits: { post: { apId: string } }[]) => hits.map((h) => h.post.apId);

/** performance.now() moves 10 ms at each look while `work` runs. */
function withSlowClock<T>(work: () => T): T {
  let now = 0;
  const spy = vi.spyOn(performance, 'now').mockImplementation(() => (now += 10));
  try {
    return work();
  } finally {
    spy.mockRestore();
  }
}

function allByCursor(text: string, limit: number): { ids: string[]; pages: number } {
  const found: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = search().query({ text, sort: 'date', kind: 'posts', limit, cursor });
    found.push(...ids(page.posts));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 10_000);
  return { ids: found, pages };
}

describe('a phrase of common words, by date, in steps', () => {
  let expected: string[];
  beforeAll(() => {
    expected = allByCursor(PHRASE, 50).ids;
  });

  it('one search without a time limit finds the posts that hold it, newest first', () => {
    expect(expected).toEqual(
      Array.from({ length: ROWS }, (_, i) => ROWS - i)
        .filter((i) => i % 7 === 0)
        .map((i) => `https://r.example/n/${i}`),
    );
  });

  it('the desktop’s pages by cursor, stopped after each step, hold the same posts in the same order', () => {
    const stepped = withSlowClock(() => allByCursor(PHRASE, 10));
    expect(stepped.ids).toEqual(expected);
    // Searches stopped short: more pages than the 9 a search without a time limit gives.
    expect(stepped.pages).toBeGreaterThan(10);
  });

  it('the Mastodon API’s pages by offset, resumed until full, hold the posts at those places', () => {
    for (const [offset, limit] of [
      [0, 20],
      [15, 20],
      [70, 40],
      [80, 10],
    ] as const) {
      const found: string[] = [];
      let resume: Parameters<ReturnType<typeof search>['postsByDate']>[0]['resume'] = null;
      let calls = 0;
      withSlowClock(() => {
        do {
          const page = search().postsByDate({ text: PHRASE, offset, limit: limit - found.length, resume });
          found.push(...ids(page.hits));
          resume = page.resume;
          calls++;
        } while (resume && found.length < limit);
      });
      expect(found, `offset ${offset}`).toEqual(expected.slice(offset, offset + limit));
      expect(calls, `offset ${offset}: searches`).toBeGreaterThan(1);
    }
  });

  it('words alone and a phrase with a rare word are one query, as before: a page at once', () => {
    const words = withSlowClock(() => search().postsByDate({ text: 'ut in', offset: 400, limit: 20 }));
    expect(words.resume).toBeNull();
    expect(words.hits).toHaveLength(20);
    const rare = withSlowClock(() => search().postsByDate({ text: '"post 14 ut"', offset: 0, limit: 20 }));
    expect(rare.resume).toBeNull();
    expect(ids(rare.hits)).toEqual(['https://r.example/n/14']);
  });
});
