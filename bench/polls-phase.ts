// Polls phase: votes processed per second by the core's inbox loop. One multiple-choice and one
// single-choice poll of the author's; N cached remote actors; each vote is an incoming_activity
// row as the listener queues it (Create{Note} with `name`, inReplyTo the poll) — two options
// each on the multiple-choice poll plus one duplicate, one option on the single-choice poll plus
// a second choice. The loop is drained and timed; then the tallies are checked against what was
// sent, and one sweep turns all those votes into one Update per poll.
import { eq } from 'drizzle-orm';
import { incomingActivity, outbox, type IncomingActivity } from '../db/schema';
import { saveActor } from '../electron/core/federation/actors';
import { sweepPolls } from '../electron/core/federation/polls/broadcast';
import { pollOf } from '../electron/core/federation/polls/question';
import type { Json } from '../electron/core/federation/ap';
import type { BenchTern } from './tern';

export interface PollsOptions {
  voters: number;
}

export interface PollsResult {
  options: PollsOptions;
  rows: number;
  valid: number;
  wallMs: number;
  perSec: number;
  validPerSec: number;
  summary: { processed: number; dropped: number; retried: number; errored: number };
  talliesRight: boolean;
  tallies: string;
  sweepMs: number;
  updates: number;
  /** The same loop on as many plain Create{Note} rows (not votes), for scale on this machine now. */
  notesPerSec: number;
}

const OPTIONS = ['red', 'green', 'blue', 'cyan', 'magenta', 'yellow'];

export async function runPolls(tern: BenchTern, options: PollsOptions): Promise<PollsResult> {
  const { core, local } = tern;
  const author = core.services.author;
  const poll = (multiple: boolean) =>
    author.createPost({ content: multiple ? 'Favourite colours?' : 'One colour?', visibility: 'PUBLIC', poll: { options: OPTIONS, multiple, durationSeconds: 3600, hideTotals: false } });
  const many = await poll(true);
  const one = await poll(false);
  const now = core.clock();

  const rows: Record<string, unknown>[] = [];
  let n = 0;
  const vote = (actorId: string, question: string, name: string) => {
    const id = `${actorId}/votes/${++n}`;
    const create = { id: `${id}/activity`, type: 'Create', actor: actorId, to: [local.id], object: { id, type: 'Note', attributedTo: actorId, name, inReplyTo: question, to: [local.id] } };
    rows.push({ createdAt: now, sentByApActorId: actorId, apId: create.id, apObject: create as IncomingActivity['apObject'], tries: 0, nextTry: now, isProcessed: false, isErrored: false });
  };
  core.db.transaction((tx) => {
    for (let i = 0; i < options.voters; i++) {
      const id = `https://voters${i % 50}.example/users/v${i}`;
      saveActor(tx, { id, type: 'Person', preferredUsername: `v${i}`, inbox: `${id}/inbox` }, `@v${i}@voters${i % 50}.example`, now);
      vote(id, many.apId, OPTIONS[i % 6]!);
      vote(id, many.apId, OPTIONS[(i + 1) % 6]!);
      vote(id, one.apId, OPTIONS[i % 6]!);
      vote(id, many.apId, OPTIONS[i % 6]!); // duplicate: dropped
      vote(id, one.apId, OPTIONS[(i + 2) % 6]!); // second choice on a single-choice poll: dropped
    }
    for (let i = 0; i < rows.length; i += 500) tx.insert(incomingActivity).values(rows.slice(i, i + 500) as never).run();
  });

  const t0 = performance.now();
  const summary = await core.loops.inbox.drain();
  const wallMs = performance.now() - t0;

  const tally = (id: number) => pollOf(core.db.select().from(outbox).where(eq(outbox.id, id)).get()!.apObject as Json)!;
  const m = tally(many.id);
  const o = tally(one.id);
  const expectedPerOption = (options.voters * 2) / 6;
  const talliesRight =
    m.votersCount === options.voters &&
    o.votersCount === options.voters &&
    m.options.every((x) => Math.abs((x.votes ?? 0) - expectedPerOption) <= 2) &&
    o.options.reduce((s, x) => s + (x.votes ?? 0), 0) === options.voters;

  // For scale: as many plain notes from the same actors, through the same loop.
  const notes = rows.map((_, i) => {
    const actorId = `https://voters${i % options.voters % 50}.example/users/v${i % options.voters}`;
    const id = `${actorId}/notes/${i}`;
    const create = { id: `${id}/activity`, type: 'Create', actor: actorId, to: ['https://www.w3.org/ns/activitystreams#Public'], object: { id, type: 'Note', attributedTo: actorId, content: `<p>note ${i}</p>`, to: ['https://www.w3.org/ns/activitystreams#Public'] } };
    return { createdAt: now, sentByApActorId: actorId, apId: create.id, apObject: create as IncomingActivity['apObject'], tries: 0, nextTry: now, isProcessed: false, isErrored: false };
  });
  core.db.transaction((tx) => {
    for (let i = 0; i < notes.length; i += 500) tx.insert(incomingActivity).values(notes.slice(i, i + 500) as never).run();
  });
  const b0 = performance.now();
  await core.loops.inbox.drain();
  const notesPerSec = notes.length / ((performance.now() - b0) / 1000);

  const s0 = performance.now();
  const swept = sweepPolls(core.db, local, core.clock());
  const sweepMs = performance.now() - s0;
  return {
    options,
    rows: rows.length,
    valid: options.voters * 3,
    wallMs,
    perSec: rows.length / (wallMs / 1000),
    validPerSec: (options.voters * 3) / (wallMs / 1000),
    summary: { processed: summary.processed, dropped: summary.dropped, retried: summary.retried, errored: summary.errored },
    talliesRight,
    tallies: `anyOf voters ${m.votersCount} [${m.options.map((x) => x.votes).join(' ')}], oneOf voters ${o.votersCount} [${o.options.map((x) => x.votes).join(' ')}]`,
    sweepMs,
    updates: swept.broadcast,
    notesPerSec,
  };
}
