import { describe, expect, it } from 'vitest';
import { htmlToExcerpt, sanitizeContentHtml } from '../federation/sanitize';
import { boundedExcerpt, EXCERPT_SOURCE_CHARS, withoutCutEnd } from './excerpt';

const ALL = Number.MAX_SAFE_INTEGER;
const mention = (name: string) => `<span class="h-card" translate="no"><a href="https://mastodon.example/@${name}" class="u-url mention">@<span>${name}</span></a></span>`;
const hashtag = (tag: string) => `<a href="https://mastodon.example/tags/${tag}" class="mention hashtag" rel="tag">#<span>${tag}</span></a>`;
/** A long post as Mastodon sends it, sanitized as Tern stores it: mentions, a link, entities,
 * line breaks and paragraphs. */
const longPost = sanitizeContentHtml(
  `<p>${['alice', 'bob', 'carol', 'dave'].map(mention).join(' ')} Fish &amp; chips &lt;3 — “quoted” café&nbsp;ok<br />next line ${hashtag('fediverse')}</p>` +
    `<p>${'Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit &amp; more. '.repeat(80)}</p>`,
);

describe('boundedExcerpt', () => {
  it('is htmlToExcerpt’s excerpt for a post within the bound, and for a longer one whose first part holds the text shown', () => {
    const short = '<p>Our <b>post</b> &amp; its text</p>';
    expect(boundedExcerpt(short, 140)).toBe('Our post & its text');
    expect(longPost.length).toBeGreaterThan(EXCERPT_SOURCE_CHARS);
    expect(boundedExcerpt(longPost, 140)).toBe(htmlToExcerpt(longPost, 140));
    expect(boundedExcerpt(longPost, 140)).toMatch(/^@alice @bob @carol @dave Fish & chips <3 — “quoted” café ok next line #fediverse Lorem .*…$/);
    // 32 mentions then text, 4.5 KB of markup: the first 4 KiB hold the excerpt.
    const mentions = `<p>${Array.from({ length: 32 }, (_, i) => mention(`user${i}`)).join(' ')} and the text of the post ${'words '.repeat(40)}</p>`;
    expect(mentions.length).toBeGreaterThan(EXCERPT_SOURCE_CHARS);
    expect(boundedExcerpt(mentions, 140)).toBe(htmlToExcerpt(mentions, 140));
  });

  it('counts characters as SQLite’s substr does (code points): 4,096 emoji are not cut', () => {
    const emoji = `<p>${'🐘'.repeat(EXCERPT_SOURCE_CHARS - 7)}</p>`;
    expect(emoji.length).toBeGreaterThan(EXCERPT_SOURCE_CHARS);
    expect(boundedExcerpt(emoji, 140)).toBe(htmlToExcerpt(emoji, 140));
    expect(boundedExcerpt(`${emoji}x`, 140)).toBe(htmlToExcerpt(emoji, 140));
  });

  it('reads no more than the first 4 KiB of markup: 60 KB of mentions make an excerpt of their first ones', () => {
    const html = `<p>${`<span class="h-card"><a href="https://x.example/7" class="u-url mention">@<span>x7</span></a></span> `.repeat(495)}${'y'.repeat(10_000)}</p>`;
    expect(boundedExcerpt(html, 140)).toBe(htmlToExcerpt(html, 140));
    // Whose text does not reach the excerpt's length there: what there is, and an ellipsis.
    const padded = `<p>${'<span></span>'.repeat(200)}hello ${'<span></span>'.repeat(4000)}world</p>`;
    expect(boundedExcerpt(padded, 140)).toBe('hello…');
    expect(boundedExcerpt(`<p>${'<span></span>'.repeat(400)}</p>`.repeat(10), 140)).toBe('…');
  });

  it('leaves no part of a tag or an entity in the text, wherever the markup is cut', () => {
    const whole = htmlToExcerpt(longPost, ALL);
    for (let end = 0; end <= 1200; end++) {
      const text = htmlToExcerpt(withoutCutEnd(longPost.slice(0, end)), ALL);
      if (!whole.startsWith(text)) expect.fail(`cut at ${end}: ${JSON.stringify(longPost.slice(Math.max(0, end - 40), end))} gave …${JSON.stringify(text.slice(-40))}`);
    }
  });

  it('drops what the parser would give back as text of an unfinished tag or entity', () => {
    expect(withoutCutEnd('<p>a <')).toBe('<p>a ');
    expect(withoutCutEnd('<p>a </')).toBe('<p>a ');
    expect(withoutCutEnd('<p>a<br /')).toBe('<p>a');
    expect(withoutCutEnd('<p>a <a href="https://x.example/?q=1>2" cla')).toBe('<p>a ');
    expect(withoutCutEnd('<p>a &am')).toBe('<p>a ');
    expect(withoutCutEnd('<p>a &#12')).toBe('<p>a ');
    // Whole tags and entities, and a "<" that starts no tag, are kept.
    expect(withoutCutEnd('<p>a &amp; <b>b</b>')).toBe('<p>a &amp; <b>b</b>');
    expect(withoutCutEnd('<p>1 < 2')).toBe('<p>1 < 2');
    expect(withoutCutEnd('<p>a <a href="x" title="1>2">')).toBe('<p>a <a href="x" title="1>2">');
  });
});
