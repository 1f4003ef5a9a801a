// Search on a big database: the start-up phase's generator (bench/startup-phase.ts) writes
// 1,000,000 inbox rows and 100,000 outbox rows into a Tern that predates search (schema at
// 9519a2c5ec87), with words of known frequency added to each post (rare k<n>: ≈ 10 posts each,
// m<n>: ≈ 2,000, c<n>: ≈ 50,000; the lorem words: nearly every post), an image on every 10th
// Note. Then the search revision runs (timed), the index is built once by the
// core's own indexer (timed: rows/s), and each query kind runs many times through
// core.services.search.query — parse, FTS5, rows, PostViews and snippets, what search.query does
// without the transport — reporting p50/p99 beside the 50 ms target.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openCore, type Core } from '../electron/core/core';
import { openSqlite } from '../db/client';
import { downgrade, upgrade } from '../migrations/runner';
import { createSearchIndexer } from '../electron/core/search/indexer';
import { buildFixture } from './startup-phase';

export interface SearchBenchOptions {
  inboxRows: number;
  outboxRows: number;
  actors: number;
  /** Timed runs of each query kind (after a few untimed ones). */
  runs: number;
}

export interface QueryTiming {
  kind: string;
  example: string;
  p50: number;
  p99: number;
  max: number;
  /** CPU time of this process per query (ms): what the query costs whatever else the machine runs. */
  cpuP50: number;
  cpuP99: number;
  meanHits: number;
}

export interface SearchBenchResult {
  options: SearchBenchOptions;
  fixtureMs: number;
  wordsMs: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Revision c41f7a2e9d15 on the pre-search database: empty tables, triggers, what to rebuild. */
  revisionMs: number;
  rebuild: { rows: number; ms: number; indexed: number };
  queries: QueryTiming[];
}

const LOREM_WORDS = ['dolor', 'ipsum', 'amet', 'tempor', 'labore', 'magna', 'veniam', 'commodo', 'voluptate', 'laborum'];
const PHRASES = ['"dolor sit amet"', '"sed do eiusmod"', '"ut enim ad minim"', '"in culpa qui"', '"totam rem aperiam"'];

function addWords(dbPath: string): void {
  const db = new Database(dbPath);
  db.pragma('synchronous = OFF');
  db.transaction(() => {
    db.exec(`UPDATE inbox SET ap_object = json_set(ap_object,
        '$.content', '<p>k' || ((id * 7919) % 100003) || ' m' || (id % 500) || ' c' || (id % 20) || ' ' || substr(json_extract(ap_object, '$.content'), 4),
        '$.attachment', CASE WHEN id % 10 = 3 THEN json_array(json_object('type', 'Document', 'mediaType', 'image/jpeg',
          'url', 'https://media.example/' || id || '.jpg', 'name', 'a photo of ' || (id % 50) || ' birds')) ELSE json_array() END)
      WHERE ap_type = 'Note'`);
    db.exec(`UPDATE outbox SET ap_object = json_set(ap_object,
        '$.content', '<p>k' || ((id * 104729) % 100003) || ' m' || (id % 500) || ' c' || (id % 20) || ' ' || substr(json_extract(ap_object, '$.content'), 4))`);
  })();
  db.close();
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function runSearchBench(o: SearchBenchOptions): Promise<SearchBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-bench-search-'));
  try {
    let t = performance.now();
    const first = await openCore({ dataDir, mode: 'headless' });
    first.settings.update({ baseUrl: 'https://tern.example', username: 'me' });
    const dbPath = first.paths.database;
    first.close();
    // A Tern from before search: the generator's million inserts meet no trigger, as on upgrade.
    const before = openSqlite(dbPath);
    downgrade(before, 'b3e1c5a7d902'); // before the search revision: its triggers would queue every row loaded
    before.close();
    buildFixture(dbPath, { inboxRows: o.inboxRows, actors: o.actors, outboxRows: o.outboxRows, followers: 1000, notifications: 5000 });
    const fixtureMs = performance.now() - t;
    t = performance.now();
    addWords(dbPath);
    const wordsMs = performance.now() - t;
    const bytesBefore = statSync(dbPath).size;

    // The revision alone (openCore would first copy the database aside, as before any upgrade).
    const sqlite = openSqlite(dbPath);
    t = performance.now();
    const applied = upgrade(sqlite);
    const revisionMs = performance.now() - t;
    sqlite.close();
    if (!applied.includes('c41f7a2e9d15')) throw new Error(`the search revision did not run: ${applied.join(', ')}`);
    const core = await openCore({ dataDir, mode: 'headless' });
    try {
      const indexer = createSearchIndexer(core.sqlite);
      const rows = core.sqlite.prepare('SELECT sum(total) FROM search_rebuild').pluck().get() as number;
      t = performance.now();
      while (indexer.step(1000));
      const rebuild = { rows, ms: performance.now() - t, indexed: core.sqlite.prepare('SELECT count(*) FROM search_post_ref').pluck().get() as number };
      core.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      const bytesAfter = statSync(dbPath).size;

      const queries = measureQueries(core, o);
      return { options: o, fixtureMs, wordsMs, bytesBefore, bytesAfter, revisionMs, rebuild, queries };
    } finally {
      core.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Each query kind `o.runs` times (after 5 untimed runs) through core.services.search.query. */
export function measureQueries(core: Core, o: Pick<SearchBenchOptions, 'actors' | 'runs'>): QueryTiming[] {
  // Query kinds: text for run i (varied so no two runs hit the same cached pages alone).
  const a = (i: number) => 1 + ((i * 37) % o.actors);
  const kinds: { kind: string; sort?: 'date' | 'relevance'; scope?: 'all' | 'posts' | 'people'; text: (i: number) => string }[] = [
    { kind: 'rare word (≈ 10 posts), relevance', text: (i) => `k${(i * 7919 + 11) % 100003}` },
    { kind: 'word in ≈ 2,000 posts, relevance', text: (i) => `m${i % 500}` },
    { kind: 'word in ≈ 50,000 posts, relevance', text: (i) => `c${i % 20}` },
    { kind: 'word in nearly every post, relevance', text: (i) => LOREM_WORDS[i % LOREM_WORDS.length]! },
    { kind: 'two words (2,000 ∩ 50,000)', text: (i) => `m${i % 500} c${(i * 3) % 20}` },
    { kind: 'phrase of common words', text: (i) => PHRASES[i % PHRASES.length]! },
    { kind: 'word in ≈ 50,000 posts, newest first', sort: 'date', text: (i) => `c${i % 20}` },
    { kind: 'word, 2nd page newest first', sort: 'date', text: (i) => `m${i % 500}` },
    // An actor's posts are rows a, a + actors, …: a lorem word (in all of them), not c<n> (fixed per actor).
    { kind: 'from:@user@host + common word', text: (i) => `from:@u${a(i)}@remote${a(i) % 97}.example ${LOREM_WORDS[i % LOREM_WORDS.length]}` },
    { kind: 'has:media + word', text: (i) => `has:media m${i % 500}` },
    { kind: 'is:reply + common word', text: (i) => `is:reply ${LOREM_WORDS[i % LOREM_WORDS.length]}` },
    { kind: 'is:mine + word', text: (i) => `is:mine m${i % 500}` },
    { kind: 'visibility:direct + common word', text: (i) => `visibility:direct ${LOREM_WORDS[i % LOREM_WORDS.length]}` },
    { kind: 'after:/before: (5 days) + common word', sort: 'date', text: (i) => `c${i % 20} after:2024-12-${10 + (i % 5)} before:2024-12-${16 + (i % 5)}` },
    { kind: 'has:media alone, newest first', sort: 'date', text: () => 'has:media' },
    { kind: 'people: name prefix', scope: 'people', text: (i) => `User ${1 + (i % 99)}` },
    { kind: 'everything (posts + people + webmentions)', scope: 'all', text: (i) => `m${i % 500}` },
  ];
  const queries: QueryTiming[] = [];
  for (const k of kinds) {
    const times: number[] = [];
    const cpu: number[] = [];
    let hits = 0;
    for (let i = -5; i < o.runs; i++) {
      const text = k.text(Math.abs(i) + 1);
      const input = { text, sort: k.sort ?? ('relevance' as const), kind: k.scope ?? ('posts' as const), limit: 20 };
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      let r = core.services.search.query(input);
      if (k.kind.includes('2nd page') && r.nextCursor) r = core.services.search.query({ ...input, cursor: r.nextCursor });
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpuStart);
      if (i < 0) continue;
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
      hits += r.posts.length + r.people.length + r.webmentions.length;
    }
    times.sort((x, y) => x - y);
    cpu.sort((x, y) => x - y);
    queries.push({
      kind: k.kind,
      example: k.text(1),
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      max: times.at(-1)!,
      cpuP50: percentile(cpu, 50),
      cpuP99: percentile(cpu, 99),
      meanHits: hits / o.runs,
    });
  }
  return queries;
}
