// Views are built on the main thread for every page shown, from JSON a remote server wrote: a
// post whose lists fill its whole 1 MiB body (thousands of attachments, hashtags or links) is
// shown with the first MAX_LIST_ENTRIES of each, so one such post cannot hold the window (reading
// all 5,000 attachments cost 80 ms a post, 1.6 s for a page of twenty).
import { expect, it } from 'vitest';
import { MAX_LIST_ENTRIES } from '../objects';
import { contentHtmlOf, inboxPostView } from './views';
import { unparsedText } from '../sanitize';
import { sanitizeStoredHtml } from '../sanitize-stored';
import { postDocument } from '../../search/text';
import { fakeInboxRow } from '../test-inbox-row';

const row = (apObject: Record<string, unknown>, apId?: string) => fakeInboxRow(apObject, apId === undefined ? {} : { apId });

it('a post with 5,000 attachments and 10,000 hashtags shows the first of each', () => {
  const view = inboxPostView(
    row({
      type: 'Note',
      content: 'hi',
      attachment: Array.from({ length: 5_000 }, (_, i) => ({ type: 'Document', mediaType: 'image/png', url: `https://x.example/${i}.png`, name: `<b>${i}</b>` })),
      tag: Array.from({ length: 10_000 }, (_, i) => ({ type: 'Hashtag', name: `#t${i}`, href: `https://x.example/tags/t${i}` })),
    }),
    undefined,
  );
  expect(view.attachments).toHaveLength(MAX_LIST_ENTRIES);
  expect(view.attachments[0]).toMatchObject({ url: 'https://x.example/0.png', name: '0' });
  expect(view.tags).toHaveLength(MAX_LIST_ENTRIES);
  expect(view.tags[0]).toEqual({ type: 'Hashtag', name: '#t0', href: 'https://x.example/tags/t0' });
});

it('a Video whose url lists 40,000 links is read in its first links: its file and its page are among them, later ones are not looked at', () => {
  const links = Array.from({ length: 40_000 }, (_, i) => ({ type: 'Link', mediaType: 'video/mp4', href: `https://x.example/${i}.mp4` }));
  links.splice(1, 0, { type: 'Link', mediaType: 'text/html', href: 'https://x.example/w/1' });
  // A page link past the bound is not found: the id is the page instead.
  const late = [...links.slice(0, 1), ...links.slice(2), { type: 'Link', mediaType: 'text/html', href: 'https://x.example/w/late' }];
  const video = inboxPostView(row({ type: 'Video', name: 'A video', content: 'x', url: links }), undefined);
  expect(video.url).toBe('https://x.example/w/1');
  expect(video.attachments.map((a) => a.url)).toEqual(['https://x.example/0.mp4']);
  expect(inboxPostView(row({ type: 'Video', name: 'A video', content: 'x', url: late }), undefined).url).toBe('https://x.example/n/1');
});

it('the search index reads the same first attachments (their descriptions) of such a post', () => {
  const doc = postDocument({
    src: 'inbox',
    apType: 'Note',
    apObject: JSON.stringify({ type: 'Note', content: 'hi', attachment: Array.from({ length: 5_000 }, (_, i) => ({ type: 'Document', url: 'https://x.example/a.png', name: `d${i}` })) }),
    isDeleted: 0,
    visibility: 'PUBLIC',
    publishedAt: '2024-01-01T00:00:00Z',
    actorId: 1,
  });
  expect(doc!.body).toContain(`d${MAX_LIST_ENTRIES - 1}`);
  expect(doc!.body).not.toContain(`d${MAX_LIST_ENTRIES} `);
  expect(doc!.body).not.toContain('d4999');
});

it('a link card is never linked to anything but http(s): a row of an imported database may hold any id', () => {
  const card = inboxPostView(row({ type: 'Widget', name: 'A widget', url: 'javascript:alert(1)' }, 'javascript:alert(1)'), undefined);
  expect(card.card).toBe(true);
  expect(card.url).toBe('');
  expect(inboxPostView(row({ type: 'Widget', name: 'A widget' }, 'https://x.example/w/1'), undefined).url).toBe('https://x.example/w/1');
});

// Shapes of Mobilizon's Event (Lemmy's crates/apub/assets/mobilizon/objects/event.json and
// Mobilizon's own test fixture; test/fixtures/real/mobilizon-event*.json), with text of our own.
it('an Event says when and where: the time as sent, the place from its name and address', () => {
  const view = inboxPostView(
    row({
      type: 'Event',
      name: 'Night walk',
      startTime: '2022-12-11T19:00:00+00:00',
      endTime: '2022-12-11T21:00:00+00:00',
      isOnline: false,
      location: {
        type: 'Place',
        name: 'The old <b>mill</b>',
        address: { type: 'PostalAddress', streetAddress: ' ', postalCode: null, addressLocality: 'Exeter', addressRegion: 'England', addressCountry: 'United Kingdom' },
      },
    }),
    undefined,
  );
  expect(view.event).toEqual({ startTime: '2022-12-11T19:00:00+00:00', endTime: '2022-12-11T21:00:00+00:00', place: 'The old mill, Exeter, England, United Kingdom', online: false });
  // Online, a place as a plain string, no end.
  expect(inboxPostView(row({ type: 'Event', startTime: '2019-12-18T13:00:00Z', isOnline: true, location: 'Town hall' }), undefined).event).toEqual({
    startTime: '2019-12-18T13:00:00Z',
    endTime: null,
    place: 'Town hall',
    online: true,
  });
  // No usable start: no event line (the post is still shown); a time that is no time is dropped.
  expect(inboxPostView(row({ type: 'Event', startTime: 'soon', location: { name: 'x' } }), undefined).event).toBeNull();
  expect(inboxPostView(row({ type: 'Event', startTime: '2019-12-18T13:00:00Z', endTime: 'later', location: [{ type: 'Place' }, { type: 'Place', name: 'Second' }] }), undefined).event).toEqual({
    startTime: '2019-12-18T13:00:00Z',
    endTime: null,
    place: 'Second',
    online: false,
  });
  // Only Events: a Note's startTime means nothing.
  expect(inboxPostView(row({ type: 'Note', startTime: '2019-12-18T13:00:00Z' }), undefined).event).toBeNull();
});

it('long texts are formatted within a budget per turn of the event loop; past it they are shown as plain text, formatted again at the next turn', async () => {
  // 48 KB of markup and entities (within the HTML bounds): milliseconds to sanitize anywhere.
  const long = `<p>${'<b>x</b>'.repeat(1_500)}${' &amp;'.repeat(6_000)}</p>`;
  const formatted = sanitizeStoredHtml(long);
  expect(formatted).toContain('<b>x</b>');
  expect(unparsedText(long)).not.toContain('<b>');
  await new Promise((resolve) => setImmediate(resolve));
  const shown = Array.from({ length: 400 }, () => contentHtmlOf(long));
  expect(shown[0]).toBe(formatted);
  const plain = shown.filter((html) => html === unparsedText(long)).length;
  expect(plain).toBeGreaterThan(0);
  expect(shown.every((html) => html === formatted || html === unparsedText(long))).toBe(true);
  await new Promise((resolve) => setImmediate(resolve));
  expect(contentHtmlOf(long)).toBe(formatted);
});

it('an element keeps at most 32 of its classes (a hostile server wrote thousands)', () => {
  const many = Array.from({ length: 5_000 }, (_, i) => `h-c${i}`).join(' ');
  const html = sanitizeStoredHtml(`<p><span class="${many}">x</span></p>`);
  expect(html.match(/class="([^"]*)"/)![1]!.split(' ')).toEqual(Array.from({ length: 32 }, (_, i) => `h-c${i}`));
  expect(sanitizeStoredHtml('<p><a href="https://a.example/" class="u-url mention">@a</a></p>')).toContain('class="u-url mention"');
});

it("Misskey's empty content warning (summary U+200B) is a warning without words: hidden as sensitive, no invisible label", () => {
  const view = inboxPostView(row({ type: 'Note', summary: '\u200B', content: 'behind it', sensitive: true }), undefined);
  expect({ summary: view.summary, sensitive: view.sensitive }).toEqual({ summary: null, sensitive: true });
  // Without Misskey's sensitive flag too: the summary was there, so the post stays hidden.
  const bare = inboxPostView(row({ type: 'Note', summary: '<p>\u200B \uFEFF</p>', content: 'behind it' }), undefined);
  expect({ summary: bare.summary, sensitive: bare.sensitive }).toEqual({ summary: null, sensitive: true });
  expect(inboxPostView(row({ type: 'Note', summary: 'tides \u200B', content: 'x' }), undefined).summary).toBe('tides \u200B');
});

it("an Article's image given as a bare IRI (Ghost's feature image) is shown as its picture", () => {
  const view = inboxPostView(row({ type: 'Article', name: 'Spring tides', content: '<p>x</p>', image: 'https://ghost.example/content/images/tide.jpg' }), undefined);
  expect(view.attachments.map((a) => ({ url: a.url, kind: a.kind }))).toEqual([{ url: 'https://ghost.example/content/images/tide.jpg', kind: 'image' }]);
});

it("an attachment's alt text is its summary, else its name, as Mastodon reads it (GoToSocial writes it in summary alone)", () => {
  const alts = (attachment: Record<string, unknown>) => inboxPostView(row({ type: 'Note', content: 'x', attachment: [{ type: 'Image', url: 'https://x.example/a.png', ...attachment }] }), undefined).attachments[0]!.name;
  expect(alts({ summary: 'A heron <b>standing</b>' })).toBe('A heron standing');
  expect(alts({ summary: ' ', name: 'A heron' })).toBe('A heron');
  expect(alts({ summary: 'From summary', name: 'From name' })).toBe('From summary');
  expect(alts({})).toBeNull();
});

it('a Mention named without its server (Misskey\'s and Pixelfed\'s local users) is shown with the host of its href', () => {
  const names = inboxPostView(
    row({
      type: 'Note',
      content: 'x',
      tag: [
        { type: 'Mention', href: 'https://mk.example/users/9xk1', name: '@sedge' },
        { type: 'Mention', href: 'https://mk.example/users/9xk2', name: '@heron@mastodon.example' },
        { type: 'Hashtag', href: 'https://mk.example/tags/kelp', name: '#kelp' },
      ],
    }),
    undefined,
  ).tags.map((t) => t.name);
  expect(names).toEqual(['@sedge@mk.example', '@heron@mastodon.example', '#kelp']);
});

it("a PodcastEpisode (Castopod) is shown by its audio's name, its description's HTML and its audio file", () => {
  const view = inboxPostView(
    row({
      type: 'PodcastEpisode',
      description: { type: 'Note', mediaType: 'text/markdown', content: 'Worms, **coils**.', contentMap: { en: '<p>Worms, <strong>coils</strong>.</p>' } },
      audio: { type: 'Audio', name: 'Episode 12', url: { type: 'Link', href: 'https://cp.example/audio/12.mp3', mediaType: 'audio/mpeg' } },
    }),
    undefined,
  );
  expect({ title: view.title, content: view.contentHtml, files: view.attachments.map((a) => [a.kind, a.url]) }).toEqual({
    title: 'Episode 12',
    content: '<p>Worms, <strong>coils</strong>.</p>',
    files: [['audio', 'https://cp.example/audio/12.mp3']],
  });
});

it("a post's custom emoji (Mastodon's Emoji tags) come with its view, each with its picture through the media proxy; a post without has none", () => {
  const view = inboxPostView(
    row({
      type: 'Note',
      content: '<p>Low tide :kelp: and :tide_pool:</p>',
      tag: [
        { type: 'Emoji', name: ':kelp:', id: 'https://x.example/emojis/1', icon: { type: 'Image', mediaType: 'image/png', url: 'https://x.example/e/kelp.png' } },
        { type: 'Hashtag', name: '#tides', href: 'https://x.example/tags/tides' },
      ],
    }),
    undefined,
  );
  expect(view.emojis).toEqual([{ shortcode: 'kelp', url: 'https://x.example/e/kelp.png', src: expect.stringMatching(/^\/media\/proxy\/[^/]+\/[^/]+$/) }]);
  expect(view.tags.map((t) => t.name)).toEqual(['#tides']);
  expect(inboxPostView(row({ type: 'Note', content: 'plain' }), undefined)).not.toHaveProperty('emojis');
});

it("hashtags sent without a link are kept, named #name: PeerTube's Videos (`name: 'boats'`) and Funkwhale's Audio (`name: '#sails'`)", () => {
  const view = inboxPostView(
    row({
      type: 'Video',
      name: 'A film',
      content: 'about boats',
      tag: [
        { type: 'Hashtag', name: 'boats' },
        { type: 'Hashtag', name: '#sails' },
        { type: 'Hashtag', name: '#' },
        { type: 'Hashtag', name: '#kelp', href: 'https://x.example/tags/kelp' },
      ],
    }),
    undefined,
  );
  expect(view.tags).toEqual([
    { type: 'Hashtag', name: '#boats' },
    { type: 'Hashtag', name: '#sails' },
    { type: 'Hashtag', name: '#kelp', href: 'https://x.example/tags/kelp' },
  ]);
});
