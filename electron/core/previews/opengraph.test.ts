// Reading a page's head for its link preview: OpenGraph first, Twitter's tags and the <title>
// and meta description as fallbacks, relative pictures resolved, text made plain and bounded,
// and nothing read past the head. The shapes follow what real pages send: a WordPress head
// (og:* with property=, entities in values), a static blog with only <title> and
// name="description", a page with twitter:* only (as many newsletters), YouTube-style repeated
// og:image and a long inline script before the meta tags.
import { describe, expect, it } from 'vitest';
import { previewLinks } from './runner';
import { readLinkPreview, storedPreviews } from './opengraph';

const page = 'https://blog.example/2026/11/tern';

describe('readLinkPreview', () => {
  it('reads the OpenGraph tags of a head, entities decoded, the picture made absolute', () => {
    const html = `<!doctype html><html lang="en"><head>
      <meta charset="utf-8"><title>Tern &#8211; ignored when og:title is there</title>
      <meta property="og:title" content="Why Tern &amp; the fediverse" />
      <meta property="og:description" content="A home   on the fediverse,
        on your laptop." />
      <meta property="og:image" content="/img/cover.png" />
      <meta property="og:image" content="/img/second.png" />
      <meta property="og:site_name" content="A Blog" />
    </head><body><meta property="og:title" content="not in the head"></body></html>`;
    expect(readLinkPreview(html, page)).toEqual({
      url: page,
      title: 'Why Tern & the fediverse',
      description: 'A home on the fediverse, on your laptop.',
      image: 'https://blog.example/img/cover.png',
      site_name: 'A Blog',
    });
  });

  it('falls back to Twitter tags, then to <title> and meta description', () => {
    const twitter = '<head><meta name="twitter:title" content="Issue 42"><meta name="twitter:description" content="This week"><meta name="twitter:image" content="https://cdn.example/x.jpg"></head>';
    expect(readLinkPreview(twitter, page)).toMatchObject({ title: 'Issue 42', description: 'This week', image: 'https://cdn.example/x.jpg', site_name: null });
    const plain = '<html><head><title>  Plain\n page </title><meta name="description" content="Just a page"></head><body>x</body></html>';
    expect(readLinkPreview(plain, page)).toMatchObject({ title: 'Plain page', description: 'Just a page', image: null });
  });

  it('keeps the URL the post links to, and resolves the picture against the page after redirects or its <base>', () => {
    const html = '<head><base href="https://static.example/assets/"><meta property="og:title" content="T"><meta property="og:image" content="p.png"></head>';
    expect(readLinkPreview(html, 'https://final.example/a', 'https://short.example/x')).toMatchObject({ url: 'https://short.example/x', image: 'https://static.example/assets/p.png' });
  });

  it('gives nothing for a page without a title, and stops at the body', () => {
    expect(readLinkPreview('<head><meta property="og:description" content="no title"></head>', page)).toBeNull();
    expect(readLinkPreview('<html><body><title>in the body</title><meta property="og:title" content="late"></body></html>', page)).toBeNull();
    expect(readLinkPreview('', page)).toBeNull();
  });

  it('reads past a long inline script in the head', () => {
    const html = `<head><script>${'var a = "<meta property=og:title content=fake>";'.repeat(5000)}</script><meta property="og:title" content="Real"></head>`;
    expect(readLinkPreview(html, page)?.title).toBe('Real');
  });

  it('leaves out pictures that are not http(s), control characters and bidi overrides, and bounds the text', () => {
    const html = `<head><meta property="og:title" content="a\u202Eb\u0007c"><meta property="og:image" content="javascript:alert(1)"><meta property="og:description" content="${'word '.repeat(400)}"></head>`;
    const preview = readLinkPreview(html, page)!;
    expect(preview.title).toBe('abc');
    expect(preview.image).toBeNull();
    expect([...preview.description!].length).toBeLessThanOrEqual(600);
    expect(preview.description!.endsWith('…')).toBe(true);
  });

  it('is text, never markup: a title with tags stays those characters', () => {
    const preview = readLinkPreview('<head><meta property="og:title" content="&lt;img src=x onerror=alert(1)&gt;"></head>', page)!;
    expect(preview.title).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('storedPreviews', () => {
  it('reads microblog.pub og_meta entries and drops what is not a preview', () => {
    const stored = [
      { url: 'https://a.example/', title: 'A', image: 'https://a.example/i.png', description: 'd', site_name: 'S' },
      { url: 'javascript:alert(1)', title: 'bad' },
      { url: 'https://b.example/', title: '' },
      'nonsense',
      { url: 'https://c.example/', title: 'C', image: 'data:image/png;base64,AAAA' },
    ];
    expect(storedPreviews(stored)).toEqual([
      { url: 'https://a.example/', title: 'A', image: 'https://a.example/i.png', description: 'd', site_name: 'S' },
      { url: 'https://c.example/', title: 'C', image: null, description: null, site_name: null },
    ]);
    expect(storedPreviews(null)).toEqual([]);
    expect(storedPreviews({ url: 'https://a.example/' })).toEqual([]);
  });
});

describe('previewLinks', () => {
  it('takes external pages, not mentions, hashtags, own pages or media files, at most two', () => {
    const object = {
      content:
        '<p><span class="h-card"><a href="https://social.example/@ana" class="u-url mention">@ana</a></span> ' +
        '<a href="https://social.example/tags/tern" class="mention hashtag" rel="tag">#tern</a> ' +
        '<a href="https://me.example/posts/1">mine</a> <a href="https://pics.example/cat.JPG">cat</a> ' +
        '<a href="https://news.example/story#top">story</a> <a href="https://b.example/">b</a> <a href="https://c.example/">c</a></p>',
      tag: [{ type: 'Mention', href: 'https://social.example/users/ana' }],
    };
    expect(previewLinks(object, 'https://me.example')).toEqual(['https://news.example/story', 'https://b.example/']);
    expect(previewLinks({ content: '' }, null)).toEqual([]);
    expect(previewLinks('not an object', null)).toEqual([]);
  });
});
