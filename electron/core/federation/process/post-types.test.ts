// Posts of every type real servers send, through the inbox processor into the stream's views:
// PeerTube's Video (attributedTo [Person, Group], url a list of Links, icon thumbnails),
// Funkwhale's Audio, Mobilizon's Event, an Image, and a type Tern does not know (a link card).
// The shapes follow those servers' own serializers and test assets (PeerTube's video-object
// JSON, Funkwhale's ChannelUploadSerializer, Mobilizon's event converter, BookWyrm's Review);
// the text is ours. Mentions and summaries: mentions-summaries.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, type Json } from '../ap';
import { homeStream } from '../actions/timeline';
import { ownActorView } from '../actions/views';
import type { PostView } from '../../ipc/author-contract';
import { startSoftwareServer, type SoftwareServer } from './software-servers';
import { openRig, type Rig } from './test-rig';

let pt: SoftwareServer; // PeerTube
let fw: SoftwareServer; // Funkwhale
let mz: SoftwareServer; // Mobilizon
let px: SoftwareServer; // a photo server
let bw: SoftwareServer; // BookWyrm
let rig: Rig;
beforeAll(async () => {
  const start = startSoftwareServer;
  [pt, fw, mz, px, bw] = await Promise.all([start(), start(), start(), start(), start()]);
});
afterAll(() => Promise.all([pt, fw, mz, px, bw].map((s) => s.server.close())));
afterEach(() => rig?.close());

const stream = (): PostView[] => homeStream(rig.core.db, ownActorView(rig.local, 'Author'), { limit: 50 }, rig.now()).items;
const create = (actor: string, object: Json): Json => ({ id: `${String(object.id)}/activity`, type: 'Create', actor, to: [PUBLIC], object });

/** A PeerTube video as its server serializes it (trimmed to what Tern reads, plus some noise). */
function peertubeVideo(id: string, account: string, channel: string, attributedTo?: unknown): Json {
  return {
    id,
    type: 'Video',
    name: 'Truing a bicycle wheel',
    duration: 'PT312S',
    uuid: '6f0f3c0e-0000-4000-8000-000000000001',
    category: { identifier: '15', name: 'Science & Technology' },
    views: 12,
    sensitive: false,
    commentsEnabled: true,
    published: '2025-01-10T10:00:00.000Z',
    mediaType: 'text/markdown',
    content: 'How to true a wheel with a spoke key.\n\nYou need a stand & patience,\nand no hurry.',
    icon: [
      { type: 'Image', url: `${pt.origin}/lazy-static/thumbnails/w.jpg`, mediaType: 'image/jpeg', width: 280, height: 157 },
      { type: 'Image', url: `${pt.origin}/lazy-static/previews/w.jpg`, mediaType: 'image/jpeg', width: 850, height: 480 },
    ],
    url: [
      { type: 'Link', mediaType: 'text/html', href: `${pt.origin}/w/wheel` },
      { type: 'Link', mediaType: 'application/x-mpegURL', href: `${pt.origin}/static/streaming-playlists/hls/w/master.m3u8`, tag: [{ type: 'Link', mediaType: 'video/mp4', href: `${pt.origin}/static/streaming-playlists/hls/w/w-720-fragmented.mp4`, height: 720 }] },
      { type: 'Link', mediaType: 'application/x-bittorrent', href: `${pt.origin}/lazy-static/torrents/w-720.torrent`, height: 720 },
    ],
    likes: `${id}/likes`,
    shares: `${id}/announces`,
    attributedTo: attributedTo ?? [
      { type: 'Person', id: account },
      { type: 'Group', id: channel },
    ],
    to: [PUBLIC],
    cc: [`${account}/followers`],
  };
}

describe('PeerTube', () => {
  it('a Video credited to [Person, Group], created by the account: stored under its id by the account, shown with title, description, file, thumbnail and page', async () => {
    rig = await openRig();
    const account = pt.actor('/accounts/maker', 'Person', 'maker');
    const channel = pt.actor('/video-channels/workshop', 'Group', 'workshop');
    await rig.follow(account);
    const id = `${pt.origin}/videos/watch/wheel`;
    const row = await rig.receive(create(account, peertubeVideo(id, account, channel)));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(id)).toMatchObject({ apType: 'Video', apActorId: account, isHiddenFromStream: false });

    const [video] = stream();
    expect(video).toMatchObject({
      apId: id,
      type: 'Video',
      title: 'Truing a bicycle wheel',
      summary: null,
      excerpt: null,
      card: false,
      sensitive: false,
      url: `${pt.origin}/w/wheel`,
      author: { apId: account },
    });
    // PeerTube's Markdown description: its paragraphs and line breaks kept.
    expect(video!.contentHtml).toBe('<p>How to true a wheel with a spoke key.</p><p>You need a stand &amp; patience,<br />and no hurry.</p>');
    expect(video!.attachments).toEqual([
      expect.objectContaining({ url: `${pt.origin}/static/streaming-playlists/hls/w/w-720-fragmented.mp4`, kind: 'video', mediaType: 'video/mp4' }),
      // The larger of the two thumbnails, through the media proxy.
      expect.objectContaining({ url: `${pt.origin}/lazy-static/previews/w.jpg`, kind: 'image', width: 850 }),
    ]);
  });

  it('the channel (a Group) boosts the Video: fetched by its id, credited to the account even when listed by ids channel-first; the boost shows', async () => {
    rig = await openRig();
    const account = pt.actor('/accounts/maker2', 'Person', 'maker2');
    const channel = pt.actor('/video-channels/workshop2', 'Group', 'workshop2');
    await rig.follow(channel);
    const id = `${pt.origin}/videos/watch/spokes`;
    pt.put(id, peertubeVideo(id, account, channel, [channel, account]));
    const row = await rig.receive({ id: `${channel}/announces/1`, type: 'Announce', actor: channel, to: [PUBLIC], cc: [`${channel}/followers`], object: id });
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(id)).toMatchObject({ apType: 'Video', apActorId: account, isHiddenFromStream: true });
    const [boosted] = stream();
    expect(boosted).toMatchObject({ apId: id, type: 'Video', author: { apId: account }, boostedBy: { actor: { apId: channel } } });
  });
});

describe('Funkwhale, Mobilizon, an Image', () => {
  it('a Funkwhale Audio: the stream file and the cover, the track page as the link', async () => {
    rig = await openRig();
    const channel = fw.actor('/federation/actors/night-radio', 'Person', 'night-radio');
    await rig.follow(channel);
    const id = `${fw.origin}/federation/music/uploads/9a1b`;
    await rig.receive(
      create(channel, {
        id,
        type: 'Audio',
        name: 'Episode 12: Owls',
        attributedTo: channel,
        published: '2025-01-10T09:00:00.000Z',
        to: PUBLIC,
        url: [
          { type: 'Link', mimeType: 'text/html', mediaType: 'text/html', href: `${fw.origin}/library/tracks/12` },
          { type: 'Link', mimeType: 'audio/ogg', mediaType: 'audio/ogg', href: `${fw.origin}/api/v1/listen/9a1b/?upload=9a1b` },
        ],
        content: '<p>Night birds of the valley.</p>',
        mediaType: 'text/html',
        duration: 1804,
        image: { type: 'Image', url: `${fw.origin}/media/covers/owls.jpg`, mediaType: 'image/jpeg' },
        tag: [{ type: 'Hashtag', name: '#nature' }],
      }),
    );
    const [audio] = stream();
    expect(audio).toMatchObject({ apId: id, type: 'Audio', title: 'Episode 12: Owls', url: `${fw.origin}/library/tracks/12`, card: false });
    expect(audio!.attachments.map((a) => [a.kind, a.url])).toEqual([
      ['audio', `${fw.origin}/api/v1/listen/9a1b/?upload=9a1b`],
      ['image', `${fw.origin}/media/covers/owls.jpg`],
    ]);
  });

  it("a Mobilizon group's Event, sent by the group: stored as the organiser's, with its banner's alt text", async () => {
    rig = await openRig();
    const group = mz.actor('/@hiking_club', 'Group', 'hiking_club');
    const organiser = mz.actor('/@ana', 'Person', 'ana');
    await rig.follow(group);
    const id = `${mz.origin}/events/7d3e`;
    await rig.receive(
      create(group, {
        id,
        type: 'Event',
        name: 'Ridge walk',
        content: '<p>Meet at the station at nine.</p>',
        mediaType: 'text/html',
        attributedTo: group,
        actor: organiser,
        startTime: '2025-02-01T09:00:00Z',
        endTime: '2025-02-01T16:00:00Z',
        timezone: 'Europe/Paris',
        location: { type: 'Place', name: 'Station square' },
        joinMode: 'free',
        'ical:status': 'CONFIRMED',
        attachment: [{ type: 'Document', mediaType: 'image/jpeg', name: 'A ridge above the clouds', url: `${mz.origin}/media/banner.jpg` }],
        url: id,
        published: '2025-01-09T08:00:00Z',
        to: [PUBLIC],
        cc: [`${group}/followers`],
      }),
    );
    expect(rig.inboxRow(id)).toMatchObject({ apType: 'Event', apActorId: organiser, isHiddenFromStream: false });
    const [event] = stream();
    expect(event).toMatchObject({ type: 'Event', title: 'Ridge walk', author: { apId: organiser }, url: id });
    expect(event!.attachments).toEqual([expect.objectContaining({ name: 'A ridge above the clouds', kind: 'image' })]);
  });

  it('an Image whose picture is in its url, with its page as the link', async () => {
    rig = await openRig();
    const photographer = px.actor('/users/lens', 'Person', 'lens');
    await rig.follow(photographer);
    const id = `${px.origin}/p/lens/311`;
    await rig.receive(
      create(photographer, {
        id,
        type: 'Image',
        name: 'Harbour at dusk',
        attributedTo: photographer,
        url: [
          { type: 'Link', mediaType: 'image/jpeg', href: `${px.origin}/storage/m/311.jpg`, width: 1200, height: 800 },
          { type: 'Link', mediaType: 'text/html', href: `${px.origin}/p/lens/311/view` },
        ],
        to: [PUBLIC],
      }),
    );
    const [image] = stream();
    expect(image).toMatchObject({ type: 'Image', title: 'Harbour at dusk', url: `${px.origin}/p/lens/311/view`, card: false });
    expect(image!.attachments).toEqual([expect.objectContaining({ url: `${px.origin}/storage/m/311.jpg`, kind: 'image', width: 1200 })]);
  });

  it("a WordPress Article: its featured image (`image`, also an attachment; `icon`, a crop of it) is not added again; alone, the `image` is shown, not the icon", async () => {
    rig = await openRig();
    const blogger = px.actor('/author/wren', 'Person', 'wren');
    await rig.follow(blogger);
    const upload = (q: string) => `${px.origin}/wp-content/uploads/splash.png?${q}`;
    const featured = { image: { type: 'Image', url: upload('fit=980'), mediaType: 'image/png' }, icon: { type: 'Image', url: upload('resize=150'), mediaType: 'image/png' } };
    const article = (n: number, attachment: Json[]): Json => ({
      id: `${px.origin}/?p=${n}`, type: 'Article', name: `Post ${n}`, attributedTo: blogger, content: '<p>Text.</p>', url: `${px.origin}/post-${n}/`, to: [PUBLIC], attachment, ...featured,
    });
    await rig.receive(create(blogger, article(1, [{ type: 'Image', url: upload('fit=980'), mediaType: 'image/png', name: 'Splash' }, { type: 'Image', url: `${px.origin}/b.jpg`, mediaType: 'image/jpeg' }])));
    await rig.receive(create(blogger, article(2, [])));
    const byId = new Map(stream().map((v) => [v.apId, v.attachments.map((a) => [a.url, a.name])]));
    expect(byId.get(`${px.origin}/?p=1`)).toEqual([[upload('fit=980'), 'Splash'], [`${px.origin}/b.jpg`, null]]);
    expect(byId.get(`${px.origin}/?p=2`)).toEqual([[upload('fit=980'), null]]);
  });
});

describe('language maps', () => {
  it('a Note with contentMap and no content: its first language shown, sanitized; a summaryMap warns', async () => {
    rig = await openRig();
    const writer = px.actor('/users/polyglot', 'Person', 'polyglot');
    await rig.follow(writer);
    const id = `${px.origin}/notes/1`;
    await rig.receive(
      create(writer, {
        id, type: 'Note', attributedTo: writer, to: [PUBLIC],
        contentMap: { de: '<p>Guten Morgen<script>alert(1)</script></p>', en: '<p>Good morning</p>' },
        summaryMap: { de: 'Kaffee' },
      }),
    );
    const stored = JSON.stringify(rig.inboxRow(id)!.apObject);
    expect(stored).not.toContain('<script');
    const [note] = stream();
    expect(note).toMatchObject({ apId: id, contentHtml: '<p>Guten Morgen</p>', summary: 'Kaffee', sensitive: true });
  });
});

describe('types Tern does not know', () => {
  it("BookWyrm's Review is stored and shown as a link card; so is one boosted by someone followed", async () => {
    rig = await openRig();
    const reader = bw.actor('/user/mouse', 'Person', 'mouse');
    await rig.follow(reader);
    const review = (n: number): Json => ({
      id: `${bw.origin}/user/mouse/review/${n}`,
      type: 'Review',
      name: `Review of "The Left Hand of Darkness" (${n} stars)`,
      summary: 'Cold, and warm.',
      content: '<p>A winter book.</p>',
      rating: n,
      inReplyToBook: `${bw.origin}/book/41`,
      attributedTo: reader,
      url: `${bw.origin}/user/mouse/review/${n}`,
      published: `2025-01-0${n}T10:00:00Z`,
      to: [PUBLIC],
    });
    const row = await rig.receive(create(reader, review(4)));
    expect(row).toMatchObject({ isProcessed: true, error: null });
    expect(rig.inboxRow(`${bw.origin}/user/mouse/review/4`)).toMatchObject({ apType: 'Review', isHiddenFromStream: false });

    bw.put(`/user/mouse/review/5`, review(5));
    await rig.receive({ id: `${reader}/boosts/1`, type: 'Announce', actor: reader, to: [PUBLIC], object: `${bw.origin}/user/mouse/review/5` });
    const cards = stream();
    expect(cards.map((p) => [p.type, p.card, p.title, p.excerpt, p.summary])).toEqual([
      ['Review', true, 'Review of "The Left Hand of Darkness" (5 stars)', 'Cold, and warm.', null],
      ['Review', true, 'Review of "The Left Hand of Darkness" (4 stars)', 'Cold, and warm.', null],
    ]);
    expect(cards[0]!.boostedBy?.actor.apId).toBe(reader);
  });

  it('a Create of something that is not a post is dropped with the reason on its row', async () => {
    rig = await openRig();
    const reader = bw.actor('/user/owl', 'Person', 'owl');
    const row = await rig.receive(create(reader, { id: `${bw.origin}/user/owl/shelf/1`, type: 'OrderedCollection', attributedTo: reader, totalItems: 0 }));
    expect(row).toMatchObject({ isProcessed: true, error: 'Create of a OrderedCollection: not a post' });
    expect(rig.inboxRow(`${bw.origin}/user/owl/shelf/1`)).toBeUndefined();
  });
});
