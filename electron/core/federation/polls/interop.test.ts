// Polls against an independent implementation: a real core (SQLite, listener on 127.0.0.1,
// inbox and delivery loops) and a Fedify peer that votes in our poll, reads the poll back with
// Fedify's own parser, receives our tally Update, and publishes a poll we vote in. The tests
// share the peers and run in order.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Create, Note, PUBLIC_COLLECTION, Question, type Object as APObject } from '@fedify/vocab';
import { outbox, pollAnswer } from '../../../../db/schema';
import { startPeer, type Peer } from '../../../../test/peer/peer';
import { instant } from '../../../../test/peer/state';
import { openAuthorRig, type AuthorRig } from '../actions/test-rig';

let rig: AuthorRig;
let pat: Peer;
let quinn: Peer;

beforeAll(async () => {
  [rig, pat, quinn] = await Promise.all([openAuthorRig(), startPeer({ name: 'pat' }), startPeer({ name: 'quinn' })]);
});

afterAll(async () => {
  await Promise.all([pat?.close(), quinn?.close()]);
  await rig?.close();
});

const answers = (pollId: number) => rig.core.db.select().from(pollAnswer).where(eq(pollAnswer.outboxObjectId, pollId)).all();

/** Option name → totalItems, as Fedify reads our Question. */
async function talliesSeenBy(peer: Peer, apId: string): Promise<{ voters: number | null; options: Record<string, number | null>; endTime: string | null }> {
  const question = await peer.lookup(apId);
  if (!(question instanceof Question)) throw new Error(`not a Question: ${apId}`);
  const options: Record<string, number | null> = {};
  for await (const option of question.getExclusiveOptions()) {
    const replies = await (option as APObject).getReplies();
    options[String((option as Note).name)] = replies?.totalItems ?? null;
  }
  return { voters: question.voters, options, endTime: question.endTime?.toString() ?? null };
}

describe('a peer votes in our poll', () => {
  let poll: { id: number; apId: string };

  it('the peer’s votes are counted, and the tallies Fedify then fetches from our listener are right', async () => {
    const post = await rig.author.createPost({
      content: 'Which editor?',
      visibility: 'PUBLIC',
      poll: { options: ['vim', 'emacs', 'nano'], multiple: false, durationSeconds: 3600, hideTotals: false },
    });
    poll = { id: post.id, apId: post.apId };
    await pat.vote(poll.apId, rig.url, 'emacs');
    await quinn.vote(poll.apId, rig.url, 'emacs');
    await expect.poll(() => answers(poll.id).length, { timeout: 10_000 }).toBe(2);
    const seen = await talliesSeenBy(pat, poll.apId);
    expect(seen).toMatchObject({ voters: 2, options: { vim: 0, emacs: 2, nano: 0 } });
    expect(Date.parse(seen.endTime!)).toBe(Date.parse(String(rig.core.db.select().from(outbox).where(eq(outbox.id, poll.id)).get()!.apObject.endTime)));
  });

  it('a second vote by the same peer on a single-choice poll is processed and not counted', async () => {
    const second = await pat.vote(poll.apId, rig.url, 'vim');
    await expect
      .poll(() => rig.core.sqlite.prepare('SELECT is_processed, is_errored, error FROM incoming_activity WHERE ap_id = ?').get(second.createId), { timeout: 10_000 })
      .toEqual({ is_processed: 1, is_errored: 0, error: 'second vote on a single-choice poll' });
    expect(answers(poll.id).map((a) => a.name)).toEqual(['emacs', 'emacs']);
    expect((await talliesSeenBy(quinn, poll.apId)).options).toEqual({ vim: 0, emacs: 2, nano: 0 });
  });

  it('the tally sweep sends the voters an Update of the Question, signed by us', async () => {
    expect(rig.core.loops.polls.sweep()?.broadcast).toBe(1);
    const update = await pat.waitFor((x) => x.type === 'Update' && x.objectId === poll.apId, 10_000);
    // A public poll: Fedify believes the Update on its LD signature first; the HTTP one holds too.
    expect(update.signer).toMatchObject({ verifiedBy: 'ld-signature', keyId: new URL(rig.core.identity()!.keyId).href, httpSignature: { verified: true } });
    const object = (update.raw as { object: Record<string, unknown> }).object;
    expect(object).toMatchObject({ type: 'Question', votersCount: 2 });
    await quinn.waitFor((x) => x.type === 'Update' && x.objectId === poll.apId, 10_000);
  });
});

describe('a followers-only poll', () => {
  it('takes no vote from an actor who does not follow (cannot see it): processed with the reason, not counted', async () => {
    const post = await rig.author.createPost({
      content: 'Followers only: which?',
      visibility: 'FOLLOWERS_ONLY',
      poll: { options: ['a', 'b'], multiple: false, durationSeconds: 3600, hideTotals: false },
    });
    const vote = await quinn.vote(post.apId, rig.url, 'a');
    await expect
      .poll(() => rig.core.sqlite.prepare('SELECT is_processed, is_errored, error FROM incoming_activity WHERE ap_id = ?').get(vote.createId), { timeout: 10_000 })
      .toEqual({ is_processed: 1, is_errored: 0, error: 'vote from an actor who cannot see the poll' });
    expect(answers(post.id)).toEqual([]);
  });
});

describe('a poll that hides its totals until it closes', () => {
  it('Fedify reads how many voted, and no per-option counts', async () => {
    const post = await rig.author.createPost({
      content: 'Secret ballot?',
      visibility: 'PUBLIC',
      poll: { options: ['yes', 'no'], multiple: false, durationSeconds: 3600, hideTotals: true },
    });
    await pat.vote(post.apId, rig.url, 'yes');
    await expect.poll(() => answers(post.id).length, { timeout: 10_000 }).toBe(1);
    expect(await talliesSeenBy(quinn, post.apId)).toMatchObject({ voters: 1, options: { yes: null, no: null } });
    // The author sees the count all the same.
    expect(rig.core.services.polls.list().items.find((p) => p.apId === post.apId)!.poll).toMatchObject({ hideTotals: true, options: [{ name: 'yes', votes: 1 }, { name: 'no', votes: 0 }] });
  });
});

describe('the author votes in a peer’s poll', () => {
  it('the vote reaches the peer as a Note named for the option, in reply to its Question', async () => {
    const questionId = quinn.newId('questions');
    const question = new Question({
      id: questionId,
      attribution: new URL(quinn.actorId),
      content: 'Lunch?',
      exclusiveOptions: [new Note({ name: 'Soup' }), new Note({ name: 'Salad' })],
      endTime: await instant(new Date(Date.now() + 3_600_000)),
      to: PUBLIC_COLLECTION,
    });
    await quinn.send(new Create({ id: quinn.newId('creates'), actor: new URL(quinn.actorId), object: question, to: PUBLIC_COLLECTION }), [rig.url]);
    await expect.poll(() => rig.core.sqlite.prepare("SELECT count(*) AS n FROM inbox WHERE ap_type = 'Question'").get(), { timeout: 10_000 }).toEqual({ n: 1 });

    const view = rig.core.services.polls.vote(questionId.href, ['Salad']);
    expect(view.poll?.myVotes).toEqual(['Salad']);
    const create = await quinn.waitFor((x) => x.type === 'Create' && (x.raw as { object?: { name?: string } }).object?.name === 'Salad', 10_000);
    expect(create.signer.verifiedBy).toBe('http-signature');
    expect((create.raw as { object: Record<string, unknown> }).object).toMatchObject({ type: 'Note', inReplyTo: questionId.href, to: [quinn.actorId] });
  });
});
