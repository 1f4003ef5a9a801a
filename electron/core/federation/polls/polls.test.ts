// Polls end to end inside the core, on real SQLite and loopback fixture servers: composing a
// Question, votes arriving (each rule of what a poll takes), tallies from poll_answer, the
// throttled tally Update and the closing sweep, hidden totals in what is published, and the
// author voting in someone else's poll.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { inbox, notifications, outbox, outgoingActivity, pollAnswer, type OutboxObject } from '../../../../db/schema';
import { ConflictError, BadInputError, NotFoundError } from '../../errors';
import { inputs } from '../../ipc/contract';
import { PUBLIC, type Json } from '../ap';
import { bareObject } from '../collections';
import { deliveryPayload } from '../outbox';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from '../process/test-rig';
import { sweepPolls, TALLY_WINDOW_MS } from './broadcast';
import { HIDE_TOTALS_KEY, pollOf } from './question';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const HOUR = 3600;
const actors = () => ({
  alice: remotes.rewrite('https://mastodon.example/users/alice'),
  newsbot: remotes.rewrite('https://mastodon.example/users/newsbot'),
  bob: remotes.rewrite('https://misskey.example/users/9v4h8k2j1p'),
  zoe: remotes.rewrite('https://gts.example/users/zoe'),
});

let voteSeq = 0;
/** A Mastodon-style vote: Create{Note} with `name`, inReplyTo our poll, to us only. */
function vote(actor: string, poll: OutboxObject, name: string): Json {
  const id = `${actor}/votes/${++voteSeq}`;
  return {
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: ['https://tern.example/actor'],
    object: { id, type: 'Note', attributedTo: actor, name, inReplyTo: poll.apId, to: ['https://tern.example/actor'] },
  };
}

async function newPoll(options: { multiple?: boolean; hideTotals?: boolean; durationSeconds?: number; names?: string[] } = {}): Promise<OutboxObject> {
  const post = await rig.core.services.author.createPost({
    content: 'Tea or coffee?',
    visibility: 'PUBLIC',
    poll: {
      options: options.names ?? ['Tea', 'Coffee', 'Neither'],
      multiple: options.multiple ?? false,
      durationSeconds: options.durationSeconds ?? HOUR,
      hideTotals: options.hideTotals ?? false,
    },
  });
  return rig.outboxRow(post.id);
}

const answers = (pollId: number) => rig.core.db.select().from(pollAnswer).where(eq(pollAnswer.outboxObjectId, pollId)).all();
const tallies = (pollId: number) => {
  const poll = pollOf(rig.outboxRow(pollId).apObject as Json)!;
  return { voters: poll.votersCount, ...Object.fromEntries(poll.options.map((o) => [o.name, o.votes])) };
};
const updatesOf = (pollId: number) =>
  rig.core.db.select().from(outbox).where(and(eq(outbox.relatesToOutboxObjectId, pollId), eq(outbox.apType, 'Update'))).all();
const sweep = () => sweepPolls(rig.core.db, rig.local, rig.now());

describe('composing a poll', () => {
  it('publishes a single-choice Question with endTime, votersCount and a zero tally per option', async () => {
    rig = await openRig();
    const poll = await newPoll();
    expect(poll.apType).toBe('Question');
    expect(poll.apObject).toMatchObject({
      type: 'Question',
      content: '<p>Tea or coffee?</p>',
      votersCount: 0,
      endTime: new Date(rig.now().getTime() + HOUR * 1000).toISOString(),
      oneOf: [
        { type: 'Note', name: 'Tea', replies: { type: 'Collection', totalItems: 0 } },
        { type: 'Note', name: 'Coffee', replies: { type: 'Collection', totalItems: 0 } },
        { type: 'Note', name: 'Neither', replies: { type: 'Collection', totalItems: 0 } },
      ],
    });
    expect(poll.apObject.anyOf).toBeUndefined();
    // What servers receive is a Create of that Question.
    const body = JSON.parse((deliveryPayload(rig.core.db, rig.local, { outboxObjectId: poll.id, inboxObjectId: null, recipient: 'https://peer.example/inbox' } as never) as { body: string }).body) as Json;
    expect(body).toMatchObject({ type: 'Create', object: { type: 'Question', votersCount: 0, endTime: poll.apObject.endTime } });
  });

  it('multiple choice is anyOf', async () => {
    rig = await openRig();
    const poll = await newPoll({ multiple: true });
    expect((poll.apObject.anyOf as Json[]).map((o) => o.name)).toEqual(['Tea', 'Coffee', 'Neither']);
    expect(poll.apObject.oneOf).toBeUndefined();
  });

  it('the IPC input takes 2 to 10 distinct options and a duration of 5 minutes to 30 days', () => {
    const parse = (poll: unknown) => inputs['posts.create'].safeParse({ content: 'Q?', poll }).success;
    const ok = { options: ['a', 'b'], durationSeconds: 300 };
    expect(parse(ok)).toBe(true);
    expect(parse({ ...ok, options: Array.from({ length: 10 }, (_, i) => `o${i}`) })).toBe(true);
    expect(parse({ ...ok, options: ['only one'] })).toBe(false);
    expect(parse({ ...ok, options: Array.from({ length: 11 }, (_, i) => `o${i}`) })).toBe(false);
    expect(parse({ ...ok, options: ['same', 'same'] })).toBe(false);
    expect(parse({ ...ok, options: ['a', '  '] })).toBe(false);
    expect(parse({ ...ok, durationSeconds: 299 })).toBe(false);
    expect(parse({ ...ok, durationSeconds: 31 * 24 * HOUR })).toBe(false);
    expect(parse({ ...ok, extra: 1 })).toBe(false);
  });

  it('a poll without a question, or with a title, is refused and nothing is stored', async () => {
    rig = await openRig();
    const poll = { options: ['a', 'b'], multiple: false, durationSeconds: HOUR, hideTotals: false };
    await expect(rig.core.services.author.createPost({ content: '  ', visibility: 'PUBLIC', poll })).rejects.toBeInstanceOf(BadInputError);
    await expect(rig.core.services.author.createPost({ content: 'Q', title: 'T', visibility: 'PUBLIC', poll })).rejects.toBeInstanceOf(BadInputError);
    expect(countRows(rig.core, 'outbox')).toBe(0);
  });
});

describe('votes on our polls', () => {
  it('a vote becomes a poll_answer row (poll type, vote Note, actor) and the tallies are recounted', async () => {
    rig = await openRig();
    const poll = await newPoll();
    const { alice } = actors();
    const activity = vote(alice, poll, 'Coffee');
    const row = await rig.receive(activity);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    const note = rig.inboxRow(String((activity.object as Json).id))!;
    expect(note).toMatchObject({ isTransient: true, isHiddenFromStream: true });
    expect(answers(poll.id)).toEqual([expect.objectContaining({ pollType: 'oneOf', name: 'Coffee', inboxObjectId: note.id, actorId: note.actorId })]);
    expect(tallies(poll.id)).toEqual({ voters: 1, Tea: 0, Coffee: 1, Neither: 0 });
    expect(rig.outboxRow(poll.id).repliesCount).toBe(0);
  });

  it('a second vote by the same actor on a single-choice poll is dropped: processed, not retried, not counted', async () => {
    rig = await openRig();
    const poll = await newPoll();
    const { alice } = actors();
    await rig.receive(vote(alice, poll, 'Tea'));
    const second = vote(alice, poll, 'Coffee');
    const row = await rig.receive(second);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: 'second vote on a single-choice poll' });
    expect(rig.inboxRow(String((second.object as Json).id))).toBeUndefined();
    expect(answers(poll.id).map((a) => a.name)).toEqual(['Tea']);
    expect(tallies(poll.id)).toEqual({ voters: 1, Tea: 1, Coffee: 0, Neither: 0 });
  });

  it('multiple choice: each option counts once per actor; the same option again is a duplicate, dropped', async () => {
    rig = await openRig();
    const poll = await newPoll({ multiple: true });
    const { alice, bob } = actors();
    await rig.receive(vote(alice, poll, 'Tea'));
    expect((await rig.receive(vote(alice, poll, 'Coffee'))).error).toBeNull();
    const again = await rig.receive(vote(alice, poll, 'Tea'));
    expect(again).toMatchObject({ isProcessed: true, isErrored: false, error: 'duplicate vote: this actor already chose this option' });
    await rig.receive(vote(bob, poll, 'Tea'));
    expect(answers(poll.id).map((a) => a.pollType)).toEqual(['anyOf', 'anyOf', 'anyOf']);
    expect(tallies(poll.id)).toEqual({ voters: 2, Tea: 2, Coffee: 1, Neither: 0 });
  });

  it('a named Note for no option of the poll is no vote but a reply (as Mastodon takes it): no answer, a reply counted', async () => {
    rig = await openRig();
    const poll = await newPoll();
    const milk = vote(actors().alice, poll, 'Milk');
    const row = await rig.receive(milk);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });
    expect(answers(poll.id)).toEqual([]);
    expect(rig.inboxRow(String((milk.object as Json).id))).toMatchObject({ apType: 'Note', isTransient: false });
    expect(rig.outboxRow(poll.id).repliesCount).toBe(1);
  });

  it("a Friendica reply to the poll, named for its title (Friendica names every item that has one), is a reply that shows, not a vote", async () => {
    rig = await openRig();
    const poll = await newPoll();
    const { zoe } = actors();
    const id = `${zoe}/objects/reply-1`;
    const row = await rig.receive({
      id: `${id}/activity`,
      type: 'Create',
      actor: zoe,
      to: [PUBLIC],
      object: { id, type: 'Note', name: 'Re: Tea or coffee?', attributedTo: zoe, inReplyTo: poll.apId, to: [PUBLIC], content: '<p>Water, honestly.</p>' },
    });
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(answers(poll.id)).toEqual([]);
    expect(rig.inboxRow(id)).toMatchObject({ apType: 'Note', isTransient: false, isHiddenFromStream: false, isDeleted: false });
    expect(rig.outboxRow(poll.id).repliesCount).toBe(1);
    expect(tallies(poll.id)).toEqual({ voters: 0, Tea: 0, Coffee: 0, Neither: 0 });
  });

  it('a vote after the poll closed is dropped, before and after the closing sweep', async () => {
    rig = await openRig();
    const poll = await newPoll({ durationSeconds: 600 });
    rig.advance(600_000);
    const late = await rig.receive(vote(actors().alice, poll, 'Tea'));
    expect(late).toMatchObject({ isProcessed: true, isErrored: false, error: 'vote after the poll closed' });
    sweep();
    expect((await rig.receive(vote(actors().bob, poll, 'Tea'))).error).toBe('vote after the poll closed');
    expect(answers(poll.id)).toEqual([]);
  });

  it('the same vote delivered twice is one answer', async () => {
    rig = await openRig();
    const poll = await newPoll();
    const activity = vote(actors().alice, poll, 'Tea');
    await rig.receive(activity);
    expect((await rig.receive(activity)).error).toBe('duplicate: already processed');
    expect(answers(poll.id)).toHaveLength(1);
  });
});

describe('broadcasting tallies', () => {
  it('many votes make one Update per window, carrying the counts, to followers’ and voters’ inboxes', async () => {
    rig = await openRig();
    const poll = await newPoll();
    const { alice, bob, zoe } = actors();
    expect(sweep().broadcast).toBe(0); // nothing to tell yet
    await rig.receive(vote(alice, poll, 'Tea'));
    await rig.receive(vote(bob, poll, 'Tea'));
    await rig.receive(vote(zoe, poll, 'Coffee'));
    expect(sweep().broadcast).toBe(1);
    const [update] = updatesOf(poll.id);
    expect(update!.apObject).toMatchObject({ type: 'Update', object: { id: poll.apId, votersCount: 3, oneOf: [{ replies: { totalItems: 2 } }, { replies: { totalItems: 1 } }, { replies: { totalItems: 0 } }] } });
    expect((update!.apObject.object as Json).updated).toBeUndefined(); // a tally is not an edit
    const recipients = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, update!.id)).all().map((r) => r.recipient);
    expect(recipients.sort()).toEqual(
      [remotes.rewrite('https://mastodon.example/inbox'), remotes.rewrite('https://misskey.example/inbox'), remotes.rewrite('https://gts.example/users/zoe/inbox')].sort(),
    );

    // Within the window: another vote is counted at once, but not broadcast yet.
    await rig.receive(vote(actors().newsbot, poll, 'Neither'));
    expect(tallies(poll.id)).toEqual({ voters: 4, Tea: 2, Coffee: 1, Neither: 1 });
    expect(sweep().broadcast).toBe(0);
    rig.advance(TALLY_WINDOW_MS);
    expect(sweep().broadcast).toBe(1);
    expect(updatesOf(poll.id)).toHaveLength(2);
    rig.advance(TALLY_WINDOW_MS);
    expect(sweep().broadcast).toBe(0); // up to date
  });

  it('closing: a final Update with closed, the author notified once (a notification with no type, on the poll)', async () => {
    rig = await openRig();
    const poll = await newPoll({ durationSeconds: 600 });
    await rig.receive(vote(actors().alice, poll, 'Tea'));
    rig.advance(599_000);
    expect(sweep()).toMatchObject({ closed: 0, nextEnd: rig.now().getTime() + 1000 });
    rig.advance(1000);
    expect(sweep().closed).toBe(1);
    const stored = rig.outboxRow(poll.id).apObject as Json;
    expect(stored.closed).toBe(stored.endTime);
    const updates = updatesOf(poll.id);
    expect(updates.at(-1)!.apObject).toMatchObject({ type: 'Update', object: { closed: stored.endTime, votersCount: 1 } });
    const notes = rig.core.db.select().from(notifications).all();
    expect(notes).toEqual([expect.objectContaining({ notificationType: null, outboxObjectId: poll.id, actorId: null, isNew: true })]);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ type: null, outboxObject: { apType: 'Question', apId: poll.apId } });
    expect(sweep()).toMatchObject({ closed: 0, broadcast: 0 });
    expect(updatesOf(poll.id)).toHaveLength(updates.length);
  });

  it('hidden totals: per-option counts are withheld from what is published and served until the poll closes', async () => {
    rig = await openRig();
    const poll = await newPoll({ hideTotals: true, durationSeconds: 600 });
    await rig.receive(vote(actors().alice, poll, 'Coffee'));
    const open = bareObject(rig.outboxRow(poll.id));
    expect(open.votersCount).toBe(1);
    expect((open.oneOf as Json[]).map((o) => o.replies)).toEqual([undefined, undefined, undefined]);
    expect(open[HIDE_TOTALS_KEY]).toBeUndefined();
    // The author still sees the counts (stored in full).
    expect(tallies(poll.id)).toMatchObject({ Coffee: 1 });
    sweep();
    const [tallyUpdate] = updatesOf(poll.id);
    const sent = JSON.parse((deliveryPayload(rig.core.db, rig.local, { outboxObjectId: tallyUpdate!.id, inboxObjectId: null, recipient: 'https://peer.example/inbox' } as never) as { body: string }).body) as Json;
    expect(((sent.object as Json).oneOf as Json[]).every((o) => !('replies' in o))).toBe(true);
    expect(JSON.stringify(sent)).not.toContain(HIDE_TOTALS_KEY);

    rig.advance(600_000);
    sweep();
    const closed = bareObject(rig.outboxRow(poll.id));
    expect((closed.oneOf as Json[]).map((o) => (o.replies as Json).totalItems)).toEqual([0, 1, 0]);
    const final = updatesOf(poll.id).at(-1)!;
    const finalBody = JSON.parse((deliveryPayload(rig.core.db, rig.local, { outboxObjectId: final.id, inboxObjectId: null, recipient: 'https://peer.example/inbox' } as never) as { body: string }).body) as Json;
    expect(((finalBody.object as Json).oneOf as Json[]).map((o) => (o.replies as Json).totalItems)).toEqual([0, 1, 0]);
  });
});

describe('voting in someone else’s poll', () => {
  // Open for an hour of real time: the views say "closed" by the wall clock, the rig's clock is
  // earlier still, and a test moves the rig past the end to see a closed poll refused.
  const endTime = new Date(Date.now() + HOUR * 1000).toISOString();

  /** Mastodon's Question fixture, still open, from alice. */
  async function remotePoll(): Promise<string> {
    const create = remotes.fixture('mastodon-question.json');
    const object = create.object as Json;
    object.endTime = endTime;
    await rig.follow(String(create.actor));
    expect((await rig.receive(create)).error).toBeNull();
    return String(object.id);
  }

  it('sends one transient Note per choice to the poll’s author and keeps the choices', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    const view = rig.core.services.polls.vote(apId, ['The web UI']);
    expect(view.poll).toMatchObject({ kind: 'oneOf', myVotes: ['The web UI'], closed: false });
    expect(rig.inboxRow(apId)!.votedForAnswers).toEqual(['The web UI']);
    const notes = rig.core.db.select().from(outbox).where(eq(outbox.isTransient, true)).all();
    expect(notes).toHaveLength(1);
    expect(notes[0]!.apObject).toMatchObject({ type: 'Note', name: 'The web UI', inReplyTo: apId, to: [actors().alice], cc: [] });
    expect(notes[0]!.apObject.content).toBeUndefined();
    const rows = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, notes[0]!.id)).all();
    expect(rows.map((r) => r.recipient)).toEqual([remotes.rewrite('https://mastodon.example/users/alice/inbox')]);
    // What goes out is a Create of the Note; it is not a post of the author's (profile, stream).
    const body = JSON.parse((deliveryPayload(rig.core.db, rig.local, rows[0]!) as { body: string }).body) as Json;
    expect(body).toMatchObject({ type: 'Create', object: { type: 'Note', name: 'The web UI' } });
    expect(rig.core.services.author.profile({}).items).toEqual([]);
    // Nor can it be edited, pinned or deleted as a post: the vote stays as sent.
    const vote = notes[0]!.apId;
    await expect(rig.core.services.author.editPost({ apId: vote, content: 'Other' })).rejects.toBeInstanceOf(NotFoundError);
    expect(() => rig.core.services.author.deletePost(vote)).toThrow(NotFoundError);
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apId, vote)).get()).toMatchObject({ isDeleted: false, apObject: { name: 'The web UI' } });
  });

  it('refuses a second vote, two choices in a single-choice poll, an unknown option, and a closed poll — storing nothing', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    const polls = rig.core.services.polls;
    expect(() => polls.vote(apId, ['A desktop app', 'The web UI'])).toThrow(BadInputError);
    expect(() => polls.vote(apId, ['A fax machine'])).toThrow(BadInputError);
    const before = rig.now();
    rig.setNow(new Date(endTime));
    expect(() => polls.vote(apId, ['A desktop app'])).toThrow(ConflictError);
    expect(countRows(rig.core, 'outgoing_activity')).toBe(0);
    expect(rig.inboxRow(apId)!.votedForAnswers).toBeNull();
    rig.setNow(before);
    polls.vote(apId, ['A desktop app']);
    expect(() => polls.vote(apId, ['A phone app'])).toThrow(ConflictError);
    expect(rig.core.db.select().from(outbox).where(eq(outbox.isTransient, true)).all()).toHaveLength(1);
  });

  it('once the poll has ended, the sweep notifies the author once (no type, on the remote Question, its author as actor)', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    rig.core.services.polls.vote(apId, ['A phone app']);
    sweep();
    expect(countRows(rig.core, 'notifications')).toBe(0);
    rig.setNow(new Date(endTime));
    sweep();
    sweep();
    const question = rig.inboxRow(apId)!;
    expect(rig.core.db.select().from(notifications).all()).toEqual([
      expect.objectContaining({ notificationType: null, inboxObjectId: question.id, actorId: question.actorId, outboxObjectId: null }),
    ]);
  });

  it('an Update of the Question from its server refreshes the counts and keeps the author’s choices', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    rig.core.services.polls.vote(apId, ['A phone app']);
    const create = remotes.fixture('mastodon-question.json');
    const object: Json = { ...(create.object as Json), endTime, votersCount: 9 };
    (object.oneOf as Json[])[2]!.replies = { type: 'Collection', totalItems: 5 };
    await rig.receive({ id: `${apId}#updates/1`, type: 'Update', actor: create.actor, to: [PUBLIC], object });
    const [view] = rig.core.services.author.stream({}).items;
    expect(view!.poll).toMatchObject({ votersCount: 9, myVotes: ['A phone app'] });
    expect(view!.poll!.options[2]).toEqual({ name: 'A phone app', votes: 5 });
    expect(rig.core.db.select().from(inbox).where(eq(inbox.apId, apId)).get()!.votedForAnswers).toEqual(['A phone app']);
  });

  it('an edit of the poll that changes its options (its server drops the votes: Mastodon resets them) lets the author vote again', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    rig.core.services.polls.vote(apId, ['A phone app']);
    const create = remotes.fixture('mastodon-question.json');
    const edited: Json = {
      ...(create.object as Json),
      endTime,
      votersCount: 0,
      oneOf: ['A phone app', 'A smartwatch'].map((name) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 0 } })),
    };
    await rig.receive({ id: `${apId}#updates/2`, type: 'Update', actor: create.actor, to: [PUBLIC], object: edited });
    expect(rig.inboxRow(apId)!.votedForAnswers).toBeNull();
    expect(rig.core.services.polls.vote(apId, ['A smartwatch']).poll).toMatchObject({ myVotes: ['A smartwatch'] });
    // The same options again, with new counts only: the choice stands.
    await rig.receive({ id: `${apId}#updates/3`, type: 'Update', actor: create.actor, to: [PUBLIC], object: { ...edited, votersCount: 4 } });
    expect(rig.inboxRow(apId)!.votedForAnswers).toEqual(['A smartwatch']);
  });

  it('an Update of the Question with no options at all (a partial Update, or one that closes it) keeps its options and the author’s choice', async () => {
    rig = await openRig();
    const apId = await remotePoll();
    rig.core.services.polls.vote(apId, ['A phone app']);
    const create = remotes.fixture('mastodon-question.json');
    const { oneOf: options, ...bare } = create.object as Json;
    const names = (options as Json[]).map((o) => o.name);
    // Neither list: no server asks another question by listing none.
    await rig.receive({ id: `${apId}#updates/4`, type: 'Update', actor: create.actor, to: [PUBLIC], object: { ...bare, endTime, closed: endTime } });
    expect(rig.inboxRow(apId)!.votedForAnswers).toEqual(['A phone app']);
    const [view] = rig.core.services.author.stream({}).items;
    expect(view!.poll).toMatchObject({ closed: true, myVotes: ['A phone app'] });
    expect(view!.poll!.options.map((o) => o.name)).toEqual(names);
    // Both lists empty: the same.
    await rig.receive({ id: `${apId}#updates/5`, type: 'Update', actor: create.actor, to: [PUBLIC], object: { ...bare, endTime, oneOf: [], anyOf: [] } });
    expect(rig.inboxRow(apId)!.votedForAnswers).toEqual(['A phone app']);
    // Other options after those: still another question.
    const other = ['A phone app', 'A smartwatch'].map((name) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 0 } }));
    await rig.receive({ id: `${apId}#updates/6`, type: 'Update', actor: create.actor, to: [PUBLIC], object: { ...bare, endTime, oneOf: other } });
    expect(rig.inboxRow(apId)!.votedForAnswers).toBeNull();
  });
});
