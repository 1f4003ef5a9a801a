// The author revokes one quote's approval (quote-approvals.ts), through the IPC dispatch as the
// app calls it: the authorization is gone (410), a Delete of it is queued to the quoter and to
// the quoted post's audience, revoking again changes nothing, and bad input is a typed error.
// A revoked quote is refused when asked again until the author allows it again; the thread view
// of the quoting post says where the approval stands, so it can be revoked or allowed from there.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { outbox, outgoingActivity } from '../../../../db/schema';
import { createHandlers, dispatch, type Handlers } from '../../ipc/handlers';
import { addFollower } from '../../listener/test-support';
import { PUBLIC, type Json } from '../ap';
import { deliveryPayload } from '../outbox';
import { findQuoteAuthorization } from '../quote-authorizations';
import { openRig, startRemotes, type Remotes, type Rig } from '../process/test-rig';

let remotes: Remotes;
let rig: Rig;
let handlers: Handlers;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const request = (): Json => remotes.fixture('mastodon-quote-request.json');
const aliceInbox = () => `${remotes.servers['mastodon.example'].server.origin}/users/alice/inbox`;
const call = (channel: string, input: unknown) => dispatch(handlers, channel, input, () => {});
const rows = (type: string) => rig.core.db.select().from(outbox).where(eq(outbox.apType, type)).all();
const recipientsOf = (outboxObjectId: number) =>
  rig.core.db
    .select()
    .from(outgoingActivity)
    .where(eq(outgoingActivity.outboxObjectId, outboxObjectId))
    .all()
    .map((d) => d.recipient)
    .sort();
const authorization = (stampUrl: string) => findQuoteAuthorization(rig.core.db, rig.local, new URL(stampUrl).pathname.split('/')[2]!);

/** Alice's quote of our public post, approved; a follower of ours on another server. */
async function approvedQuote() {
  rig = await openRig();
  handlers = createHandlers(rig.core);
  rig.ourPost('5b8a1c2d3e4f');
  addFollower(rig.core, 'https://gts.example/users/zoe', 'https://gts.example/users/zoe/inbox', 'https://gts.example/inbox');
  await rig.receive(request());
  const asked = rig.inboxRow(String(request().id))!;
  const [accept] = rows('Accept');
  const stamp = String((accept!.apObject as Json).result);
  expect(authorization(stamp).status).toBe('live');
  return { asked, accept: accept!, stamp };
}

describe('revoking the approval of a quote', () => {
  it('the authorization is gone; a Delete of it goes to the quoter’s own inbox and our post’s audience', async () => {
    const { asked, accept, stamp } = await approvedQuote();
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quoted', approval: 'standing' } });

    expect(await call('quotes.revoke', { inboxObjectId: asked.id })).toEqual({ ok: true, value: { approval: 'revoked', queued: 2 } });
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the author revoked the approval' });

    const [del, ...more] = rows('Delete');
    expect(more).toEqual([]);
    expect(del!.apObject).toEqual({ id: del!.apId, type: 'Delete', actor: rig.local.id, to: [PUBLIC], object: stamp });
    expect(del).toMatchObject({ visibility: 'PUBLIC', activityObjectApId: stamp, relatesToOutboxObjectId: accept.id, relatesToInboxObjectId: asked.id });
    expect(rig.outboxRow(accept.id).undoneByOutboxObjectId).toBe(del!.id);
    // The quoter's personal inbox (as our Accept), and our followers' (shared) inbox.
    expect(recipientsOf(del!.id)).toEqual([aliceInbox(), 'https://gts.example/inbox'].sort());
    // Sent as is (not withheld), in the context Tern sends with.
    const [row] = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, del!.id)).all();
    const payload = deliveryPayload(rig.core.db, rig.local, row!);
    expect(payload.kind).toBe('send');
    expect(JSON.parse(payload.kind === 'send' ? payload.body : '{}')).toMatchObject({ type: 'Delete', object: stamp, '@context': expect.arrayContaining(['https://www.w3.org/ns/activitystreams']) });

    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quoted', approval: 'revoked' } });
  });

  it('is idempotent: revoking again sends nothing more', async () => {
    const { asked } = await approvedQuote();
    await call('quotes.revoke', { inboxObjectId: asked.id });
    expect(await call('quotes.revoke', { inboxObjectId: asked.id })).toEqual({ ok: true, value: { approval: 'revoked', queued: 0 } });
    expect(rows('Delete')).toHaveLength(1);
  });

  it('an Accept not yet delivered is withheld once the approval is revoked', async () => {
    const { asked, accept } = await approvedQuote();
    await call('quotes.revoke', { inboxObjectId: asked.id });
    const [row] = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, accept.id)).all();
    expect(deliveryPayload(rig.core.db, rig.local, row!)).toMatchObject({ kind: 'cancel' });
  });

  it('a repeated request’s standing authorization is the one revoked; the repeat answers it too', async () => {
    const { stamp } = await approvedQuote();
    const second = `${String(request().actor)}/quote_requests/second`;
    await rig.receive({ ...request(), id: second });
    const repeat = rig.inboxRow(second)!;
    expect(await call('quotes.revoke', { inboxObjectId: repeat.id })).toMatchObject({ ok: true, value: { approval: 'revoked' } });
    expect(authorization(stamp).status).toBe('gone');
    const accepts = rig.core.db.select().from(outbox).where(inArray(outbox.apType, ['Accept'])).all();
    expect(accepts.map((a) => a.undoneByOutboxObjectId)).toEqual([rows('Delete')[0]!.id, rows('Delete')[0]!.id]);
  });

  it('asked again after the author revoked it, the same quote is refused, not approved anew by the post’s policy', async () => {
    const { asked } = await approvedQuote();
    await call('quotes.revoke', { inboxObjectId: asked.id });
    const notified = rig.core.services.notifications.list().items.length;
    const again = `${String(request().actor)}/quote_requests/again`;
    await rig.receive({ ...request(), id: again });
    expect(rows('Accept')).toHaveLength(1);
    const [reject, ...more] = rows('Reject');
    expect(more).toEqual([]);
    expect(reject).toMatchObject({ relatesToInboxObjectId: rig.inboxRow(again)!.id });
    expect(recipientsOf(reject!.id)).toEqual([aliceInbox()]);
    expect(rig.core.services.notifications.list().items).toHaveLength(notified);
  });

  it('an approval that already ended (the quoted post deleted) is not revoked again: nothing sent', async () => {
    const { asked, stamp } = await approvedQuote();
    rig.core.services.author.deletePost(rig.local.objectUrl('5b8a1c2d3e4f'));
    expect(await call('quotes.revoke', { inboxObjectId: asked.id })).toEqual({ ok: true, value: { approval: 'ended', queued: 0 } });
    expect(rows('Delete').filter((d) => d.activityObjectApId === stamp)).toEqual([]);
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quoted', approval: 'ended' } });
  });

  it('bad input is a typed error: not a row id, extra fields, no such quote, a quote never approved', async () => {
    await approvedQuote();
    for (const input of [{}, { inboxObjectId: 0 }, { inboxObjectId: 'one' }, { inboxObjectId: 1.5 }, { inboxObjectId: 1, also: true }]) {
      expect(await call('quotes.revoke', input)).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    }
    expect(await call('quotes.revoke', { inboxObjectId: 9999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // A row that is no QuoteRequest (a Like of the same post).
    await rig.receive({ id: `${String(request().actor)}#likes/1`, type: 'Like', actor: request().actor, object: rig.local.objectUrl('5b8a1c2d3e4f') });
    const like = rig.inboxRow(`${String(request().actor)}#likes/1`)!;
    expect(like.apType).toBe('Like');
    expect(await call('quotes.revoke', { inboxObjectId: like.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // A request refused (of a post Tern never had) has no approval to revoke.
    const refused = { ...request(), id: `${String(request().actor)}/quote_requests/refused`, object: 'https://tern.example/o/0000', instrument: { ...(request().instrument as Json), quote: 'https://tern.example/o/0000' } };
    await rig.receive(refused);
    expect(rows('Reject')).toHaveLength(1);
    expect(await call('quotes.revoke', { inboxObjectId: rig.inboxRow(String(refused.id))!.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(rows('Delete')).toEqual([]);
  });
});

describe('allowing a revoked quote again', () => {
  const again = (n: string) => ({ ...request(), id: `${String(request().actor)}/quote_requests/${n}` });

  it('a new request for the same quote is then approved with a new authorization; the revoked one stays gone; the author is told again', async () => {
    const { asked, stamp } = await approvedQuote();
    await call('quotes.revoke', { inboxObjectId: asked.id });
    await rig.receive(again('refused'));
    expect(rows('Reject')).toHaveLength(1);

    expect(await call('quotes.allowAgain', { inboxObjectId: asked.id })).toEqual({ ok: true, value: { changed: true } });
    expect(rig.core.services.notifications.list().items[0]).toMatchObject({ detail: { kind: 'quoted', approval: 'revoked', allowedAgain: true } });
    // A record sent to no one and served to no one; the Delete of the old authorization still goes out.
    const [allowance, ...more] = rows('Undo');
    expect(more).toEqual([]);
    expect(allowance).toMatchObject({ visibility: 'DIRECT', isTransient: true, relatesToOutboxObjectId: rows('Delete')[0]!.id, relatesToInboxObjectId: asked.id });
    expect(allowance!.apObject).toMatchObject({ type: 'Undo', to: [], object: rows('Delete')[0]!.apId });
    expect(recipientsOf(allowance!.id)).toEqual([]);
    const [delivery] = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.outboxObjectId, rows('Delete')[0]!.id)).all();
    expect(deliveryPayload(rig.core.db, rig.local, delivery!).kind).toBe('send');

    const notified = rig.core.services.notifications.list().items.length;
    await rig.receive(again('allowed'));
    const accept = rows('Accept').find((a) => a.relatesToInboxObjectId === rig.inboxRow(String(again('allowed').id))!.id)!;
    const renewed = String((accept.apObject as Json).result);
    expect(renewed).not.toBe(stamp);
    expect(authorization(renewed).status).toBe('live');
    expect(authorization(stamp)).toMatchObject({ status: 'gone', reason: 'the author revoked the approval' });
    expect(recipientsOf(accept.id)).toEqual([aliceInbox()]);
    const items = rig.core.services.notifications.list().items;
    expect(items).toHaveLength(notified + 1);
    expect(items[0]).toMatchObject({ detail: { kind: 'quoted', approval: 'standing' } });

    // Revoked once more, it is refused again.
    await call('quotes.revoke', { inboxObjectId: rig.inboxRow(String(again('allowed').id))!.id });
    expect(authorization(renewed).status).toBe('gone');
    await rig.receive(again('refused-again'));
    expect(rows('Reject')).toHaveLength(2);
  });

  it('allowing twice changes nothing; a quote not revoked cannot be allowed again; bad input is a typed error', async () => {
    const { asked } = await approvedQuote();
    expect(await call('quotes.allowAgain', { inboxObjectId: asked.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    await call('quotes.revoke', { inboxObjectId: asked.id });
    await call('quotes.allowAgain', { inboxObjectId: asked.id });
    expect(await call('quotes.allowAgain', { inboxObjectId: asked.id })).toEqual({ ok: true, value: { changed: false } });
    expect(rows('Undo')).toHaveLength(1);
    for (const input of [{}, { inboxObjectId: 0 }, { inboxObjectId: '1' }, { inboxObjectId: 1, also: true }]) {
      expect(await call('quotes.allowAgain', input)).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    }
    expect(await call('quotes.allowAgain', { inboxObjectId: 9999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('the quoting post in its thread', () => {
  it('says where the author’s approval stands: standing, revoked, allowed again, then the new approval', async () => {
    const { asked } = await approvedQuote();
    const quoting = request().instrument as Json;
    await rig.receive({ id: `${String(quoting.id)}/activity`, type: 'Create', actor: request().actor, to: [PUBLIC], object: quoting });
    const approvalShown = async () => (await rig.core.services.author.thread(String(quoting.id))).post.quoteApproval;
    expect(await approvalShown()).toEqual({ inboxObjectId: asked.id, state: 'standing', allowedAgain: false });

    await call('quotes.revoke', { inboxObjectId: asked.id });
    expect(await approvalShown()).toEqual({ inboxObjectId: asked.id, state: 'revoked', allowedAgain: false });
    // Asked again and refused: the revoked approval is still the one to act on.
    await rig.receive({ ...request(), id: `${String(request().actor)}/quote_requests/refused` });
    expect(await approvalShown()).toEqual({ inboxObjectId: asked.id, state: 'revoked', allowedAgain: false });
    await call('quotes.allowAgain', { inboxObjectId: asked.id });
    expect(await approvalShown()).toEqual({ inboxObjectId: asked.id, state: 'revoked', allowedAgain: true });
    const renewed = `${String(request().actor)}/quote_requests/renewed`;
    await rig.receive({ ...request(), id: renewed });
    expect(await approvalShown()).toEqual({ inboxObjectId: rig.inboxRow(renewed)!.id, state: 'standing', allowedAgain: false });
  });

  it('reads a bounded number of the quoter’s requests: thirty newer ones for other quotes (stored, refused) put the approval out of reach of one view', async () => {
    const { asked } = await approvedQuote();
    const quoting = request().instrument as Json;
    await rig.receive({ id: `${String(quoting.id)}/activity`, type: 'Create', actor: request().actor, to: [PUBLIC], object: quoting });
    const approvalShown = async () => (await rig.core.services.author.thread(String(quoting.id))).post.quoteApproval;
    expect(await approvalShown()).toMatchObject({ inboxObjectId: asked.id });
    const s = rig.core.sqlite;
    const columns = (s.prepare('PRAGMA table_info(inbox)').all() as { name: string }[]).map((c) => c.name).filter((c) => !['id', 'ap_id', 'ap_object'].includes(c));
    const copy = s.prepare(
      `INSERT INTO inbox (ap_id, ap_object, ${columns.join(', ')}) SELECT ap_id || '/flood/' || @i, json_set(ap_object, '$.instrument', ap_id || '/other/' || @i), ${columns.join(', ')} FROM inbox WHERE id = @id`,
    );
    s.transaction(() => {
      for (let i = 0; i < 30; i++) copy.run({ i, id: asked.id });
    })();
    expect(await approvalShown()).toBeUndefined();
  });

  it('a post that quotes none of the author’s posts with their approval carries none', async () => {
    await approvedQuote();
    const note = { id: `${String(request().actor)}/statuses/plain`, type: 'Note', attributedTo: request().actor, content: '<p>Hi</p>', to: [PUBLIC], quote: 'https://elsewhere.example/notes/1' };
    await rig.receive({ id: `${String(note.id)}/activity`, type: 'Create', actor: request().actor, to: [PUBLIC], object: note });
    expect((await rig.core.services.author.thread(note.id)).post).not.toHaveProperty('quoteApproval');
  });
});
