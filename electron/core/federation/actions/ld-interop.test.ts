// LD signatures against Fedify test peers (which sign what they send with an RsaSignature2017
// and an Ed25519 proof, and check both on receipt): our public posts' Create/Update/Delete carry
// an LD signature Fedify verifies, the same one for every recipient; non-public ones carry none.
// A Fedify peer's LD-signed activity relayed to us by another peer is accepted, and so is one
// carrying only its integrity proof (FEP-8b32); a peer's public reply to our post is forwarded
// to our followers, where Fedify verifies the replier's LD signature on the body we relayed. Tests share their peers and run in order.
import { eq } from 'drizzle-orm';
import { detachSignature } from '@fedify/fedify';
import { Create, Document, Hashtag, Note, Person, Update } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incomingActivity, outgoingActivity } from '../../../../db/schema';
import { startPeer, type Peer, type ReceivedActivity } from '../../../../test/peer/peer';
import { saveUpload } from '../../media/store';
import { photo } from '../../media/test-images';
import { createSettingsService } from '../../settings-service';
import { openAuthorRig, type AuthorRig } from './test-rig';

let rig: AuthorRig;
let fan: Peer; // follows us (shared inbox)
let pal: Peer; // follows us too, on another server
let bob: Peer; // replies to us
let carol: Peer; // follows bob, and relays his activities

const ours = (id: string | null | undefined) => id?.replace(/\/$/, '') === rig.url;
const signatureOf = (x: ReceivedActivity) => (x.raw as { signature?: { type: string; creator: string; signatureValue: string } }).signature;

beforeAll(async () => {
  [rig, fan, pal, bob, carol] = await Promise.all([
    openAuthorRig(),
    startPeer({ name: 'fan' }),
    startPeer({ name: 'pal' }),
    startPeer({ name: 'bob' }),
    startPeer({ name: 'carol' }),
  ]);
  await fan.follow(rig.url);
  await pal.follow(rig.url);
  await carol.follow(bob.actorId);
  await Promise.all([fan.waitFor((x) => x.type === 'Accept'), pal.waitFor((x) => x.type === 'Accept')]);
});

afterAll(async () => {
  await Promise.all([fan?.close(), pal?.close(), bob?.close(), carol?.close()]);
  await rig?.close();
});

let publicPost: { id: number; apId: string };

describe('our LD signatures', () => {
  it('a public post’s Create carries our RsaSignature2017, verified by Fedify, one signature for all recipients', async () => {
    publicPost = await rig.author.createPost({ content: 'signed for forwarding', visibility: 'PUBLIC' });
    const [atFan, atPal] = await Promise.all(
      [fan, pal].map((p) => p.waitFor((x) => x.type === 'Create' && x.objectId === publicPost.apId, 10_000)),
    );
    for (const x of [atFan!, atPal!]) {
      expect(x.signer.verifiedBy).toBe('ld-signature');
      // An LD signature names the key in its URL form, as Fedify writes it (identity.ts).
      expect(x.signer.keyId).toBe(new URL(rig.core.identity()!.keyId).href);
      expect(ours(x.signer.ownerId)).toBe(true);
      expect(x.signer.httpSignature?.verified).toBe(true);
    }
    // The HTTP signature (draft-cavage, the first knock) names the key as the actor publishes it,
    // <actor id>#main-key: the part before '#' is the actor id itself, which is how Mastodon
    // finds the signer's stored account without fetching Tern's actor again (identity.ts).
    const local = rig.core.identity()!;
    expect(atFan!.signer.httpSignature).toMatchObject({ spec: 'draft-cavage-http-signatures-12', verified: true, keyIdAsSent: local.keyId });
    expect(local.keyId.split('#')[0]).toBe(local.id);
    // Signed once per activity, not per delivery.
    expect(signatureOf(atFan!)?.signatureValue).toBe(signatureOf(atPal!)?.signatureValue);
  });

  it('its Update is LD-signed too (the Delete: last test)', async () => {
    await rig.author.editPost({ apId: publicPost.apId, content: 'signed, edited' });
    const update = await fan.waitFor((x) => x.type === 'Update' && x.objectId === publicPost.apId, 10_000);
    expect(update.signer).toMatchObject({ verifiedBy: 'ld-signature', keyId: new URL(rig.core.identity()!.keyId).href });
  });

  it.each(['UNLISTED', 'FOLLOWERS_ONLY'] as const)('a %s post goes without an LD signature (deniable), on our HTTP signature', async (visibility) => {
    const post = await rig.author.createPost({ content: `not for forwarding: ${visibility}`, visibility });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId, 10_000);
    expect(signatureOf(create)).toBeUndefined();
    expect(create.signer.verifiedBy).toBe('http-signature');
    expect(ours(create.signer.ownerId)).toBe(true);
  });
});

describe('what a JSON-LD reader (Fedify) reads of what Tern sends and serves', () => {
  it('a public post with a picture: its Create and its edit are LD-signed, and the picture’s blurhash is read', async () => {
    const upload = await saveUpload({ db: rig.core.db, uploadsDir: rig.core.paths.uploads, clock: () => new Date() }, { bytes: await photo(64, 48, 'png'), contentType: 'image/png' });
    const post = await rig.author.createPost({ content: 'a picture', visibility: 'PUBLIC', attachments: [{ uploadId: upload.id, alt: 'A tern', filename: 't.png' }] });
    const create = await fan.waitFor((x) => x.type === 'Create' && x.objectId === post.apId, 10_000);
    // Signed over its canonical form, blurhash included: a term its context did not define made
    // the signing fail in safe mode, and the Create went out unsigned (not forwarded by peers).
    expect(create.signer.verifiedBy).toBe('ld-signature');
    const raw = create.raw as { object: { attachment: { blurhash?: string }[] } };
    expect(raw.object.attachment[0]?.blurhash).toEqual(expect.any(String));
    const note = await (await Create.fromJsonLd(create.raw)).getObject();
    const attachments = [];
    for await (const attachment of (note as Note).getAttachments()) attachments.push(attachment);
    expect(attachments[0]).toBeInstanceOf(Document);
    await rig.author.editPost({ apId: post.apId, content: 'a picture, edited' });
    const update = await fan.waitFor((x) => x.type === 'Update' && x.objectId === post.apId, 10_000);
    expect(update.signer.verifiedBy).toBe('ld-signature');
  });

  it('a served post keeps its content warning and hashtags for a reader that fetches it', async () => {
    const post = await rig.author.createPost({ content: 'about #Terns', summary: 'birds', visibility: 'PUBLIC' });
    const served = (await fan.lookup(post.apId, { signed: false })) as Note;
    expect(served).toBeInstanceOf(Note);
    expect(served.sensitive).toBe(true);
    const tags = [];
    for await (const tag of served.getTags()) tags.push(tag);
    expect(tags.some((t) => t instanceof Hashtag && t.name?.toString().toLowerCase() === '#terns')).toBe(true);
  });

  it('a profile Update is LD-signed, and a reader keeps the account’s lock and its featured collection', async () => {
    const settings = createSettingsService(rig.core);
    await settings.update({ manuallyApprovesFollowers: true });
    try {
      const update = await fan.waitFor((x) => x.type === 'Update' && ours(x.objectId), 10_000);
      expect(update.signer.verifiedBy).toBe('ld-signature');
      const person = (await (await Update.fromJsonLd(update.raw)).getObject()) as Person;
      expect(person).toBeInstanceOf(Person);
      expect(person.manuallyApprovesFollowers).toBe(true);
      expect(person.featuredId?.href).toMatch(/\/featured$/);
    } finally {
      await settings.update({ manuallyApprovesFollowers: false });
    }
  });
});

describe('forwarded activities, between Fedify peers and Tern', () => {
  it('a Fedify peer’s LD-signed Create relayed by another peer is accepted (202) and processed', async () => {
    const note = await bob.createNote({ content: '<p>for my followers</p>' });
    const atCarol = await carol.waitFor((x) => x.type === 'Create' && x.objectId === note.noteId, 10_000);
    expect(atCarol.signer.verifiedBy).toBe('ld-signature');
    // carol relays bob's activity, exactly as she got it, under her own HTTP signature.
    const res = await carol.postSigned(`${rig.url}/inbox`, JSON.stringify(atCarol.raw));
    expect(res.status).toBe(202);
    const row = rig.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, note.createId)).get()!;
    expect(row.sentByApActorId).toBe(carol.actorId);
    await rig.core.loops.inbox.drain();
    const processed = rig.core.db.select().from(incomingActivity).where(eq(incomingActivity.id, row.id)).get()!;
    expect(processed).toMatchObject({ isProcessed: true, error: null });
  });

  it('relayed without its LD signature, a Like is accepted on its integrity proof (FEP-8b32); tampered, refused', async () => {
    const carolsNote = await carol.createNote({ content: '<p>like me</p>' });
    const likeId = await bob.like(carolsNote.noteId, carol.actorId);
    const atCarol = await carol.waitFor((x) => x.type === 'Like' && x.id === likeId, 10_000);
    const proofOnly = detachSignature(atCarol.raw) as Record<string, unknown>;
    expect(proofOnly.signature).toBeUndefined();
    expect(proofOnly.proof).toBeDefined();
    // Not a Create: without a valid proof by bob, nothing else could let it in.
    const tampered = { ...proofOnly, object: publicPost.apId };
    expect(await (await carol.postSigned(`${rig.url}/inbox`, tampered)).json()).toEqual({
      error: 'key does not belong to actor (forwarded activity: its integrity proof does not verify)',
    });
    const res = await carol.postSigned(`${rig.url}/inbox`, proofOnly);
    expect(res.status).toBe(202);
    await rig.core.loops.inbox.drain();
    const row = rig.core.db.select().from(incomingActivity).where(eq(incomingActivity.apId, likeId)).get()!;
    expect(row).toMatchObject({ sentByApActorId: carol.actorId, isProcessed: true, error: null });
  });

  it('a peer’s public reply to our post is forwarded to our followers; Fedify verifies the replier’s LD signature on it', async () => {
    const reply = await bob.createNote({ content: '<p>a reply</p>', inReplyTo: publicPost.apId });
    const forwarded = await fan.waitFor((x) => x.type === 'Create' && x.objectId === reply.noteId, 15_000);
    expect(forwarded.signer.verifiedBy).toBe('ld-signature');
    expect(forwarded.signer.ownerId).toBe(bob.actorId);
    // Carried to fan by us: our HTTP signature on bob's activity.
    expect(ours(forwarded.signer.httpSignature?.ownerId)).toBe(true);
    await pal.waitFor((x) => x.type === 'Create' && x.objectId === reply.noteId, 15_000);
    const rows = rig.core.db.select().from(outgoingActivity).all().filter((r) => r.inboxObjectId !== null);
    expect(rows.map((r) => r.recipient).sort()).toEqual([fan.sharedInboxUrl, pal.sharedInboxUrl].sort());

    // Its Delete follows the same way.
    await bob.deleteNote(reply.noteId);
    const del = await fan.waitFor((x) => x.type === 'Delete' && x.objectId === reply.noteId, 15_000);
    expect(del.signer).toMatchObject({ verifiedBy: 'ld-signature', ownerId: bob.actorId });
  });
});

describe('deleting', () => {
  it('the Delete of a public post is LD-signed', async () => {
    await rig.author.deletePost(publicPost.apId);
    const del = await fan.waitFor((x) => x.type === 'Delete' && x.objectId === publicPost.apId, 10_000);
    expect(del.signer).toMatchObject({ verifiedBy: 'ld-signature', keyId: new URL(rig.core.identity()!.keyId).href });
    expect(signatureOf(del)?.type).toBe('RsaSignature2017');
  });
});
