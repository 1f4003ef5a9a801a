// The data folder of the scale phase: "years of the fediverse" — the start-up fixture's rows
// (bench/startup-phase.ts: actors, 1,000,000 inbox rows, outbox, followers, notifications) plus
// what the pages of the scale phase read and that fixture lacks: people the author follows,
// threads of replies to the author's posts, and the delivery queue's history (outgoing_activity).
//
// Built once per generator version and sizes, in the OS temp folder, and reused by later runs
// (building takes minutes on a busy machine; the pages only read). A cached folder at an older
// schema revision is brought to head by openCore, as a user's would be; one this build cannot
// open (a newer revision, from another branch) is built again. The extra rows are written
// as the start-up fixture writes its own: INSERT … SELECT over a recursive CTE, one transaction,
// no journal, the loaded tables' indexes dropped during the load and built again after it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openCore } from '../electron/core/core';
import { buildFixture, ints, iso, LOREM, T_END } from './startup-phase';

/** Bump when the rows written change: cached folders of another version are not reused. */
const GENERATOR_VERSION = 2;

export const BASE_URL = 'https://tern.example';

export interface ScaleOptions {
  inboxRows: number;
  actors: number;
  outboxRows: number;
  followers: number;
  following: number;
  notifications: number;
  outgoing: number;
  threads: number;
  repliesPerThread: number;
}

export interface ScaleFixture {
  dataDir: string;
  /** Built now (ms), or null when a cached folder was reused. */
  buildMs: number | null;
  /** ap_id of the author's posts that have `repliesPerThread` replies each. */
  threadRoots: string[];
}

const ownPost = (id: number) => `${BASE_URL}/o/${String(id).padStart(8, '0')}`;

/** The outbox ids of the threads' roots: recent posts of the author, ten apart. */
export const threadRootIds = (o: ScaleOptions) => Array.from({ length: o.threads }, (_, t) => o.outboxRows - 10 * (t + 1));

export async function scaleFixture(o: ScaleOptions, rebuild = false): Promise<ScaleFixture> {
  const key = createHash('sha256').update(JSON.stringify({ v: GENERATOR_VERSION, o })).digest('hex').slice(0, 12);
  const dataDir = join(tmpdir(), `tern-bench-scale-${key}`);
  const ready = join(dataDir, 'bench-fixture-ready');
  const threadRoots = threadRootIds(o).map(ownPost);
  if (existsSync(ready) && !rebuild) return { dataDir, buildMs: null, threadRoots };

  rmSync(dataDir, { recursive: true, force: true });
  const t = performance.now();
  await writeScaleData(dataDir, o);
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { dataDir, buildMs: performance.now() - t, threadRoots };
}

/** Makes `dataDir` a Tern data folder (schema at head, keys, identity at BASE_URL) holding
 * these rows. Also used, small, by electron/core/ipc/query-plans.test.ts. */
export async function writeScaleData(dataDir: string, o: ScaleOptions): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const core = await openCore({ dataDir, mode: 'headless' });
  core.settings.update({ baseUrl: BASE_URL, username: 'me', displayName: 'Me' });
  const dbPath = core.paths.database;
  core.close();
  buildFixture(dbPath, o);
  addScaleRows(dbPath, o);
}

function addScaleRows(dbPath: string, o: ScaleOptions): void {
  const sqlite = new Database(dbPath);
  sqlite.pragma('journal_mode = OFF');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('cache_size = -262144');
  const server = (a: string) => `'remote' || (${a} % 97) || '.example'`;
  const actorUrl = (a: string) => `'https://' || ${server(a)} || '/users/u' || ${a}`;
  const post = (id: string) => `'${BASE_URL}/o/' || printf('%08d', ${id})`;
  const indexes = sqlite
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('inbox', 'outgoing_activity') AND sql IS NOT NULL")
    .all() as Array<{ name: string; sql: string }>;
  const load = sqlite.transaction(() => {
    for (const index of indexes) sqlite.exec(`DROP INDEX "${index.name}"`);
    // Whom the author follows: actors from the far end of the list, each with our Follow.
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @following),
         f AS (SELECT i, @outbox + i AS oid, @actors + 1 - i AS a, @t0 - i * 3600 AS t FROM n)
         INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object,
           ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted, relates_to_actor_id)
         SELECT oid, ${iso('t')}, ${iso('t')}, 1, printf('f%08d', i), 'Follow', ${post('oid')},
           json_object('@context', 'https://www.w3.org/ns/activitystreams', 'id', ${post('oid')}, 'type', 'Follow',
             'actor', '${BASE_URL}/users/me', 'object', ${actorUrl('a')}),
           ${iso('t')}, 'PUBLIC', 0, 0, 0, 0, 0, a
         FROM f`,
      )
      .run(ints({ following: o.following, outbox: o.outboxRows, actors: o.actors, t0: T_END }));
    sqlite
      .prepare(
        `INSERT INTO following (id, created_at, updated_at, actor_id, outbox_object_id, ap_actor_id)
         SELECT x.id - @outbox, x.created_at, x.created_at, x.relates_to_actor_id, x.id, a.ap_id
         FROM outbox x JOIN actor a ON a.id = x.relates_to_actor_id WHERE x.ap_type = 'Follow' AND x.id > @outbox`,
      )
      .run(ints({ outbox: o.outboxRows }));
    // Threads: reply j of a thread answers the root (the first 100) or reply j - 100, so the tree
    // is five levels deep; newest of all rows, as a busy thread is.
    sqlite
      .prepare(
        `WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k + 1 < @threads * @replies),
         r AS (SELECT k, @inbox + 1 + k AS id, k / @replies AS th, 1 + k % @replies AS j, 1 + (k * 37) % @actors AS a,
                 @t0 + 1 + k AS t FROM n),
         q AS (SELECT *, @outbox - 10 * (th + 1) AS root FROM r)
         INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
           ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
         SELECT id, ${iso('t')}, ${iso('t')}, a, ${server('a')}, 0, ${actorUrl('a')}, 'Note',
           ${actorUrl('a')} || '/replies/' || th || '-' || j, ${iso('t')},
           json_object('@context', 'https://www.w3.org/ns/activitystreams',
             'id', ${actorUrl('a')} || '/replies/' || th || '-' || j, 'type', 'Note', 'attributedTo', ${actorUrl('a')},
             'published', ${iso('t')}, 'to', json_array('https://www.w3.org/ns/activitystreams#Public'),
             'inReplyTo', CASE WHEN j <= 100 THEN ${post('root')}
               ELSE 'https://' || ${server(`(1 + ((k - 100) * 37) % @actors)`)} || '/users/u' || (1 + ((k - 100) * 37) % @actors) || '/replies/' || th || '-' || (j - 100) END,
             'content', '<p>' || substr(@lorem, 1 + k % 97, 200 + k % 64) || '</p>'),
           'PUBLIC', 0, 0, 0, CASE WHEN j <= @replies - 100 THEN 1 ELSE 0 END
         FROM q`,
      )
      .run(ints({ threads: o.threads, replies: o.repliesPerThread, inbox: o.inboxRows, outbox: o.outboxRows, actors: o.actors, t0: T_END, lorem: LOREM }));
    // The delivery queue's history: each post went to `outgoing / outboxRows` shared inboxes.
    // Sent, but one row in 97 failed for good, and the newest five posts' rows still wait.
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @outgoing),
         d AS (SELECT i + 1 AS id, 1 + i / @per AS p, i FROM n),
         e AS (SELECT *, @t0 - (@outbox - p) * 200 AS t, p > @outbox - 5 AS waiting, (i % 97 = 0) AS failed FROM d)
         INSERT INTO outgoing_activity (id, created_at, recipient, outbox_object_id, tries, next_try, last_try, last_status_code,
           last_response, is_sent, is_errored, error)
         SELECT id, ${iso('t')}, 'https://remote' || ((i * 7) % 97) || '.example/inbox', p,
           CASE WHEN waiting THEN 0 WHEN failed THEN 10 ELSE 1 END,
           CASE WHEN waiting THEN ${iso('t + 60')} ELSE NULL END,
           CASE WHEN waiting THEN NULL ELSE ${iso('t + 1')} END,
           CASE WHEN waiting THEN NULL WHEN failed THEN 500 ELSE 202 END,
           CASE WHEN failed AND NOT waiting THEN 'Internal Server Error' ELSE NULL END,
           NOT waiting AND NOT failed, failed AND NOT waiting,
           CASE WHEN failed AND NOT waiting THEN 'The server answered 500 ten times.' ELSE NULL END
         FROM e`,
      )
      .run(ints({ outgoing: o.outgoing, per: Math.max(1, Math.floor(o.outgoing / o.outboxRows)), outbox: o.outboxRows, t0: T_END }));
    for (const index of indexes) sqlite.exec(index.sql);
  });
  load();
  // No ANALYZE: Tern never runs it, so the planner sees what it sees on a user's file.
  sqlite.pragma('journal_mode = WAL');
  sqlite.close();
}
