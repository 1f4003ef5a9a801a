// Following a Lemmy community (a Group): our Follow, its Accept in Lemmy's shape, then the posts
// it announces — Announce{Create{Page}} — stored once under the Page's own id and shown in the
// stream as the community's boosts; the inner activities handled as their own actors' (an edit
// refetched from the post's server, a Like not believed without its actor's signature, a Delete
// believed once the post's server says it is gone, the group's own Update believed).
// Shapes after Lemmy's crates/apub/assets/lemmy (announce_create_page.json, objects/page.json,
// following/accept.json); the text is ours.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { actor, following, inbox, outbox } from '../../../../db/schema';
import { PUBLIC, type Json } from '../ap';
import { homeStream } from '../actions/timeline';
import { ownActorView } from '../actions/views';
import { startSoftwareServer, type SoftwareServer } from './software-servers';
import { openRig, type Rig } from './test-rig';

let lm: SoftwareServer; // the community's instance
let far: SoftwareServer; // another Lemmy instance, where a member lives
let rig: Rig;
beforeAll(async () => {
  [lm, far] = await Promise.all([startSoftwareServer(), startSoftwareServer()]);
});
afterAll(() => Promise.all([lm.server.close(), far.server.close()]));
afterEach(() => rig?.close());

const stream = () => homeStream(rig.core.db, ownActorView(rig.local, 'Author'), { limit: 50 }, rig.now()).items;
const rowsOf = (apType: string) => rig.core.db.select().from(inbox).where(eq(inbox.apType, apType)).all();
let n = 0;

function page(id: string, author: string, community: string, extra: Json = {}): Json {
  return {
    id,
    type: 'Page',
    attributedTo: author,
    to: [community, PUBLIC],
    audience: community,
    name: 'Which chain lube for winter?',
    content: '<p>Salted roads eat my chain every year.</p>\n',
    mediaType: 'text/html',
    source: { content: 'Salted roads eat my chain every year.', mediaType: 'text/markdown' },
    attachment: [{ type: 'Link', href: `${far.origin}/pictrs/image/chain.png` }],
    image: { type: 'Image', url: `${far.origin}/pictrs/image/chain.png` },
    sensitive: false,
    published: '2025-01-10T11:30:00Z',
    ...extra,
  };
}

/** The community announcing an activity, as Lemmy does. */
const announce = (community: string, inner: Json): Json => ({
  actor: community,
  to: [PUBLIC],
  object: inner,
  cc: [`${community}/followers`],
  type: 'Announce',
  id: `${lm.origin}/activities/announce/${++n}`,
});

const activity = (type: string, actorId: string, object: unknown, community: string): Json => ({
  actor: actorId,
  to: [PUBLIC],
  object,
  cc: [community],
  type,
  id: `${far.origin}/activities/${type.toLowerCase()}/${++n}`,
});

async function followCommunity(): Promise<{ community: string; member: string }> {
  const community = lm.actor(`/c/bikes${++n}`, 'Group', `bikes${n}`, { name: 'Bikes' });
  const member = far.actor(`/u/rider${n}`, 'Person', `rider${n}`);
  const { state } = await rig.core.services.author.follow(community);
  expect(state).toBe('requested');
  const ours = rig.core.db.select().from(outbox).where(eq(outbox.apType, 'Follow')).get()!;
  const accept = {
    actor: community,
    to: [rig.local.id],
    object: { actor: rig.local.id, to: [community], object: community, type: 'Follow', id: ours.apId },
    type: 'Accept',
    id: `${lm.origin}/activities/accept/${++n}`,
  };
  expect((await rig.receive(accept)).error).toBeNull();
  expect(rig.core.db.select().from(following).all().map((f) => f.apActorId)).toEqual([community]);
  return { community, member };
}

describe('a Lemmy community followed', () => {
  it("Announce{Create{Page}}: the Page is stored once, under its own id, from its own server, and shows as the community's boost", async () => {
    rig = await openRig();
    const { community, member } = await followCommunity();
    const pageId = `${far.origin}/post/${++n}`;
    far.put(pageId, page(pageId, member, community));
    // The embedded copy is the community's word for it; the stored one is the post's server's.
    const create = activity('Create', member, page(pageId, member, community, { content: '<p>forged</p>' }), community);
    const row = await rig.receive(announce(community, create));
    expect(row).toMatchObject({ isProcessed: true, error: null });

    expect(rowsOf('Page')).toHaveLength(1);
    expect(rig.inboxRow(pageId)).toMatchObject({ apType: 'Page', apActorId: member });
    expect(rig.inboxRow(pageId)!.apObject.content).toContain('Salted roads');
    expect(rig.inboxRow(String(create.id))).toMatchObject({ apType: 'Create', relatesToInboxObjectId: rig.inboxRow(pageId)!.id });

    const [post] = stream();
    expect(post).toMatchObject({ apId: pageId, type: 'Page', title: 'Which chain lube for winter?', author: { apId: member }, boostedBy: { actor: { apId: community } } });
    // Lemmy names its image twice (an attachment Link and `image`): one picture.
    expect(post!.attachments).toEqual([expect.objectContaining({ url: `${far.origin}/pictrs/image/chain.png`, kind: 'image' })]);

    // Looking the Page up finds the same row; the member's edit, relayed by the community, is
    // refetched from the Page's server into that row.
    const found = await rig.core.services.author.lookup(pageId);
    expect(found).toMatchObject({ kind: 'post', post: { id: rig.inboxRow(pageId)!.id } });
    far.put(pageId, page(pageId, member, community, { name: 'Which chain lube for winter? (solved)', updated: '2025-01-10T12:30:00Z' }));
    const update = activity('Update', member, page(pageId, member, community, { name: 'forged title' }), community);
    expect((await rig.receive(announce(community, update))).error).toBeNull();
    expect(rowsOf('Page')).toHaveLength(1);
    expect(rig.inboxRow(pageId)!.apObject.name).toBe('Which chain lube for winter? (solved)');

    // A comment the community relays is stored (its thread shows it), not put in the stream.
    const commentId = `${far.origin}/comment/${++n}`;
    const comment = { id: commentId, type: 'Note', attributedTo: member, to: [PUBLIC], cc: [community], inReplyTo: pageId, content: '<p>Wax, not oil.</p>', mediaType: 'text/html', published: '2025-01-10T11:45:00Z' };
    far.put(commentId, comment);
    const relayed = announce(community, activity('Create', member, comment, community));
    expect((await rig.receive(relayed)).error).toBeNull();
    expect(rig.inboxRow(commentId)).toMatchObject({ apType: 'Note', isDeleted: false });
    expect(rig.inboxRow(String(relayed.id))!.isHiddenFromStream).toBe(true);
    expect(stream().map((p) => p.apId)).toEqual([pageId]);
    const thread = await rig.core.services.author.thread(pageId);
    expect(thread.replies.map((p) => p.apId)).toEqual([commentId]);
  });

  it('an Announce naming a Create by its id: the Page inside is stored under its own id, not the Create\'s', async () => {
    rig = await openRig();
    const { community } = await followCommunity();
    const author = lm.actor(`/u/local${++n}`, 'Person', `local${n}`);
    const pageId = `${lm.origin}/post/${++n}`;
    const createId = `${lm.origin}/activities/create/${++n}`;
    lm.put(createId, { id: createId, type: 'Create', actor: author, object: page(pageId, author, community) });
    expect((await rig.receive(announce(community, createId as unknown as Json))).error).toBeNull();
    expect(rig.inboxRow(createId)).toBeUndefined();
    expect(rig.inboxRow(pageId)).toMatchObject({ apType: 'Page', apActorId: author });
    expect(stream().map((p) => p.apId)).toEqual([pageId]);
  });

  it("inner activities are their own actors': a relayed Like is not believed, a relayed Delete only once the Page is gone (then by anyone), the group's own Update is", async () => {
    rig = await openRig();
    const { community, member } = await followCommunity();
    const ourPost = rig.ourPost('9c1d2e3f4a5b');
    const like = await rig.receive(announce(community, activity('Like', member, ourPost.apId, community)));
    expect(like.error).toMatch(/^Announce of Like .*: Like from .* forwarded by .*not trusted/);
    expect(rig.outboxRow(ourPost.id).likesCount).toBe(0);

    const pageId = `${far.origin}/post/${++n}`;
    far.put(pageId, page(pageId, member, community));
    await rig.receive(announce(community, activity('Create', member, page(pageId, member, community), community)));
    const early = await rig.receive(announce(community, activity('Delete', member, pageId, community)));
    expect(early.error).toMatch(/its server still serves it/);
    expect(rig.inboxRow(pageId)!.isDeleted).toBe(false);
    far.put(pageId, 410);
    // Gone at its server, it is gone whoever relays the word: here a moderator's removal.
    const moderator = lm.actor(`/u/mod${++n}`, 'Person', `mod${n}`);
    expect((await rig.receive(announce(community, activity('Delete', moderator, pageId, community)))).error).toBeNull();
    expect(rig.inboxRow(pageId)!.isDeleted).toBe(true);
    expect(stream().map((p) => p.apId)).toEqual([ourPost.apId]);

    const renamed = { id: community, type: 'Group', preferredUsername: 'bikes', name: 'Bicycles', inbox: `${community}/inbox` };
    const update = { actor: community, to: [PUBLIC], object: renamed, type: 'Update', id: `${lm.origin}/activities/update/${++n}` };
    expect((await rig.receive(announce(community, update))).error).toBeNull();
    expect(rig.core.db.select().from(actor).where(eq(actor.apId, community)).get()!.apActor.name).toBe('Bicycles');
  });
});
