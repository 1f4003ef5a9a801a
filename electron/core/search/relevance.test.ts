// Best match (sort: relevance) on a real core and SQLite: which posts come back and in what order
// (the short text first, then more occurrences before fewer, then the newer on a tie), page by
// page, each hit with its own post and snippet; with filters over a word that most posts hold
// (visibility:, is:reply, from:); and ranked among the newest RELEVANCE_WINDOW matches, so that a
// query with a word or a filter of fewer posts is ranked over all its matches, however old.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../core';
import type { SearchResults } from '../ipc/search-contract';
import { createSearchIndexer } from './indexer';
import { RELEVANCE_WINDOW } from './service';

const dirs: string[] = [];
const cores: Core[] = [];
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const ACTORS = ['ana', 'bo', 'cy'] as const;
type Who = (typeof ACTORS)[number];

interface Post {
  /** inbox id; also the post's minute after 2024-01-01 (higher is newer). */
  id: number;
  by: Who;
  text: string;
  visibility?: 'PUBLIC' | 'DIRECT';
  reply?: boolean;
}

async function coreWith(posts: Post[]): Promise<Core> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-search-relevance-'));
  dirs.push(dataDir);
  const core = await openCore({ dataDir, mode: 'headless' });
  cores.push(core);
  const t = '2024-01-01T00:00:00.000Z';
  const addActor = core.sqlite.prepare(
    "INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (?, ?, ?, ?, json_object('id', ?, 'type', 'Person'), 'Person', ?)",
  );
  ACTORS.forEach((name, i) => addActor.run(i + 1, t, t, `https://r.example/u/${name}`, `https://r.example/u/${name}`, `@${name}@r.example`));
  const addPost = core.sqlite.prepare(
    `INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at,
       ap_object, visibility, is_bookmarked, is_deleted, replies_count)
     VALUES (:id, :t, :t, :actor, 'r.example', 0, :actorApId, 'Note', :apId, strftime('%Y-%m-%dT%H:%M:%fZ', 1704067200 + :id * 60, 'unixepoch'),
       json_object('id', :apId, 'type', 'Note', 'content', '<p>' || :text || '</p>', 'inReplyTo', :inReplyTo), :visibility, 0, 0, 0)`,
  );
  core.sqlite.transaction(() => {
    for (const p of posts) {
      const actor = ACTORS.indexOf(p.by) + 1;
      addPost.run({
        id: p.id,
        t,
        actor,
        actorApId: `https://r.example/u/${p.by}`,
        apId: `https://r.example/n/${p.id}`,
        text: p.text,
        inReplyTo: p.reply ? 'https://r.example/n/0' : null,
        visibility: p.visibility ?? 'PUBLIC',
      });
    }
  })();
  const indexer = createSearchIndexer(core.sqlite);
  while (indexer.step(1000));
  return core;
}

/** Every page of a relevance search, `limit` posts at a time, following the cursor. */
function allPages(core: Core, text: string, limit: number): SearchResults['posts'] {
  const hits: SearchResults['posts'] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const r = core.services.search.query({ text, sort: 'relevance', kind: 'posts', limit, ...(cursor ? { cursor } : {}) });
    expect(r.posts.length).toBeLessThanOrEqual(limit);
    hits.push(...r.posts);
    cursor = r.nextCursor;
    if (!cursor) return hits;
  }
  throw new Error('more than 100 pages');
}

const ids = (hits: SearchResults['posts']) => hits.map((h) => h.post.id);
/** A hit's snippet is its own post's text (markers and the ellipses of a cut taken away). */
function expectOwnSnippets(hits: SearchResults['posts']): void {
  for (const h of hits) {
    const text = h.post.contentHtml.replace(/<[^>]+>/g, '');
    const plain = h.snippet.replaceAll('\u0002', '').replaceAll('\u0003', '').replace(/^…|…$/g, '');
    expect(text, `snippet of post ${h.post.id}`).toContain(plain);
  }
}

const FILLER = 'over the grey water the birds went on with their day as the tide came in';

describe('best match', () => {
  it('the short post first, then more occurrences before fewer, the newer first on a tie; the same order page by page, each hit with its own snippet', async () => {
    const core = await coreWith([
      { id: 1, by: 'ana', text: `tern ${FILLER}` },
      { id: 2, by: 'ana', text: `tern tern tern ${FILLER}` },
      { id: 3, by: 'bo', text: 'tern at dusk' },
      { id: 4, by: 'cy', text: `tern ${FILLER}` },
      { id: 5, by: 'ana', text: `tern tern ${FILLER}` },
      { id: 6, by: 'ana', text: `gull ${FILLER}` },
    ]);
    const expected = [3, 2, 5, 4, 1];
    const onePage = core.services.search.query({ text: 'tern', sort: 'relevance', kind: 'posts', limit: 20 });
    expect(ids(onePage.posts)).toEqual(expected);
    expect(onePage.nextCursor).toBeNull();
    expect(onePage.posts[0]!.snippet).toBe('\u0002tern\u0003 at dusk');
    expect(onePage.posts[1]!.snippet.startsWith('\u0002tern\u0003 \u0002tern\u0003 \u0002tern\u0003 over the grey water')).toBe(true);
    expectOwnSnippets(onePage.posts);
    for (const limit of [1, 2, 3]) {
      const paged = allPages(core, 'tern', limit);
      expect(ids(paged), `limit ${limit}`).toEqual(expected);
      expect(paged.map((h) => h.snippet)).toEqual(onePage.posts.map((h) => h.snippet));
    }
  });

  it('snippets are the ones newest first gives (FTS5’s snippet() over the index): a long text is cut around the words', async () => {
    const long = `${FILLER}. ${FILLER}, and then a tern and a gull. ${FILLER} ${FILLER}`;
    const core = await coreWith([
      { id: 1, by: 'ana', text: long },
      { id: 2, by: 'bo', text: `tern ${FILLER}`, visibility: 'DIRECT' },
      { id: 3, by: 'cy', text: `${FILLER} gull, tern, ${FILLER} tern`, reply: true },
      { id: 4, by: 'ana', text: `tern ${FILLER} ${FILLER} ${FILLER} gull` },
    ]);
    for (const text of ['tern', 'tern gull', '"a tern"', 'tern -is:reply', 'visibility:direct tern', 'tern gull from:@cy@r.example']) {
      const best = core.services.search.query({ text, sort: 'relevance', kind: 'posts', limit: 20 }).posts;
      const newest = core.services.search.query({ text, sort: 'date', kind: 'posts', limit: 20 }).posts;
      expect(best.length, text).toBeGreaterThan(0);
      expect(new Map(best.map((h) => [h.post.id, h.snippet])), text).toEqual(new Map(newest.map((h) => [h.post.id, h.snippet])));
      expectOwnSnippets(best);
    }
    const cut = core.services.search.query({ text: 'tern gull', sort: 'relevance', kind: 'posts', limit: 20 }).posts.find((h) => h.post.id === 1)!.snippet;
    expect(cut.startsWith('…') && cut.endsWith('…')).toBe(true);
    expect(cut).toContain('and then a \u0002tern\u0003 and a \u0002gull\u0003.');
  });

  it('visibility:, is:reply and from: over a word most posts hold: only the posts they name, in the same order, page by page', async () => {
    const posts: Post[] = [
      { id: 10, by: 'ana', text: `dolor dolor dolor ${FILLER}`, reply: true },
      { id: 11, by: 'bo', text: `dolor ${FILLER}`, visibility: 'DIRECT' },
      { id: 12, by: 'bo', text: `dolor dolor ${FILLER}`, visibility: 'DIRECT', reply: true },
      { id: 13, by: 'cy', text: `dolor dolor dolor ${FILLER}`, visibility: 'DIRECT' },
      { id: 14, by: 'ana', text: `dolor ${FILLER}` },
      { id: 15, by: 'bo', text: `dolor ${FILLER}`, reply: true },
      { id: 16, by: 'cy', text: `dolor dolor ${FILLER}` },
    ];
    // Many more posts hold the word, before, between and after those, so that a page's posts lie
    // far apart among the matches.
    for (let i = 0; i < 60; i++) posts.push({ id: i < 30 ? 100 + i : 200 + i, by: 'ana', text: `dolor dolor dolor dolor ${FILLER}` });
    posts.push(...[20, 21, 22].map((id) => ({ id, by: 'cy' as const, text: `dolor ${FILLER} and more` })));
    const core = await coreWith(posts);

    const cases: [string, number[]][] = [
      ['visibility:direct dolor', [13, 12, 11]],
      ['is:reply dolor', [10, 12, 15]],
      ['from:@bo@r.example dolor', [12, 15, 11]],
      ['from:@bo@r.example visibility:direct dolor', [12, 11]],
      ['-is:reply visibility:direct dolor', [13, 11]],
      ['from:@cy@r.example -visibility:direct dolor', [16, 22, 21, 20]],
      ['from:@bo@r.example from:@cy@r.example is:reply dolor', [12, 15]],
    ];
    for (const [text, expected] of cases) {
      const first = core.services.search.query({ text, sort: 'relevance', kind: 'posts', limit: 20 });
      expect(ids(first.posts), text).toEqual(expected);
      expectOwnSnippets(first.posts);
      expect(ids(allPages(core, text, 1)), `${text}, one a page`).toEqual(expected);
    }
    // Unfiltered: the posts saying it four times lead (the newer first), the filtered ones follow.
    const all = allPages(core, 'dolor', 7);
    expect(all).toHaveLength(posts.length);
    expect(ids(all.slice(0, 3))).toEqual([259, 258, 257]);
    expect(new Set(ids(all)).size).toBe(posts.length);
    expectOwnSnippets(all);
  });

  it(`ranks the newest ${RELEVANCE_WINDOW} matches of a word in more posts than that, and every match when a word or a filter of the query is in fewer, however old`, async () => {
    const posts: Post[] = [];
    // The oldest five say "needle" three times, but are older than the newest RELEVANCE_WINDOW
    // matches; one in the window says it twice. "thimble" is in twelve posts, the oldest two of
    // them (saying it twice) among them. Every tenth post is a reply, and the third.
    for (let id = 1; id <= RELEVANCE_WINDOW + 5; id++) {
      const text =
        id <= 5 ? `needle needle needle${id <= 2 ? ' thimble thimble' : ''}` : id === 2000 ? 'needle needle' : id % 300 === 1 ? 'needle thimble' : 'needle';
      posts.push({ id, by: 'ana', text: `${text} ${FILLER}`, reply: id % 10 === 0 || id === 3 });
    }
    const core = await coreWith(posts);
    const best = core.services.search.query({ text: 'needle', sort: 'relevance', kind: 'posts', limit: 3 });
    // Then the others of the window that say it once in the shortest text: newest first.
    expect(ids(best.posts)).toEqual([2000, RELEVANCE_WINDOW + 5, RELEVANCE_WINDOW + 4]);
    const window = core.services.search.query({ text: 'needle', sort: 'relevance', kind: 'posts', limit: RELEVANCE_WINDOW + 5 });
    expect(window.posts).toHaveLength(RELEVANCE_WINDOW);
    expect(window.nextCursor).toBeNull();
    expect(ids(window.posts).filter((id) => id <= 5)).toEqual([]);
    // A filter that every match passes changes nothing.
    expect(ids(core.services.search.query({ text: 'from:@ana@r.example needle', sort: 'relevance', kind: 'posts', limit: 3 }).posts)).toEqual([
      2000,
      RELEVANCE_WINDOW + 5,
      RELEVANCE_WINDOW + 4,
    ]);
    const thimble = allPages(core, 'thimble', 4);
    const thimbles = posts.filter((p) => p.id > 5 && p.id % 300 === 1).map((p) => p.id);
    expect(ids(thimble)).toEqual([2, 1, ...thimbles.reverse()]);
    expectOwnSnippets(thimble);
    // Beside the common word, the rarer one decides which posts are ranked: all of them.
    expect(ids(allPages(core, 'needle thimble', 5))).toEqual(ids(thimble));
    // So does a filter that few posts pass: the old reply saying it three times comes first.
    const replies = allPages(core, 'is:reply needle', 100);
    expect(replies).toHaveLength(RELEVANCE_WINDOW / 10 + 1);
    const newestReply = RELEVANCE_WINDOW - (RELEVANCE_WINDOW % 10);
    expect(ids(replies.slice(0, 4))).toEqual([3, 2000, newestReply, newestReply - 10]);
  });

  it(`with a filter and a word each in more posts than the window, but together in fewer near the top: exactly the newest ${RELEVANCE_WINDOW} matches`, async () => {
    // "alpha" is in all but the newest 300 posts; replies are all but the posts 251 to 300. The
    // newest matches (alpha and a reply) are 3100 down to 301, then 250 down to 1.
    const count = RELEVANCE_WINDOW + 400;
    const hasAlpha = (id: number) => id <= count - 300;
    const isReply = (id: number) => id > 300 || id <= 250;
    const posts: Post[] = [];
    for (let id = 1; id <= count; id++) {
      const word = !hasAlpha(id) ? 'omega' : id === 7 || id === 60 ? 'alpha alpha alpha' : 'alpha';
      posts.push({ id, by: 'ana', text: `${word} ${FILLER}`, reply: isReply(id) });
    }
    const core = await coreWith(posts);
    const matches = posts.filter((p) => hasAlpha(p.id) && isReply(p.id)).map((p) => p.id);
    const newest = new Set(matches.sort((a, b) => b - a).slice(0, RELEVANCE_WINDOW));
    expect(newest.has(60) && !newest.has(7)).toBe(true);
    const ranked = allPages(core, 'is:reply alpha', 500);
    expect(new Set(ids(ranked))).toEqual(newest);
    expect(ranked).toHaveLength(RELEVANCE_WINDOW);
    // Saying it three times, 60 leads; 7 is older than the window.
    expect(ids(ranked.slice(0, 3))).toEqual([60, count - 300, count - 301]);
  });
});
