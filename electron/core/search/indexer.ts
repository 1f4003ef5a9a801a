// Keeps the search index (revision c41f7a2e9d15) in step with the rows: the triggers queue each
// written row in search_pending, and this indexes them (drain); the rows that existed when the
// revision ran are walked in id order in the background (rebuild), each kind from where it got
// to, so a restart goes on where it stopped. Both work in small timed batches, one transaction
// each, so no batch holds the main thread long (ARCHITECTURE: nothing blocks it > 100 ms).
import type { Sqlite } from '../../../db/client';
import { SEARCH_KINDS } from '../../../migrations/c41f7a2e9d15_full_text_search';
import { personDocument, postDocument, webmentionDocument, type PostRowFields } from './text';

type Kind = (typeof SEARCH_KINDS)[keyof typeof SEARCH_KINDS];

/** search_post rowids: publication second << 20, plus a free slot in that second. */
export const ROWID_SHIFT = 2 ** 20;
export const rowidOfSecond = (seconds: number) => seconds * ROWID_SHIFT;

/** How far the index is: `remaining` rows still to index (rebuild + queued writes). */
export interface IndexProgress {
  done: number;
  remaining: number;
  /** 0–100; 100 when nothing remains. */
  percent: number;
}

export interface SearchIndexer {
  /** Indexes queued writes for at most `budgetMs`; returns how many rows it indexed. */
  drain(budgetMs: number): number;
  /** Indexes queued writes, then rebuild rows, for at most `budgetMs`; true when work remains. */
  step(budgetMs: number): boolean;
  progress(): IndexProgress;
}

interface PostRow {
  id: number;
  ap_type: string;
  ap_object: string;
  is_deleted: number;
  visibility: string;
  ap_published_at: string;
  actor_id?: number;
}

export function createSearchIndexer(sqlite: Sqlite): SearchIndexer {
  const postColumns = 'id, ap_type, ap_object, is_deleted, visibility, ap_published_at';
  const read = {
    [SEARCH_KINDS.inbox]: sqlite.prepare(`SELECT ${postColumns}, actor_id FROM inbox WHERE id = ?`),
    [SEARCH_KINDS.outbox]: sqlite.prepare(`SELECT ${postColumns} FROM outbox WHERE id = ?`),
    [SEARCH_KINDS.actor]: sqlite.prepare('SELECT id, ap_actor, handle FROM actor WHERE id = ?'),
    [SEARCH_KINDS.webmention]: sqlite.prepare('SELECT id, source, target, source_microformats, is_deleted FROM webmention WHERE id = ?'),
  } as const;
  const walk = {
    [SEARCH_KINDS.inbox]: sqlite.prepare(`SELECT ${postColumns}, actor_id FROM inbox WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`),
    [SEARCH_KINDS.outbox]: sqlite.prepare(`SELECT ${postColumns} FROM outbox WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`),
    [SEARCH_KINDS.actor]: sqlite.prepare('SELECT id, ap_actor, handle FROM actor WHERE id > ? AND id <= ? ORDER BY id LIMIT ?'),
    [SEARCH_KINDS.webmention]: sqlite.prepare(
      'SELECT id, source, target, source_microformats, is_deleted FROM webmention WHERE id > ? AND id <= ? ORDER BY id LIMIT ?',
    ),
  } as const;
  const s = {
    pending: sqlite.prepare('SELECT kind, id FROM search_pending LIMIT ?'),
    unqueue: sqlite.prepare('DELETE FROM search_pending WHERE kind = ? AND id = ?'),
    pendingCount: sqlite.prepare('SELECT count(*) FROM search_pending').pluck(),
    rebuilds: sqlite.prepare('SELECT kind, next_id AS nextId, last_id AS lastId, total, done FROM search_rebuild WHERE next_id < last_id ORDER BY kind'),
    rebuildTotals: sqlite.prepare('SELECT coalesce(sum(total), 0) AS total, coalesce(sum(min(done, total)), 0) AS done FROM search_rebuild'),
    advance: sqlite.prepare('UPDATE search_rebuild SET next_id = ?, done = done + ? WHERE kind = ?'),
    finish: sqlite.prepare('UPDATE search_rebuild SET next_id = last_id, done = total WHERE kind = ?'),
    refOf: sqlite.prepare('SELECT fts_rowid FROM search_post_ref WHERE src = ? AND id = ?').pluck(),
    dropRef: sqlite.prepare('DELETE FROM search_post_ref WHERE src = ? AND id = ?'),
    addRef: sqlite.prepare('INSERT INTO search_post_ref (src, id, fts_rowid) VALUES (?, ?, ?)'),
    dropPost: sqlite.prepare('DELETE FROM search_post WHERE rowid = ?'),
    taken: sqlite.prepare('SELECT 1 FROM search_post WHERE rowid = ?').pluck(),
    addPost: sqlite.prepare('INSERT INTO search_post (rowid, body, facets, ref) VALUES (?, ?, ?, ?)'),
    dropPerson: sqlite.prepare('DELETE FROM search_person WHERE rowid = ?'),
    addPerson: sqlite.prepare('INSERT INTO search_person (rowid, name, handle, bio) VALUES (?, ?, ?, ?)'),
    dropWebmention: sqlite.prepare('DELETE FROM search_webmention WHERE rowid = ?'),
    addWebmention: sqlite.prepare('INSERT INTO search_webmention (rowid, body, author, source) VALUES (?, ?, ?, ?)'),
  };
  let drained = 0;

  function indexPost(src: 0 | 1, id: number, row: PostRow | undefined): void {
    const old = s.refOf.safeIntegers(true).get(src, id) as bigint | undefined;
    if (old !== undefined) {
      s.dropPost.run(old);
      s.dropRef.run(src, id);
    }
    if (!row) return;
    const fields: PostRowFields = {
      src: src === 0 ? 'inbox' : 'outbox',
      apType: row.ap_type,
      apObject: row.ap_object,
      isDeleted: row.is_deleted,
      visibility: row.visibility,
      publishedAt: row.ap_published_at,
      actorId: row.actor_id ?? null,
    };
    const doc = postDocument(fields);
    if (!doc) return;
    // A free slot in the post's second; two posts of one second almost never share id % 2^20.
    // Rowids are bound as BigInt: a JS number is bound as a REAL, and FTS5 then ignores a
    // `rowid = ?` beside MATCH (every match comes back).
    let rowid = BigInt(rowidOfSecond(doc.publishedSeconds) + (id % ROWID_SHIFT));
    while (s.taken.get(rowid) !== undefined) rowid++;
    s.addPost.run(rowid, doc.body, doc.facets, id * 2 + src);
    s.addRef.run(src, id, rowid);
  }

  function indexRow(kind: Kind, id: number, row: unknown): void {
    if (kind === SEARCH_KINDS.inbox || kind === SEARCH_KINDS.outbox) {
      indexPost(kind, id, row as PostRow | undefined);
    } else if (kind === SEARCH_KINDS.actor) {
      s.dropPerson.run(id);
      const r = row as { ap_actor: string; handle: string | null } | undefined;
      const doc = r ? personDocument(r.ap_actor, r.handle) : null;
      if (doc) s.addPerson.run(id, doc.name, doc.handle, doc.bio);
    } else {
      s.dropWebmention.run(id);
      const r = row as { source: string; target: string; source_microformats: string | null; is_deleted: number } | undefined;
      const doc = r ? webmentionDocument({ source: r.source, target: r.target, sourceMicroformats: r.source_microformats, isDeleted: r.is_deleted }) : null;
      if (doc) s.addWebmention.run(id, doc.body, doc.author, doc.source);
    }
  }

  const drainBatch = sqlite.transaction((deadline: number): { count: number; more: boolean } => {
    let count = 0;
    while (performance.now() < deadline) {
      const batch = s.pending.all(64) as { kind: Kind; id: number }[];
      if (batch.length === 0) return { count, more: false };
      // The deadline is looked at per row, not per batch: a remote post's text can take
      // milliseconds to read (64 KiB of markup in content, as much in summary), and 64 of them
      // held the main thread near a second.
      for (const { kind, id } of batch) {
        if (count > 0 && performance.now() >= deadline) return { count, more: true };
        indexRow(kind, id, read[kind].get(id));
        s.unqueue.run(kind, id);
        count++;
      }
    }
    return { count, more: true };
  });

  const rebuildBatch = sqlite.transaction((deadline: number): boolean => {
    for (const r of s.rebuilds.all() as { kind: Kind; nextId: number; lastId: number }[]) {
      let next = r.nextId;
      while (performance.now() < deadline) {
        const rows = walk[r.kind].all(next, r.lastId, 64) as { id: number }[];
        if (rows.length === 0) {
          s.finish.run(r.kind);
          break;
        }
        // Per row, as in drainBatch: the rows indexed before the deadline are the step's.
        let indexed = 0;
        for (const row of rows) {
          if (indexed > 0 && performance.now() >= deadline) break;
          indexRow(r.kind, row.id, row);
          indexed++;
        }
        next = rows[indexed - 1]!.id;
        s.advance.run(next, indexed, r.kind);
        if (next >= r.lastId) {
          s.finish.run(r.kind);
          break;
        }
      }
      if (performance.now() >= deadline) break;
    }
    return (s.rebuilds.all() as unknown[]).length > 0;
  });

  return {
    drain(budgetMs) {
      const { count } = drainBatch(performance.now() + budgetMs);
      drained += count;
      return count;
    },
    step(budgetMs) {
      const deadline = performance.now() + budgetMs;
      const { count, more } = drainBatch(deadline);
      drained += count;
      if (more) return true;
      return rebuildBatch(deadline);
    },
    progress() {
      const totals = s.rebuildTotals.get() as { total: number; done: number };
      const pending = s.pendingCount.get() as number;
      const remaining = totals.total - totals.done + pending;
      const done = totals.done + drained;
      return { done, remaining, percent: remaining === 0 ? 100 : Math.min(99, Math.floor((100 * done) / (done + remaining))) };
    },
  };
}

export interface SearchLoop {
  start(): void;
  stop(): void;
  /** Runs a step soon (after a write, say) instead of at the next poll. */
  wake(): void;
}

/** The background indexer: a step of at most `budgetMs` whenever work remains, with a pause
 * between steps for everything else; when there is none, a look at the queue every `idleMs`. */
export function createSearchLoop(indexer: SearchIndexer, options: { log?: (line: string) => void; budgetMs?: number; idleMs?: number } = {}): SearchLoop {
  const budgetMs = options.budgetMs ?? 25;
  const idleMs = options.idleMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let reported = -1;
  const schedule = (ms: number) => {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref?.();
  };
  function tick(): void {
    timer = null;
    let more = false;
    try {
      more = indexer.step(budgetMs);
      if (more) {
        const { percent } = indexer.progress();
        if (percent >= reported + 10) options.log?.(`search index: ${(reported = percent)}% built`);
      } else if (reported >= 0) {
        options.log?.('search index: built');
        reported = -1;
      }
    } catch (error) {
      options.log?.(`search indexing failed, will try again: ${(error as Error).message}`);
    }
    schedule(more ? 5 : idleMs);
  }
  return {
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    wake() {
      schedule(0);
    },
  };
}
