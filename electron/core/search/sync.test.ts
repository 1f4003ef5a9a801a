// The index follows every write path: the author's posts through the author service (create,
// edit, delete), received posts through the inbox processor (Create, Update, Delete from a
// loopback Mastodon), people as they are fetched, webmentions as rows change. Searched through
// the core's own search service, on a real core and SQLite.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, type Json } from '../federation/ap';
import { openRig, startRemotes, type Remotes, type Rig } from '../federation/process/test-rig';
import type { SearchResults } from '../ipc/search-contract';

let remotes: Remotes;
let rig: Rig;
beforeAll(async () => {
  remotes = await startRemotes();
});
afterAll(() => remotes.close());
afterEach(() => rig?.close());

const search = (text: string, more: { sort?: 'relevance' | 'date'; kind?: 'all' | 'posts' | 'people' | 'webmentions' } = {}): SearchResults =>
  rig.core.services.search.query({ text, sort: more.sort ?? 'relevance', kind: more.kind ?? 'all', limit: 20 });
const contents = (r: SearchResults) => r.posts.map((h) => h.post.contentHtml);

function note(actor: string, suffix: string, fields: Json): Json {
  const id = `${actor}/statuses/${suffix}`;
  return {
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [PUBLIC],
    object: { id, type: 'Note', attributedTo: actor, content: '<p>hello</p>', to: [PUBLIC], published: '2025-01-10T11:00:00Z', ...fields },
  };
}

describe('the author’s posts (author service)', () => {
  it('a new post is found at once; an edit replaces its words; a delete removes it', async () => {
    rig = await openRig();
    const author = rig.core.services.author;
    const created = await author.createPost({ content: 'Watching **kingfishers** by the canal', visibility: 'PUBLIC' });
    const found = search('kingfishers');
    expect(found.posts).toHaveLength(1);
    expect(found.posts[0]!.post).toMatchObject({ origin: 'outbox', id: created.id, apId: created.apId });
    expect(found.posts[0]!.snippet).toBe('Watching \u0002kingfishers\u0003 by the canal');

    await author.editPost({ apId: created.apId, content: 'Watching herons by the canal' });
    expect(search('kingfishers').posts).toEqual([]);
    expect(contents(search('herons'))).toEqual([expect.stringContaining('herons')]);

    await author.deletePost(created.apId);
    expect(search('herons').posts).toEqual([]);
    expect(search('canal').posts).toEqual([]);
  });

  it('is:mine and from:me find the author’s posts and not received ones', async () => {
    rig = await openRig();
    await rig.core.services.author.createPost({ content: 'Otters at dawn', visibility: 'UNLISTED' });
    await rig.receive(note(String(remotes.fixture('mastodon-create-note-mention-hashtag.json').actor), '1', { content: '<p>Otters at noon</p>' }));
    expect(contents(search('otters is:mine'))).toEqual([expect.stringContaining('dawn')]);
    expect(contents(search('otters from:me'))).toEqual([expect.stringContaining('dawn')]);
    expect(contents(search('otters -is:mine'))).toEqual([expect.stringContaining('noon')]);
    expect(contents(search('otters visibility:unlisted'))).toEqual([expect.stringContaining('dawn')]);
    expect(search('otters').posts).toHaveLength(2);
  });
});

describe('received posts (inbox processor)', () => {
  it('a Create is found by its words and from:@user@host; an Update re-indexes it; a Delete removes it', async () => {
    rig = await openRig();
    const actor = String(remotes.fixture('mastodon-create-note-mention-hashtag.json').actor);
    const create = note(actor, '42', { content: '<p>The <strong>lighthouse</strong> keeper waves</p>' });
    await rig.receive(create);
    const handle = rig.core.sqlite.prepare('SELECT handle FROM actor WHERE ap_id = ?').pluck().get(actor) as string;
    expect(handle).toMatch(/^@alice@/);

    const hit = search(`lighthouse from:${handle}`).posts;
    expect(hit).toHaveLength(1);
    expect(hit[0]!.post).toMatchObject({ origin: 'inbox', apId: `${actor}/statuses/42`, author: { handle } });
    expect(hit[0]!.snippet).toBe('The \u0002lighthouse\u0003 keeper waves');
    expect(search('lighthouse from:@someone@else.example').posts).toEqual([]);
    expect(search('lighthouse -from:' + handle).posts).toEqual([]);

    const object = create.object as Json;
    await rig.receive({ id: `${actor}/statuses/42#update`, type: 'Update', actor, to: [PUBLIC], object: { ...object, content: '<p>The harbour keeper waves</p>', updated: '2025-01-10T11:30:00Z' } });
    expect(search('lighthouse').posts).toEqual([]);
    expect(search('harbour').posts).toHaveLength(1);

    await rig.receive({ id: `${actor}/statuses/42#delete`, type: 'Delete', actor, to: [PUBLIC], object: { id: object.id, type: 'Tombstone' } });
    expect(search('harbour').posts).toEqual([]);
  });

  it('has:media, has:poll, is:reply, visibility and dates narrow the posts', async () => {
    rig = await openRig();
    const actor = String(remotes.fixture('mastodon-create-note-mention-hashtag.json').actor);
    await rig.receive(note(actor, 'a', { content: '<p>puffin photo</p>', attachment: [{ type: 'Document', mediaType: 'image/png', url: 'https://mastodon.example/p.png', name: 'A puffin on a rock' }], published: '2024-03-01T10:00:00Z' }));
    await rig.receive(note(actor, 'b', { content: '<p>puffin reply</p>', inReplyTo: 'https://mastodon.example/statuses/1', published: '2024-06-01T10:00:00Z' }));
    await rig.receive(note(actor, 'c', { type: 'Question', content: '<p>puffin poll</p>', oneOf: [{ type: 'Note', name: 'yes', replies: { type: 'Collection', totalItems: 0 } }, { type: 'Note', name: 'no', replies: { type: 'Collection', totalItems: 0 } }], endTime: '2030-01-01T00:00:00Z', published: '2024-09-01T10:00:00Z' }));
    await rig.receive(note(actor, 'd', { content: '<p>puffin whisper</p>', to: [rig.local.id], cc: [], published: '2024-12-01T10:00:00Z' }));

    expect(contents(search('puffin has:media'))).toEqual([expect.stringContaining('photo')]);
    // The image description is searchable too.
    expect(contents(search('rock'))).toEqual([expect.stringContaining('photo')]);
    expect(contents(search('puffin has:poll'))).toEqual([expect.stringContaining('poll')]);
    expect(contents(search('puffin is:reply'))).toEqual([expect.stringContaining('reply')]);
    expect(contents(search('puffin visibility:direct'))).toEqual([expect.stringContaining('whisper')]);
    expect(contents(search('puffin after:2024-05-31 before:2024-09-02', { sort: 'date' }))).toEqual([
      expect.stringContaining('poll'),
      expect.stringContaining('reply'),
    ]);
    expect(contents(search('puffin during:2024-03-01'))).toEqual([expect.stringContaining('photo')]);
    // Filters alone, no words: newest first.
    expect(search('has:media', { sort: 'date' }).posts).toHaveLength(1);
    expect(contents(search('puffin', { sort: 'date' })).map((c) => c.match(/puffin (\w+)/)![1])).toEqual(['whisper', 'poll', 'reply', 'photo']);
    expect(contents(search('puffin -is:reply -has:poll -has:media -visibility:direct'))).toEqual([]);
    expect(contents(search('"puffin photo"'))).toEqual([expect.stringContaining('photo')]);
    expect(contents(search('"photo puffin"'))).toEqual([]);
    expect(contents(search('puffin -photo -poll -reply'))).toEqual([expect.stringContaining('whisper')]);
    expect(contents(search('puff*'))).toHaveLength(4);
    // Each hit's snippet is its own post's (by relevance and by date).
    for (const sort of ['relevance', 'date'] as const) {
      for (const hit of search('puffin', { sort }).posts) expect(hit.snippet.replaceAll('\u0002', '').replaceAll('\u0003', '').startsWith(hit.post.contentHtml.replace(/<[^>]+>/g, '')), sort).toBe(true);
    }
  });
});

describe('people and webmentions', () => {
  it('a fetched actor is found by name, handle and bio, as an ActorView', async () => {
    rig = await openRig();
    const actor = String(remotes.fixture('mastodon-create-note-mention-hashtag.json').actor);
    await rig.follow(actor);
    for (const text of ['Alice', 'ali', 'trains', 'alice@']) {
      const people = search(text, { kind: 'people' }).people;
      expect(people.map((p) => p.actor.apId), text).toEqual([actor]);
    }
    expect(search('trains', { kind: 'people' }).people[0]!.snippet).toContain('\u0002trains\u0003');
    // The bio's HTML is text in the index: "href" and "span" are not words of it.
    expect(search('span', { kind: 'people' }).people).toEqual([]);
    rig.core.sqlite.prepare("UPDATE actor SET ap_actor = json_set(ap_actor, '$.summary', '<p>Boats now</p>') WHERE ap_id = ?").run(actor);
    expect(search('trains', { kind: 'people' }).people).toEqual([]);
    expect(search('boats', { kind: 'people' }).people).toHaveLength(1);
  });

  it('a received webmention is found by its text and author; deleted, it is not', async () => {
    rig = await openRig();
    const post = rig.ourPost('p1');
    const microformats = {
      items: [{ type: ['h-entry'], properties: { content: [{ html: '<p>Lovely <em>essay</em> on tides</p>', value: 'Lovely essay on tides' }], author: [{ type: ['h-card'], properties: { name: ['Bea Blogger'] } }], 'in-reply-to': [post.apId] } }],
    };
    rig.core.sqlite
      .prepare('INSERT INTO webmention (created_at, is_deleted, source, source_microformats, target, outbox_object_id) VALUES (?, 0, ?, ?, ?, ?)')
      .run('2025-01-10T12:00:00.000Z', 'https://bea.example/tides', JSON.stringify(microformats), post.apId, post.id);
    const hits = search('tides', { kind: 'webmentions' }).webmentions;
    expect(hits).toEqual([expect.objectContaining({ source: 'https://bea.example/tides', kind: 'reply', authorName: 'Bea Blogger', post: { apId: post.apId } })]);
    expect(hits[0]!.snippet).toContain('\u0002tides\u0003');
    expect(search('bea', { kind: 'webmentions' }).webmentions).toHaveLength(1);
    rig.core.sqlite.prepare('UPDATE webmention SET is_deleted = 1').run();
    expect(search('tides', { kind: 'webmentions' }).webmentions).toEqual([]);
  });
});

describe('snippets', () => {
  it('are text: a post containing <script> yields the characters, never markup, and only the markers around matches', async () => {
    rig = await openRig();
    const actor = String(remotes.fixture('mastodon-create-note-mention-hashtag.json').actor);
    await rig.receive(note(actor, 's', { content: '<p>&lt;script&gt;alert(1)&lt;/script&gt; <a href="https://x.example/"><b>curlew</b></a> <img src=x onerror=alert(2)></p>' }));
    const [hit] = search('curlew').posts;
    expect(hit!.snippet).toBe('<script>alert(1)</script> \u0002curlew\u0003');
    expect(hit!.snippet).not.toMatch(/<(a|b|p|img)\b/);
  });
});
