// Link previews in the background: the `og_meta` of the author's posts and of the posts of the
// people they follow, filled in after the post is stored, never while it is being stored or
// sent (microblog.pub scrapes inside the request that creates the post, 5 s per link, and so
// can a slow page hold the author's "Publish": reference bug 16).
//
//  * What gets previews: the author's own posts (not deleted, not votes) as they are written or
//    edited (and, at start, the newest OUTBOX_START_WINDOW rows), and posts received in the last
//    RECENT_MS from accounts the author follows (a stranger's post never makes Tern visit the
//    pages it links to). Up to PREVIEW_LINKS of each post's external links (as
//    webmention/send.ts picks them: not mentions, hashtags, the author's own pages or media).
//  * `og_meta` NULL means "not looked at yet"; once looked at it holds the list, [] when no
//    link gave a preview. An edit of one of the author's posts, or an Update that changes a
//    received post's text (process/update.ts), sets it back to NULL and the post is looked at
//    again by its id; previews are written only if the post is still the version they were
//    read from.
//  * Offline (the connectivity watch) nothing is fetched; coming online looks again. A fetch
//    that got no answer (no network, a time-out, a refused connection, a name that did not
//    resolve) or a busy one (429, 5xx) leaves the post for another look a minute later, then
//    ten, MAX_TRIES in all; an answer that gives no preview (404, not HTML, no title) or a link
//    to an address Tern refuses is final: no preview. A private address the link did not name (a
//    redirect to one, a public name resolving to one: a captive portal's) is refused all the
//    same, but counts as a fetch that got no answer.
//  * A failure spends one of a post's tries only when the network is seen to work (network-
//    judge.ts: a page that gave a preview earlier gives it again now). Otherwise the network in
//    between is at fault — a captive portal (its 511, or the TLS errors of every https page
//    behind it), a router that lets nothing through while the machine says it is online — and
//    the post waits (1, 10, then 60 minutes) with its tries kept; so does a post when nothing
//    has shown the network working yet this session — MAX_LOOKS failed looks at most (≈ 21
//    hours), so a dead link is not looked at forever. Once the network failed in a look, the
//    look's other posts wait unfetched.
//  * A portal that answers every site with its login page (200, a title) looks like a preview;
//    once network-judge.ts tells it for one, no post keeps it (those that took it before are
//    looked at again) and the posts wait as above.
//  * Pages are fetched through the app's one outbound client (SSRF guard at connect time);
//    their heads are parsed on the page reader's worker (fetch-preview.ts). A page linked from
//    many posts is fetched once an hour at most (a small cache by URL).
// The runner only looks when told (start, a post written, rows processed, back online) and on
// a retry timer while something waits for the network: an idle Tern does not wake for it.
import type { Sqlite } from '../../../db/client';
import type { ConnectivityWatch } from '../connectivity/watch';
import type { HttpClient } from '../net/http-client';
import type { LocalActor } from '../federation/identity';
import { POST_OBJECT_TYPES } from '../federation/objects';
import { externalPages } from '../webmention/send';
import { fetchLinkPreview, type PreviewOutcome } from './fetch-preview';
import { createNetworkJudge, saying } from './network-judge';
import type { LinkPreview } from './opengraph';

/** Links of one post that are fetched for previews, first first. */
export const PREVIEW_LINKS = 2;
/** Received posts get previews when they arrived this recently (older ones are left as they are). */
export const RECENT_MS = 2 * 24 * 60 * 60_000;
/** At start, only the newest this many rows of each table are looked at (not years of them). */
export const INBOX_START_WINDOW = 500;
export const OUTBOX_START_WINDOW = 200;
/** Of a post's HTML, links are looked for in this much (a post is rarely a tenth of it). */
const CONTENT_CHARS = 64 * 1024;
const MAX_TRIES = 3;
const RETRY_MS = 60_000;
/** Waits after a failure, in RETRY_MS, by the number of looks that failed (the last one repeats). */
const BACKOFF = [1, 10, 60];
/** Failed looks at a post in all, its own or the network's: past these (≈ 21 hours of hourly
 * looks) it gets no preview. A dead link looked at before anything showed the network working
 * spends no try (the network may be at fault), and would otherwise be looked at hourly forever. */
export const MAX_LOOKS = 24;
/** Previews written, remembered to take a portal's page back from the posts that took it. */
const WRITTEN_MAX = 200;
const CONCURRENCY = 3;
const CACHE_MAX = 500;
const CACHE_MS = 60 * 60_000;
const BATCH = 20;

/** The types Tern shows as posts, as an SQL list (constants, not input). */
const TYPES = `(${POST_OBJECT_TYPES.map((type) => `'${type}'`).join(', ')})`;

type Table = 'outbox' | 'inbox';
interface Candidate {
  table: Table;
  id: number;
  ap_object: string;
  ap_actor_id?: string;
}

export interface PreviewRunnerDeps {
  sqlite: Sqlite;
  client: Pick<HttpClient, 'fetch'>;
  clock: () => Date;
  connectivity: Pick<ConnectivityWatch, 'isOnline' | 'onChange'>;
  identity: () => LocalActor | null;
  log?: (line: string) => void;
  /** Tests: what fetches a page's preview (default fetchLinkPreview over `client`). */
  fetchPreview?: (url: string, signal: AbortSignal) => Promise<PreviewOutcome>;
  /** Tests: the wait before a post whose links got no answer is looked at again (RETRY_MS). */
  retryMs?: number;
  /** A post's previews were written (or a portal's taken back): the window shows them. */
  onWritten?: () => void;
}

export interface PreviewRunner {
  start(): void;
  /** Stops looking; fetches under way are aborted (their posts are looked at next time). */
  stop(): Promise<void>;
  /** One of the author's posts was written or edited (its id), a received post's content changed
   * (an Update: its inbox id), or received posts were stored (no post). */
  wake(post?: { table: 'outbox' | 'inbox'; id: number }): void;
  /** Resolves once nothing is left to look at now (tests). */
  idle(): Promise<void>;
}

/** The external links of a post that may get a preview (webmention/send.ts externalPages:
 * not the author's own pages, mentions, hashtags or media files; none with a user name or
 * password in it), the first PREVIEW_LINKS. */
export function previewLinks(object: unknown, origin: string | null): string[] {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return [];
  return externalPages(object as Parameters<typeof externalPages>[0], origin, CONTENT_CHARS)
    .filter((href) => {
      const url = new URL(href);
      return url.username === '' && url.password === '';
    })
    .slice(0, PREVIEW_LINKS);
}

const originOf = (value: string | undefined): string | null => {
  try {
    return value === undefined ? null : new URL(value).origin;
  } catch {
    return null;
  }
};

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createPreviewRunner(deps: PreviewRunnerDeps): PreviewRunner {
  const { sqlite, clock } = deps;
  const log = deps.log ?? (() => {});
  const retryMs = deps.retryMs ?? RETRY_MS;
  const fetchPreview = deps.fetchPreview ?? ((url: string, signal: AbortSignal) => fetchLinkPreview(deps.client, url, signal));
  const POST = `og_meta IS NULL AND is_deleted = 0 AND is_transient = 0 AND ap_type IN ${TYPES}`;
  // Each walks the primary key from a floor: its cost follows the rows since then, not the table.
  const q = {
    outbox: sqlite.prepare<[number, number], Candidate>(`SELECT 'outbox' AS "table", id, ap_object FROM outbox WHERE id > ? AND ${POST} ORDER BY id LIMIT ?`),
    outboxRow: sqlite.prepare<[number], Candidate>(`SELECT 'outbox' AS "table", id, ap_object FROM outbox WHERE id = ? AND ${POST}`),
    inbox: sqlite.prepare<[number, string, number], Candidate>(
      `SELECT 'inbox' AS "table", id, ap_object, ap_actor_id FROM inbox
       WHERE id > ? AND ${POST} AND created_at >= ? AND ap_actor_id IN (SELECT ap_actor_id FROM following)
       ORDER BY id LIMIT ?`,
    ),
    inboxRow: sqlite.prepare<[number], Candidate>(
      `SELECT 'inbox' AS "table", id, ap_object, ap_actor_id FROM inbox WHERE id = ? AND ${POST} AND ap_actor_id IN (SELECT ap_actor_id FROM following)`,
    ),
    newest: {
      outbox: sqlite.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM outbox'),
      inbox: sqlite.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM inbox'),
    },
    // Written only over the version the links were read from (an edit meanwhile wins).
    write: {
      outbox: sqlite.prepare<[string, number, string]>('UPDATE outbox SET og_meta = ? WHERE id = ? AND og_meta IS NULL AND ap_object = ?'),
      inbox: sqlite.prepare<[string, number, string]>('UPDATE inbox SET og_meta = ? WHERE id = ? AND og_meta IS NULL AND ap_object = ?'),
    },
    // A portal's page taken back: only over what the runner wrote (an edit meanwhile wins).
    clear: {
      outbox: sqlite.prepare<[number, string]>('UPDATE outbox SET og_meta = NULL WHERE id = ? AND og_meta = ?'),
      inbox: sqlite.prepare<[number, string]>('UPDATE inbox SET og_meta = NULL WHERE id = ? AND og_meta = ?'),
    },
  };

  let running = false;
  let aborter = new AbortController();
  let looking: Promise<void> | null = null;
  let again = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;
  /** Rows at or below a table's floor have been looked at (or are older than its start window). */
  const floors: Record<Table, number | null> = { outbox: null, inbox: null };
  const dirty: Record<Table, boolean> = { outbox: true, inbox: true };
  /** Posts to look at by id, below the floor: the author's posts written or edited since the
   * last look, and posts of either table waiting for the network. */
  const byId: Record<Table, Set<number>> = { outbox: new Set(), inbox: new Set() };
  /** Posts whose links got no answer: their tries (failures counted against the post), their
   * looks that failed in all (the network's included), and when to try again. */
  const waiting = new Map<string, { tries: number; failed: number; notBefore: number }>();
  /** Whether the network or the page failed (controls, portal pages). */
  const judge = createNetworkJudge(fetchPreview);
  /** The network failed this look: the posts not fetched yet wait for the next one. */
  let networkDown = false;
  /** Previews written this session, newest last. */
  const written: { saying: string; table: Table; id: number; ogMeta: string }[] = [];
  /** Posts whose look failed inside Tern (a write refused): not looked at again this session. */
  const broken = new Set<string>();
  const cache = new Map<string, { outcome: PreviewOutcome; at: number }>();

  /** Pages being fetched now: posts that link to the same page wait for the one fetch. */
  const inFlight = new Map<string, Promise<PreviewOutcome>>();

  function previewOf(url: string, signal: AbortSignal): Promise<PreviewOutcome> {
    const hit = cache.get(url);
    if (hit && clock().getTime() - hit.at < CACHE_MS) return Promise.resolve(hit.outcome);
    let flight = inFlight.get(url);
    if (flight === undefined) {
      flight = fetchOnce(url, signal).finally(() => inFlight.delete(url));
      inFlight.set(url, flight);
    }
    return flight;
  }

  async function fetchOnce(url: string, signal: AbortSignal): Promise<PreviewOutcome> {
    const now = clock().getTime();
    let outcome: PreviewOutcome;
    try {
      outcome = await fetchPreview(url, signal);
    } catch (error) {
      outcome = signal.aborted ? { kind: 'retry', reason: 'stopped' } : { kind: 'none', reason: (error as Error)?.message ?? String(error) };
    }
    if (outcome.kind === 'preview') judge.answered(url, outcome);
    // Only answers are kept: a fetch that got none is tried again.
    if (outcome.kind !== 'retry' && outcome.kind !== 'network') {
      cache.delete(url);
      cache.set(url, { outcome, at: now });
      if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
    }
    return outcome;
  }

  /** A portal's page found: no post keeps it (those that took it are looked at again), and no
   * link's cached answer is it. */
  function takeBack(preview: LinkPreview): void {
    judge.portalFound(preview);
    const key = saying(preview);
    for (let i = written.length - 1; i >= 0; i--) {
      const w = written[i]!;
      if (w.saying !== key) continue;
      written.splice(i, 1);
      if (q.clear[w.table].run(w.id, w.ogMeta).changes > 0) {
        byId[w.table].add(w.id);
        deps.onWritten?.();
      }
    }
    for (const [url, hit] of cache) if (hit.outcome.kind === 'preview' && saying(hit.outcome.preview) === key) cache.delete(url);
  }

  /** Counts a failed look at a post (`own`: against its tries); true when it is to be looked at
   * again (1, 10, then 60 retry periods later), false when its tries or its looks are spent. */
  function waitsAgain(key: string, own: boolean): boolean {
    const before = waiting.get(key) ?? { tries: 0, failed: 0, notBefore: 0 };
    const tries = before.tries + (own ? 1 : 0);
    const failed = before.failed + 1;
    if (tries >= MAX_TRIES || failed >= MAX_LOOKS) return false;
    waiting.set(key, { tries, failed, notBefore: clock().getTime() + retryMs * BACKOFF[Math.min(failed, BACKOFF.length) - 1]! });
    return true;
  }

  /** Looks at one post: true when done (its previews written, or an edit came first), false
   * when it waits for the network. */
  async function one(row: Candidate, local: LocalActor, signal: AbortSignal): Promise<boolean> {
    const key = `${row.table}:${row.id}`;
    let object: unknown;
    try {
      object = JSON.parse(row.ap_object);
    } catch {
      object = null;
    }
    const origin = row.table === 'outbox' ? new URL(local.baseUrl).origin : originOf(row.ap_actor_id);
    const previews: LinkPreview[] = [];
    for (const url of previewLinks(object, origin)) {
      const outcome = await previewOf(url, signal);
      if (signal.aborted) return false;
      if (outcome.kind === 'retry' || outcome.kind === 'network') {
        // The page's own failure only when the network is seen to work (a 511 is the network's).
        const own = outcome.kind === 'retry' && (await judge.networkWorks(url, signal));
        if (signal.aborted) return false;
        if (!own) networkDown = true;
        if (waitsAgain(key, own)) return false;
        log(`link preview of ${url}: ${outcome.reason}; no preview after ${own ? `${MAX_TRIES} tries` : `${MAX_LOOKS} looks`}`);
      } else if (outcome.kind === 'preview') {
        const suspect = judge.portalLike(outcome.preview);
        const works = suspect && (await judge.networkWorks(url, signal));
        if (signal.aborted) return false;
        if (suspect && !works) {
          // A portal's login page: taken back from every post, this one waits as for the network
          // (until its looks are spent: then it gets no preview, never the portal's).
          takeBack(outcome.preview);
          networkDown = true;
          if (waitsAgain(key, false)) return false;
          log(`link preview of ${url}: still a portal's page after ${MAX_LOOKS} looks; no preview`);
          continue;
        }
        previews.push(outcome.preview);
      }
    }
    waiting.delete(key);
    const ogMeta = JSON.stringify(previews);
    const { changes } = q.write[row.table].run(ogMeta, row.id, row.ap_object);
    if (changes > 0) {
      // A post with no preview to show changes nothing the window shows.
      if (previews.length > 0) deps.onWritten?.();
      for (const preview of previews) written.push({ saying: saying(preview), table: row.table, id: row.id, ogMeta });
      if (written.length > WRITTEN_MAX) written.splice(0, written.length - WRITTEN_MAX);
    }
    // Changed meanwhile (an Update of a received post): looked at again as it is now. (An edit
    // of the author's own comes back by wake(id).)
    if (changes === 0 && row.table === 'inbox') byId.inbox.add(row.id);
    return true;
  }

  /** Looks at `rows` (a few at a time); returns the ids that wait for the network. */
  async function lookAt(rows: Candidate[], local: LocalActor, signal: AbortSignal): Promise<Set<number>> {
    const held = new Set<number>();
    const now = clock().getTime();
    const due = rows.filter((r) => {
      const key = `${r.table}:${r.id}`;
      if (broken.has(key)) return false;
      if ((waiting.get(key)?.notBefore ?? 0) > now) {
        held.add(r.id);
        return false;
      }
      return true;
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, due.length) }, async () => {
        while (next < due.length && !signal.aborted) {
          const row = due[next++]!;
          // The network failed this look: the rest wait for the next one, unfetched.
          if (networkDown) {
            held.add(row.id);
            continue;
          }
          try {
            if (!(await one(row, local, signal))) held.add(row.id);
          } catch (error) {
            broken.add(`${row.table}:${row.id}`);
            log(`link previews of ${row.table} #${row.id}: ${(error as Error)?.message ?? String(error)}`);
          }
          // Rows done without a fetch (no links, cached pages) never wait for I/O: the thread
          // is let go between them all the same.
          await yieldToLoop();
        }
      }),
    );
    if (signal.aborted) for (const row of due) held.add(row.id);
    return held;
  }

  /** Walks a table's rows above its floor, and moves the floor past them: those that wait for
   * the network are looked at again by id (a floor held below them would have every later look
   * read again every row received since). */
  async function scan(table: Table, local: LocalActor, signal: AbortSignal): Promise<void> {
    const since = new Date(clock().getTime() - RECENT_MS).toISOString();
    const window = table === 'inbox' ? INBOX_START_WINDOW : OUTBOX_START_WINDOW;
    let floor = (floors[table] ??= Math.max(0, (q.newest[table].get()?.id ?? 0) - window));
    for (;;) {
      const newest = q.newest[table].get()?.id ?? 0;
      const rows = table === 'inbox' ? q.inbox.all(floor, since, BATCH) : q.outbox.all(floor, BATCH);
      if (rows.length === 0) {
        floor = Math.max(floor, newest);
        break;
      }
      const held = await lookAt(rows, local, signal);
      if (signal.aborted) break; // this batch is read again next time
      for (const id of held) byId[table].add(id);
      floor = rows.at(-1)!.id;
      if (!deps.connectivity.isOnline()) break;
    }
    floors[table] = floor;
  }

  /** Looks again at the posts of `byId`; those that still wait stay there. */
  async function lookById(table: Table, local: LocalActor, signal: AbortSignal): Promise<void> {
    const ids = [...byId[table]];
    byId[table].clear();
    const rows: Candidate[] = [];
    for (const id of ids) {
      const row = (table === 'inbox' ? q.inboxRow : q.outboxRow).get(id);
      if (row) rows.push(row);
      else waiting.delete(`${table}:${id}`); // done meanwhile, deleted, or no longer followed
    }
    const held = await lookAt(rows, local, signal);
    for (const id of held) byId[table].add(id);
  }

  async function lookOnce(): Promise<void> {
    const local = deps.identity();
    if (!running || local === null || !deps.connectivity.isOnline()) return;
    const signal = aborter.signal;
    judge.reset();
    networkDown = false;
    for (const table of ['outbox', 'inbox'] as const) {
      if (signal.aborted) break;
      if (byId[table].size > 0) await lookById(table, local, signal);
      if (!dirty[table] || signal.aborted) continue;
      dirty[table] = false;
      await scan(table, local, signal);
    }
    // Posts waiting for the network are looked at again when the first of them is due.
    if (running && retryTimer === null && (byId.outbox.size > 0 || byId.inbox.size > 0)) {
      retryTimer = setTimeout(() => {
        retryTimer = null;
        wake();
      }, retryMs);
      retryTimer.unref();
    }
  }

  function wake(post?: { table: Table; id: number }): void {
    if (!running) return;
    if (post !== undefined) {
      byId[post.table].add(post.id);
      broken.delete(`${post.table}:${post.id}`);
      waiting.delete(`${post.table}:${post.id}`);
    }
    dirty.inbox = true;
    if (looking) {
      again = true;
      return;
    }
    looking = (async () => {
      do {
        again = false;
        await lookOnce().catch((error: unknown) => log(`link previews: ${(error as Error)?.message ?? String(error)}`));
      } while (again && running);
    })().finally(() => {
      looking = null;
    });
  }

  return {
    start() {
      if (running) return;
      running = true;
      aborter = new AbortController();
      dirty.outbox = true;
      dirty.inbox = true;
      unsubscribe = deps.connectivity.onChange((state) => {
        if (!state.online) return;
        dirty.outbox = true;
        wake();
      });
      wake();
    },
    async stop() {
      running = false;
      aborter.abort(new Error('Tern is stopping'));
      unsubscribe?.();
      unsubscribe = null;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      await looking;
    },
    wake,
    async idle() {
      while (looking) await looking;
    },
  };
}
