// Upgrading a database that already holds posts: the revision only creates the (empty) index and
// records what to walk, so the core opens at once; the rows are indexed afterwards in batches,
// with progress that only grows, survives a restart, and is reported by search.query meanwhile.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openCore, type Core } from '../core';
import { downgrade } from '../../../migrations/runner';
import { createSearchIndexer } from './indexer';

const dirs: string[] = [];
const cores: Core[] = [];
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const open = async (dataDir: string) => {
  const core = await openCore({ dataDir, mode: 'headless' });
  cores.push(core);
  return core;
};

const ROWS = 3000;

/** `ROWS` received Notes (every 100th says "needle") and two of the author's posts. */
async function databaseBeforeSearch(dataDir: string): Promise<void> {
  const core = await open(dataDir);
  core.settings.update({ baseUrl: 'https://tern.example', username: 'me' });
  await core.services.author.createPost({ content: 'An old post about a needle', visibility: 'PUBLIC' });
  await core.services.author.createPost({ content: 'Another old post', visibility: 'PUBLIC' });
  const t = '2024-01-01T00:00:00.000Z';
  core.sqlite
    .prepare("INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, 'https://r.example/u/ana', json_object('id', 'https://r.example/u/ana', 'type', 'Person', 'name', 'Ana'), 'Person', '@ana@r.example')")
    .run(t, t);
  core.sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at,
         ap_object, visibility, is_bookmarked, is_deleted, replies_count)
       SELECT ?, ?, 1, 'r.example', 0, 'https://r.example/u/ana', 'Note', 'https://r.example/n/' || i,
         strftime('%Y-%m-%dT%H:%M:%fZ', 1704067200 + i * 60, 'unixepoch'),
         json_object('id', 'https://r.example/n/' || i, 'type', 'Note', 'content', '<p>row ' || i || CASE WHEN i % 100 = 0 THEN ' needle' ELSE ' hay' END || '</p>'),
         'PUBLIC', 0, 0, 0
       FROM n`,
    )
    .run(ROWS, t, t);
  // As a Tern before search was: the revision undone, its tables and triggers gone.
  expect(downgrade(core.sqlite, 'b3e1c5a7d902')).toEqual(['ae35abd14d3a', '4a475cedd483', '5d0e8a3c71f4', '70cce0da20c3', 'd58a0b6c3e27', 'c41f7a2e9d15']);
  core.close();
  cores.pop();
}

it('the upgrade opens at once with an empty index; a rebuild in batches reports growing progress, survives a restart, and then finds every row', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-search-rebuild-'));
  dirs.push(dataDir);
  await databaseBeforeSearch(dataDir);

  let core = await open(dataDir);
  expect(core.migration.applied).toEqual(['c41f7a2e9d15', 'd58a0b6c3e27', '70cce0da20c3', '5d0e8a3c71f4', '4a475cedd483', 'ae35abd14d3a']);
  expect(core.sqlite.prepare('SELECT count(*) FROM search_post').pluck().get()).toBe(0);
  const rebuild = core.sqlite.prepare('SELECT kind, total, done FROM search_rebuild ORDER BY kind').all();
  expect(rebuild).toEqual([
    { kind: 0, total: ROWS, done: 0 },
    { kind: 1, total: 2, done: 0 },
    { kind: 2, total: 1, done: 0 },
    { kind: 3, total: 0, done: 0 },
  ]);
  const first = core.services.search.query({ text: 'needle', sort: 'date', kind: 'all', limit: 20 });
  expect(first.indexing).toEqual({ percent: 0 });
  expect(first.posts).toEqual([]);

  // A few small batches (at least 1% of the rows: a 1 ms batch indexes only a handful of rows
  // on a slow machine, and progress is counted in whole percent), then a restart in the middle.
  let indexer = createSearchIndexer(core.sqlite);
  const seen: number[] = [];
  for (let i = 0; i < 3 || indexer.progress().percent < 1; i++) {
    expect(indexer.step(1)).toBe(true);
    seen.push(indexer.progress().percent);
    expect(i).toBeLessThan(10_000);
  }
  const doneBeforeRestart = core.sqlite.prepare('SELECT sum(done) FROM search_rebuild').pluck().get() as number;
  expect(doneBeforeRestart).toBeGreaterThan(0);
  expect(doneBeforeRestart).toBeLessThan(ROWS);
  core.close();
  cores.pop();

  core = await open(dataDir);
  expect(core.migration.applied).toEqual([]);
  expect(core.sqlite.prepare('SELECT sum(done) FROM search_rebuild').pluck().get()).toBe(doneBeforeRestart);
  const midway = core.services.search.query({ text: 'needle', sort: 'date', kind: 'all', limit: 20 });
  expect(midway.indexing!.percent).toBeGreaterThan(0);
  expect(midway.indexing!.percent).toBeLessThan(100);

  indexer = createSearchIndexer(core.sqlite);
  let steps = 0;
  while (indexer.step(2)) {
    seen.push(indexer.progress().percent);
    steps++;
    expect(steps).toBeLessThan(100_000);
  }
  expect(indexer.progress()).toMatchObject({ remaining: 0, percent: 100 });
  // Progress only grows, and it took more than one batch.
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  expect(new Set(seen).size).toBeGreaterThan(1);

  const all = core.services.search.query({ text: 'needle', sort: 'date', kind: 'all', limit: 20 });
  expect(all.indexing).toBeNull();
  expect(all.posts).toHaveLength(20);
  const rest = core.services.search.query({ text: 'needle', sort: 'date', kind: 'posts', limit: 20, cursor: all.nextCursor });
  expect(rest.nextCursor).toBeNull();
  const found = [...all.posts, ...rest.posts].map((h) => h.post.apId);
  expect(found).toHaveLength(ROWS / 100 + 1);
  expect(new Set(found).size).toBe(found.length);
  // Newest first across both tables: the author's post (written now) leads.
  expect(found[0]).toMatch(/^https:\/\/tern\.example\//);
  expect(found.slice(1)).toEqual(Array.from({ length: ROWS / 100 }, (_, i) => `https://r.example/n/${ROWS - i * 100}`));
  expect(core.services.search.query({ text: 'ana', sort: 'relevance', kind: 'people', limit: 5 }).people.map((p) => p.actor.handle)).toEqual(['@ana@r.example']);
});

it('the core’s search loop builds the index by itself, and indexes later writes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-search-loop-'));
  dirs.push(dataDir);
  await databaseBeforeSearch(dataDir);
  const core = await open(dataDir);
  const progress = () => core.sqlite.prepare('SELECT sum(total - done) FROM search_rebuild').pluck().get() as number;
  expect(progress()).toBeGreaterThan(0);
  core.loops.search.start();
  await vi.waitFor(() => expect(progress()).toBe(0), { timeout: 60_000, interval: 20 });
  expect(core.sqlite.prepare('SELECT count(*) FROM search_post').pluck().get()).toBe(ROWS + 2);
  // A write with no search after it: the loop indexes it on its own.
  core.sqlite.prepare("UPDATE inbox SET ap_object = json_set(ap_object, '$.content', '<p>a pelican</p>') WHERE id = 7").run();
  core.loops.search.wake();
  await vi.waitFor(() => expect(core.sqlite.prepare('SELECT count(*) FROM search_pending').pluck().get()).toBe(0), { timeout: 60_000, interval: 20 });
  expect(core.sqlite.prepare("SELECT count(*) FROM search_post WHERE search_post MATCH 'pelican'").pluck().get()).toBe(1);
  core.loops.search.stop();
});

const sqlite3 = spawnSync('sqlite3', ['--version'], { encoding: 'utf8' });
it.skipIf(sqlite3.status !== 0)('Debian’s sqlite3 shell (3.40) reads the index, and a row it writes is queued by the triggers and found', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-search-shell-'));
  dirs.push(dataDir);
  const core = await open(dataDir);
  core.settings.update({ baseUrl: 'https://tern.example', username: 'me' });
  await core.services.author.createPost({ content: 'Avocets at the estuary', visibility: 'PUBLIC' });
  expect(core.services.search.query({ text: 'avocets', sort: 'date', kind: 'posts', limit: 5 }).posts).toHaveLength(1);
  const shell = (sql: string) => spawnSync('sqlite3', [core.paths.database, sql], { encoding: 'utf8' });
  const read = shell(`SELECT count(*) FROM search_post WHERE search_post MATCH '{body} : "avocets"';`);
  expect(read.stderr).toBe('');
  expect(read.stdout.trim()).toBe('1');
  // revisions and og_meta as JSON null: 3.40's json_valid(NULL) is 0, so its shell cannot write SQL NULL there.
  const write = shell(
    "INSERT INTO outbox (created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object, revisions, og_meta, ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted) " +
      "VALUES ('2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 0, 'shell1', 'Note', 'https://tern.example/o/shell1', json_object('type', 'Note', 'content', '<p>Stilts too</p>'), 'null', 'null', '2025-01-01T00:00:00Z', 'PUBLIC', 0, 0, 0, 0, 0);",
  );
  expect(write.stderr).toBe('');
  expect(core.services.search.query({ text: 'stilts', sort: 'date', kind: 'posts', limit: 5 }).posts.map((h) => h.post.apId)).toEqual(['https://tern.example/o/shell1']);
});
