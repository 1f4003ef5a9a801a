// Power loss, as near as a test can get: a Tern process (tern-child.ts, the real core) is killed
// with SIGKILL at a random moment of its work, again and again, and after each kill the data
// folder is checked as the next start would find it: PRAGMA integrity_check, no row lost, no
// temporary files left once Tern has started again, and in the end every queued delivery sent.
// Shared by the CI test (power-loss.test.ts, a few kills) and `npm run torture` (100 each).
// SIGKILL stops the process, not the machine: the OS still writes what SQLite handed it, so
// this proves the application's part (transactions, ordering, journals); see docs/reliability.md.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { openCore, type Core } from '../../electron/core/core';
import { createBackup } from '../../electron/core/data/backup';
import { createHandlers, dispatch } from '../../electron/core/ipc/handlers';
import { addFollower, send, startMallory } from '../../electron/core/listener/test-support';
import { openSqlite } from '../../db/client';
import { photo } from '../../electron/core/media/test-images';
import { currentRevision, downgrade, REVISIONS } from '../../migrations/runner';

const CHILD = new URL('./tern-child.ts', import.meta.url).pathname;

export interface KillResult {
  scenario: string;
  kills: number;
  /** Kills that landed while the task was still running (not after it had finished). */
  midTask: number;
  integrityFailures: number;
  rowsLost: number;
  leftovers: string[];
  notes: string[];
}

/** Runs the child until `done`, or kills it after `killAfterMs` (SIGKILL). Resolves with whether it finished. */
function runChild(args: string[], killAfterMs: number | null): Promise<{ finished: boolean; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let finished = false;
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    output += `${line}\n`;
    if (line === 'ready' && killAfterMs !== null) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    if (line === 'done') finished = true;
  });
  return new Promise((resolve) => child.on('exit', () => resolve({ finished, output })));
}

/** How long a task takes from "ready" to "done", on a copy of the data folder (to aim the kills). */
async function timeTask(dir: string, args: (copy: string) => string[]): Promise<number> {
  const copy = mkdtempSync(join(tmpdir(), 'tern-torture-time-'));
  try {
    cpSync(dir, copy, { recursive: true });
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args(copy)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let readyAt = 0;
    let doneAt = 0;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') readyAt = performance.now();
      if (line === 'done') doneAt = performance.now();
    });
    await new Promise((r) => child.on('exit', r));
    return Math.max(1, doneAt - readyAt);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function integrity(database: string): string {
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

function count(database: string, sql: string): number {
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).pluck().get() as number) ?? 0;
  } finally {
    db.close();
  }
}

/** Hidden staging/work folders and temporary files in the data folder and its backups. */
function leftovers(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) if (/^\.(restore|import|microblogpub)-|\.tmp$/.test(name)) found.push(name);
  const backups = join(dir, 'backups');
  if (existsSync(backups)) for (const name of readdirSync(backups)) if (name.startsWith('.backup-') || name.endsWith('.tmp')) found.push(`backups/${name}`);
  const uploads = join(dir, 'uploads');
  if (existsSync(uploads)) for (const name of readdirSync(uploads)) if (name.endsWith('.tmp')) found.push(`uploads/${name}`);
  return found;
}


export interface DeliveryTorture extends KillResult {
  followers: number;
  received: number;
  /** Deliveries a receiver had already acknowledged (202 written) and got again. */
  ackedResent: number;
  allDelivered: boolean;
}

/** Delivery of one post to `followers` followers on 20 loopback servers, killed `kills` times. */
export async function tortureDelivery(kills: number, followers: number, random: () => number = Math.random): Promise<DeliveryTorture> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-deliver-'));
  const acked = new Map<string, number>();
  let received = 0;
  let ackedResent = 0;
  const servers: http.Server[] = [];
  for (let i = 0; i < 20; i++) {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received++;
        // One delivery: this inbox, this activity (each round of the torture posts anew).
        let activity = '';
        try {
          activity = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? '');
        } catch {
          // not JSON: counted under the inbox alone
        }
        const key = `${req.url ?? ''} ${activity}`;
        if ((acked.get(key) ?? 0) > 0) ackedResent++;
        // A little waiting, as real servers do, so kills land with requests in flight.
        setTimeout(() => {
          res.on('finish', () => acked.set(key, (acked.get(key) ?? 0) + 1));
          res.writeHead(202).end();
        }, Math.floor(random() * 15));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
  }
  try {
    const core: Core = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
    core.settings.update({ baseUrl: 'https://tern.test', username: 'ana' });
    for (let n = 0; n < followers; n++) {
      const port = (servers[n % servers.length]!.address() as AddressInfo).port;
      addFollower(core, `http://127.0.0.1:${port}/users/f${n}`, `http://127.0.0.1:${port}/users/f${n}/inbox`);
    }
    const post = async (core: Core, n: number) => {
      const made = await dispatch(createHandlers(core), 'posts.create', { content: `Sent through a hundred power cuts (${n}).`, visibility: 'PUBLIC' }, () => {});
      if (!made.ok) throw new Error(`could not post: ${JSON.stringify(made)}`);
    };
    await post(core, 1);
    core.close();
    const database = join(dir, 'tern.db');
    let rows = count(database, 'SELECT count(*) FROM outgoing_activity');
    let posts = 1;
    const result: DeliveryTorture = { scenario: 'delivery', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [], followers, received: 0, ackedResent: 0, allDelivered: false };
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'deliver'], Math.floor(random() * 300));
      result.kills++;
      if (!run.finished) result.midTask++;
      if (integrity(database) !== 'ok') result.integrityFailures++;
      result.rowsLost += Math.max(0, rows - count(database, 'SELECT count(*) FROM outgoing_activity'));
      if (run.finished) {
        // Everything was sent before this kill: a new post, so the next kill lands in a delivery.
        const again = await openCore({ dataDir: dir, mode: 'headless', allowPrivateAddresses: true });
        await post(again, ++posts);
        again.close();
        rows = count(database, 'SELECT count(*) FROM outgoing_activity');
      }
    }
    const last = await runChild([dir, 'deliver'], null);
    if (!last.finished) result.notes.push(`the last run did not finish: ${last.output.slice(-500)}`);
    result.leftovers = leftovers(dir);
    result.received = received;
    result.ackedResent = ackedResent;
    result.allDelivered = count(database, 'SELECT count(*) FROM outgoing_activity WHERE is_sent = 1') === rows && acked.size === rows;
    if (integrity(database) !== 'ok') result.integrityFailures++;
    return result;
  } finally {
    servers.forEach((s) => s.close());
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A backup of 200 posts killed mid-way, again and again; then a restore of it likewise. */
export async function tortureBackupRestore(kills: number, random: () => number = Math.random): Promise<KillResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-backup-'));
  try {
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    core.settings.update({ baseUrl: 'https://tern.test', username: 'ana' });
    const handlers = createHandlers(core);
    for (let i = 0; i < 200; i++) await dispatch(handlers, 'posts.create', { content: `post ${i} ${'text '.repeat(400)}`, visibility: 'PUBLIC' }, () => {});
    const archive = (await createBackup(core)).path;
    // After the archive: more posts, so old and new data can be told apart.
    for (let i = 0; i < 50; i++) await dispatch(handlers, 'posts.create', { content: `later ${i}`, visibility: 'PUBLIC' }, () => {});
    core.close();
    const database = join(dir, 'tern.db');
    const oldCount = 200;
    const newCount = 250;

    // Kills aimed uniformly over each task's own duration, measured once on a copy.
    const backupMs = await timeTask(dir, (copy) => [copy, 'backup']);
    const restoreMs = await timeTask(dir, (copy) => [copy, 'restore', archive]);
    const backup: KillResult = { scenario: 'backup', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [] };
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'backup'], Math.floor(random() * backupMs));
      backup.kills++;
      if (!run.finished) backup.midTask++;
      if (integrity(database) !== 'ok') backup.integrityFailures++;
      backup.rowsLost += Math.max(0, newCount - count(database, 'SELECT count(*) FROM outbox'));
    }
    await runChild([dir, 'open'], null); // the next start cleans what a kill left
    backup.leftovers = leftovers(dir);

    let restored = 0;
    const restore: KillResult = { scenario: 'restore', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [] };
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'restore', archive], Math.floor(random() * restoreMs));
      restore.kills++;
      if (!run.finished) restore.midTask++;
      // The next start finishes or undoes the swap: the data is all old or all new.
      const opened = await runChild([dir, 'open'], null);
      if (!opened.finished) restore.notes.push(`start after kill ${k} failed: ${opened.output.slice(-300)}`);
      if (!existsSync(database)) {
        restore.notes.push(`kill ${k}: no tern.db after the next start`);
        continue;
      }
      if (integrity(database) !== 'ok') restore.integrityFailures++;
      const posts = count(database, 'SELECT count(*) FROM outbox');
      if (posts !== oldCount && posts !== newCount) restore.notes.push(`kill ${k}: ${posts} posts, neither the old ${newCount} nor the backup's ${oldCount}`);
      if (posts < oldCount) restore.rowsLost += oldCount - posts;
      restore.leftovers.push(...leftovers(dir));
      if (posts === oldCount) restored++;
    }
    restore.notes.push(`${restored} of ${restore.kills} restores were complete after the next start, the others had not begun their swap (old data intact)`);
    return [backup, restore];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `rows` received Notes by one actor, a minute apart, each holding the word "kestrel". */
function seedReceivedNotes(core: Core, rows: number): void {
  core.sqlite.prepare(`INSERT INTO actor (created_at, updated_at, ap_id, ap_actor, ap_type) VALUES ('2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00+00:00', 'https://a.example/u', '{}', 'Person')`).run();
  core.sqlite
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO inbox (created_at, updated_at, actor_id, server, is_hidden_from_stream, ap_actor_id, ap_type, ap_id, ap_published_at, ap_object, visibility, is_bookmarked, is_deleted, is_transient, replies_count)
       SELECT '2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00+00:00', 1, 'a.example', 0, 'https://a.example/u', 'Note', 'https://a.example/n/' || i,
         strftime('%Y-%m-%dT%H:%M:%S+00:00', '2024-01-01', '+' || i || ' minutes'),
         json_object('type', 'Note', 'id', 'https://a.example/n/' || i, 'content', '<p>kestrel number ' || i || ' over the heath</p>'), 'PUBLIC', 0, 0, 0, 0 FROM n`,
    )
    .run(rows);
}

/** The upgrade of a database of `rows` inbox rows from the spec's last revision to Tern's head
 * (index builds over every row), killed `kills` times; each revision runs in one transaction. */
export async function tortureMigration(kills: number, rows: number, random: () => number = Math.random): Promise<KillResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-migrate-'));
  try {
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    seedReceivedNotes(core, rows);
    core.close();
    const database = join(dir, 'tern.db');
    const old = openSqlite(database);
    downgrade(old, '4ab54becec04');
    old.close();
    const chain = new Set(REVISIONS.map((r) => r.id));
    const upgradeMs = await timeTask(dir, (copy) => [copy, 'open']);
    const result: KillResult = { scenario: 'migration', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [] };
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'open'], Math.floor(random() * upgradeMs));
      result.kills++;
      if (!run.finished) result.midTask++;
      if (integrity(database) !== 'ok') result.integrityFailures++;
      result.rowsLost += Math.max(0, rows - count(database, 'SELECT count(*) FROM inbox'));
      const db = new Database(database, { readonly: true });
      const at = currentRevision(db);
      db.close();
      if (at === null || !chain.has(at)) result.notes.push(`kill ${k}: the database is at ${at}, not a revision of the chain`);
      if (run.finished) {
        // Upgraded: go back down for the next kill.
        const again = openSqlite(database);
        downgrade(again, '4ab54becec04');
        again.close();
      }
    }
    const last = await runChild([dir, 'open'], null);
    if (!last.finished) result.notes.push(`the start after the last kill failed: ${last.output.slice(-300)}`);
    result.leftovers = leftovers(dir);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface InboxTorture extends KillResult {
  sent: number;
  acknowledged: number;
  /** Activities answered 202 that are not in incoming_activity afterwards. */
  acknowledgedLost: number;
  /** Acknowledged Creates whose Note is not in the inbox (exactly once) after the last run. */
  notProcessedOnce: number;
}

/** Signed Creates sent 8 at a time to the listener while the inbox processes them; the Tern
 * process is killed `kills` times and restarted on the same port; then it drains. */
export async function tortureInbox(kills: number, random: () => number = Math.random): Promise<InboxTorture> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-inbox-'));
  const mallory = await startMallory();
  try {
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    core.settings.update({ baseUrl: 'https://tern.test', username: 'ana' });
    core.close();
    const port = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    const database = join(dir, 'tern.db');
    const acked = new Set<string>();
    let sent = 0;
    let n = 0;
    const result: InboxTorture = { scenario: 'inbox', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [], sent: 0, acknowledged: 0, acknowledgedLost: 0, notProcessedOnce: 0 };
    for (let k = 0; k <= kills; k++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, 'inbox', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise((r) => child.on('exit', r));
      const ready = await new Promise<boolean>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (l) => l === 'ready' && resolve(true));
        void exited.then(() => resolve(false));
      });
      if (!ready) {
        // It could not start (its port taken meanwhile, say): said, and the round is not counted.
        result.notes.push(`round ${k}: Tern did not start: ${stderr.slice(-300)}`);
        continue;
      }
      let stop = false;
      const sender = async () => {
        while (!stop) {
          const id = `${mallory.actorId}/creates/${++n}`;
          const body = JSON.stringify({
            '@context': 'https://www.w3.org/ns/activitystreams',
            id,
            type: 'Create',
            actor: mallory.actorId,
            to: ['https://www.w3.org/ns/activitystreams#Public'],
            object: { id: `${id}/note`, type: 'Note', attributedTo: mallory.actorId, content: `<p>note ${n}</p>`, to: ['https://www.w3.org/ns/activitystreams#Public'] },
          });
          sent++;
          try {
            const answer = await send(await mallory.sign('https://tern.test/inbox', body), { url: `http://127.0.0.1:${port}/inbox` });
            if (answer.status === 202) acked.add(id);
          } catch {
            // the process died under this request: not acknowledged
          }
        }
      };
      const senders = Array.from({ length: 8 }, sender);
      if (k < kills) {
        await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 1_200)));
        child.kill('SIGKILL');
        result.kills++;
        result.midTask++;
      } else {
        await new Promise((r) => setTimeout(r, 300));
        child.kill('SIGTERM');
      }
      stop = true;
      await Promise.all(senders);
      await exited;
      if (integrity(database) !== 'ok') result.integrityFailures++;
    }
    const last = await runChild([dir, 'inbox', String(port), 'drain'], null);
    if (!last.finished) result.notes.push(`the draining run did not finish: ${last.output.slice(-300)}`);
    const db = new Database(database, { readonly: true });
    try {
      const stored = new Set(db.prepare('SELECT ap_id FROM incoming_activity').pluck().all() as string[]);
      const inboxCount = db.prepare('SELECT count(*) FROM inbox WHERE ap_id = ?').pluck();
      for (const id of acked) {
        if (!stored.has(id)) result.acknowledgedLost++;
        else if (inboxCount.get(`${id}/note`) !== 1) result.notProcessedOnce++;
      }
    } finally {
      db.close();
    }
    result.sent = sent;
    result.acknowledged = acked.size;
    result.leftovers = leftovers(dir);
    return result;
  } finally {
    await mallory.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The search index's rebuild over `rows` received posts (as after the upgrade that adds search)
 * killed `kills` times; afterwards every post is indexed exactly once and FTS5's own check holds. */
export async function tortureSearchRebuild(kills: number, rows: number, random: () => number = Math.random): Promise<KillResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-index-'));
  try {
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    seedReceivedNotes(core, rows);
    core.close();
    const database = join(dir, 'tern.db');
    // Back to before the search revision and up again: empty index, every row to rebuild.
    const db0 = openSqlite(database);
    const searchAt = REVISIONS.findIndex((r) => r.id === 'c41f7a2e9d15');
    downgrade(db0, REVISIONS[searchAt - 1]!.id);
    db0.close();
    await runChild([dir, 'open'], null);
    const indexMs = await timeTask(dir, (copy) => [copy, 'index']);
    const result: KillResult = { scenario: 'search index', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [] };
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'index'], Math.floor(random() * indexMs));
      result.kills++;
      if (!run.finished) result.midTask++;
      if (integrity(database) !== 'ok') result.integrityFailures++;
      if (run.finished) {
        // Built: empty the index again (down before the search revision and up), so the next
        // kill lands in a rebuild too.
        const again = openSqlite(database);
        downgrade(again, REVISIONS[searchAt - 1]!.id);
        again.close();
        await runChild([dir, 'open'], null);
      }
    }
    const last = await runChild([dir, 'index'], null);
    if (!last.finished) result.notes.push(`the rebuild after the last kill did not finish: ${last.output.slice(-300)}`);
    const db = new Database(database);
    try {
      const indexed = db.prepare('SELECT count(*) FROM search_post_ref WHERE src = 0 OR src = 1').pluck().get() as number;
      const distinct = db.prepare('SELECT count(DISTINCT fts_rowid) FROM search_post_ref').pluck().get() as number;
      const fts = db.prepare('SELECT count(*) FROM search_post').pluck().get() as number;
      if (indexed < rows) result.rowsLost += rows - indexed;
      if (fts !== distinct) result.notes.push(`the index holds ${fts} documents for ${distinct} posts`);
      try {
        db.prepare("INSERT INTO search_post(search_post) VALUES ('integrity-check')").run();
      } catch (error) {
        result.integrityFailures++;
        result.notes.push(`FTS5 integrity-check: ${(error as Error).message}`);
      }
      const found = db.prepare("SELECT count(*) FROM search_post WHERE search_post MATCH 'kestrel'").pluck().get() as number;
      if (found !== rows) result.notes.push(`a search for a word every post holds finds ${found} of ${rows}`);
    } finally {
      db.close();
    }
    result.leftovers = leftovers(dir);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the uploads folder and the upload table say of each other after a start. */
function uploadsState(dir: string): { rows: number; missingFiles: string[]; filesWithoutRow: string[] } {
  const db = new Database(join(dir, 'tern.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT content_hash AS hash, has_thumbnail AS thumb FROM upload').all() as { hash: string; thumb: number }[];
    const uploads = join(dir, 'uploads');
    const present = new Set(existsSync(uploads) ? readdirSync(uploads) : []);
    const named = new Set(rows.flatMap((r) => (r.thumb ? [r.hash, `${r.hash}_resized`] : [r.hash])));
    return {
      rows: rows.length,
      missingFiles: [...named].filter((n) => !present.has(n)),
      filesWithoutRow: [...present].filter((n) => !named.has(n)),
    };
  } finally {
    db.close();
  }
}

/** `images` JPEGs of 1600 × 1200 uploaded through the IPC channels (chunks, then sharp, blurhash,
 * two files renamed into place and a row), killed `kills` times at random moments; after each
 * start, every row has its files and every file its row; in the end all are stored once. */
export async function tortureUpload(kills: number, images: number, random: () => number = Math.random): Promise<KillResult & { stored: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-torture-upload-'));
  const sources = mkdtempSync(join(tmpdir(), 'tern-torture-images-'));
  try {
    for (let i = 0; i < images; i++) {
      const bytes = await photo(1600 + i, 1200, 'jpeg');
      writeFileSync(join(sources, `${String(i).padStart(4, '0')}.jpg`), bytes);
    }
    const core = await openCore({ dataDir: dir, mode: 'headless' });
    core.settings.update({ baseUrl: 'https://tern.test', username: 'ana' });
    core.close();
    mkdirSync(join(dir, 'uploads'), { recursive: true });
    const database = join(dir, 'tern.db');
    const uploadMs = await timeTask(dir, (copy) => [copy, 'upload', sources]);
    const result: KillResult & { stored: number } = { scenario: 'upload', kills: 0, midTask: 0, integrityFailures: 0, rowsLost: 0, leftovers: [], notes: [], stored: 0 };
    let rowsBefore = 0;
    for (let k = 0; k < kills; k++) {
      const run = await runChild([dir, 'upload', sources], Math.floor(random() * uploadMs));
      result.kills++;
      if (!run.finished) result.midTask++;
      if (integrity(database) !== 'ok') result.integrityFailures++;
      // The next start cleans what the kill left: temporary files, files whose row was not written.
      const opened = await runChild([dir, 'open'], null);
      if (!opened.finished) result.notes.push(`start after kill ${k} failed: ${opened.output.slice(-300)}`);
      result.leftovers.push(...leftovers(dir));
      const state = uploadsState(dir);
      if (state.missingFiles.length > 0) result.notes.push(`kill ${k}: rows without their files: ${state.missingFiles.join(', ')}`);
      if (state.filesWithoutRow.length > 0) result.notes.push(`kill ${k}: files without a row after the next start: ${state.filesWithoutRow.join(', ')}`);
      result.rowsLost += Math.max(0, rowsBefore - state.rows);
      rowsBefore = state.rows;
      if (run.finished) {
        // All stored: start again from none, so the next kill lands in an upload too.
        const db = new Database(database);
        db.prepare('DELETE FROM upload').run();
        db.close();
        rmSync(join(dir, 'uploads'), { recursive: true, force: true });
        mkdirSync(join(dir, 'uploads'));
        rowsBefore = 0;
      }
    }
    const last = await runChild([dir, 'upload', sources], null);
    if (!last.finished) result.notes.push(`the last run did not finish: ${last.output.slice(-500)}`);
    const state = uploadsState(dir);
    result.stored = state.rows;
    if (state.rows !== images) result.notes.push(`${state.rows} of ${images} images stored in the end`);
    if (state.missingFiles.length + state.filesWithoutRow.length > 0) result.notes.push(`in the end: ${JSON.stringify(state)}`);
    result.leftovers.push(...leftovers(dir));
    if (integrity(database) !== 'ok') result.integrityFailures++;
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(sources, { recursive: true, force: true });
  }
}

