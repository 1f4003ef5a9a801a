// Forwarded activities in the processor, and forwarding (reference §5.1), with real RSA keys:
// "rosa" on mastodon.example LD-signs her activities with a key the test holds; they reach us
// relayed by a misskey.example account (HTTP signer ≠ actor) or from rosa herself. The inbox
// rows are written as the listener writes them (the received text, here indented), processed
// by the core's own inbox loop; forwarded deliveries are read back with deliveryPayload.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { incomingActivity, outgoingActivity, type IncomingActivity } from '../../../../db/schema';
import { addFollower, newRsaKeys } from '../../listener/test-support';
import { exportPublicKeyPem, signLdDocument, verifyLdSignature } from '../../net/signatures';
import { PUBLIC, type Json } from '../ap';
import { rememberVerdict, takeVerdict } from '../embedded-verdicts';
import { deliveryPayload } from '../outbox';
import { openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
let rosaKeys: CryptoKeyPair;
let eveKeys: CryptoKeyPair;
const o = (host: string) => remotes.servers[host as 'mastodon.example'].server.origin;
const rosa = () => `${o('mastodon.example')}/users/rosa`;
const eve = () => `${o('gts.example')}/users/eve`;
const forwarder = () => `${o('misskey.example')}/users/relayer`;

function person(id: string, pem: string): Json {
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: id.split('/').pop(),
    inbox: `${id}/inbox`,
    followers: `${id}/followers`,
    endpoints: { sharedInbox: `${new URL(id).origin}/inbox` },
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem },
  };
}

beforeAll(async () => {
  remotes = await startRemotes();
  [rosaKeys, eveKeys] = await Promise.all([newRsaKeys(), newRsaKeys()]);
  remotes.servers['mastodon.example'].put(rosa(), person(rosa(), await exportPublicKeyPem(rosaKeys.publicKey)));
  remotes.servers['gts.example'].put(eve(), person(eve(), await exportPublicKeyPem(eveKeys.publicKey)));
  remotes.servers['misskey.example'].put(forwarder(), person(forwarder(), await exportPublicKeyPem(eveKeys.publicKey)));
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1', { sensitive: 'as:sensitive', toot: 'http://joinmastodon.org/ns#' }];
const signer = (who: 'rosa' | 'eve') =>
  who === 'rosa' ? { keyId: new URL(`${rosa()}#main-key`), privateKey: rosaKeys.privateKey } : { keyId: new URL(`${eve()}#main-key`), privateKey: eveKeys.privateKey };

function reply(n: number, inReplyTo: string, fields: Json = {}): Json {
  return {
    id: `${rosa()}/statuses/${n}`,
    type: 'Note',
    attributedTo: rosa(),
    inReplyTo,
    content: `<p>reply ${n}</p>`,
    to: [PUBLIC],
    cc: [`${rosa()}/followers`],
    published: '2025-01-10T11:00:00Z',
    ...fields,
  };
}
const createOf = (note: Json): Json => ({ '@context': CONTEXT, id: `${String(note.id)}/activity`, type: 'Create', actor: rosa(), to: note.to, cc: note.cc, object: note });
const deleteOf = (noteId: string): Json => ({ '@context': CONTEXT, id: `${noteId}#delete`, type: 'Delete', actor: rosa(), to: [PUBLIC], object: { id: noteId, type: 'Tombstone' } });

/** Writes the row as the listener does (the received text as is) and processes it. */
async function receiveText(text: string, sentBy: string): Promise<IncomingActivity> {
  const now = rig.now().toISOString();
  const apId = (JSON.parse(text) as Json).id as string;
  const { lastInsertRowid } = rig.core.sqlite
    .prepare(
      'INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES (?, ?, ?, ?, 0, ?, 0, 0)',
    )
    .run(now, sentBy, apId, text, now);
  await rig.core.loops.inbox.drain();
  return rig.incoming(Number(lastInsertRowid));
}

async function receiveSigned(activity: Json, options: { sentBy?: string; by?: 'rosa' | 'eve'; signed?: boolean } = {}) {
  const body = options.signed === false ? activity : await signLdDocument(activity, signer(options.by ?? 'rosa'));
  const text = JSON.stringify(body, null, 2);
  return { text, row: await receiveText(text, options.sentBy ?? forwarder()) };
}

const forwardsOf = (inboxRowId: number) =>
  rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.inboxObjectId, inboxRowId)).all().map((r) => r.recipient).sort();
const allForwards = () => rig.core.db.select().from(outgoingActivity).all().filter((r) => r.inboxObjectId !== null);

/** Our post and five followers: two to forward to, one on the author's server, two on the forwarder's. */
async function setUp(): Promise<{ post: string; expected: string[] }> {
  rig = await openRig();
  const post = rig.ourPost('ours').apId;
  addFollower(rig.core, `${o('gts.example')}/users/g1`, `${o('gts.example')}/users/g1/inbox`, `${o('gts.example')}/inbox`);
  addFollower(rig.core, `${o('pleroma.example')}/users/p1`, `${o('pleroma.example')}/users/p1/inbox`);
  addFollower(rig.core, `${o('mastodon.example')}/users/m1`, `${o('mastodon.example')}/users/m1/inbox`, `${o('mastodon.example')}/inbox`);
  addFollower(rig.core, `${o('misskey.example')}/users/k1`, `${o('misskey.example')}/users/k1/inbox`);
  // On the forwarder's server, though its inbox is elsewhere: it has the activity already.
  addFollower(rig.core, `${o('misskey.example')}/users/k2`, `${o('pleroma.example')}/k2-inbox`);
  return { post, expected: [`${o('gts.example')}/inbox`, `${o('pleroma.example')}/users/p1/inbox`].sort() };
}

describe('forwarded activities with the actor’s LD signature', () => {
  it('a forwarded LD-signed Create is believed as embedded (no refetch) and, replying to our post, forwarded as received', async () => {
    const { post, expected } = await setUp();
    // The status is not served at its id: had the processor refetched it, the Create would be dropped.
    const { text, row } = await receiveSigned(createOf(reply(1, post)));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${rosa()}/statuses/1`)).toMatchObject({ apType: 'Note', isHiddenFromStream: false, isDeleted: false });
    const createRow = rig.inboxRow(`${rosa()}/statuses/1/activity`)!;
    expect(forwardsOf(createRow.id)).toEqual(expected);

    const queued = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.inboxObjectId, createRow.id)).all();
    const payload = deliveryPayload(rig.core.db, rig.local, queued[0]!);
    // Byte for byte what arrived, and still verifiable by its receivers.
    expect(payload).toEqual({ kind: 'send', body: text });
    const deps = { documentLoader: rig.core.fed.documentLoader, contextLoader: rig.core.fed.contextLoader, keyCache: rig.core.fed.keyCache };
    expect((await verifyLdSignature(JSON.parse(text), rosa(), deps)).ok).toBe(true);

    // Its LD-signed Delete: the reply is deleted and the Delete forwarded the same way.
    rig.advance(60_000);
    const del = await receiveSigned(deleteOf(`${rosa()}/statuses/1`));
    expect(del.row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${rosa()}/statuses/1`)?.isDeleted).toBe(true);
    const deleteRow = rig.inboxRow(`${rosa()}/statuses/1#delete`)!;
    expect(forwardsOf(deleteRow.id)).toEqual(expected);
    expect(deliveryPayload(rig.core.db, rig.local, rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.inboxObjectId, deleteRow.id)).get()!)).toEqual({
      kind: 'send',
      body: del.text,
    });
  });

  it('what is stored stays sanitized; only the delivery carries the received text (script and all) on', async () => {
    const { post } = await setUp();
    const { text } = await receiveSigned(createOf(reply(2, post, { content: '<p>hi</p><script>alert(1)</script>' })));
    expect(text).toContain('<script>');
    const createRow = rig.inboxRow(`${rosa()}/statuses/2/activity`)!;
    expect(JSON.stringify(createRow.apObject)).not.toContain('<script>');
    expect(JSON.stringify(rig.inboxRow(`${rosa()}/statuses/2`)!.apObject)).not.toContain('<script>');
    const queued = rig.core.db.select().from(outgoingActivity).where(eq(outgoingActivity.inboxObjectId, createRow.id)).get()!;
    expect(deliveryPayload(rig.core.db, rig.local, queued)).toEqual({ kind: 'send', body: text });
  });

  it('a reply sent by its author, LD-signed, is forwarded to every follower but those on the author’s server', async () => {
    const { post } = await setUp();
    await receiveSigned(createOf(reply(2, post)), { sentBy: rosa() });
    const createRow = rig.inboxRow(`${rosa()}/statuses/2/activity`)!;
    expect(forwardsOf(createRow.id)).toEqual(
      [`${o('gts.example')}/inbox`, `${o('pleroma.example')}/users/p1/inbox`, `${o('misskey.example')}/users/k1/inbox`, `${o('pleroma.example')}/k2-inbox`].sort(),
    );
  });

  it('no forwarding for an unsigned reply, an unlisted one, a reply to a poll, or a reply to someone else', async () => {
    const { post } = await setUp();
    const poll = rig.ourPost('poll', { type: 'Question', oneOf: [{ type: 'Note', name: 'a' }], endTime: '2025-02-01T00:00:00Z' }).apId;
    await receiveSigned(createOf(reply(3, post)), { sentBy: rosa(), signed: false });
    await receiveSigned(createOf(reply(4, post, { to: [`${rosa()}/followers`], cc: [PUBLIC] })), { sentBy: rosa() });
    await receiveSigned(createOf(reply(5, poll, { content: '<p>not a vote, still a reply to a poll</p>' })), { sentBy: rosa() });
    await receiveSigned(createOf(reply(6, `${o('gts.example')}/users/g1/statuses/1`)), { sentBy: rosa() });
    for (const n of [3, 4, 5, 6]) expect(rig.inboxRow(`${rosa()}/statuses/${n}`)).toBeDefined();
    expect(allForwards()).toEqual([]);
  });

  it('a forwarded LD-signed Update of a stored post replaces it, and a forwarded LD-signed Like counts', async () => {
    const { post } = await setUp();
    await receiveSigned(createOf(reply(7, post)), { sentBy: rosa() });
    rig.advance(60_000);
    const update = { '@context': CONTEXT, id: `${rosa()}/statuses/7#updates/1`, type: 'Update', actor: rosa(), to: [PUBLIC], object: reply(7, post, { content: '<p>edited</p>', updated: '2025-01-10T12:01:00Z' }) };
    expect((await receiveSigned(update)).row).toMatchObject({ isProcessed: true, error: null });
    expect(String((rig.inboxRow(`${rosa()}/statuses/7`)!.apObject as Json).content)).toBe('<p>edited</p>');

    const like = { '@context': CONTEXT, id: `${rosa()}#likes/1`, type: 'Like', actor: rosa(), object: post };
    expect((await receiveSigned(like)).row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.notificationsOf('LIKE')).toHaveLength(1);
  });

  it('forwarded activities whose LD signature is by another actor’s key, or tampered, are not trusted', async () => {
    const { post } = await setUp();
    const like = { '@context': CONTEXT, id: `${rosa()}#likes/2`, type: 'Like', actor: rosa(), object: post };
    const forged = await receiveSigned(like, { by: 'eve' });
    expect(forged.row.error).toMatch(/forwarded by .*not trusted/);
    expect(rig.notificationsOf('LIKE')).toHaveLength(0);

    // A tampered Create falls back to refetching the object, which its server does not serve.
    const signed = await signLdDocument(createOf(reply(8, post)), signer('rosa'));
    const tampered = { ...signed, object: { ...(signed.object as Json), content: '<p>words rosa never wrote</p>' } };
    const row = await receiveText(JSON.stringify(tampered), forwarder());
    expect(row.error).toMatch(/created object unavailable/);
    expect(rig.inboxRow(`${rosa()}/statuses/8`)).toBeUndefined();
    expect(allForwards()).toEqual([]);
  });

  it('the inbox’s verdict on a row is used once instead of verifying again; without one the processor verifies itself', async () => {
    const { post } = await setUp();
    // Signed by eve: verified here, it would not be trusted (the test above). A verdict the inbox
    // reached for this very row stands in for that check, once.
    const like = await signLdDocument({ '@context': CONTEXT, id: `${rosa()}#likes/4`, type: 'Like', actor: rosa(), object: post }, signer('eve'));
    const now = rig.now().toISOString();
    const insert = rig.core.sqlite.prepare(
      'INSERT INTO incoming_activity (created_at, sent_by_ap_actor_id, ap_id, ap_object, tries, next_try, is_processed, is_errored) VALUES (?, ?, ?, ?, 0, ?, 0, 0)',
    );
    const vouched = Number(insert.run(now, forwarder(), like.id, JSON.stringify(like), now).lastInsertRowid);
    rememberVerdict(rig.core.db, vouched, { ok: true, method: 'ld-signature', keyId: `${rosa()}#main-key`, ownerActorId: rosa() });
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(vouched)).toMatchObject({ isProcessed: true, error: null });
    expect(rig.notificationsOf('LIKE')).toHaveLength(1);
    expect(takeVerdict(rig.core.db, vouched)).toBeUndefined();

    const again = { ...like, id: `${rosa()}#likes/5` };
    const checked = Number(insert.run(now, forwarder(), again.id, JSON.stringify(again), now).lastInsertRowid);
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(checked).error).toMatch(/not trusted/);
  });

  it('a relayed LD-signed Like whose key cannot be fetched right now is retried, then taken', async () => {
    const { post } = await setUp();
    const like = { '@context': CONTEXT, id: `${rosa()}#likes/3`, type: 'Like', actor: rosa(), object: post };
    const doc = person(rosa(), await exportPublicKeyPem(rosaKeys.publicKey));
    remotes.servers['mastodon.example'].put(rosa(), 503);
    try {
      const first = await receiveSigned(like);
      expect(first.row).toMatchObject({ isProcessed: false, isErrored: false, tries: 1 });
      expect(first.row.error).toMatch(/unavailable for now/);
    } finally {
      remotes.servers['mastodon.example'].put(rosa(), doc);
    }
    rig.advance(10 * 60_000);
    rig.core.fed.keyCache.evict(`${rosa()}#main-key`); // its "unavailable" verdict lasts 5 minutes
    await rig.core.loops.inbox.drain();
    expect(rig.incoming(rig.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, `${rosa()}#likes/3`)).get()!.id)).toMatchObject({
      isProcessed: true,
      error: null,
    });
    expect(rig.notificationsOf('LIKE')).toHaveLength(1);
  });
});

