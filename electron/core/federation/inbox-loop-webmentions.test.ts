// Webmention rows beside the activities: verified a few at a time off the activities' sequence,
// so a source that stalls never keeps a follower's activity waiting; tried a few times only;
// kept in the table until their outcome is written.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commitGroup } from '../../../db/commit-group';
import { incomingActivity, type IncomingActivity } from '../../../db/schema';
import { queueWebmention } from '../webmention/receive';
import { createInboxLoop, WEBMENTION_CONCURRENCY, WEBMENTION_MAX_TRIES, webmentionBackoffMs, type RowResult } from './inbox-loop';
import type { ProcessOutcome } from './process/index';
import { openRig, startRemotes, type Remotes, type Rig } from './process/test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const aliceId = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const queueMention = (n: number) => {
  const queued = queueWebmention(rig.core.db, { source: `https://slow.example/${n}`, target: 'https://tern.example/o/x', now: rig.now() });
  if (!queued.ok) throw new Error(queued.reason);
  return queued.id;
};
const processed: ProcessOutcome = { status: 'processed', inboxObjectId: null };

/** A process() whose webmentions wait until released, and whose activities are done at once. */
function stalling() {
  const releases: (() => void)[] = [];
  let atOnce = 0;
  let most = 0;
  const process = (_deps: unknown, row: IncomingActivity): Promise<ProcessOutcome> => {
    if (row.webmentionSource === null) return Promise.resolve(processed);
    most = Math.max(most, ++atOnce);
    return new Promise((resolve) =>
      releases.push(() => {
        atOnce--;
        resolve(processed);
      }),
    );
  };
  return { process, releases, most: () => most };
}

describe('webmentions in the inbox loop', () => {
  it('an activity queued behind stalling sources is processed at once; sources are verified a few at a time', async () => {
    rig = await openRig();
    const fake = stalling();
    const done: RowResult[] = [];
    let activityDone: (r: RowResult) => void = () => {};
    const activity = new Promise<RowResult>((resolve) => (activityDone = resolve));
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      idlePollMs: 60_000,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: fake.process,
      onRowDone: (r) => {
        done.push(r);
        if (rig.incoming(r.id).webmentionSource === null) activityDone(r);
      },
    });
    const mentions = Array.from({ length: 6 }, (_, n) => queueMention(n));
    loop.start();
    const id = rig.queue({ id: 'https://x.example/wave', type: 'Wave', actor: aliceId() });
    loop.wake();
    const t0 = performance.now();
    expect(await activity).toEqual({ id, outcome: 'processed' });
    expect(performance.now() - t0).toBeLessThan(500);
    // Four sources being fetched, two waiting their turn; none done, all still stored as due.
    expect(fake.most()).toBe(WEBMENTION_CONCURRENCY);
    expect(mentions.map((m) => rig.incoming(m).isProcessed)).toEqual([false, false, false, false, false, false]);
    expect(mentions.map((m) => rig.incoming(m).tries)).toEqual([1, 1, 1, 1, 0, 0]);
    // Released one by one, the waiting ones take the free places.
    while (done.length < 7) {
      fake.releases.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await loop.stop();
    expect(fake.most()).toBe(WEBMENTION_CONCURRENCY);
    expect(mentions.every((m) => rig.incoming(m).isProcessed)).toBe(true);
  });

  it('drain waits for the webmentions too, and takes the activities queued meanwhile', async () => {
    rig = await openRig();
    const fake = stalling();
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: fake.process,
    });
    queueMention(1);
    const drained = loop.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const id = rig.queue({ id: 'https://x.example/wave', type: 'Wave', actor: aliceId() });
    loop.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rig.incoming(id).isProcessed).toBe(true);
    fake.releases.shift()!();
    expect(await drained).toEqual({ processed: 2, dropped: 0, retried: 0, errored: 0 });
  });

  it(`a source that cannot be read is tried ${WEBMENTION_MAX_TRIES} times, minutes apart, then given up`, async () => {
    rig = await openRig();
    const loop = createInboxLoop({
      db: rig.core.db,
      clock: rig.core.clock,
      deps: () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() }),
      process: () => Promise.reject(new Error('source did not answer within 5 s; will try again')),
    });
    const id = queueMention(1);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= WEBMENTION_MAX_TRIES; attempt++) {
      const summary = await loop.drain();
      const row = rig.incoming(id);
      expect(row.tries).toBe(attempt);
      if (attempt < WEBMENTION_MAX_TRIES) {
        expect(summary.retried).toBe(1);
        waits.push(row.nextTry!.getTime() - rig.now().getTime());
        rig.setNow(row.nextTry!);
      } else {
        expect(summary.errored).toBe(1);
        expect(row).toMatchObject({ isErrored: true, isProcessed: false, nextTry: null });
      }
    }
    expect(waits[0]).toBeGreaterThanOrEqual(4 * 60_000);
    expect(waits[1]).toBeGreaterThan(waits[0]!);
    expect(webmentionBackoffMs(1, () => 0.5)).toBe(5 * 60_000);
  });

  it('with a commit group (the inbox worker), a webmention’s work and outcome are committed, and one stopped mid-way is taken again', async () => {
    rig = await openRig();
    const group = commitGroup(rig.core.sqlite);
    const fake = stalling();
    const deps = () => ({ db: rig.core.db, fed: rig.core.fed, clock: rig.core.clock, identity: rig.local, settings: rig.core.settings.get() });
    const loop = createInboxLoop({ db: rig.core.db, clock: rig.core.clock, deps, process: fake.process, group });
    const id = queueMention(1);
    const drained = loop.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Tern stops while the source is being fetched: the row is still due, its try counted.
    expect(rig.incoming(id)).toMatchObject({ isProcessed: false, tries: 1 });
    fake.releases.shift()!();
    await drained;
    expect(group.open).toBe(false);
    expect(rig.incoming(id)).toMatchObject({ isProcessed: true, tries: 1 });
    // An outcome never written (as if Tern stopped before it): taken again.
    rig.core.db.update(incomingActivity).set({ isProcessed: false }).run();
    const again = createInboxLoop({ db: rig.core.db, clock: rig.core.clock, deps, process: () => Promise.resolve(processed), group });
    expect((await again.drain()).processed).toBe(1);
    expect(rig.incoming(id)).toMatchObject({ isProcessed: true, tries: 2 });
  });
});

describe('queueing webmentions', () => {
  it('the same (source, target) waiting to be verified is coalesced into its row; one being verified is not', async () => {
    rig = await openRig();
    const input = { source: 'https://bob.example/p', target: 'https://tern.example/o/x', now: rig.now() };
    const first = queueWebmention(rig.core.db, input);
    expect(first).toMatchObject({ ok: true, coalesced: false });
    expect(queueWebmention(rig.core.db, input)).toEqual({ ok: true, id: (first as { id: number }).id, coalesced: true });
    expect(queueWebmention(rig.core.db, { ...input, target: 'https://tern.example/o/y' })).toMatchObject({ ok: true, coalesced: false });
    rig.core.db.update(incomingActivity).set({ tries: 1 }).run();
    expect(queueWebmention(rig.core.db, input)).toMatchObject({ ok: true, coalesced: false });
  });
});
