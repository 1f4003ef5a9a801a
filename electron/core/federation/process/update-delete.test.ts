import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { actor, inbox, outbox } from '../../../../db/schema';
import { findActor } from '../actors';
import { PUBLIC, type Json } from '../ap';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const aliceId = () => String(remotes.fixture('actors/mastodon-alice.json').id);
const zoeId = () => String(remotes.fixture('actors/gotosocial-zoe.json').id);

function note(actorId: string, suffix: string, fields: Json = {}): Json {
  return { id: `${actorId}/statuses/${suffix}`, type: 'Note', attributedTo: actorId, to: [PUBLIC], content: '<p>first</p>', ...fields };
}
const create = (n: Json): Json => ({ id: `${String(n.id)}/activity`, type: 'Create', actor: n.attributedTo, to: [PUBLIC], object: n });

describe('Update', () => {
  it('Mastodon Update{Person}: the cached actor is refreshed (sanitized) and its key evicted from the key cache', async () => {
    rig = await openRig();
    const update = remotes.fixture('mastodon-update-actor.json');
    await rig.receive(create(note(aliceId(), '0'))); // caches alice as she was
    expect(findActor(rig.core.db, aliceId())!.apActor.name).toBe('Alice :verified:');
    const keyId = `${aliceId()}#main-key`;
    rig.core.fed.keyCache.rememberOwner(keyId, aliceId());

    const row = await rig.receive(update);
    expect(row.error).toBeNull();
    const cached = findActor(rig.core.db, aliceId())!;
    expect(cached.apActor.name).toBe('Alice (she/her) :verified:');
    expect(String(cached.apActor.summary)).toContain('Now on a desktop client too.');
    expect(rig.core.fed.keyCache.confirmedOwner(keyId)).toBeUndefined();
    expect(rig.inboxRow(String(update.id))).toMatchObject({ apType: 'Update', activityObjectApId: aliceId() });
    expect(countRows(rig.core, 'actor')).toBe(1);
  });

  it("an Update of someone else's actor is dropped and changes nothing", async () => {
    rig = await openRig();
    const update = remotes.fixture('mastodon-update-actor.json');
    await rig.receive(create(note(aliceId(), '0')));
    const row = await rig.receive({ ...update, id: `${zoeId()}#updates/1`, actor: zoeId() });
    expect(row.error).toMatch(/by another actor/);
    expect(findActor(rig.core.db, aliceId())!.apActor.name).toBe('Alice :verified:');
  });

  it('an Update of a post replaces its content, sanitized, and bumps updated_at', async () => {
    rig = await openRig();
    const n = note(aliceId(), '1');
    await rig.receive(create(n));
    rig.advance(60_000);
    const row = await rig.receive({
      id: `${aliceId()}/statuses/1#updates/1`,
      type: 'Update',
      actor: aliceId(),
      object: { ...n, content: '<p>edited <script>alert(1)</script><b onclick="x()">bold</b></p>' },
    });
    expect(row.error).toBeNull();
    const stored = rig.inboxRow(String(n.id))!;
    expect(stored.apObject.content).toBe('<p>edited <b>bold</b></p>');
    expect(stored.updatedAt.getTime()).toBe(rig.now().getTime());
    expect(stored.createdAt.getTime()).toBe(rig.now().getTime() - 60_000);
  });

  it('an Update whose new version names no audience keeps the addressing stored with the post, and its visibility', async () => {
    rig = await openRig();
    const n = note(aliceId(), '1', { cc: [`${aliceId()}/followers`] });
    await rig.receive(create(n));
    const { to: _to, cc: _cc, ...unaddressed } = n;
    await rig.receive({ id: `${aliceId()}/statuses/1#updates/1`, type: 'Update', actor: aliceId(), to: ['https://tern.example'], object: { ...unaddressed, content: '<p>edited</p>' } });
    const stored = rig.inboxRow(String(n.id))!;
    expect(stored).toMatchObject({ visibility: 'PUBLIC', apObject: expect.objectContaining({ content: '<p>edited</p>', to: [PUBLIC], cc: [`${aliceId()}/followers`] }) });
  });

  it('an Update that changes a post’s text clears its link previews and asks for them again; one that keeps the text keeps them', async () => {
    rig = await openRig();
    const n = note(aliceId(), '3', { content: '<p><a href="https://pages.example/a">a</a></p>' });
    await rig.receive(create(n));
    const id = rig.inboxRow(String(n.id))!.id;
    const preview = [{ url: 'https://pages.example/a', title: 'A', image: null, description: null, site_name: null }];
    rig.core.db.update(inbox).set({ ogMeta: preview }).where(eq(inbox.id, id)).run();
    const asked: number[] = [];
    const unsubscribe = rig.core.onInboxRowsDone((results) => {
      for (const r of results) if (r.outcome === 'processed' && r.previewsFor !== undefined) asked.push(r.previewsFor);
    });
    try {
      // The same text, a content warning added: the previews stay.
      await rig.receive({ id: `${String(n.id)}#updates/1`, type: 'Update', actor: aliceId(), object: { ...n, summary: 'cw' } });
      expect(rig.inboxRow(String(n.id))!.ogMeta).toEqual(preview);
      expect(asked).toEqual([]);
      // Another link: cleared, and the post is named for the previews runner.
      await rig.receive({ id: `${String(n.id)}#updates/2`, type: 'Update', actor: aliceId(), object: { ...n, content: '<p><a href="https://pages.example/b">b</a></p>' } });
      expect(rig.inboxRow(String(n.id))!.ogMeta).toBeNull();
      expect(asked).toEqual([id]);
    } finally {
      unsubscribe();
    }
  });

  it("an Update of someone else's post is dropped; an Update of an unknown post is stored and ignored", async () => {
    rig = await openRig();
    const n = note(aliceId(), '1');
    await rig.receive(create(n));
    const forged = await rig.receive({ id: `${zoeId()}/updates/1`, type: 'Update', actor: zoeId(), object: { ...n, content: '<p>pwned</p>' } });
    expect(forged.error).toMatch(/not its author/);
    expect(rig.inboxRow(String(n.id))!.apObject.content).toBe('<p>first</p>');

    const unknown = await rig.receive({ id: `${aliceId()}/updates/2`, type: 'Update', actor: aliceId(), object: note(aliceId(), 'never-seen') });
    expect(unknown).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${aliceId()}/statuses/never-seen`)).toBeUndefined();
    expect(rig.inboxRow(`${aliceId()}/updates/2`)!.apType).toBe('Update');
  });
});

describe('Delete', () => {
  it("a Delete of someone else's post is dropped and the post stays", async () => {
    rig = await openRig();
    const n = note(aliceId(), '1');
    await rig.receive(create(n));
    const row = await rig.receive({ id: `${zoeId()}/deletes/1`, type: 'Delete', actor: zoeId(), object: n.id });
    expect(row.error).toMatch(/not its author/);
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(false);
  });

  it("GoToSocial's Delete without an id deletes its author's post (a synthetic id, a redelivery a duplicate); someone else's still does not", async () => {
    rig = await openRig();
    const n = note(zoeId(), '7');
    await rig.receive(create(n));
    const byOther = await rig.receive({ type: 'Delete', actor: aliceId(), object: n.id, to: [PUBLIC] });
    expect(byOther.error).toMatch(/not its author/);
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(false);
    const del = { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Delete', actor: zoeId(), object: n.id, to: [PUBLIC] };
    const row = await rig.receive(del);
    expect(row.error).toBeNull();
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(true);
    expect((await rig.receive(del)).error).toMatch(/duplicate/);
  });

  it('a Like without an id is still transient and ignored', async () => {
    rig = await openRig();
    const n = note(zoeId(), '8');
    await rig.receive(create(n));
    expect((await rig.receive({ type: 'Like', actor: aliceId(), object: n.id })).error).toMatch(/Like without an id/);
  });

  it("Undo of a Delete (Lemmy's restore): by the post's author it comes back; by someone else it stays deleted", async () => {
    rig = await openRig();
    await rig.follow(aliceId());
    const n = note(aliceId(), '9');
    await rig.receive(create(n));
    const del = { id: `${aliceId()}/deletes/9`, type: 'Delete', actor: aliceId(), object: n.id };
    await rig.receive(del);
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(true);
    const byOther = await rig.receive({ id: `${zoeId()}/undos/9`, type: 'Undo', actor: zoeId(), object: del });
    expect(byOther.error).toMatch(/who did not send it/);
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(true);
    const undo = await rig.receive({ id: `${aliceId()}/undos/9`, type: 'Undo', actor: aliceId(), object: del });
    expect(undo.error).toBeNull();
    expect(rig.inboxRow(String(n.id))!.isDeleted).toBe(false);
    expect(rig.inboxRow(String(del.id))!.isDeleted).toBe(true);
  });

  it('an Undo of a Delete relayed by someone else restores only what its server serves again', async () => {
    rig = await openRig();
    const mastodon = remotes.servers['mastodon.example'];
    const [kept, gone] = [note(aliceId(), '10'), note(aliceId(), '11')];
    for (const n of [kept, gone]) {
      await rig.receive(create(n));
      await rig.receive({ id: `${String(n.id)}#delete`, type: 'Delete', actor: aliceId(), object: n.id });
    }
    mastodon.put(String(kept.id), kept);
    mastodon.put(String(gone.id), 404);
    const relayed = (n: Json) => rig.receive({ id: `${String(n.id)}#undo`, type: 'Undo', actor: aliceId(), object: `${String(n.id)}#delete` }, { sentBy: zoeId() });
    expect((await relayed(kept)).error).toBeNull();
    expect(rig.inboxRow(String(kept.id))!.isDeleted).toBe(false);
    expect((await relayed(gone)).error).toMatch(/not trusted/);
    expect(rig.inboxRow(String(gone.id))!.isDeleted).toBe(true);
  });

  it('a deleted mention keeps its notification; the object is marked deleted', async () => {
    rig = await openRig();
    const mention = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    await rig.receive(mention);
    const noteId = String((mention.object as Json).id);
    await rig.receive({ id: `${noteId}#delete`, type: 'Delete', actor: mention.actor, object: { id: noteId, type: 'Tombstone' } });
    expect(rig.inboxRow(noteId)!.isDeleted).toBe(true);
    expect(rig.notificationsOf('MENTION')).toEqual([expect.objectContaining({ inboxObjectId: rig.inboxRow(noteId)!.id })]);
  });

  it('Mastodon Delete of an actor: follower and following rows go, their objects and Likes are deleted, counters recomputed', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    await rig.follow(aliceId());
    await rig.receive({ id: `${aliceId()}#follows/1`, type: 'Follow', actor: aliceId(), object: 'https://tern.example' });
    await rig.receive(remotes.fixture('mastodon-like.json'));
    await rig.receive(create(note(aliceId(), 'reply', { inReplyTo: post.apId })));
    expect(rig.outboxRow(post.id)).toMatchObject({ likesCount: 1, repliesCount: 1 });
    expect([countRows(rig.core, 'follower'), countRows(rig.core, 'following')]).toEqual([1, 1]);

    const row = await rig.receive(remotes.fixture('mastodon-delete-actor.json'));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect([countRows(rig.core, 'follower'), countRows(rig.core, 'following')]).toEqual([0, 0]);
    expect(rig.outboxRow(post.id)).toMatchObject({ likesCount: 0, repliesCount: 0 });
    expect(rig.inboxRow(`${aliceId()}/statuses/reply`)!.isDeleted).toBe(true);
    expect(rig.inboxRow(`${aliceId()}#delete`)!.isDeleted).toBe(false);
    // Our Follow of her no longer reads as "request sent".
    expect(rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).get()!.isDeleted).toBe(true);
    // The actor row stays: notifications still point at it.
    expect(rig.core.db.select().from(actor).where(eq(actor.apId, aliceId())).get()).toBeDefined();
  });

  it('a Delete of an actor we never stored is dropped without any fetch', async () => {
    rig = await openRig();
    // An actor on a port nothing listens on: a fetch would fail and be retried.
    const ghost = 'http://127.0.0.1:9/users/ghost';
    const row = await rig.receive({ id: `${ghost}#delete`, type: 'Delete', actor: ghost, object: ghost });
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, tries: 1 });
    expect(row.error).toMatch(/never stored/);
    expect(countRows(rig.core, 'actor')).toBe(0);
  });
});
