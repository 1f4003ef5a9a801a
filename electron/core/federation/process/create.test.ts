import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { inbox } from '../../../../db/schema';
import { PUBLIC, type Json } from '../ap';
import { countRows, openRig, startRemotes, type Remotes, type Rig } from './test-rig';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const OUR_POST = 'https://tern.example/o/5b8a1c2d3e4f';
const objectOf = (activity: Json) => activity.object as Json;

/** A Create of a Note by `actor`, with the given object fields. */
function createNote(actor: string, suffix: string, note: Json): Json {
  const id = `${actor}/statuses/${suffix}`;
  return {
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [PUBLIC],
    object: { id, type: 'Note', attributedTo: actor, content: '<p>hello</p>', to: [PUBLIC], published: '2025-01-10T11:00:00Z', ...note },
  };
}

describe('Create', () => {
  it('Mastodon: a public Note mentioning the author is stored with its Create, shown in the stream, and notifies MENTION', async () => {
    rig = await openRig();
    const create = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    const row = await rig.receive(create);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, error: null });

    const note = rig.inboxRow(String(objectOf(create).id))!;
    const createRow = rig.inboxRow(String(create.id))!;
    expect(note).toMatchObject({
      apType: 'Note',
      isHiddenFromStream: false,
      visibility: 'PUBLIC',
      server: new URL(String(create.id)).host,
      relatesToInboxObjectId: createRow.id,
      apContext: 'tag:mastodon.example,2024-11-05:objectId=48213377:objectType=Conversation',
    });
    expect(note.apPublishedAt.toISOString()).toBe('2024-11-05T14:23:07.000Z');
    expect(createRow).toMatchObject({ apType: 'Create', isHiddenFromStream: true, relatesToInboxObjectId: note.id, activityObjectApId: note.apId });
    expect(rig.notificationsOf('MENTION')).toEqual([expect.objectContaining({ inboxObjectId: note.id, actorId: note.actorId, isNew: true })]);
    // Mastodon's markup survives: mention and hashtag links keep their classes, gain rel.
    expect(note.apObject.content).toContain('class="u-url mention"');
    expect(note.apObject.content).toContain('rel="nofollow noopener noreferrer"');
  });

  it('is idempotent: the same Create twice is one object, one Create, one MENTION', async () => {
    rig = await openRig();
    const create = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    await rig.receive(create);
    const again = await rig.receive(create);
    expect(again.error).toBe('duplicate: already processed');
    expect(countRows(rig.core, 'inbox')).toBe(2);
    expect(rig.notificationsOf('MENTION')).toHaveLength(1);
  });

  it('Misskey: a quote by someone not followed is stored hidden, MFM kept as text, no notification', async () => {
    rig = await openRig();
    const create = remotes.fixture('misskey-create-note.json');
    const row = await rig.receive(create);
    expect(row.error).toBeNull();
    const note = rig.inboxRow(String(objectOf(create).id))!;
    expect(note).toMatchObject({ apType: 'Note', isHiddenFromStream: true, visibility: 'PUBLIC' });
    expect(note.apObject._misskey_quote).toBe(OUR_POST);
    expect(note.apObject._misskey_content).toContain('$[tada');
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });

  it('Misskey: the same note from a followed author shows in the stream', async () => {
    rig = await openRig();
    const create = remotes.fixture('misskey-create-note.json');
    await rig.follow(String(create.actor));
    await rig.receive(create);
    expect(rig.inboxRow(String(objectOf(create).id))!.isHiddenFromStream).toBe(false);
  });

  it('GoToSocial: a reply to our post (single values, +01:00 offset) recounts our replies_count and notifies MENTION', async () => {
    rig = await openRig();
    const post = rig.ourPost('5b8a1c2d3e4f');
    const create = remotes.fixture('gotosocial-create-note.json');
    const row = await rig.receive(create);
    expect(row.error).toBeNull();
    const reply = rig.inboxRow(String(objectOf(create).id))!;
    expect(reply).toMatchObject({ isHiddenFromStream: false, visibility: 'PUBLIC' });
    expect(reply.apPublishedAt.toISOString()).toBe('2024-11-05T16:44:03.000Z');
    expect(rig.outboxRow(post.id).repliesCount).toBe(1);
    expect(rig.notificationsOf('MENTION')).toHaveLength(1);

    // The same reply again changes nothing; deleting it brings the count back to 0.
    await rig.receive(create);
    expect(rig.outboxRow(post.id).repliesCount).toBe(1);
    await rig.receive({ id: `${String(create.actor)}/delete/1`, type: 'Delete', actor: create.actor, object: { id: reply.apId, type: 'Tombstone' } });
    expect(rig.outboxRow(post.id).repliesCount).toBe(0);
    expect(rig.inboxRow(reply.apId)!.isDeleted).toBe(true);
  });

  it('Pleroma (hostile): script, onerror and javascript: links never reach the database', async () => {
    rig = await openRig();
    const create = remotes.fixture('pleroma-create-note.json');
    expect(String(objectOf(create).content)).toContain('<script>');
    const row = await rig.receive(create);
    expect(row.error).toBeNull();
    const note = rig.inboxRow(String(objectOf(create).id))!;
    const createRow = rig.inboxRow(String(create.id))!;
    for (const stored of [JSON.stringify(note.apObject), JSON.stringify(createRow.apObject)]) {
      expect(stored).not.toMatch(/<script/i);
      expect(stored).not.toMatch(/onerror/i);
      expect(stored).not.toMatch(/javascript:/i);
      expect(stored).not.toMatch(/<img/i);
      expect(stored).not.toContain('data-user');
    }
    expect(note.apObject.content).toContain('check this out');
    // Pleroma's context is the conversation.
    expect(note.apContext).toBe(objectOf(create).context);
    expect(rig.notificationsOf('MENTION')).toHaveLength(1);
  });

  it('Mastodon Question: stored as a Question with its options, visible when its author is followed', async () => {
    rig = await openRig();
    const create = remotes.fixture('mastodon-question.json');
    await rig.follow(String(create.actor));
    const row = await rig.receive(create);
    expect(row.error).toBeNull();
    const question = rig.inboxRow(String(objectOf(create).id))!;
    expect(question).toMatchObject({ apType: 'Question', isHiddenFromStream: false });
    expect((question.apObject.oneOf as Json[]).map((o) => o.name)).toEqual(['A desktop app', 'The web UI', 'A phone app']);
    expect(question.apObject.votersCount).toBe(3);
  });

  it('a vote on our poll is stored transient and hidden, and is not counted as a reply', async () => {
    rig = await openRig();
    const poll = rig.ourPost('poll1', { type: 'Question', oneOf: [{ type: 'Note', name: 'Yes' }, { type: 'Note', name: 'No' }] });
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    const vote = createNote(alice, 'vote1', { name: 'Yes', content: undefined, inReplyTo: poll.apId, to: ['https://tern.example'] });
    const row = await rig.receive(vote);
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(String(objectOf(vote).id))).toMatchObject({ isTransient: true, isHiddenFromStream: true });
    expect(rig.outboxRow(poll.id).repliesCount).toBe(0);
    expect(countRows(rig.core, 'notifications')).toBe(0);
  });

  it('a reply from a followed author to a third party shows in the stream; from a stranger it does not', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    const zoe = String(remotes.fixture('actors/gotosocial-zoe.json').id);
    await rig.follow(alice);
    const third = 'https://elsewhere.example/notes/1';
    await rig.receive(createNote(alice, '1', { inReplyTo: third }));
    await rig.receive(createNote(zoe, '2', { inReplyTo: third }));
    expect(rig.inboxRow(`${alice}/statuses/1`)!.isHiddenFromStream).toBe(false);
    expect(rig.inboxRow(`${zoe}/statuses/2`)!.isHiddenFromStream).toBe(true);
  });

  it('an object that names no audience of its own is addressed as its Create: public to Public, followers-only to the followers', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    await rig.follow(alice);
    const followers = `${alice}/followers`;
    const bare = (suffix: string, addressing: Json): Json => ({
      id: `${alice}/statuses/${suffix}/activity`,
      type: 'Create',
      actor: alice,
      ...addressing,
      object: { id: `${alice}/statuses/${suffix}`, type: 'Note', attributedTo: alice, content: '<p>hello</p>' },
    });
    await rig.receive(bare('open', { to: [PUBLIC], cc: [followers] }));
    await rig.receive(bare('circle', { to: followers }));
    const open = rig.inboxRow(`${alice}/statuses/open`)!;
    expect(open).toMatchObject({ visibility: 'PUBLIC', isHiddenFromStream: false });
    expect(open.apObject).toMatchObject({ to: [PUBLIC], cc: [followers] });
    expect(rig.inboxRow(`${alice}/statuses/circle`)!.visibility).toBe('FOLLOWERS_ONLY');
    const stream = rig.core.services.author.stream({ limit: 10 }).items;
    expect(stream.find((p) => p.apId === open.apId)?.visibility).toBe('PUBLIC');
  });

  it('an object addressed on its own keeps its addressing, whatever its Create says', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    await rig.receive({ ...createNote(alice, 'dm', { to: ['https://tern.example'] }), cc: [PUBLIC] });
    expect(rig.inboxRow(`${alice}/statuses/dm`)).toMatchObject({ visibility: 'DIRECT', apObject: expect.objectContaining({ to: ['https://tern.example'] }) });
  });

  it('a reply that arrives before its parent is counted when the parent arrives', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    await rig.receive(createNote(alice, 'child', { inReplyTo: `${alice}/statuses/parent` }));
    await rig.receive(createNote(alice, 'parent', {}));
    expect(rig.inboxRow(`${alice}/statuses/parent`)!.repliesCount).toBe(1);
  });

  it('a Note attributed to someone other than the actor is dropped, not stored and not retried', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    const zoe = String(remotes.fixture('actors/gotosocial-zoe.json').id);
    const forged = createNote(alice, 'forged', { attributedTo: zoe });
    const row = await rig.receive(forged);
    expect(row).toMatchObject({ isProcessed: true, isErrored: false, tries: 1, nextTry: null });
    expect(row.error).toMatch(/attributedTo .* does not match/);
    expect(countRows(rig.core, 'inbox')).toBe(0);
    rig.advance(48 * 3600_000);
    expect(await rig.core.loops.inbox.drain()).toEqual({ processed: 0, dropped: 0, retried: 0, errored: 0 });
  });

  it('Zap/Hubzilla: an object crediting nobody is stored as its actor\'s when its id is on the actor\'s server; elsewhere it is dropped', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    await rig.follow(alice);
    const create = createNote(alice, 'zap', { attributedTo: undefined });
    expect((await rig.receive(create)).error).toBeNull();
    expect(rig.inboxRow(`${alice}/statuses/zap`)).toMatchObject({ apActorId: alice, isHiddenFromStream: false });
    const elsewhere = createNote(alice, 'zap2', { attributedTo: undefined, id: 'https://victim.example/item/1' });
    expect((await rig.receive(elsewhere)).error).toMatch(/attributedTo \(none\) does not match/);
    expect(rig.inboxRow('https://victim.example/item/1')).toBeUndefined();
  });

  it('a Note whose id is on another server than its actor is dropped', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    const create = createNote(alice, 'x', {});
    (create.object as Json).id = 'https://victim.example/notes/1';
    const row = await rig.receive(create);
    expect(row.error).toMatch(/not on the actor's server/);
    expect(rig.inboxRow('https://victim.example/notes/1')).toBeUndefined();
  });

  it('a Delete that overtakes its Create leaves the object stored as deleted, without a MENTION', async () => {
    rig = await openRig();
    const create = remotes.fixture('mastodon-create-note-mention-hashtag.json');
    const noteId = String(objectOf(create).id);
    await rig.receive({ id: `${noteId}#delete`, type: 'Delete', actor: create.actor, object: noteId });
    await rig.receive(create);
    expect(rig.inboxRow(noteId)!.isDeleted).toBe(true);
    expect(rig.notificationsOf('MENTION')).toHaveLength(0);
  });

  it('stores the object of a forwarded Create from its origin, not the copy the forwarder sent', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    const zoe = String(remotes.fixture('actors/gotosocial-zoe.json').id);
    const create = createNote(alice, 'fwd', { content: '<p>forged by the forwarder</p>' });
    remotes.servers['mastodon.example'].put(`${alice}/statuses/fwd`, { ...(create.object as Json), content: '<p>the real text</p>' });
    const row = await rig.receive(create, { sentBy: zoe });
    expect(row.error).toBeNull();
    expect(rig.inboxRow(`${alice}/statuses/fwd`)!.apObject.content).toBe('<p>the real text</p>');
  });

  it('the stream flag and the object row are the only visible rows: the Create stays hidden', async () => {
    rig = await openRig();
    const alice = String(remotes.fixture('actors/mastodon-alice.json').id);
    await rig.follow(alice);
    await rig.receive(createNote(alice, 's1', {}));
    const visible = rig.core.db.select().from(inbox).where(eq(inbox.isHiddenFromStream, false)).all();
    expect(visible.map((r) => r.apType)).toEqual(['Note']);
  });
});
