// QuoteRequest (FEP-044f) through the real inbox processor: Mastodon 4.5's request
// (test/fixtures/mastodon-quote-request.json) for the author's posts, answered with an Accept
// granting a QuoteAuthorization, or a Reject; the authorization derived from the rows and revoked
// when what it rests on goes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, isNull } from 'drizzle-orm';
import { notifications, outbox, outgoingActivity, type Visibility } from '../../../../db/schema';
import { PUBLIC, type Json } from '../ap';
import { saveOutboxObject } from '../outbox-store';
import { findQuoteAuthorization } from '../quote-authorizations';
import { openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const OUR_POST = 'https://tern.example/o/5b8a1c2d3e4f';
const request = (): Json => remotes.fixture('mastodon-quote-request.json');
const aliceId = () => String(request().actor);
const quotingId = () => String((request().instrument as Json).id);

/** One of our posts at /o/<publicId> with this visibility. */
function ourPost(publicId: string, visibility: Visibility) {
  const to = visibility === 'PUBLIC' ? [PUBLIC] : visibility === 'DIRECT' ? [] : [rig.local.followers];
  const cc = visibility === 'UNLISTED' ? [PUBLIC] : [];
  return saveOutboxObject(rig.core.db, rig.local, {
    publicId,
    apObject: { type: 'Note', attributedTo: rig.local.id, content: '<p>Something to quote</p>', to, cc },
    visibility,
    now: rig.now(),
  });
}

/** Our answers to quote requests (Accept or Reject rows), oldest first. */
const answers = () =>
  rig.core.db
    .select()
    .from(outbox)
    .where(inArray(outbox.apType, ['Accept', 'Reject']))
    .orderBy(outbox.id)
    .all();
const deliveriesOf = (outboxObjectId: number) => rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, outboxObjectId)).all();
const quoteNotifications = () => rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all();
const authorization = (stampUrl: string) => findQuoteAuthorization(rig.core.db, rig.local, new URL(stampUrl).pathname.split('/')[2]!);
const resultOf = (row: { apObject: unknown }) => String((row.apObject as Json).result);

describe('a QuoteRequest the policy allows', () => {
  it.each<Visibility>(['PUBLIC', 'UNLISTED'])('for a %s post: Accept with a QuoteAuthorization, to the requester’s own inbox; one typeless notification', async (visibility) => {
    rig = await openRig();
    const post = ourPost('5b8a1c2d3e4f', visibility);
    const row = await rig.receive(request());
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });

    const asked = rig.inboxRow(String(request().id))!;
    expect(asked).toMatchObject({ apType: 'QuoteRequest', activityObjectApId: OUR_POST, relatesToOutboxObjectId: post.id, isHiddenFromStream: true });
    const [accept, ...more] = answers();
    expect(more).toEqual([]);
    expect(accept).toMatchObject({ apType: 'Accept', visibility: 'DIRECT', relatesToInboxObjectId: asked.id, relatesToOutboxObjectId: post.id });
    const stamp = `${accept!.apId}/authorization`;
    expect(accept!.apObject).toEqual({
      '@context': ['https://www.w3.org/ns/activitystreams', { QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest' }],
      id: accept!.apId,
      type: 'Accept',
      actor: rig.local.id,
      to: [aliceId()],
      object: { id: request().id, type: 'QuoteRequest', actor: aliceId(), object: OUR_POST, instrument: quotingId() },
      result: stamp,
    });
    // The requester's personal inbox, never the shared one (as a Follow's Accept).
    expect(deliveriesOf(accept!.id).map((d) => d.recipient)).toEqual([`${remotes.servers['mastodon.example'].server.origin}/users/alice/inbox`]);
    expect(authorization(stamp)).toMatchObject({ status: 'live', request: { quoting: quotingId(), quoted: OUR_POST, actor: aliceId() } });

    expect(quoteNotifications()).toEqual([expect.objectContaining({ actorId: asked.actorId, inboxObjectId: asked.id, outboxObjectId: post.id, isNew: true })]);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ type: null, detail: { kind: 'quoted', quoting: quotingId(), approval: 'standing' } });
  });

  it('the same request twice is answered once; a new request for the same quote gets the standing authorization, not a second one', async () => {
    rig = await openRig();
    ourPost('5b8a1c2d3e4f', 'PUBLIC');
    await rig.receive(request());
    const again = await rig.receive(request());
    expect(again.error).toMatch(/duplicate/);
    expect(answers()).toHaveLength(1);

    await rig.receive({ ...request(), id: `${aliceId()}/quote_requests/second` });
    const accepts = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Accept')).all();
    expect(accepts).toHaveLength(2);
    expect(resultOf(accepts[1]!)).toBe(resultOf(accepts[0]!));
    expect((accepts[1]!.apObject as Json).object).toMatchObject({ id: `${aliceId()}/quote_requests/second` });
    expect(authorization(`${accepts[1]!.apId}/authorization`)).toEqual({ status: 'none' });
    expect(quoteNotifications()).toHaveLength(1);
  });

  it('the quoting post sent by id only is fetched from its server and checked', async () => {
    rig = await openRig();
    ourPost('5b8a1c2d3e4f', 'PUBLIC');
    const note = request().instrument as Json;
    remotes.servers['mastodon.example'].put(String(note.id), { '@context': 'https://www.w3.org/ns/activitystreams', ...note });
    await rig.receive({ ...request(), instrument: note.id });
    expect(answers().map((a) => a.apType)).toEqual(['Accept']);
  });
});

describe('a QuoteRequest the policy refuses is answered with a Reject', () => {
  it.each<[string, (r: Rig) => void, string]>([
    ['a followers-only post', () => ourPost('5b8a1c2d3e4f', 'FOLLOWERS_ONLY'), OUR_POST],
    ['a direct post', () => ourPost('5b8a1c2d3e4f', 'DIRECT'), OUR_POST],
    [
      'a deleted post',
      (r) => r.core.db.update(outbox).set({ isDeleted: true }).where(eq(outbox.id, ourPost('5b8a1c2d3e4f', 'PUBLIC').id)).run(),
      OUR_POST,
    ],
    ['a post Tern never had', () => undefined, 'https://tern.example/o/0000'],
    ['someone else’s post', () => undefined, 'https://gts.example/users/zoe/statuses/01J'],
  ])('%s', async (_what, setUp, quoted) => {
    rig = await openRig();
    setUp(rig);
    const instrument = { ...(request().instrument as Json), quote: quoted };
    const row = await rig.receive({ ...request(), object: quoted, instrument });
    expect(row).toMatchObject({ isProcessed: true, error: null });
    const [reject, ...more] = answers();
    expect(more).toEqual([]);
    expect(reject!.apObject).toMatchObject({
      type: 'Reject',
      actor: rig.local.id,
      to: [aliceId()],
      object: { id: request().id, type: 'QuoteRequest', actor: aliceId(), object: quoted, instrument: quotingId() },
    });
    expect(reject!.apObject).not.toHaveProperty('result');
    expect(deliveriesOf(reject!.id)).toHaveLength(1);
    expect(quoteNotifications()).toEqual([]);
  });

  it.each<[string, Json]>([
    ['does not quote the post asked about', { quote: 'https://tern.example/o/other' }],
    ['is someone else’s', { attributedTo: 'https://mastodon.example/users/bystander' }],
  ])('a quoting post that %s', async (_what, change) => {
    rig = await openRig();
    ourPost('5b8a1c2d3e4f', 'PUBLIC');
    await rig.receive({ ...request(), instrument: { ...(request().instrument as Json), ...remotesRewritten(change) } });
    expect(answers().map((a) => a.apType)).toEqual(['Reject']);
  });
});

describe('an authorization is revoked when what it rests on goes', () => {
  const accepted = async () => {
    rig = await openRig();
    const post = ourPost('5b8a1c2d3e4f', 'PUBLIC');
    await rig.receive(request());
    const stamp = resultOf(rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Accept')).get()!);
    expect(authorization(stamp).status).toBe('live');
    return { post, stamp };
  };

  it('the quoting post deleted by its author (Mastodon’s Delete{Tombstone})', async () => {
    const { stamp } = await accepted();
    await rig.receive({
      id: `${quotingId()}#delete`,
      type: 'Delete',
      actor: aliceId(),
      to: [PUBLIC],
      object: { id: quotingId(), type: 'Tombstone', atomUri: quotingId() },
    });
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the quoting post was deleted' });
  });

  it('a Delete of the quoting post by someone else (a relay’s own) revokes only once its server says it is gone', async () => {
    const { stamp } = await accepted();
    const zoe = String(remotes.fixture('actors/gotosocial-zoe.json').id);
    const byZoe = (n: number) => ({ id: `${zoe}/deletes/${n}`, type: 'Delete', actor: zoe, to: [PUBLIC], object: quotingId() });
    // Still served by Alice's server: not believed.
    remotes.servers['mastodon.example'].put(quotingId(), { '@context': 'https://www.w3.org/ns/activitystreams', ...(request().instrument as Json) });
    expect((await rig.receive(byZoe(1))).error).toMatch(/still serves it/);
    expect(authorization(stamp).status).toBe('live');
    // Gone there (410): believed, whoever said it.
    remotes.servers['mastodon.example'].put(quotingId(), 410);
    expect((await rig.receive(byZoe(2))).error).toBeNull();
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the quoting post was deleted' });
  });

  it('the request undone', async () => {
    const { stamp } = await accepted();
    await rig.receive({ id: `${aliceId()}#undo-quote`, type: 'Undo', actor: aliceId(), object: request() });
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the quote request was withdrawn' });
  });

  it('the quoted post deleted by the author', async () => {
    const { post, stamp } = await accepted();
    rig.core.services.author.deletePost(post.apId);
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the quoted post was deleted' });
  });

  it('the requester’s account deleted', async () => {
    const { stamp } = await accepted();
    await rig.receive({ id: `${aliceId()}#delete`, type: 'Delete', actor: aliceId(), to: [PUBLIC], object: aliceId() });
    expect(authorization(stamp).status).toBe('gone');
  });

  it('a request whose quoting post was already deleted is refused', async () => {
    rig = await openRig();
    ourPost('5b8a1c2d3e4f', 'PUBLIC');
    await rig.receive({ id: `${quotingId()}#delete`, type: 'Delete', actor: aliceId(), object: { id: quotingId(), type: 'Tombstone' } });
    await rig.receive(request());
    expect(answers().map((a) => a.apType)).toEqual(['Reject']);
  });
});

/** A change written with fixture hosts, rewritten to the loopback servers. */
const remotesRewritten = (change: Json): Json => JSON.parse(remotes.rewrite(JSON.stringify(change))) as Json;
