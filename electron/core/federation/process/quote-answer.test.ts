// The author's side of a quote (FEP-044f) as they see it, through the real inbox processor with a
// fake clock: the answer to our QuoteRequest (Accept with a QuoteAuthorization, or Reject) tells
// the author with a typeless notification when it changes where the quote stands, and the post
// says whom it was asked of; a request left unanswered a day after it was delivered shows as
// unanswered, and the author may ask again (quotes.askAgain) — after which it waits again, and
// an answer to either request counts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import { notifications, outbox, outgoingActivity, type OutboxObject } from '../../../../db/schema';
import { createHandlers, dispatch, type Handlers } from '../../ipc/handlers';
import { createMapper } from '../../mastodon/entities';
import { PUBLIC, type Json } from '../ap';
import { QUOTE_ANSWER_WAIT_MS } from '../quoting';
import { ASK_AGAIN_EVERY_MS } from '../actions/quote-requests';
import { openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
let handlers: Handlers;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const HOUR = 60 * 60 * 1000;
const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const aliceInbox = () => `${alice()}/inbox`;
const call = (channel: string, input: unknown) => dispatch(handlers, channel, input, () => {});
let notes = 0;

/** Alice's public post (received), whose policy approves quotes by hand or at once. */
async function alicesNote(policy: 'manual' | 'public'): Promise<string> {
  const id = `${alice()}/statuses/${++notes}`;
  const canQuote = policy === 'public' ? { automaticApproval: [PUBLIC] } : { manualApproval: [PUBLIC], automaticApproval: [alice()] };
  const note = { id, type: 'Note', attributedTo: alice(), content: '<p>Herons stand still</p>', to: [PUBLIC], published: rig.now().toISOString(), interactionPolicy: { canQuote } };
  await rig.receive({ id: `${id}/activity`, type: 'Create', actor: alice(), to: [PUBLIC], object: note });
  expect(rig.inboxRow(id)).toBeDefined();
  return id;
}

/** The author quotes `quoted`; returns the post and our QuoteRequest. */
async function quote(quoted: string): Promise<{ post: OutboxObject; request: OutboxObject }> {
  const view = await rig.core.services.author.createPost({ content: 'So true', visibility: 'PUBLIC', quote: quoted });
  const post = rig.outboxRow(view.id);
  return { post, request: requests(post)[0]! };
}

const requests = (post: OutboxObject) => rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().filter((r) => r.apType === 'QuoteRequest').reverse();
const deliveriesOf = (id: number) => rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, id)).all();
/** As the delivery loop records a delivery that reached the server now. */
const delivered = (request: OutboxObject) => rig.core.db.update(outgoingActivity).set({ isSent: true, tries: 1, lastTry: rig.now(), lastStatusCode: 202 }).where(eq(outgoingActivity.outboxObjectId, request.id)).run();
const stateOf = async (post: OutboxObject) => (await rig.core.services.author.thread(post.apId)).post;
const quoteNotifications = () => rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all();

/** Alice's answer to our request; an Accept names a QuoteAuthorization her server serves. */
async function answer(kind: 'Accept' | 'Reject', request: OutboxObject, post: OutboxObject, n = 1) {
  const id = `${alice()}#answers/${n}`;
  const stamp = `${alice()}/quote_authorizations/${n}`;
  if (kind === 'Accept') {
    remotes.servers['mastodon.example'].put(stamp, {
      '@context': ['https://www.w3.org/ns/activitystreams', { QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization', gts: 'https://gotosocial.org/ns#', interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' }, interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' } }],
      id: stamp,
      type: 'QuoteAuthorization',
      attributedTo: alice(),
      interactingObject: post.apId,
      interactionTarget: (request.apObject as Json).object,
    });
  }
  const row = await rig.receive({ id, type: kind, actor: alice(), to: [rig.local.id], object: request.apId, ...(kind === 'Accept' ? { result: stamp } : {}) });
  expect(row).toMatchObject({ isProcessed: true, error: null });
  return { id, stamp };
}

async function open() {
  rig = await openRig();
  handlers = createHandlers(rig.core);
}

describe('the author is told how their quote was answered', () => {
  it('a quote awaiting approval, approved: one typeless notification (Alice, her Accept, our post); the post says she approved it', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    expect(await stateOf(post)).toMatchObject({ quoteState: 'pending', quoteAskedOf: { apId: alice() } });
    expect(deliveriesOf(request.id).map((d) => d.recipient)).toEqual([aliceInbox()]);

    const { id, stamp } = await answer('Accept', request, post);
    expect(rig.outboxRow(post.id).apObject).toMatchObject({ quoteAuthorization: stamp });
    expect(await stateOf(post)).toMatchObject({ quoteState: 'approved', quoteAskedOf: { apId: alice(), handle: expect.stringContaining('alice') } });
    const [told, ...more] = rig.core.services.notifications.list().items;
    expect(more).toEqual([]);
    expect(told).toMatchObject({ type: null, isNew: true, actor: { apId: alice() }, inboxObject: { apId: id, apType: 'Accept' }, outboxObject: { id: post.id }, detail: { kind: 'quote-answered', approved: true } });
  });

  it('refused: the post says so, and the author is told', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    await answer('Reject', request, post);
    expect(await stateOf(post)).toMatchObject({ quoteState: 'rejected', quoteAskedOf: { apId: alice() } });
    expect(rig.core.services.notifications.list().items).toEqual([expect.objectContaining({ actor: expect.objectContaining({ apId: alice() }), detail: { kind: 'quote-answered', approved: false } })]);
  });

  it('refused after the policy had approved it at once: told, since that changes what the post shows', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('public'));
    expect((await stateOf(post)).quoteState).toBe('approved');
    await answer('Reject', request, post);
    expect((await stateOf(post)).quoteState).toBe('rejected');
    expect(quoteNotifications()).toHaveLength(1);
  });

  it('an Accept of a quote the policy already approved (Mastodon’s usual answer) tells nothing: nothing changed', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('public'));
    await answer('Accept', request, post);
    expect((await stateOf(post)).quoteState).toBe('approved');
    expect(quoteNotifications()).toEqual([]);
  });

  it('an Accept whose QuoteAuthorization does not check out approves nothing and tells nothing', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    const stamp = `${alice()}/quote_authorizations/elsewhere`;
    remotes.servers['mastodon.example'].put(stamp, { id: stamp, type: 'QuoteAuthorization', attributedTo: alice(), interactingObject: `${alice()}/statuses/other`, interactionTarget: (request.apObject as Json).object });
    const row = await rig.receive({ id: `${alice()}#answers/elsewhere`, type: 'Accept', actor: alice(), object: request.apId, result: stamp });
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${alice()}#answers/elsewhere`)).toMatchObject({ relatesToOutboxObjectId: request.id });
    expect((await stateOf(post)).quoteState).toBe('pending');
    expect(quoteNotifications()).toEqual([]);
  });
});

describe('a quoted author who keeps changing their mind', () => {
  it('Accept, Reject, Accept within the hour: one notification, saying what the post shows now; a change after the hour tells again', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    const MINUTE = 60 * 1000;
    await answer('Accept', request, post, 1);
    expect((await stateOf(post)).quoteState).toBe('approved');
    expect(quoteNotifications()).toHaveLength(1);

    rig.advance(10 * MINUTE);
    const refused = await answer('Reject', request, post, 2);
    expect((await stateOf(post)).quoteState).toBe('rejected');
    expect(quoteNotifications()).toHaveLength(1);
    expect(rig.core.services.notifications.list().items).toEqual([expect.objectContaining({ inboxObject: expect.objectContaining({ apId: refused.id }), detail: { kind: 'quote-answered', approved: false } })]);

    rig.advance(40 * MINUTE);
    const approved = await answer('Accept', request, post, 3);
    expect((await stateOf(post)).quoteState).toBe('approved');
    expect(quoteNotifications()).toHaveLength(1);
    expect(rig.core.services.notifications.list().items).toEqual([expect.objectContaining({ inboxObject: expect.objectContaining({ apId: approved.id }), detail: { kind: 'quote-answered', approved: true } })]);

    // An hour after the one notification: the next change is told anew.
    rig.advance(10 * MINUTE);
    await answer('Reject', request, post, 4);
    expect((await stateOf(post)).quoteState).toBe('rejected');
    expect(quoteNotifications()).toHaveLength(2);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quote-answered', approved: false } });
  });

  it('an approval the author already read, refused ten minutes later: told anew (unread, at the top), the read one left as it was', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    await answer('Accept', request, post, 1);
    const [first] = quoteNotifications();
    rig.core.services.notifications.markAllRead();
    expect(rig.core.services.notifications.unreadCount()).toBe(0);
    rig.advance(10 * 60 * 1000);
    const refused = await answer('Reject', request, post, 2);
    expect((await stateOf(post)).quoteState).toBe('rejected');
    expect(rig.core.services.notifications.unreadCount()).toBe(1);
    const told = quoteNotifications();
    expect(told).toHaveLength(2);
    expect(told.find((n) => n.id === first!.id)).toMatchObject({ inboxObjectId: first!.inboxObjectId, isNew: false });
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ inboxObject: expect.objectContaining({ apId: refused.id }), detail: { kind: 'quote-answered', approved: false } });
    // Flipped again within the hour: the unread one is pointed at it, beside the read one.
    rig.advance(5 * 60 * 1000);
    await answer('Accept', request, post, 3);
    expect(quoteNotifications()).toHaveLength(2);
    expect(rig.core.services.notifications.unreadCount()).toBe(1);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quote-answered', approved: true } });
  });

  it('refused after it was approved: the post drops the authorization, so an edit sends none', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    await answer('Accept', request, post, 1);
    await answer('Reject', request, post, 2);
    expect((await stateOf(post)).quoteState).toBe('rejected');
    expect(rig.outboxRow(post.id).apObject).not.toHaveProperty('quoteAuthorization');
    await rig.core.services.author.editPost({ apId: post.apId, content: 'So true, edited' });
    const update = rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().filter((row) => row.apType === 'Update').at(-1)!;
    expect((update.apObject as Json).object).not.toHaveProperty('quoteAuthorization');
  });

  it('the hour is counted per quote: an answer about another quote post of the author’s is told at once', async () => {
    await open();
    const first = await quote(await alicesNote('manual'));
    const second = await quote(await alicesNote('manual'));
    await answer('Accept', first.request, first.post, 1);
    await answer('Reject', second.request, second.post, 2);
    expect(quoteNotifications().map((n) => n.outboxObjectId).sort()).toEqual([first.post.id, second.post.id].sort());
  });
});

describe('a quote whose quoted server never answers', () => {
  it('waits while its request is on its way, however long; a day after the request was delivered it is unanswered', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    rig.advance(3 * QUOTE_ANSWER_WAIT_MS);
    expect((await stateOf(post)).quoteState).toBe('pending');
    delivered(request);
    rig.advance(QUOTE_ANSWER_WAIT_MS - HOUR);
    expect((await stateOf(post)).quoteState).toBe('pending');
    rig.advance(HOUR);
    expect(await stateOf(post)).toMatchObject({ quoteState: 'unanswered', quoteAskedOf: { apId: alice() } });
    // As the profile, the stream and the Mastodon client API see it (Mastodon has no unanswered: pending).
    expect(rig.core.services.author.profile({}).items.find((p) => p.id === post.id)?.quoteState).toBe('unanswered');
    expect(rig.core.services.author.stream({}).items.find((p) => p.apId === post.apId)).toMatchObject({ quoteState: 'unanswered', quoteAskedOf: { apId: alice() } });
    const author = rig.core.services.author;
    const read = author.reads.post('outbox', post.id)!;
    const status = createMapper({ local: rig.local, settings: () => rig.core.settings.get(), reads: author.reads, people: () => author.peopleKnown(), relation: (actorId) => author.relationOf(actorId) }).status(read.view, read.key);
    expect(status.quote).toEqual({ state: 'pending', quoted_status: null });
  });

  it('a request the delivery loop gave up on is unanswered at once', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    rig.core.db.update(outgoingActivity).set({ isErrored: true, tries: 12, lastTry: rig.now(), error: 'gone' }).where(eq(outgoingActivity.outboxObjectId, request.id)).run();
    expect((await stateOf(post)).quoteState).toBe('unanswered');
  });

  it('asked again: a new QuoteRequest (an id of its own) to the same inbox; the quote waits again; an answer to either counts', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    delivered(request);
    rig.advance(QUOTE_ANSWER_WAIT_MS);

    const result = await call('quotes.askAgain', { apId: post.apId });
    expect(result).toMatchObject({ ok: true, value: { apId: post.apId, quoteState: 'pending' } });
    const [again, first] = requests(post);
    expect(first!.id).toBe(request.id);
    expect(again!.apId).not.toBe(request.apId);
    expect(again!.apObject).toMatchObject({ type: 'QuoteRequest', actor: rig.local.id, to: [alice()], object: (request.apObject as Json).object, instrument: { id: post.apId } });
    expect(again).toMatchObject({ relatesToActorId: request.relatesToActorId, relatesToInboxObjectId: request.relatesToInboxObjectId, visibility: 'DIRECT' });
    expect(deliveriesOf(again!.id)).toMatchObject([{ recipient: aliceInbox(), isSent: false }]);
    expect((await stateOf(post)).quoteState).toBe('pending');

    // Not asked twice while it waits.
    expect(await call('quotes.askAgain', { apId: post.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/still waiting/) } });
    // A day later without an answer, asked again once more.
    delivered(again!);
    rig.advance(QUOTE_ANSWER_WAIT_MS);
    expect((await stateOf(post)).quoteState).toBe('unanswered');
    // The answer to the first request, late: it counts.
    await answer('Accept', request, post);
    expect((await stateOf(post)).quoteState).toBe('approved');
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quote-answered', approved: true } });
  });

  it('only an unanswered quote of someone else’s post is asked about again; bad input is a typed error', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    await answer('Reject', request, post);
    rig.advance(2 * QUOTE_ANSWER_WAIT_MS);
    expect(await call('quotes.askAgain', { apId: post.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/refused/) } });

    const approved = await quote(await alicesNote('public'));
    expect(await call('quotes.askAgain', { apId: approved.post.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/already approved/) } });
    const mine = await rig.core.services.author.createPost({ content: 'Mine', visibility: 'PUBLIC' });
    const own = await rig.core.services.author.createPost({ content: 'Me again', visibility: 'PUBLIC', quote: mine.apId });
    expect(await call('quotes.askAgain', { apId: own.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/no one to ask/) } });
    expect(await call('quotes.askAgain', { apId: mine.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: 'That post quotes nothing.' } });
    expect(await call('quotes.askAgain', { apId: `${alice()}/statuses/1` })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    for (const input of [{}, { apId: 'not a url' }, { apId: post.apId, also: 1 }]) {
      expect(await call('quotes.askAgain', input)).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    }
    expect(requests(post)).toHaveLength(1);
  });

  it('a late Reject of the earlier request does not outweigh the approval of the later one (a server clearing a superseded request)', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    delivered(request);
    rig.advance(QUOTE_ANSWER_WAIT_MS);
    expect((await call('quotes.askAgain', { apId: post.apId })).ok).toBe(true);
    const [again] = requests(post);
    const { stamp } = await answer('Accept', again!, post, 2);
    expect((await stateOf(post)).quoteState).toBe('approved');
    const told = quoteNotifications().length;
    await answer('Reject', request, post, 1);
    expect(rig.outboxRow(post.id).apObject).toMatchObject({ quoteAuthorization: stamp });
    expect((await stateOf(post)).quoteState).toBe('approved');
    expect(quoteNotifications()).toHaveLength(told);
  });

  it('a request refused at once (given up on) may be asked again, but not again within the hour', async () => {
    await open();
    const { post, request } = await quote(await alicesNote('manual'));
    const giveUp = (id: number) => rig.core.db.update(outgoingActivity).set({ isErrored: true, tries: 1, lastTry: rig.now(), lastStatusCode: 400, error: 'refused' }).where(eq(outgoingActivity.outboxObjectId, id)).run();
    giveUp(request.id);
    rig.advance(ASK_AGAIN_EVERY_MS);
    expect((await call('quotes.askAgain', { apId: post.apId })).ok).toBe(true);
    giveUp(requests(post)[0]!.id);
    expect((await stateOf(post)).quoteState).toBe('unanswered');
    expect(await call('quotes.askAgain', { apId: post.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/less than an hour ago/) } });
    expect(requests(post)).toHaveLength(2);
    rig.advance(ASK_AGAIN_EVERY_MS);
    expect((await call('quotes.askAgain', { apId: post.apId })).ok).toBe(true);
    expect(requests(post)).toHaveLength(3);
  });

  it('a quote whose quoted post was deleted meanwhile is not asked about again', async () => {
    await open();
    const quoted = await alicesNote('manual');
    const { post, request } = await quote(quoted);
    delivered(request);
    rig.advance(QUOTE_ANSWER_WAIT_MS);
    await rig.receive({ id: `${quoted}#delete`, type: 'Delete', actor: alice(), to: [PUBLIC], object: quoted });
    expect(rig.inboxRow(quoted)?.isDeleted).toBe(true);
    expect(await call('quotes.askAgain', { apId: post.apId })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/deleted/) } });
    expect(requests(post)).toHaveLength(1);
  });
});
