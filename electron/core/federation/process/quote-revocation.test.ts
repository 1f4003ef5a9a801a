// The quoted author revokes their approval of the author's quote (FEP-044f), as Mastodon 4.5
// does, through the real inbox processor: a Delete whose object is the QuoteAuthorization their
// Accept named. Only its author's Delete of an authorization our post holds revokes it: the
// post then shows the quote as revoked (thread, stream, the Mastodon client API's quote.state),
// drops its quoteAuthorization (an edit sends none), and the author is told once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import { inbox, notifications, outbox, type OutboxObject } from '../../../../db/schema';
import { createMapper } from '../../mastodon/entities';
import { PUBLIC, type Json } from '../ap';
import { openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const alice = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const bob = () => String(remotes.fixture('actors/misskey-bob.json').id);
/** Another account on Alice's server. */
const newsbot = () => String(remotes.fixture('actors/mastodon-newsbot.json').id);
let notes = 0;

/** Alice's public post (received), whose policy approves quotes by hand or at once. */
async function alicesNote(policy: 'manual' | 'public'): Promise<string> {
  const id = `${alice()}/statuses/${++notes}`;
  const canQuote = policy === 'public' ? { automaticApproval: [PUBLIC] } : { manualApproval: [PUBLIC], automaticApproval: [alice()] };
  const note = { id, type: 'Note', attributedTo: alice(), content: '<p>Herons stand still</p>', to: [PUBLIC], published: rig.now().toISOString(), interactionPolicy: { canQuote } };
  await rig.receive({ id: `${id}/activity`, type: 'Create', actor: alice(), to: [PUBLIC], object: note });
  return id;
}

/** The author quotes `quoted`, and Alice accepts with a QuoteAuthorization her server serves. */
async function approvedQuote(policy: 'manual' | 'public' = 'manual'): Promise<{ post: OutboxObject; stamp: string; quoted: string }> {
  const quoted = await alicesNote(policy);
  const view = await rig.core.services.author.createPost({ content: 'So true', visibility: 'PUBLIC', quote: quoted });
  const post = rig.outboxRow(view.id);
  const request = rig.core.db.select().from(outbox).where(eq(outbox.relatesToOutboxObjectId, post.id)).all().find((r) => r.apType === 'QuoteRequest')!;
  const stamp = `${alice()}/quote_authorizations/${notes}`;
  // The shape Mastodon 4.5 serves at a Quote's approval_uri (ActivityPub::QuoteAuthorizationSerializer).
  remotes.servers['mastodon.example'].put(stamp, {
    '@context': ['https://www.w3.org/ns/activitystreams', { QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization', gts: 'https://gotosocial.org/ns#', interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' }, interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' } }],
    id: stamp,
    type: 'QuoteAuthorization',
    attributedTo: alice(),
    interactingObject: post.apId,
    interactionTarget: quoted,
  });
  const accepted = await rig.receive({ id: `${alice()}#accepts/${notes}`, type: 'Accept', actor: alice(), to: [rig.local.id], object: request.apId, result: stamp });
  expect(accepted).toMatchObject({ isProcessed: true, error: null });
  expect(rig.outboxRow(post.id).apObject).toMatchObject({ quoteAuthorization: stamp });
  return { post: rig.outboxRow(post.id), stamp, quoted };
}

/**
 * Mastodon 4.5's revocation, written after its ActivityPub::DeleteQuoteAuthorizationSerializer
 * (app/serializers/activitypub/delete_quote_authorization_serializer.rb): id = the authorization's
 * id + '#delete', actor = the quoted account, to = the public; `object` = the authorization's id
 * (4.5.0) or, in later versions, the QuoteAuthorization embedded. Mastodon's
 * activity/delete.rb revoke_quote acts on it only for the quoted account's own Delete.
 */
function revocation(stamp: string, options: { actor?: string; embedded?: boolean; post?: string; quoted?: string } = {}): Json {
  const actor = options.actor ?? alice();
  const object = options.embedded ? { id: stamp, type: 'QuoteAuthorization', attributedTo: alice(), interactingObject: options.post, interactionTarget: options.quoted } : stamp;
  return { '@context': 'https://www.w3.org/ns/activitystreams', id: `${stamp}#delete`, type: 'Delete', actor, to: [PUBLIC], object };
}

const threadPost = async (post: OutboxObject) => (await rig.core.services.author.thread(post.apId)).post;
const quoteNotifications = () => rig.core.db.select().from(notifications).where(isNull(notifications.notificationType)).all();
const mastodonStatus = (post: OutboxObject) => {
  const author = rig.core.services.author;
  const map = createMapper({ local: rig.local, settings: () => rig.core.settings.get(), reads: author.reads, people: () => author.peopleKnown(), relation: (actorId) => author.relationOf(actorId) });
  const read = author.reads.post('outbox', post.id)!;
  return map.status(read.view, read.key) as unknown as { quote: { state: string; quoted_status: unknown } | null };
};

describe('the quoted author revokes their approval of our quote', () => {
  it('their Delete of the authorization: revoked in the thread, the stream and the Mastodon API; quoteAuthorization dropped; the author told once', async () => {
    rig = await openRig();
    const { post, stamp } = await approvedQuote();
    expect(mastodonStatus(post).quote).toMatchObject({ state: 'accepted' });
    const told = quoteNotifications().length;
    rig.advance(2 * 60 * 60 * 1000);

    const row = await rig.receive(revocation(stamp));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(await threadPost(post)).toMatchObject({ quoteState: 'revoked', quoteAskedOf: { apId: alice() } });
    expect(rig.core.services.author.stream({}).items.find((p) => p.apId === post.apId)).toMatchObject({ quoteState: 'revoked' });
    expect(mastodonStatus(post).quote).toEqual({ state: 'revoked', quoted_status: null });
    expect(rig.outboxRow(post.id).apObject).not.toHaveProperty('quoteAuthorization');
    // Their Accept is undone by the Delete, which is kept linked to it.
    const del = rig.inboxRow(`${stamp}#delete`)!;
    expect(del).toMatchObject({ apType: 'Delete', activityObjectApId: stamp });
    expect(rig.core.db.select().from(inbox).where(eq(inbox.id, del.relatesToInboxObjectId!)).get()).toMatchObject({ apType: 'Accept', undoneByInboxObjectId: del.id });

    expect(quoteNotifications()).toHaveLength(told + 1);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ type: null, actor: { apId: alice() }, inboxObject: { apType: 'Delete' }, outboxObject: { id: post.id }, detail: { kind: 'quote-answered', approved: false, revoked: true } });

    // Said twice (a redelivery under another id): nothing more.
    await rig.receive({ ...revocation(stamp), id: `${stamp}#delete-again` });
    expect(quoteNotifications()).toHaveLength(told + 1);
    expect((await threadPost(post)).quoteState).toBe('revoked');
  });

  it('revoked within the hour of the approval: the one notification now says it was revoked (at most one an hour per quote)', async () => {
    rig = await openRig();
    const { post, stamp } = await approvedQuote();
    expect(quoteNotifications()).toHaveLength(1);
    rig.advance(5 * 60 * 1000);
    await rig.receive(revocation(stamp));
    expect((await threadPost(post)).quoteState).toBe('revoked');
    expect(rig.core.services.notifications.list().items).toEqual([expect.objectContaining({ inboxObject: expect.objectContaining({ apType: 'Delete' }), detail: { kind: 'quote-answered', approved: false, revoked: true } })]);
  });

  it('the later Mastodon shape (the QuoteAuthorization embedded) revokes too, even a quote the policy approves at once', async () => {
    rig = await openRig();
    const { post, stamp, quoted } = await approvedQuote('public');
    await rig.receive(revocation(stamp, { embedded: true, post: post.apId, quoted }));
    expect((await threadPost(post)).quoteState).toBe('revoked');
    expect(rig.outboxRow(post.id).apObject).not.toHaveProperty('quoteAuthorization');
  });

  it('a Delete of the authorization by anyone else, or by her of an id our post does not hold, changes nothing', async () => {
    rig = await openRig();
    const { post, stamp } = await approvedQuote();
    const told = quoteNotifications().length;

    await rig.receive(revocation(stamp, { actor: bob() }));
    await rig.receive({ ...revocation(stamp, { actor: newsbot() }), id: `${newsbot()}#delete` });
    await rig.receive(revocation(`${alice()}/quote_authorizations/someone-elses`));
    await rig.receive(revocation(`${alice()}/statuses/unknown`));
    expect((await threadPost(post)).quoteState).toBe('approved');
    expect(rig.outboxRow(post.id).apObject).toMatchObject({ quoteAuthorization: stamp });
    expect(rig.core.db.select().from(inbox).where(eq(inbox.apType, 'Accept')).all().map((a) => a.undoneByInboxObjectId)).toEqual([null]);
    expect(quoteNotifications()).toHaveLength(told);
    expect(mastodonStatus(post).quote).toMatchObject({ state: 'accepted' });
  });

  it('relayed by someone else without her signature: believed only once her server no longer serves the authorization', async () => {
    rig = await openRig();
    const { post, stamp } = await approvedQuote();
    const relayed = await rig.receive(revocation(stamp), { sentBy: bob() });
    expect(relayed.error).toMatch(/still serves it/);
    expect((await threadPost(post)).quoteState).toBe('approved');

    remotes.servers['mastodon.example'].put(stamp, 410);
    await rig.receive({ ...revocation(stamp), id: `${stamp}#delete-relayed` }, { sentBy: bob() });
    expect((await threadPost(post)).quoteState).toBe('revoked');
  });

  it('an edit after the revocation sends no stale authorization; the revoked quote is not asked about again', async () => {
    rig = await openRig();
    const { post, stamp } = await approvedQuote();
    await rig.receive(revocation(stamp));
    await rig.core.services.author.editPost({ apId: post.apId, content: 'So true, still' });
    const update = rig.core.db
      .select()
      .from(outbox)
      .where(eq(outbox.relatesToOutboxObjectId, post.id))
      .all()
      .filter((row) => row.apType === 'Update')
      .at(-1)!;
    const sent = (update.apObject as Json).object as Json;
    expect(sent).toMatchObject({ id: post.apId, quote: expect.any(String) });
    expect(sent).not.toHaveProperty('quoteAuthorization');
    expect((await threadPost(post)).quoteState).toBe('revoked');
    await expect(async () => rig.core.services.author.askQuoteAgain(post.apId)).rejects.toThrow(/took their approval back/);
  });
});
