// Start-up on a big database: the core opened by a fresh Node process on a data folder whose
// inbox holds 1,000,000 rows, beside the sqlite3 shell opening the same file and counting them.
//
// The fixture: openCore once on a temp folder (schema at head, keys, settings), close; then one
// transaction of INSERT … SELECT over a recursive CTE (actors, inbox, outbox, followers,
// notifications) that satisfies every CHECK (ISO-8601 with offset, 0/1, valid JSON, visibility).
// The child is bundled with esbuild (as build/build.mjs does: platform node, native modules
// external) so no TypeScript loader is in what is timed. The file is in the OS page cache when
// measured (it was just written): these are warm starts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { openCore } from '../electron/core/core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface StartupOptions {
  inboxRows: number;
  actors: number;
  outboxRows: number;
  followers: number;
  notifications: number;
  runs: number;
}

export interface ChildCore {
  nodeBootMs: number;
  moduleLoadMs: number;
  openCoreMs: number;
  statusMs: number;
  readyMs: number;
  closeMs: number;
  endMs: number;
  migrated: boolean;
  inboxCount: number;
  wallMs: number;
}

export interface StartupResult {
  options: StartupOptions;
  fixture: { buildMs: number; bytes: number; meanApObjectBytes: number; counts: Record<string, number> };
  core: ChildCore[];
  parts: { steps: Record<string, number>; nodeBootMs: number; moduleLoadMs: number; wallMs: number } | null;
  /** The comparison: the sqlite3 shell when on PATH, else better-sqlite3 in a fresh Node. */
  shell: { tool: string; wallMs: number[]; count: string };
  /** Node + better-sqlite3 alone in a fresh process: open the file, count, exit. */
  bareNode: { wallMs: number[]; count: string };
  bundleMs: number;
}

export const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ' +
  'Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure ' +
  'dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non ' +
  'proident, sunt in culpa qui officia deserunt mollit anim id est laborum. Sed ut perspiciatis unde omnis iste natus error sit ' +
  'voluptatem accusantium doloremque laudantium, totam rem aperiam, eaque ipsa quae ab illo inventore veritatis et quasi architecto. ';

// Times: one row every 2 s up to 2025-01-01, written as the app writes them (toISOString: ms, Z).
export const T_END = 1_735_689_600;
/** Parameters as SQLite integers: better-sqlite3 binds a JS number as a REAL, and then `/`, `%`
 * and `||` give 0.5 and 'u1.0' where the rows need 0 and 'u1'. */
export const ints = (params: Record<string, number | string>) =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'number' ? BigInt(v) : v]));
export const iso = (expr: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expr}, 'unixepoch')`;

/** Fills the database at `dbPath` (schema at head, empty): actors, inbox, outbox, followers,
 * notifications (bench/scale-fixture.ts adds the rest of the scale phase's rows). */
export function buildFixture(dbPath: string, o: Omit<StartupOptions, 'runs'>): void {
  const sqlite = new Database(dbPath);
  // Bulk load only: no rollback journal, no fsync; WAL again (as the app keeps it) at the end.
  sqlite.pragma('journal_mode = OFF');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('cache_size = -262144');
  const server = (a: string) => `'remote' || (${a} % 97) || '.example'`;
  const actorUrl = (a: string) => `'https://' || ${server(a)} || '/users/u' || ${a}`;
  // The inbox's indexes are dropped for the load and created again, from their own SQL, after it:
  // one sorted build each instead of 1,000,000 scattered inserts.
  const inboxIndexes = sqlite
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inbox' AND sql IS NOT NULL")
    .all() as Array<{ name: string; sql: string }>;
  const load = sqlite.transaction(() => {
    for (const index of inboxIndexes) sqlite.exec(`DROP INDEX "${index.name}"`);
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @actors)
         INSERT INTO actor (id, created_at, updated_at, ap_id, ap_actor, ap_type, handle)
         SELECT i, ${iso('@t0 - i')}, ${iso('@t0 - i')}, ${actorUrl('i')},
           json_object('@context', json_array('https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'),
             'id', ${actorUrl('i')}, 'type', 'Person', 'preferredUsername', 'u' || i, 'name', 'User ' || i,
             'inbox', ${actorUrl('i')} || '/inbox', 'outbox', ${actorUrl('i')} || '/outbox',
             'followers', ${actorUrl('i')} || '/followers', 'following', ${actorUrl('i')} || '/following',
             'endpoints', json_object('sharedInbox', 'https://' || ${server('i')} || '/inbox'),
             'publicKey', json_object('id', ${actorUrl('i')} || '#main-key', 'owner', ${actorUrl('i')},
               'publicKeyPem', '-----BEGIN PUBLIC KEY-----\n' || hex(randomblob(200)) || '\n-----END PUBLIC KEY-----')),
           'Person', '@u' || i || '@' || ${server('i')}
         FROM n`,
      )
      .run(ints({ actors: o.actors, t0: T_END }));
    // Row i: actor 1 + i % actors. The first `followers` rows are their Follows; then mostly
    // Notes (every 10th a reply), every 20th an Announce, every 50th a Like of one of our posts.
    const a = `(1 + (i - 1) % @actors)`;
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @rows),
         r AS (SELECT i, ${a} AS a,
                 CASE WHEN i <= @followers THEN 'Follow' WHEN i % 50 = 0 THEN 'Like' WHEN i % 20 = 0 THEN 'Announce' ELSE 'Note' END AS type,
                 @t0 - (@rows - i) * 2 AS t
               FROM n)
         INSERT INTO inbox (id, created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id,
           ap_context, ap_published_at, ap_object, activity_object_ap_id, visibility, relates_to_outbox_object_id,
           is_bookmarked, is_deleted, is_transient, replies_count)
         SELECT i, ${iso('t')}, ${iso('t')}, a, ${server('a')}, type <> 'Note', ${actorUrl('a')}, type,
           ${actorUrl('a')} || '/statuses/' || printf('%010d', i),
           CASE WHEN type = 'Note' THEN 'tag:' || ${server('a')} || ',2024:objectId=' || i ELSE NULL END,
           ${iso('t')},
           CASE type
             WHEN 'Note' THEN json_object('@context', json_array('https://www.w3.org/ns/activitystreams', json_object('sensitive', 'as:sensitive', 'Hashtag', 'as:Hashtag')),
               'id', ${actorUrl('a')} || '/statuses/' || printf('%010d', i), 'type', 'Note',
               'attributedTo', ${actorUrl('a')}, 'published', ${iso('t')},
               'to', json_array('https://www.w3.org/ns/activitystreams#Public'), 'cc', json_array(${actorUrl('a')} || '/followers'),
               'inReplyTo', CASE WHEN i % 10 = 0 THEN ${actorUrl('1 + i % 7')} || '/statuses/' || printf('%010d', i - 1) ELSE NULL END,
               'sensitive', json('false'), 'summary', NULL,
               'content', '<p>' || substr(@lorem, 1 + i % 97, 330 + i % 64) || '</p>',
               'url', 'https://' || ${server('a')} || '/@u' || a || '/' || i,
               'tag', json_array(json_object('type', 'Hashtag', 'name', '#tern', 'href', 'https://' || ${server('a')} || '/tags/tern')),
               'attachment', json_array(), 'replies', json_object('id', ${actorUrl('a')} || '/statuses/' || printf('%010d', i) || '/replies', 'type', 'Collection'))
             ELSE json_object('@context', 'https://www.w3.org/ns/activitystreams',
               'id', ${actorUrl('a')} || '/activities/' || printf('%010d', i), 'type', type, 'actor', ${actorUrl('a')},
               'object', CASE type WHEN 'Follow' THEN 'https://tern.example/users/me' ELSE 'https://tern.example/o/' || printf('%08d', 1 + i % @outbox) END,
               'published', ${iso('t')}, 'to', json_array('https://www.w3.org/ns/activitystreams#Public'),
               'signature', json_object('type', 'RsaSignature2017', 'creator', ${actorUrl('a')} || '#main-key',
                 'created', ${iso('t')}, 'signatureValue', hex(randomblob(192))))
           END,
           CASE type WHEN 'Note' THEN NULL WHEN 'Follow' THEN 'https://tern.example/users/me' ELSE 'https://tern.example/o/' || printf('%08d', 1 + i % @outbox) END,
           CASE WHEN i % 13 = 0 THEN 'UNLISTED' WHEN i % 31 = 0 THEN 'FOLLOWERS_ONLY' WHEN i % 101 = 0 THEN 'DIRECT' ELSE 'PUBLIC' END,
           CASE WHEN type IN ('Like', 'Announce') THEN 1 + i % @outbox ELSE NULL END,
           i % 500 = 0, 0, 0, 0
         FROM r`,
      )
      .run(ints({ rows: o.inboxRows, actors: o.actors, followers: o.followers, outbox: o.outboxRows, t0: T_END, lorem: LOREM }));
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @outbox)
         INSERT INTO outbox (id, created_at, updated_at, is_hidden_from_homepage, public_id, ap_type, ap_id, ap_object,
           source, ap_published_at, visibility, likes_count, announces_count, replies_count, is_pinned, is_deleted)
         SELECT i, ${iso('@t0 - (@outbox - i) * 200')}, ${iso('@t0 - (@outbox - i) * 200')}, 0, printf('%08d', i), 'Note',
           'https://tern.example/o/' || printf('%08d', i),
           json_object('@context', 'https://www.w3.org/ns/activitystreams', 'id', 'https://tern.example/o/' || printf('%08d', i),
             'type', 'Note', 'attributedTo', 'https://tern.example/users/me', 'published', ${iso('@t0 - (@outbox - i) * 200')},
             'to', json_array('https://www.w3.org/ns/activitystreams#Public'), 'cc', json_array('https://tern.example/users/me/followers'),
             'content', '<p>' || substr(@lorem, 1 + i % 97, 300) || '</p>'),
           substr(@lorem, 1 + i % 97, 300), ${iso('@t0 - (@outbox - i) * 200')}, 'PUBLIC', i % 7, i % 3, 0, i = 1, 0
         FROM n`,
      )
      .run(ints({ outbox: o.outboxRows, t0: T_END, lorem: LOREM }));
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @followers)
         INSERT INTO follower (id, created_at, updated_at, actor_id, inbox_object_id, ap_actor_id)
         SELECT i, a.created_at, a.updated_at, i, i, a.ap_id FROM n JOIN actor a ON a.id = i`,
      )
      .run(ints({ followers: o.followers }));
    // New-follower notifications for the Follows, then Likes/Announces of our posts, mentions.
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @notifications)
         INSERT INTO notifications (id, created_at, notification_type, is_new, actor_id, outbox_object_id, inbox_object_id)
         SELECT i, x.created_at, CASE WHEN x.ap_type = 'Follow' THEN 'NEW_FOLLOWER' WHEN x.ap_type = 'Like' THEN 'LIKE'
             WHEN x.ap_type = 'Announce' THEN 'ANNOUNCE' ELSE 'MENTION' END,
           i > @notifications - 200, x.actor_id, x.relates_to_outbox_object_id, x.id
         FROM n JOIN inbox x ON x.id = CASE WHEN i <= @followers THEN i ELSE @followers + (i - @followers) * @step END`,
      )
      // Every 20th row after the Follows, or closer when there are fewer inbox rows per notification.
      .run(ints({ notifications: o.notifications, followers: o.followers, step: Math.max(1, Math.min(20, Math.floor((o.inboxRows - o.followers) / Math.max(1, o.notifications - o.followers)))) }));
    for (const index of inboxIndexes) sqlite.exec(index.sql);
  });
  load();
  sqlite.pragma('journal_mode = WAL');
  sqlite.close();
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
export const stats = (xs: number[]) => ({ median: median(xs), max: Math.max(...xs), min: Math.min(...xs) });

function timed(command: string, args: string[]): { wallMs: number; stdout: string } {
  const t = performance.now();
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr || r.error?.message}`);
  return { wallMs, stdout: r.stdout.trim() };
}

function onPath(name: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export async function runStartup(options: StartupOptions): Promise<StartupResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-bench-startup-'));
  // Inside the project so the bundle's external imports (better-sqlite3) resolve from node_modules.
  const outDir = join(root, 'node_modules', '.cache', 'tern-bench');
  const childFile = join(outDir, `startup-child-${process.pid}.mjs`);
  try {
    mkdirSync(outDir, { recursive: true });
    let t = performance.now();
    await build({
      entryPoints: [join(root, 'bench', 'startup-child.ts')],
      outfile: childFile,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      external: ['electron', 'better-sqlite3', 'sharp'],
      logLevel: 'warning',
      absWorkingDir: root,
      banner: {
        js: "globalThis.__ternT0 = performance.now(); import { createRequire as __ternCreateRequire } from 'node:module'; const require = __ternCreateRequire(import.meta.url);",
      },
    });
    const bundleMs = performance.now() - t;

    t = performance.now();
    const first = await openCore({ dataDir, mode: 'headless' });
    const dbPath = first.paths.database;
    first.close();
    buildFixture(dbPath, options);
    const buildMs = performance.now() - t;
    const check = new Database(dbPath, { readonly: true });
    const counts: Record<string, number> = {};
    for (const table of ['actor', 'inbox', 'outbox', 'follower', 'notifications']) {
      counts[table] = (check.prepare(`SELECT count(*) AS c FROM "${table}"`).get() as { c: number }).c;
    }
    const meanApObjectBytes = (check.prepare('SELECT avg(length(ap_object)) AS m FROM inbox').get() as { m: number }).m;
    check.close();
    const bytes = statSync(dbPath).size;

    const core: ChildCore[] = [];
    for (let i = 0; i < options.runs; i++) {
      const r = timed(process.execPath, [childFile, dataDir, 'core']);
      core.push({ ...(JSON.parse(r.stdout) as Omit<ChildCore, 'wallMs'>), wallMs: r.wallMs });
    }
    let parts: StartupResult['parts'] = null;
    {
      const r = timed(process.execPath, [childFile, dataDir, 'parts']);
      const p = JSON.parse(r.stdout) as { steps: Record<string, number>; nodeBootMs: number; moduleLoadMs: number };
      parts = { steps: p.steps, nodeBootMs: p.nodeBootMs, moduleLoadMs: p.moduleLoadMs, wallMs: r.wallMs };
    }

    const countSql = 'SELECT count(*) FROM inbox;';
    const bareScript = `const D=require('better-sqlite3');const d=new D(process.argv[1]);console.log(d.prepare(${JSON.stringify(countSql)}).pluck().get());d.close();`;
    const bare = () => timed(process.execPath, ['-e', bareScript, dbPath]);
    const sqlite3 = onPath('sqlite3');
    const shell = { tool: sqlite3 ? `sqlite3 shell (${sqlite3})` : 'better-sqlite3 in a fresh Node (no sqlite3 on PATH)', wallMs: [] as number[], count: '' };
    const bareNode = { wallMs: [] as number[], count: '' };
    for (let i = 0; i < options.runs; i++) {
      const s = sqlite3 ? timed(sqlite3, [dbPath, countSql]) : bare();
      shell.wallMs.push(s.wallMs);
      shell.count = s.stdout;
      const b = bare();
      bareNode.wallMs.push(b.wallMs);
      bareNode.count = b.stdout;
    }
    return { options, fixture: { buildMs, bytes, meanApObjectBytes, counts }, core, parts, shell, bareNode, bundleMs };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(childFile, { force: true });
  }
}
