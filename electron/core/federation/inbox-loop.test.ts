import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { commitGroup, openGroupOf } from '../../../db/commit-group';
import { incomingActivity, type IncomingActivity } from '../../../db/schema';
import { createInboxLoop, INBOX_MAX_TRIES, inboxBackoffMs, type RowResult } from './inbox-loop';
import { getOrFetchActor } from './actors';
import { processIncomingActivity } from './process/index';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './process/test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const aliceId = () => String(remotes.fixture('actors/mastodon-alice.json').id);
// Nothing listens on port 9 (discard): connections are refused at once.
const UNREACHABLE = 'http://127.0.0.1:9/users/nobody';

describe('inbox backoff', () => {
  it('grows exponentially with ±20 % jitter, capped at 4 h, and spans about a day before giving up', () => {
    expect(inboxBackoffMs(1, () => 0.5)).toBe(60_000);
    expect(inboxBackoffMs(2, () => 0.5)).toBe(120_000);
    expect(inboxBackoffMs(20, () => 0.5)).toBe(4 * 3600_000);
    expect(inboxBackoffMs(1, () => 0)).toBe(48_000);
    expect(inboxBackoffMs(1, () => 1)).toBe(72_000);
    let total = 0;
    for (let n = 1; n < INBOX_MAX_TRIES; n++) total += inboxBackoffMs(n, () => 0.5);
    expect(total / 3600_000).toBeGreaterThan(20);
    expect(total / 3600_000).toBeLessThan(30);
  });
});

describe('inbox loop', () => {
  it('an activity whose actor cannot be reached is retried with growing waits, then errored after ~a day', async () => {
    rig = await openRig();
    const id = rig.queue({ id: `${UNREACHABLE}#like/1`, type: 'Like', actor: UNREACHABLE, object: 'https://tern.example/o/x' });
    const waits: number[] = [];
    let row: IncomingActivity = rig.incoming(id);
    const started = rig.now().getTime();
    for (let attempt = 1; attempt <= INBOX_MAX_TRIES; attempt++) {
      const summary = await rig.core.loops.inbox.drain();
      row = rig.incoming(id);
      expect(row.tries).toBe(attempt);
      expect(row.lastTry!.getTime()).toBe(rig.now().getTime());
      expect(row.error).toMatch(/UnavailableError: Could not fetch/);
      if (attempt < INBOX_MAX_TRIES) {
        expect(summary).toEqual({ processed: 0, dropped: 0, retried: 1, errored: 0 });
        expect(row).toMatchObject({ isProcessed: false, isErrored: false });
        // Not due before its next_try…
        waits.push(row.nextTry!.getTime() - rig.now().getTime());
        rig.setNow(new Date(row.nextTry!.getTime() - 1));
        expect((await rig.core.loops.inbox.drain()).retried).toBe(0);
        // …due at it.
        rig.setNow(row.nextTry!);
      } else {
        expect(summary).toEqual({ processed: 0, dropped: 0, retried: 0, errored: 1 });
      }
    }
    expect(row).toMatchObject({ isErrored: true, isProcessed: false, nextTry: null, tries: INBOX_MAX_TRIES });
    expect(waits.slice(0, 6).every((w, i) => i === 0 || w > waits[i - 1]!)).toBe(true);
    const hours = (rig.now().getTime() - started) / 3600_000;
    expect(hours).toBeGreaterThan(18);
    expect(hours).toBeLessThan(32);
    // Errored rows are never picked up again.
    rig.advance(7 * 24 * 3600_000);
    expect(await rig.core.loops.inbox.drain()).toEqual({ processed: 0, dropped: 0, retried: 0, errored: 0 });
    expect(countRows(rig.core, 'inbox')).toBe(0);
  });

  it('deliberate drops (duplicate, blocked server, not for us) are processed with the reason and never retried', async () => {
    rig = await openRig({ blockedServers: ['blocked.example'] });
    const follow = { id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' };
    const ids = [
      rig.queue(follow),
      rig.queue(follow),
      rig.queue({ id: 'https://blocked.example/a/1', type: 'Create', actor: 'https://blocked.example/users/x', object: 'https://blocked.example/n/1' }),
      rig.queue({ type: 'Like', actor: aliceId(), object: 'https://tern.example/o/x' }),
    ];
    expect(await rig.core.loops.inbox.drain()).toEqual({ processed: 1, dropped: 3, retried: 0, errored: 0 });
    const rows = ids.map((id) => rig.incoming(id));
    expect(rows.map((r) => [r.isProcessed, r.isErrored, r.tries, r.nextTry])).toEqual(Array(4).fill([true, false, 1, null]));
    expect(rows.map((r) => r.error)).toEqual([
      null,
      'duplicate: already processed',
      'blocked server blocked.example',
      'Like without an id: transient, ignored',
    ]);
    rig.advance(48 * 3600_000);
    expect((await rig.core.loops.inbox.drain()).dropped).toBe(0);
  });

  it('a malformed row is dropped, not retried', async () => {
    rig = await openRig();
    const id = rig.queue({ id: 'https://x.example/1', type: 'Like' } as never);
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(id)).toMatchObject({ isProcessed: true, isErrored: false });
    expect(rig.incoming(id).error).toMatch(/^malformed activity: actor/);
  });

  it('takes due rows oldest first', async () => {
    rig = await openRig();
    const order: number[] = [];
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: (_deps, row) => {
        order.push(row.id);
        return Promise.resolve({ status: 'processed', inboxObjectId: null });
      },
    });
    const late = rig.queue({ id: 'https://x.example/late', type: 'Wave', actor: aliceId() });
    const early = rig.queue({ id: 'https://x.example/early', type: 'Wave', actor: aliceId() });
    rig.core.db.update(incomingActivity).set({ nextTry: new Date(rig.now().getTime() - 5000) }).where(eq(incomingActivity.id, early)).run();
    const future = rig.queue({ id: 'https://x.example/future', type: 'Wave', actor: aliceId() });
    rig.core.db.update(incomingActivity).set({ nextTry: new Date(rig.now().getTime() + 5000) }).where(eq(incomingActivity.id, future)).run();
    await loop.drain();
    expect(order).toEqual([early, late]);
  });

  it('does nothing until the author has an identity', async () => {
    rig = await openRig();
    const loop = createInboxLoop({ db: rig.core.db, clock: rig.core.clock, deps: () => null });
    const id = rig.queue({ id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' });
    expect(await loop.drain()).toEqual({ processed: 0, dropped: 0, retried: 0, errored: 0 });
    expect(rig.incoming(id).tries).toBe(0);
  });

  it('started, it processes a row as soon as the listener signals it (inboxEvents → wake)', async () => {
    rig = await openRig();
    const done: RowResult[] = [];
    let resolveDone: (r: RowResult) => void = () => {};
    const processedOne = new Promise<RowResult>((resolve) => (resolveDone = resolve));
    // A long idle poll: only the wake-up can make this test finish in time.
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      idlePollMs: 60_000,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      onRowDone: (r) => {
        done.push(r);
        resolveDone(r);
      },
    });
    const unsubscribe = rig.core.inboxEvents.onQueued(() => loop.wake());
    loop.start();
    expect(loop.running).toBe(true);
    await loop.drain(); // the first (empty) batch has run; the loop now idles for a minute
    const id = rig.queue({ id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' });
    rig.core.inboxEvents.queued({ id, apId: `${aliceId()}#follows/1`, type: 'Follow', sentBy: aliceId() });
    expect(await processedOne).toEqual({ id, outcome: 'processed' });
    await loop.stop();
    unsubscribe();
    expect(loop.running).toBe(false);
    expect(countRows(rig.core, 'follower')).toBe(1);
  });

  it('started, it takes batch after batch at the event loop’s next turns, never waiting on a timer while rows are due', async () => {
    rig = await openRig();
    const ids = Array.from({ length: 25 }, (_, i) => rig.queue({ id: `https://x.example/wave/${i}`, type: 'Wave', actor: aliceId() }));
    let resolveAll: () => void = () => {};
    const allDone = new Promise<void>((resolve) => (resolveAll = resolve));
    const done: RowResult[] = [];
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      idlePollMs: 60_000,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: () => Promise.resolve({ status: 'processed', inboxObjectId: null }),
      onRowDone: (r) => {
        done.push(r);
        if (done.length === ids.length) resolveAll();
      },
    });
    // Timers that never fire: Node's setTimeout(…, 0) waits a millisecond, idle, between batches
    // of 3–4 ms of work; the loop must not use one to take its next batch.
    const realSetTimeout = globalThis.setTimeout;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      loop.start();
      await Promise.race([allDone, new Promise((_, reject) => realSetTimeout(() => reject(new Error(`${done.length} of 25 rows done: the rest wait on a timer (or on the next I/O)`)), 5_000))]);
    } finally {
      vi.useRealTimers();
    }
    await loop.stop();
    expect(done.map((r) => r.id).sort((a, b) => a - b)).toEqual(ids);
    expect(done.every((r) => r.outcome === 'processed')).toBe(true);
  });

  it('idle, it looks again when the next retry is due, not at the next idle poll', async () => {
    rig = await openRig();
    let resolveDone: (r: RowResult) => void = () => {};
    const processedOne = new Promise<RowResult>((resolve) => (resolveDone = resolve));
    const clock = () => new Date();
    // A long idle poll and no wake-up: only the retry's own time can make this test finish in time.
    const loop = createInboxLoop({
      db: rig.core.db,
      clock,
      idlePollMs: 60_000,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: () => Promise.resolve({ status: 'processed', inboxObjectId: null }),
      onRowDone: resolveDone,
    });
    const id = rig.queue({ id: 'https://x.example/soon', type: 'Wave', actor: aliceId() });
    rig.core.db.update(incomingActivity).set({ nextTry: new Date(Date.now() + 300) }).where(eq(incomingActivity.id, id)).run();
    loop.start();
    expect(await processedOne).toEqual({ id, outcome: 'processed' });
    await loop.stop();
  });

  it('counts every try of a batch before any work, and writes the outcomes before telling anyone', async () => {
    rig = await openRig();
    const ids = [1, 2, 3].map((n) => rig.queue({ id: `https://x.example/${n}`, type: 'Wave', actor: aliceId() }));
    const seenTries: number[][] = [];
    const seenAtDone: Array<{ isProcessed: boolean; error: string | null }> = [];
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: (_deps, row) => {
        seenTries.push(ids.map((id) => rig.incoming(id).tries));
        if (row.id === ids[1]) return Promise.reject(new Error('peer down'));
        return Promise.resolve(row.id === ids[2] ? { status: 'dropped', reason: 'not for us' } : { status: 'processed', inboxObjectId: null });
      },
      onRowDone: (result) => {
        const row = rig.incoming(result.id);
        seenAtDone.push({ isProcessed: row.isProcessed, error: row.error });
      },
    });
    expect(await loop.drain()).toEqual({ processed: 1, dropped: 1, retried: 1, errored: 0 });
    // The first row already saw all three tries counted (one commit for the batch).
    expect(seenTries).toEqual([[1, 1, 1], [1, 1, 1], [1, 1, 1]]);
    expect(seenAtDone).toEqual([
      { isProcessed: true, error: null },
      { isProcessed: false, error: 'Error: peer down' },
      { isProcessed: true, error: 'not for us' },
    ]);
    expect(rig.incoming(ids[1]!).nextTry!.getTime()).toBeGreaterThan(rig.now().getTime());
  });

  it("when the commit of a batch's outcomes fails, the next batch's rows are not taken as counted: every row's try is stored before its work", async () => {
    rig = await openRig();
    const ids = Array.from({ length: 15 }, (_, i) => rig.queue({ id: `https://x.example/w/${i}`, type: 'Wave', actor: aliceId() }));
    // Counting the second batch's tries makes that commit fail (a deferred foreign key, checked at
    // COMMIT, as a full disk would fail it), until disarmed.
    rig.core.sqlite.exec(`
      CREATE TABLE arm (on_ INTEGER); INSERT INTO arm VALUES (1);
      CREATE TABLE fk_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE fk_child (p INTEGER REFERENCES fk_parent(id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER fail_commit AFTER UPDATE OF tries ON incoming_activity WHEN NEW.id > ${ids[9]} AND (SELECT on_ FROM arm) = 1
      BEGIN INSERT INTO fk_child VALUES (999); END;`);
    const storedTriesAtWork: number[] = [];
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: (_deps, row) => {
        storedTriesAtWork.push(rig.core.sqlite.prepare('SELECT tries FROM incoming_activity WHERE id = ?').pluck().get(row.id) as number);
        return Promise.resolve({ status: 'processed', inboxObjectId: null });
      },
    });
    await expect(loop.drain()).rejects.toThrow(/FOREIGN KEY/);
    rig.core.sqlite.exec('UPDATE arm SET on_ = 0');
    await loop.drain();
    expect(storedTriesAtWork.every((tries) => tries >= 1)).toBe(true);
    // The first batch: one try, then once more (its outcomes were rolled back with the failed commit).
    expect(ids.map((id) => rig.incoming(id).tries)).toEqual([...Array<number>(10).fill(2), ...Array<number>(5).fill(1)]);
    expect(ids.every((id) => rig.incoming(id).isProcessed)).toBe(true);
  });

  it('a row whose outcome was never written (Tern stopped mid-batch) is taken again and ends as a duplicate', async () => {
    rig = await openRig();
    const follow = { id: `${aliceId()}#follows/9`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' };
    const id = rig.queue(follow);
    expect((await rig.core.loops.inbox.drain()).processed).toBe(1);
    // As if the handler's commit landed but the batch's outcome commit did not.
    rig.core.db.update(incomingActivity).set({ isProcessed: false, error: null }).where(eq(incomingActivity.id, id)).run();
    expect(await rig.core.loops.inbox.drain()).toEqual({ processed: 0, dropped: 1, retried: 0, errored: 0 });
    expect(rig.incoming(id)).toMatchObject({ isProcessed: true, tries: 2, error: 'duplicate: already processed' });
    expect(countRows(rig.core, 'follower')).toBe(1);
    expect(countRows(rig.core, 'notifications')).toBe(1);
  });

  it('keeps error text short', async () => {
    rig = await openRig();
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: () => Promise.reject(new Error('x'.repeat(5000))),
    });
    const id = rig.queue({ id: 'https://x.example/1', type: 'Wave', actor: aliceId() });
    await loop.drain();
    expect(rig.incoming(id).error!.length).toBeLessThanOrEqual(1000);
    expect(rig.incoming(id).nextTry!.getTime()).toBeGreaterThan(rig.now().getTime());
  });

  describe('with a commit group (the inbox worker)', () => {
    // Each processed row writes a mark, as a handler writes its rows, in its own transaction.
    const marking = (extra?: (row: IncomingActivity) => Promise<void> | void) => (deps: { db: typeof rig.core.db }, row: IncomingActivity) =>
      Promise.resolve(extra?.(row)).then(() => {
        deps.db.transaction(() => rig.core.sqlite.prepare('INSERT INTO marks (row_id) VALUES (?)').run(row.id));
        return { status: 'processed' as const, inboxObjectId: null };
      });
    const marks = () => rig.core.sqlite.prepare('SELECT row_id FROM marks ORDER BY row_id').pluck().all() as number[];
    const loopWith = (process: ReturnType<typeof marking>, onRowDone?: (r: RowResult) => void) => {
      const group = commitGroup(rig.core.sqlite);
      const loop = createInboxLoop({
        db: rig.core.db,
        clock: rig.core.clock,
        deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
        process,
        group,
        ...(onRowDone ? { onRowDone } : {}),
      });
      return { loop, group };
    };
    const queueWaves = (n: number) => Array.from({ length: n }, (_, i) => rig.queue({ id: `https://x.example/w/${i}`, type: 'Wave', actor: aliceId() }));

    it("writes a batch's rows and their outcomes under one commit, and tells of a row only after it", async () => {
      rig = await openRig();
      rig.core.sqlite.exec('CREATE TABLE marks (row_id INTEGER NOT NULL)');
      const ids = queueWaves(4);
      const seenAtDone: boolean[] = [];
      const { loop, group } = loopWith(marking(), (r) => seenAtDone.push(rig.incoming(r.id).isProcessed && !rig.core.sqlite.inTransaction));
      expect(await loop.drain()).toEqual({ processed: 4, dropped: 0, retried: 0, errored: 0 });
      expect(group.stats).toEqual({ committed: 1, lost: 0 });
      expect(marks()).toEqual(ids);
      expect(seenAtDone).toEqual([true, true, true, true]);
      expect(ids.map((id) => rig.incoming(id).tries)).toEqual([1, 1, 1, 1]);
    });

    it("while rows keep coming, the next batch's tries are stored by the commit of a batch's outcomes (one commit a batch), and no try is counted twice", async () => {
      rig = await openRig();
      rig.core.sqlite.exec('CREATE TABLE marks (row_id INTEGER NOT NULL)');
      const ids = queueWaves(15); // batches of 10 and 5
      const nextBatchTriesAtDone: number[][] = [];
      const { loop, group } = loopWith(marking(), (r) => {
        if (r.id === ids[0]) nextBatchTriesAtDone.push(ids.slice(10).map((id) => rig.incoming(id).tries));
      });
      expect(await loop.drain()).toEqual({ processed: 15, dropped: 0, retried: 0, errored: 0 });
      // Told of the first batch's rows after their commit: the second batch's tries were in it.
      expect(nextBatchTriesAtDone).toEqual([[1, 1, 1, 1, 1]]);
      expect(group.stats).toEqual({ committed: 2, lost: 0 });
      expect(marks()).toEqual(ids);
      expect(ids.map((id) => rig.incoming(id).tries)).toEqual(ids.map(() => 1));
    });

    it('a row that waits on the network ends the group first: the write lock is never held across the wait', async () => {
      rig = await openRig();
      rig.core.sqlite.exec('CREATE TABLE marks (row_id INTEGER NOT NULL)');
      const ids = queueWaves(3);
      const heldDuringWait: boolean[] = [];
      const { loop, group } = loopWith(
        marking(async (row) => {
          if (row.id !== ids[1]) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
          heldDuringWait.push(rig.core.sqlite.inTransaction);
        }),
      );
      expect((await loop.drain()).processed).toBe(3);
      expect(heldDuringWait).toEqual([false]);
      // The first row's group ended at the wait; the second and third rows shared the next one.
      expect(group.stats).toEqual({ committed: 2, lost: 0 });
      expect(marks()).toEqual(ids);
    });

    it('a group that has held the write lock for 10 ms is committed before the next row', async () => {
      rig = await openRig();
      rig.core.sqlite.exec('CREATE TABLE marks (row_id INTEGER NOT NULL)');
      const ids = queueWaves(4);
      const { loop, group } = loopWith(
        marking((row) => {
          // A heavy row (a large post to sanitize): 12 ms of synchronous work.
          if (row.id !== ids[1]) return;
          const until = performance.now() + 12;
          while (performance.now() < until);
        }),
      );
      expect((await loop.drain()).processed).toBe(4);
      // Rows 1–2 in the first group (ended after the heavy row), rows 3–4 in the second.
      expect(group.stats).toEqual({ committed: 2, lost: 0 });
      expect(marks()).toEqual(ids);
    });

    // Two ways a group's work is lost: SQLite rolls its transaction back inside a row (a full
    // disk, an I/O error: the statement fails), or its commit fails (work deferred to it failing).
    const losses = [
      {
        how: 'SQLite rolls the group back mid-batch',
        row: 1,
        fail: () => {
          rig.core.sqlite.exec('ROLLBACK');
          throw new Error('SQLITE_FULL: database or disk is full');
        },
        error: /rolled back the work of this batch \(2 rows\)/,
      },
      {
        how: "the group's commit fails",
        row: 2,
        fail: () =>
          openGroupOf(rig.core.db)!.beforeCommit('boom', () => {
            throw new Error('SQLITE_FULL: database or disk is full');
          }),
        error: /SQLITE_FULL/,
      },
    ];
    it.each(losses)('when $how, no row is marked done without its work: all stay due, tries counted, and are done at the next try', async ({ row, fail, error }) => {
      rig = await openRig();
      rig.core.sqlite.exec('CREATE TABLE marks (row_id INTEGER NOT NULL)');
      const ids = queueWaves(3);
      let failures = 1;
      const done: RowResult[] = [];
      const { loop, group } = loopWith(
        marking((r) => {
          if (r.id === ids[row] && failures-- > 0) fail();
        }),
        (r) => done.push(r),
      );
      await expect(loop.drain()).rejects.toThrow(error);
      expect(group.stats.lost).toBe(1);
      expect(marks()).toEqual([]);
      expect(done).toEqual([]);
      expect(ids.map((id) => rig.incoming(id)).map((r) => [r.tries, r.isProcessed])).toEqual([[1, false], [1, false], [1, false]]);
      expect(await loop.drain()).toEqual({ processed: 3, dropped: 0, retried: 0, errored: 0 });
      expect(marks()).toEqual(ids);
      expect(ids.map((id) => rig.incoming(id).tries)).toEqual([2, 2, 2]);
    });

    it("a post's likes are counted again once per group, before its commit, and the count is the rows' truth", async () => {
      rig = await openRig();
      const post = rig.ourPost('5b8a1c2d3e4f');
      const zoe = String(remotes.fixture('actors/gotosocial-zoe.json').id);
      const likes = [
        { id: `${aliceId()}#likes/1`, type: 'Like', actor: aliceId(), object: post.apId },
        { id: `${zoe}/liked/1`, type: 'Like', actor: zoe, object: post.apId },
        // Alice again: one actor counts once.
        { id: `${aliceId()}#likes/2`, type: 'Like', actor: aliceId(), object: post.apId },
      ];
      // Both actors known already: a row that fetches its actor ends the group at that wait.
      for (const id of [aliceId(), zoe]) await getOrFetchActor({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock }, id);
      for (const like of likes) rig.queue(like);
      const countsSeenInGroup: number[] = [];
      const group = commitGroup(rig.core.sqlite);
      const loop = createInboxLoop({
        db: rig.core.db,
        clock: rig.core.clock,
        deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
        process: async (deps, row) => {
          const outcome = await processIncomingActivity(deps, row);
          countsSeenInGroup.push(rig.outboxRow(post.id).likesCount);
          return outcome;
        },
        group,
      });
      expect(await loop.drain()).toEqual({ processed: 3, dropped: 0, retried: 0, errored: 0 });
      // Not counted after each Like (the rows' own transactions)…
      expect(countsSeenInGroup).toEqual([0, 0, 0]);
      // …but once, before the commit that holds them all.
      expect(group.stats).toEqual({ committed: 1, lost: 0 });
      expect(rig.outboxRow(post.id).likesCount).toBe(2);
      expect(rig.notificationsOf('LIKE')).toHaveLength(3);
    });
  });
});
