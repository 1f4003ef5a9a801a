// The indexer's time budget holds per row, not per batch of 64: a remote post's text can take
// milliseconds to read (64 KiB of markup in content and as much in summary), and a batch of such
// rows read before the deadline was looked at again held the main thread near a second. The clock
// here is a fake one that moves 10 ms at each look, so nothing depends on this machine's speed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openCore, type Core } from '../core';
import { SEARCH_KINDS } from '../../../migrations/c41f7a2e9d15_full_text_search';
import { createSearchIndexer } from './indexer';

const dirs: string[] = [];
const cores: Core[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const ROWS = 40;

async function coreWithPosts(): Promise<Core> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-search-budget-'));
  dirs.push(dataDir);
  const core = await openCore({ dataDir, mode: 'headless' });
  cores.push(core);
  const t = '2024-01-01T00:00:00.000Z';
  core.sqlite
    .prepare("INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle) VALUES (1, ?, ?, 'https://r.example/u/ana', '{}', 'Person', '@ana@r.example')")
    .run(t, t);
  core.sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at,
         ap_object, visibility, is_bookmarked, is_deleted, replies_count)
       SELECT ?, ?, 1, 'r.example', 0, 'https://r.example/u/ana', 'Note', 'https://r.example/n/' || i, ?,
         json_object('type', 'Note', 'content', '<p>row ' || i || '</p>'), 'PUBLIC', 0, 0, 0
       FROM n`,
    )
    .run(ROWS, t, t, t);
  return core;
}

/** performance.now() moves 10 ms at each call. */
function slowClock(): void {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 10));
}

const indexedPosts = (core: Core) => core.sqlite.prepare('SELECT count(*) FROM search_post').pluck().get() as number;

it('a drain of queued writes stops at its deadline between rows, and later drains index the rest', async () => {
  const core = await coreWithPosts();
  const indexer = createSearchIndexer(core.sqlite);
  slowClock();
  const first = indexer.drain(25);
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThan(5);
  expect(indexedPosts(core)).toBe(first);
  for (let i = 0; i < 2 * ROWS && indexer.drain(25) > 0; i++);
  expect(indexedPosts(core)).toBe(ROWS);
  expect(core.sqlite.prepare('SELECT count(*) FROM search_pending').pluck().get()).toBe(0);
});

it('a rebuild step stops at its deadline between rows, records how far it got, and the next steps go on from there', async () => {
  const core = await coreWithPosts();
  // As after an upgrade: nothing queued, the inbox to walk.
  core.sqlite.prepare('DELETE FROM search_pending').run();
  core.sqlite.prepare('UPDATE search_rebuild SET next_id = 0, last_id = ?, total = ?, done = 0 WHERE kind = ?').run(ROWS, ROWS, SEARCH_KINDS.inbox);
  const indexer = createSearchIndexer(core.sqlite);
  slowClock();
  expect(indexer.step(25)).toBe(true);
  const first = indexedPosts(core);
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThan(5);
  const nextId = core.sqlite.prepare('SELECT next_id FROM search_rebuild WHERE kind = ?').pluck().get(SEARCH_KINDS.inbox);
  expect(nextId).toBe(first);
  for (let i = 0; i < ROWS && indexer.step(25); i++);
  expect(indexedPosts(core)).toBe(ROWS);
});
