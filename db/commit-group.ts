// Several writers' transactions under one commit, on a connection one thread owns (the inbox
// processor's). In WAL mode a commit appends every page the transaction touched to the log, and
// a row's work touches the same few pages as the next row's (the table's last leaf, its indexes'):
// one commit for a batch of rows writes those pages once instead of once per row.
//
// A group is one BEGIN IMMEDIATE … COMMIT. While it is open, a transaction run on the connection
// is a savepoint inside it (better-sqlite3 nests that way by itself): its failure undoes its own
// writes only, as before. The group ends at the latest when the thread next turns its event loop
// (a setImmediate set when it opened), so it never stays open across a network wait, a timer or
// a message: the write lock is held for synchronous work only, as long as a transaction already
// was, other connections (the main thread's, the delivery worker's) wait no longer than that.
//
// What tells another thread that rows are stored (a reply, an event) must wait for the commit:
// afterGroup() runs its callback once the open group has ended, with whether it committed. SQLite
// may roll back the whole transaction by itself (a full disk, an I/O error inside a savepoint);
// then every write of the group is gone, and `lost` says so to the writer that must know (the
// processor, whose rows are then taken again; the insert, whose POSTs are refused, never acked).
import type { Sqlite } from './client';

export interface CommitGroup {
  /** Opens a group unless one is open (or a transaction the group did not open is). */
  join(): void;
  /** Commits the open group now (nothing when none is open) and runs its callbacks. */
  end(): void;
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

export function commitGroup(sqlite: Sqlite): CommitGroup {
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  let open = false;
  let openedAt = 0;
  let callbacks: ((committed: boolean) => void)[] = [];
  const stats = { committed: 0, lost: 0 };

  function end(): void {
    if (!open) return;
    open = false;
    let committed = false;
    if (sqlite.inTransaction) {
      try {
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

  return {
    join() {
      if (open || sqlite.inTransaction) return;
      begin.run();
      open = true;
      openedAt = performance.now();
      setImmediate(end);
    },
    end,
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
}
