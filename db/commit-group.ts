// Several writers' transactions under one commit, on a connection one thread owns (the inbox
// processor's). In WAL mode a commit appends every page the transaction touched to the log, and
// a row's work touches the same few pages as the next row's (the table's last leaf, its indexes'):
// one commit for a batch of rows writes those pages once instead of once per row.
//
// A group is one BEGIN IMMEDIATE … COMMIT. While it is open, a transaction run on the connection
// is a savepoint inside it (better-sqlite3 nests that way by itself): its failure undoes its own
// writes only, as before. The group ends at the latest when the thread next turns its event loop
// (a setImmediate set when it opened), so it never stays open across a network wait, a timer or
// a message: the write lock is held for synchronous work only (the processor also ends a group
// that has held it 10 ms), so other connections (the main thread's, the delivery worker's) wait
// for it no longer than that.
//
// Work that only needs doing once per group can wait for its end: beforeCommit(key, fn) runs fn
// once per key, inside the group's transaction, right before the COMMIT (a post's likes counted
// again from the rows once for the twenty Likes of a batch, instead of twenty times).
//
// What tells another thread that rows are stored (a reply, an event) must wait for the commit:
// afterGroup() runs its callback once the open group has ended, with whether it committed. SQLite
// may roll back the whole transaction by itself (a full disk, an I/O error inside a savepoint);
// then every write of the group is gone, and `lost` says so to the writer that must know (the
// processor, whose rows are then taken again; the insert, whose POSTs are refused, never acked).
import { sqliteOf, type DbOrTx, type Sqlite } from './client';

export interface CommitGroup {
  /** Opens a group unless one is open (or a transaction the group did not open is). */
  join(): void;
  /** Commits the open group now (nothing when none is open) and runs its callbacks. */
  end(): void;
  /** Runs `fn` right before the open group commits, inside its transaction, once per `key` (the
   * last one registered under it); with no group open, at once. */
  beforeCommit(key: string, fn: () => void): void;
  /** Runs `fn` once the open group has ended (committed: whether its writes are stored); with no
   * group open, after the current synchronous work (a microtask), committed. */
  afterGroup(fn: (committed: boolean) => void): void;
  /** Whether a group is open right now. */
  readonly open: boolean;
  /** How long the open group has held the write lock, in ms (0 when none is open). */
  readonly heldMs: number;
  /** Whether SQLite rolled back the open group's transaction by itself (it is still "open" for
   * the writers until end(), which then commits nothing). */
  readonly lost: boolean;
  /** Groups committed so far, and groups lost (for tests and the bench). */
  readonly stats: { committed: number; lost: number };
}

const groups = new WeakMap<object, CommitGroup>();

/** The commit group open on `db`'s connection right now, if any (for writers that can defer). */
export function openGroupOf(db: DbOrTx): CommitGroup | null {
  const group = groups.get(sqliteOf(db));
  return group?.open ? group : null;
}

export function commitGroup(sqlite: Sqlite): CommitGroup {
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  let open = false;
  let openedAt = 0;
  let callbacks: ((committed: boolean) => void)[] = [];
  let deferred = new Map<string, () => void>();
  const stats = { committed: 0, lost: 0 };

  function end(): void {
    if (!open) return;
    open = false;
    let committed = false;
    const before = deferred;
    deferred = new Map();
    if (sqlite.inTransaction) {
      try {
        for (const fn of before.values()) fn();
        commit.run();
        committed = true;
      } catch (error) {
        // A commit that fails leaves the transaction open: undo it, so the connection is usable.
        if (sqlite.inTransaction) sqlite.prepare('ROLLBACK').run();
        settle(false);
        throw error;
      }
    }
    settle(committed);
  }

  function settle(committed: boolean): void {
    if (committed) stats.committed++;
    else stats.lost++;
    const waiting = callbacks;
    callbacks = [];
    for (const fn of waiting) fn(committed);
  }

  const group: CommitGroup = {
    join() {
      if (open || sqlite.inTransaction) return;
      begin.run();
      open = true;
      openedAt = performance.now();
      // A failure here is the group's loss, which its writers see (lost, stats, afterGroup).
      setImmediate(() => {
        try {
          end();
        } catch {
          // told through settle(false)
        }
      });
    },
    end,
    beforeCommit(key, fn) {
      if (open) deferred.set(key, fn);
      else fn();
    },
    afterGroup(fn) {
      if (open) callbacks.push(fn);
      else queueMicrotask(() => fn(true));
    },
    get open() {
      return open;
    },
    get heldMs() {
      return open ? performance.now() - openedAt : 0;
    },
    get lost() {
      return open && !sqlite.inTransaction;
    },
    stats,
  };
  groups.set(sqlite, group);
  return group;
}
