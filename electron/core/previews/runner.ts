// Link previews in the background: the `og_meta` of the author's posts and of the posts of the
// people they follow, filled in after the post is stored, never while it is being stored or
// sent (microblog.pub scrapes inside the request that creates the post, 5 s per link, and so
// can a slow page hold the author's "Publish": reference bug 16).
//
//  * What gets previews: the author's own posts (not deleted, not votes) written or edited in
//    the last RECENT_MS, and posts received in that time from accounts the author follows (a
//    stranger's post never makes Tern visit the pages it links to). Up to PREVIEW_LINKS
//    of each post's external links (as webmention/send.ts picks them: not mentions, hashtags,
//    the author's own pages or media files).
//  * `og_meta` NULL means "not looked at yet"; once looked at it holds the list, [] when no
//    link gave a preview. An edit of one of the author's posts sets it back to NULL.
//  * Offline (the connectivity watch) nothing is fetched; coming online looks again. A fetch
//    that fails because this machine's network is down leaves the post for a later look (up to
//    MAX_TRIES); any other failure (404, not HTML, no title, refused address) gives the link no
//    preview, for good.
//  * Pages are fetched through the app's one outbound client (SSRF guard at connect time);
//    their heads are parsed on the page reader's worker (fetch-preview.ts). A page linked from
//    many posts is fetched once an hour at most (a small cache by URL).
// The runner only looks when told (start, a post written, rows processed, back online) and on
// a retry timer while something waits for the network: an idle Tern does not wake for it.
import type { Sqlite } from '../../../db/client';
import type { JsonValue } from '../../../db/schema';
import type { ConnectivityWatch } from '../connectivity/watch';
import type { HttpClient } from '../net/http-client';
import type { LocalActor } from '../federation/identity';
import { linkedPages } from '../webmention/links';
import { fetchLinkPreview, type PreviewOutcome } from './fetch-preview';
import type { LinkPreview } from './opengraph';

/** Links of one post that are fetched for previews, first first. */
export const PREVIEW_LINKS = 2;
/** Posts written, edited or received this recently get previews (older ones are left as they are). */
export const RECENT_MS = 2 * 24 * 60 * 60_000;
/** Received posts: at start, only the newest this many rows are looked at (not years of them). */
export const INBOX_START_WINDOW = 500;
const MAX_TRIES = 3;
const RETRY_MS = 60_000;
const CONCURRENCY = 3;
const CACHE_MAX = 500;
const CACHE_MS = 60 * 60_000;
const BATCH = 20;

const TYPES = "('Note', 'Article', 'Page', 'Question', 'Video', 'Event')";
const MEDIA = /\.(jpe?g|png|gif|webp|avif|svg|mp4|webm|mov|mp3|ogg|opus|wav|flac|pdf)$/i;

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
  fetchPreview?: (url: string) => Promise<PreviewOutcome>;
  /** Told after a post's og_meta was written. */
  onWritten?: (table: Table, id: number) => void;
}

export interface PreviewRunner {
  start(): void;
  stop(): Promise<void>;
  /** Posts were written (the author's, or received ones): look soon. */
  wake(): void;
  /** Resolves once nothing is left to look at now (tests). */
  idle(): Promise<void>;
}

const tagHrefs = (object: Record<string, JsonValue>): Set<string> => {
  const out = new Set<string>();
  for (const tag of Array.isArray(object.tag) ? object.tag.slice(0, 200) : []) {
    if (typeof tag === 'object' && tag !== null && !Array.isArray(tag) && typeof tag.href === 'string') {
      try {
        out.add(new URL(tag.href).href);
      } catch {
        // not a URL: not a link of the post either
      }
    }
  }
  return out;
};

/** The external links of a post that may get a preview: not the author's own pages (`origin`),
 * mentions, hashtags or media files; the first PREVIEW_LINKS. */
export function previewLinks(object: unknown, origin: string | null): string[] {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return [];
  const o = object as Record<string, JsonValue>;
  const content = typeof o.content === 'string' ? o.content : '';
  if (content === '') return [];
  const tags = tagHrefs(o);
  return linkedPages(content)
    .filter((href) => {
      const url = new URL(href);
      return url.origin !== origin && !tags.has(href) && !MEDIA.test(url.pathname) && url.username === '' && url.password === '';
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

export function createPreviewRunner(deps: PreviewRunnerDeps): PreviewRunner {
  const { sqlite, clock } = deps;
  const log = deps.log ?? (() => {});
  const fetchPreview = deps.fetchPreview ?? ((url: string) => fetchLinkPreview(deps.client, url));
  const q = {
    outbox: sqlite.prepare<[string, number], Candidate>(
      `SELECT 'outbox' AS "table", id, ap_object FROM outbox
       WHERE og_meta IS NULL AND is_deleted = 0 AND is_transient = 0 AND ap_type IN ${TYPES} AND updated_at >= ?
       ORDER BY id LIMIT ?`,
    ),
    inbox: sqlite.prepare<[number, string, number], Candidate>(
      `SELECT 'inbox' AS "table", id, ap_object, ap_actor_id FROM inbox
       WHERE id > ? AND og_meta IS NULL AND is_deleted = 0 AND is_transient = 0 AND ap_type IN ${TYPES} AND created_at >= ?
         AND ap_actor_id IN (SELECT ap_actor_id FROM following)
       ORDER BY id LIMIT ?`,
    ),
    newestInbox: sqlite.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM inbox'),
    writeOutbox: sqlite.prepare<[string, number]>('UPDATE outbox SET og_meta = ? WHERE id = ? AND og_meta IS NULL'),
    writeInbox: sqlite.prepare<[string, number]>('UPDATE inbox SET og_meta = ? WHERE id = ? AND og_meta IS NULL'),
  };

  let running = false;
  let looking: Promise<void> | null = null;
  let again = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;
  /** Received posts below this id have been looked at (or are older than the start window). */
  let inboxFloor: number | null = null;
  /** Posts whose links could not be fetched for want of a network, with their tries. */
  const tries = new Map<string, number>();
  const cache = new Map<string, { outcome: PreviewOutcome; at: number }>();

  async function previewOf(url: string): Promise<PreviewOutcome> {
    const now = clock().getTime();
    const hit = cache.get(url);
    if (hit && now - hit.at < CACHE_MS) return hit.outcome;
    const outcome = await fetchPreview(url).catch((error: unknown): PreviewOutcome => ({ kind: 'none', reason: (error as Error)?.message ?? String(error) }));
    if (outcome.kind !== 'retry') {
      cache.delete(url);
      cache.set(url, { outcome, at: now });
      if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
    }
    return outcome;
  }

  /** Looks at one post; false when it waits for the network (left as it is). */
  async function one(row: Candidate, local: LocalActor): Promise<boolean> {
    let object: unknown;
    try {
      object = JSON.parse(row.ap_object);
    } catch {
      object = null;
    }
    const origin = row.table === 'outbox' ? new URL(local.baseUrl).origin : originOf(row.ap_actor_id);
    const previews: LinkPreview[] = [];
    for (const url of previewLinks(object, origin)) {
      const outcome = await previewOf(url);
      if (outcome.kind === 'retry') {
        const key = `${row.table}:${row.id}`;
        const n = (tries.get(key) ?? 0) + 1;
        tries.set(key, n);
        if (n < MAX_TRIES) return false;
        log(`link preview of ${url}: ${outcome.reason}; given up after ${n} tries`);
      } else if (outcome.kind === 'preview') previews.push(outcome.preview);
    }
    tries.delete(`${row.table}:${row.id}`);
    (row.table === 'outbox' ? q.writeOutbox : q.writeInbox).run(JSON.stringify(previews), row.id);
    deps.onWritten?.(row.table, row.id);
    return true;
  }

  async function lookOnce(): Promise<void> {
    const local = deps.identity();
    if (!running || local === null || !deps.connectivity.isOnline()) return;
    inboxFloor ??= Math.max(0, (q.newestInbox.get()?.id ?? 0) - INBOX_START_WINDOW);
    let waiting = false;
    while (running && !waiting && deps.connectivity.isOnline()) {
      const since = new Date(clock().getTime() - RECENT_MS).toISOString();
      // Read first: every received row up to it is looked at once this round finds no more.
      const newest = q.newestInbox.get()?.id ?? 0;
      const outboxRows = q.outbox.all(since, BATCH);
      const inboxRows = q.inbox.all(inboxFloor, since, BATCH);
      const rows = [...outboxRows, ...inboxRows];
      if (rows.length === 0) {
        inboxFloor = Math.max(inboxFloor, newest);
        break;
      }
      let next = 0;
      const results = new Map<Candidate, boolean>();
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, rows.length) }, async () => {
          while (next < rows.length && running) {
            const row = rows[next++]!;
            const done = await one(row, local).catch((error: unknown) => {
              log(`link previews of ${row.table} #${row.id}: ${(error as Error)?.message ?? String(error)}`);
              return true;
            });
            results.set(row, done);
          }
        }),
      );
      // The floor moves past the received posts that are done; the first that waits holds it.
      const firstWaiting = inboxRows.find((r) => results.get(r) === false);
      if (firstWaiting !== undefined) inboxFloor = Math.max(inboxFloor, firstWaiting.id - 1);
      else if (inboxRows.length > 0 && inboxRows.every((r) => results.get(r) === true)) inboxFloor = Math.max(inboxFloor, inboxRows.at(-1)!.id);
      waiting = rows.some((r) => results.get(r) === false);
    }
    if (waiting && running && retryTimer === null) {
      retryTimer = setTimeout(() => {
        retryTimer = null;
        wake();
      }, RETRY_MS);
      retryTimer.unref();
    }
  }

  function wake(): void {
    if (!running) return;
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
      unsubscribe = deps.connectivity.onChange((state) => {
        if (state.online) wake();
      });
      wake();
    },
    async stop() {
      running = false;
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
