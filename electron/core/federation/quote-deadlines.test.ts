// The moment the author's quote turns unanswered is told to the window as it passes (a change
// of kind timeline), from one timer set for the earliest such moment: with a stand-in for the
// timers and the rig's fake clock, then through the core's own wiring with real timers.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { outbox, outgoingActivity, type OutboxObject } from '../../../db/schema';
import type { ChangeKind } from '../ipc/changes-contract';
import { PUBLIC } from './ap';
import { createQuoteDeadlineWatch, QUOTE_DEADLINE_MAX_WAIT_MS, type Timers } from './quote-deadlines';
import { QUOTE_ANSWER_WAIT_MS } from './quoting';
import { openRig, startRemotes, type Remotes, type Rig } from './process/test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const HOUR = 60 * 60 * 1000;
const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
let notes = 0;

async function alicesNote(): Promise<string> {
  const id = `${alice()}/statuses/${++notes}`;
  const note = { id, type: 'Note', attributedTo: alice(), content: '<p>Herons</p>', to: [PUBLIC], published: rig.now().toISOString(), interactionPolicy: { canQuote: { manualApproval: [PUBLIC] } } };
  await rig.receive({ id: `${id}/activity`, type: 'Create', actor: alice(), to: [PUBLIC], object: note });
  return id;
}

async function quote(): Promise<{ post: OutboxObject; request: OutboxObject }> {
  const view = await rig.core.services.author.createPost({ content: 'So true', visibility: 'PUBLIC', quote: await alicesNote() });
  const post = rig.outboxRow(view.id);
  const request = rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().find((r) => r.apType === 'QuoteRequest')!;
  return { post, request };
}

/** As the delivery loop records a delivery that reached the server now. */
const delivered = (request: OutboxObject) =>
  rig.core.db.update(outgoingActivity).set({ isSent: true, tries: 1, lastTry: rig.now(), lastStatusCode: 202 }).where(eq(outgoingActivity.outboxObjectId, request.id)).run();
const stateOf = async (post: OutboxObject) => (await rig.core.services.author.thread(post.apId)).post.quoteState;

/** Timers that only run when the test says so. */
function fakeTimers() {
  const set: { fire: () => void; ms: number; cleared: boolean }[] = [];
  const timers: Timers = {
    set(fire, ms) {
      // Fired, it is done: no longer live.
      const timer = {
        fire: () => {
          timer.cleared = true;
          fire();
        },
        ms,
        cleared: false,
      };
      set.push(timer);
      return timer;
    },
    clear: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
  return { timers, live: () => set.filter((t) => !t.cleared), all: set };
}

/** One quote whose request was delivered now, and a watch on stand-in timers, armed. */
async function watchedQuote() {
  rig = await openRig();
  const { post, request } = await quote();
  delivered(request);
  const fake = fakeTimers();
  const told: number[][] = [];
  const watch = createQuoteDeadlineWatch({ db: rig.core.db, clock: rig.now, localId: () => rig.local.id, onDue: (ids) => told.push(ids), timers: fake.timers });
  watch.rearm();
  return { post, fake, told, watch };
}

describe('a quote crossing the one-day mark is told as it crosses it', () => {
  it('one timer, for the earliest pending quote; when it fires the post is told (and unanswered), and the timer set for the next', async () => {
    rig = await openRig();
    const first = await quote();
    delivered(first.request);
    const start = rig.now();
    rig.advance(HOUR);
    const second = await quote();
    delivered(second.request);
    // Still on its way (offline): no moment is set for it yet.
    await quote();

    const fake = fakeTimers();
    const told: number[][] = [];
    const watch = createQuoteDeadlineWatch({ db: rig.core.db, clock: rig.now, localId: () => rig.local.id, onDue: (ids) => told.push(ids), timers: fake.timers });
    watch.rearm();
    expect(fake.live()).toHaveLength(1);
    // For the moment, or for QUOTE_DEADLINE_MAX_WAIT_MS at most (then set again for the rest).
    expect(fake.live()[0]!.ms).toBe(Math.min(QUOTE_ANSWER_WAIT_MS - HOUR, QUOTE_DEADLINE_MAX_WAIT_MS));
    expect(watch.armedFor()).toEqual(new Date(start.getTime() + QUOTE_ANSWER_WAIT_MS));

    // Set again (a delivery changed): still one timer.
    watch.rearm();
    expect(fake.live()).toHaveLength(1);

    rig.advance(QUOTE_ANSWER_WAIT_MS - HOUR);
    expect(await stateOf(first.post)).toBe('unanswered');
    fake.live()[0]!.fire();
    expect(told).toEqual([[first.post.id]]);
    expect(fake.live()).toHaveLength(1);
    expect(fake.live()[0]!.ms).toBe(Math.min(HOUR, QUOTE_DEADLINE_MAX_WAIT_MS));
    expect(await stateOf(second.post)).toBe('pending');

    // An answer to the second comes: nothing is left to wait for, and no timer is set.
    await rig.receive({ id: `${alice()}#reject`, type: 'Reject', actor: alice(), to: [rig.local.id], object: second.request.apId });
    watch.rearm();
    expect(fake.live()).toEqual([]);
    expect(watch.armedFor()).toBeNull();
    watch.stop();
  });

  it('a timer that fires early tells nothing yet and is set again for what is left', async () => {
    const { post, fake, told, watch } = await watchedQuote();
    rig.advance(QUOTE_ANSWER_WAIT_MS - 2);
    fake.live()[0]!.fire();
    expect(told).toEqual([]);
    expect(fake.live().map((t) => t.ms)).toEqual([2]);
    rig.advance(2);
    fake.live()[0]!.fire();
    expect(told).toEqual([[post.id]]);
    expect(fake.live()).toEqual([]);
    watch.stop();
  });

  it('a moment passed while the timer slept (the machine suspended) is told at the next rearm (on resume)', async () => {
    const { post, fake, told, watch } = await watchedQuote();
    rig.advance(QUOTE_ANSWER_WAIT_MS + HOUR);
    watch.rearm();
    expect(told).toEqual([[post.id]]);
    expect(fake.live()).toEqual([]);
    watch.rearm();
    expect(told).toHaveLength(1);
  });

  it('before the author set Tern up, and once stopped, no timer is set', async () => {
    rig = await openRig();
    const { request } = await quote();
    delivered(request);
    const fake = fakeTimers();
    const watch = createQuoteDeadlineWatch({ db: rig.core.db, clock: rig.now, localId: () => null, onDue: () => {}, timers: fake.timers });
    watch.rearm();
    expect(fake.all).toEqual([]);
    const stopped = createQuoteDeadlineWatch({ db: rig.core.db, clock: rig.now, localId: () => rig.local.id, onDue: () => {}, timers: fake.timers });
    stopped.rearm();
    stopped.stop();
    expect(fake.live()).toEqual([]);
    stopped.rearm();
    expect(fake.live()).toEqual([]);
  });

  it('the core tells the window (a timeline change) when the mark passes, with no row written', async () => {
    rig = await openRig();
    const { post, request } = await quote();
    delivered(request);
    const kinds: ChangeKind[][] = [];
    const heard = new Promise<void>((resolve) =>
      rig.core.changes.subscribe((changed) => {
        kinds.push(changed);
        if (changed.includes('timeline')) resolve();
      }),
    );
    // 80 ms of real time before the mark.
    rig.advance(QUOTE_ANSWER_WAIT_MS - 80);
    rig.core.loops.quoteDeadlines.rearm();
    expect(rig.core.loops.quoteDeadlines.armedFor()).toEqual(new Date(rig.now().getTime() + 80));
    setTimeout(() => rig.advance(80), 40);
    await heard;
    expect(kinds.at(-1)).toContain('timeline');
    expect(await stateOf(post)).toBe('unanswered');
  });
});

it('a moment that passed while the machine slept, with no shell to say it woke (headless), is told within 15 minutes of awake time', async () => {
  const { post, fake, told, watch } = await watchedQuote();
  // A timer does not count a suspend: what it is set for is awake time.
  expect(fake.live().map((t) => t.ms)).toEqual([15 * 60_000]);
  // Asleep through the moment: the wall clock moves on, the timer does not, no rearm comes.
  rig.advance(QUOTE_ANSWER_WAIT_MS + 3 * HOUR);
  expect(told).toEqual([]);
  fake.live()[0]!.fire(); // 15 minutes after the wake
  expect(told).toEqual([[post.id]]);
  expect(fake.live()).toHaveLength(0);
  watch.stop();
});

describe('what sets the timer costs little, however the clock or the queue moves', () => {
  it('a clock set back a month: one timer of QUOTE_DEADLINE_MAX_WAIT_MS, not one that fires at once again and again', async () => {
    rig = await openRig();
    const { request } = await quote();
    delivered(request);
    const monthAgo = new Date(rig.now().getTime() - 30 * 24 * HOUR);
    const fake = fakeTimers();
    const watch = createQuoteDeadlineWatch({ db: rig.core.db, clock: () => monthAgo, localId: () => rig.local.id, onDue: () => {}, timers: fake.timers });
    watch.rearm();
    expect(fake.live().map((t) => t.ms)).toEqual([QUOTE_DEADLINE_MAX_WAIT_MS]);
    // With Node's own timers: a delay past 2^31 − 1 ms would fire at once and rearm in a loop.
    let reads = 0;
    const real = createQuoteDeadlineWatch({ db: rig.core.db, clock: () => (reads++, monthAgo), localId: () => rig.local.id, onDue: () => {} });
    real.rearm();
    await new Promise((resolve) => setTimeout(resolve, 200));
    real.stop();
    watch.stop();
    expect(reads).toBe(1);
  });

  it('deliveries changed: the quotes are read again only when a quote request’s deliveries did', async () => {
    rig = await openRig();
    const { request } = await quote();
    const fake = fakeTimers();
    let reads = 0;
    const watch = createQuoteDeadlineWatch({ db: rig.core.db, clock: () => (reads++, rig.now()), localId: () => rig.local.id, onDue: () => {}, timers: fake.timers });
    watch.rearm();
    expect(reads).toBe(1);
    expect(fake.live()).toHaveLength(0); // on its way: no moment yet
    // Another post's deliveries (a fan-out, the Accept of a stranger's Follow): no reading.
    const other = await rig.core.services.author.createPost({ content: 'Unrelated', visibility: 'PUBLIC' });
    rig.core.db.update(outgoingActivity).set({ isSent: true, tries: 1, lastTry: rig.now(), lastStatusCode: 202 }).where(eq(outgoingActivity.outboxObjectId, rig.outboxRow(other.id).id)).run();
    watch.deliveriesChanged();
    expect(reads).toBe(1);
    // The quote request delivered: read again, and the timer set for its moment.
    delivered(request);
    watch.deliveriesChanged();
    expect(reads).toBe(2);
    expect(fake.live()).toHaveLength(1);
    watch.deliveriesChanged();
    expect(reads).toBe(2);
    watch.stop();
  });

  it('in the core, a processed activity reads the quotes again only when it answers a quote (a flood of Likes does not)', async () => {
    rig = await openRig();
    const { post, request } = await quote();
    delivered(request);
    // What setting up and posting asked for is done first.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const rearm = vi.spyOn(rig.core.loops.quoteDeadlines, 'rearm');
    const looks = vi.spyOn(rig.core.loops.quoteDeadlines, 'deliveriesChanged');
    for (let i = 0; i < 3; i++) await rig.receive({ id: `${alice()}#like-${i}`, type: 'Like', actor: alice(), object: post.apId });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(rearm).not.toHaveBeenCalled();
    await rig.receive({ id: `${alice()}#reject`, type: 'Reject', actor: alice(), to: [rig.local.id], object: request.apId });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(rearm).toHaveBeenCalledTimes(1);
    expect(looks).not.toHaveBeenCalled();
  });
});
