import { describe, expect, it } from 'vitest';
import { HTML_LIMITS, htmlToExcerpt, sanitizeActivityHtml, sanitizeActorHtml, sanitizeContentHtml, sanitizeObjectHtml, sanitizePlainText } from './sanitize';

describe('sanitizeContentHtml', () => {
  it('removes script and style with their text, img, iframe and event handlers', () => {
    const dirty =
      '<p>hi<script>alert(1)</script><style>p{}</style><img src=x onerror="alert(2)"><iframe src="https://e.example"></iframe><b onclick="x()">b</b></p>';
    expect(sanitizeContentHtml(dirty)).toBe('<p>hi<b>b</b></p>');
  });

  it('drops javascript:, data: and protocol-relative hrefs but keeps the link text; adds rel to links', () => {
    expect(sanitizeContentHtml('<a href="javascript:alert(1)">x</a>')).toBe('<a rel="nofollow noopener noreferrer">x</a>');
    expect(sanitizeContentHtml('<a href="data:text/html,hi">x</a>')).toBe('<a rel="nofollow noopener noreferrer">x</a>');
    expect(sanitizeContentHtml('<a href="//evil.example">x</a>')).toBe('<a rel="nofollow noopener noreferrer">x</a>');
    expect(sanitizeContentHtml('<a href="https://ok.example/" rel="me" target="_blank">x</a>')).toBe(
      '<a href="https://ok.example/" rel="nofollow noopener noreferrer">x</a>',
    );
  });

  it("keeps Mastodon's tags and microformat classes, drops other classes and attributes", () => {
    const html =
      '<p><span class="h-card evil-overlay" translate="no"><a href="https://m.example/@a" class="u-url mention" data-user="1">@<span>a</span></a></span> <del>x</del> <code>y</code></p><blockquote><ul><li>z</li></ul></blockquote>';
    expect(sanitizeContentHtml(html)).toBe(
      '<p><span class="h-card"><a href="https://m.example/@a" class="u-url mention" rel="nofollow noopener noreferrer">@<span>a</span></a></span> <del>x</del> <code>y</code></p><blockquote><ul><li>z</li></ul></blockquote>',
    );
  });
});

describe('sanitizing objects', () => {
  it('cleans content, summary and their maps as HTML, name as plain text; drops a non-http(s) url; leaves other fields', () => {
    const out = sanitizeObjectHtml({
      id: 'https://x.example/1',
      content: '<p>a<script>b</script></p>',
      contentMap: { en: '<p onclick="x">a</p>' },
      summary: '<i>cw</i><img src=x>',
      name: 'R&D <b>poll</b>',
      url: 'javascript:kept-as-data',
    });
    expect(out).toEqual({
      id: 'https://x.example/1',
      content: '<p>a</p>',
      contentMap: { en: '<p>a</p>' },
      summary: '<i>cw</i>',
      name: 'R&D poll',
    });
    expect(sanitizePlainText('R&D')).toBe('R&D');
  });

  it("Mastodon's content repeated as contentMap: both cleaned, and each language's own text its own way", () => {
    const html = '<p>hi <a href="https://a.example" onclick="x">a</a><script>b</script></p>';
    const out = sanitizeObjectHtml({ content: html, contentMap: { en: html, de: '<p>hallo<img src=x></p>' }, summaryMap: { en: html } });
    const clean = '<p>hi <a href="https://a.example" rel="nofollow noopener noreferrer">a</a></p>';
    expect(out).toEqual({ content: clean, contentMap: { en: clean, de: '<p>hallo</p>' }, summaryMap: { en: clean } });
  });

  it('cleans the object embedded in an activity, and a Create inside an Announce', () => {
    const out = sanitizeActivityHtml({ type: 'Announce', object: { type: 'Create', object: { content: '<script>x</script>ok' } } });
    expect(out).toEqual({ type: 'Announce', object: { type: 'Create', object: { content: 'ok' } } });
  });

  it("cleans an actor's summary and PropertyValue fields", () => {
    const out = sanitizeActorHtml({
      summary: '<p>bio<script>x</script></p>',
      attachment: [{ type: 'PropertyValue', name: 'Site', value: '<a href="https://a.example" onclick="x">a</a>' }],
    });
    expect(out.summary).toBe('<p>bio</p>');
    expect(out.attachment).toEqual([{ type: 'PropertyValue', name: 'Site', value: '<a href="https://a.example" rel="nofollow noopener noreferrer">a</a>' }]);
  });

  it('cleans a PropertyValue field sent alone, not in a list (AS2 allows a single value)', () => {
    const out = sanitizeActorHtml({
      type: 'Person',
      attachment: { type: 'PropertyValue', name: 'Site', value: '<img src=https://tracker.example/p.png onerror=alert(1)><a href="javascript:alert(1)" style="x">x</a><script>alert(2)</script>' },
    });
    expect(out.attachment).toEqual({ type: 'PropertyValue', name: 'Site', value: '<a rel="nofollow noopener noreferrer">x</a>' });
  });
});

describe('plain-text and URL fields of what is stored', () => {
  it('one rule for plain text: tags gone (script text too), entities and lone < kept as sent', () => {
    expect(sanitizePlainText('<script>alert(1)</script>Bob<img src=x onerror=alert(1)>')).toBe('Bob');
    expect(sanitizePlainText('a < b & &lt;b&gt;')).toBe('a < b & &lt;b&gt;');
    expect(sanitizePlainText('<scr<script>x</script>ipt>alert(1)</script>')).not.toMatch(/<[a-z]/i);
  });

  it('attachments, tags, poll options, icon and image: names plain, URLs http(s) only', () => {
    const out = sanitizeObjectHtml({
      preferredUsername: 'bob<script>x</script>',
      url: ['https://b.example/@bob', 'javascript:alert(1)', { type: 'Link', href: 'data:text/html,x' }],
      icon: { type: 'Image', url: 'javascript:alert(1)' },
      image: { type: 'Image', url: 'https://b.example/h.png' },
      attachment: [{ type: 'Document', name: '<img src=x onerror=alert(1)>cat', url: 'file:///etc/passwd' }, { type: 'Image', url: 'https://b.example/a.png', name: 'ok' }],
      tag: [{ type: 'Hashtag', name: '#<b>tag</b>', href: 'javascript:x' }, { type: 'Emoji', name: ':e:', icon: { url: 'data:image/png;base64,AA' } }],
      oneOf: [{ type: 'Note', name: '<script>x</script>yes' }],
    });
    expect(out).toEqual({
      preferredUsername: 'bob',
      url: ['https://b.example/@bob'],
      image: { type: 'Image', url: 'https://b.example/h.png' },
      attachment: [{ type: 'Document', name: 'cat' }, { type: 'Image', url: 'https://b.example/a.png', name: 'ok' }],
      tag: [{ type: 'Hashtag', name: '#tag' }, { type: 'Emoji', name: ':e:' }],
      oneOf: [{ type: 'Note', name: 'yes' }],
    });
  });
});

describe('htmlToExcerpt', () => {
  it('gives one line of decoded text, cut with an ellipsis', () => {
    expect(htmlToExcerpt('<p>a &amp; b</p><p>c&lt;d</p>')).toBe('a & b c<d');
    expect(htmlToExcerpt('<p>line<br>break</p>')).toBe('line break');
    expect(htmlToExcerpt(`<p>${'x'.repeat(200)}</p>`, 10)).toBe('xxxxxxxxx…');
    expect(htmlToExcerpt('<script>alert(1)</script>')).toBe('');
  });
});

describe('sanitizing what was already sanitized', () => {
  it('returns the same object without running the sanitizer again, and still cleans an embedded object', () => {
    const once = sanitizeObjectHtml({ content: '<p>hi<script>x()</script></p>' });
    expect(sanitizeObjectHtml(once)).toBe(once);
    // Top level clean, embedded object not yet: the activity pass must still clean the inside.
    const activity = sanitizeObjectHtml({ type: 'Create', object: { content: '<img src=x onerror=alert(1)>' } });
    const deep = sanitizeActivityHtml(activity);
    expect(JSON.stringify(deep)).not.toMatch(/onerror/);
    expect(sanitizeActivityHtml(deep)).toBe(deep);
  });
});

describe('what is stored is what is shown (views sanitize the stored content again)', () => {
  it('a long article whose links grow it past the bound when sanitized is kept whole as text, and shown the same', () => {
    const article = `<p>${Array.from({ length: 1200 }, (_, i) => `<a href="https://blog.example/${i}">link ${i}</a> and`).join(' ')}</p>`;
    expect(article.length).toBeLessThan(HTML_LIMITS.chars);
    const stored = sanitizeContentHtml(article);
    expect(stored.length).toBeLessThanOrEqual(HTML_LIMITS.chars);
    expect(stored).toContain('link 1199 and');
    expect(sanitizeContentHtml(stored)).toBe(stored);
  });

  it('text whose escaping grows it past the bound stays within it, cut between entities, and shown the same', () => {
    const stored = sanitizeContentHtml(`<p>${'a < b & c '.repeat(7_000)}</p>`);
    expect(stored.length).toBeLessThanOrEqual(HTML_LIMITS.chars);
    expect(stored).toMatch(/^<p>a &lt; b &amp; c .*[^&;a-z]?<\/p>$/s);
    expect(stored).not.toMatch(/&[a-z]*<\/p>$/);
    expect(sanitizeContentHtml(stored)).toBe(stored);
  });
});

describe("a list PHP wrote as an object (Pixelfed's reply tags)", () => {
  it('is read as the list: the Mention whose keys hold it first, then "0", "1", … in order, each cleaned', () => {
    const object = sanitizeObjectHtml({
      type: 'Note',
      tag: {
        type: 'Mention',
        href: 'https://px.example/users/sedge',
        name: '@sedge',
        '1': { type: 'Hashtag', href: 'javascript:alert(1)', name: '#<b>tide</b>' },
        '0': { type: 'Mention', href: 'https://tern.example/', name: '@author@tern.example' },
      },
    });
    expect(object.tag).toEqual([
      { type: 'Mention', href: 'https://px.example/users/sedge', name: '@sedge' },
      { type: 'Mention', href: 'https://tern.example/', name: '@author@tern.example' },
      { type: 'Hashtag', name: '#tide' },
    ]);
  });

  it('an object without index keys, or whose index keys hold no objects, is one entry as before', () => {
    const one = { type: 'Mention', href: 'https://px.example/u', name: '@u' };
    expect(sanitizeObjectHtml({ type: 'Note', tag: one }).tag).toEqual(one);
    expect(sanitizeObjectHtml({ type: 'Note', tag: { ...one, '0': 'x' } }).tag).toEqual({ ...one, '0': 'x' });
  });
});

describe("a PodcastEpisode's description and audio (Castopod)", () => {
  it('are cleaned like content and attachments: markup sanitized, names plain, non-http(s) URLs dropped', () => {
    const object = sanitizeObjectHtml({
      type: 'PodcastEpisode',
      description: { type: 'Note', content: 'md', contentMap: { en: '<p>ok<script>alert(1)</script><img src=x onerror=alert(2)></p>' }, name: '<b>n</b>' },
      audio: { type: 'Audio', name: '<i>Ep</i>', url: { type: 'Link', href: 'javascript:alert(3)' } },
    });
    expect(object.description).toEqual({ type: 'Note', content: 'md', contentMap: { en: '<p>ok</p>' }, name: 'n' });
    expect(object.audio).toEqual({ type: 'Audio', name: 'Ep' });
  });

  it("a description's own description is cleaned too (the view reads its content), and one nested deeper than three is dropped", () => {
    const raw = '<script>alert(1)</script><img src=https://tracker.example/x.png><p>text</p>';
    const object = sanitizeObjectHtml({ type: 'PodcastEpisode', name: 'Ep', description: { type: 'Note', description: { content: raw, name: '<b>n</b>' } } });
    expect(object.description).toEqual({ type: 'Note', description: { content: '<p>text</p>', name: 'n' } });
    const nested = (depth: number): Record<string, unknown> => (depth === 0 ? { content: raw } : { description: nested(depth - 1) });
    const deep = sanitizeObjectHtml({ type: 'PodcastEpisode', description: nested(5) });
    expect(JSON.stringify(deep)).not.toContain('<script');
    expect(deep.description).toEqual({ description: { description: {} } });
  });
});
