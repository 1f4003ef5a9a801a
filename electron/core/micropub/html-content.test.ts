// Micropub's HTML content as the Markdown Tern stores, read back through the real renderer
// (renderPost, as Compose's Markdown is published): what the app sent is what is shown — its text
// as text, its links as links, and the bare URLs in it linked whole, as Compose's would be.
import { describe, expect, it } from 'vitest';
import { renderPost } from '../federation/actions/markdown';
import { htmlToMarkdown } from './html-content';

/** The HTML Tern publishes for an app's HTML, without the rel every link is given. */
const roundTrip = (html: string) =>
  renderPost(htmlToMarkdown(html), { mentions: new Map(), hashtagHref: (tag) => `https://tern.example/t/${tag}` }).html.replace(/ rel="nofollow noopener noreferrer"/g, '');

describe('htmlToMarkdown, rendered again', () => {
  it.each([
    ['a URL with _', '<p>see https://example.com/a_b_c</p>', '<p>see <a href="https://example.com/a_b_c">https://example.com/a_b_c</a></p>'],
    ['a URL with * and ~', '<p>see https://example.com/a*b~c/ ok</p>', '<p>see <a href="https://example.com/a*b~c/">https://example.com/a*b~c/</a> ok</p>'],
    ['a URL with * inside emphasis', '<p><em>see https://x.example/a*b</em> now</p>', '<p><em>see <a href="https://x.example/a*b">https://x.example/a*b</a></em> now</p>'],
    ['a URL with ~ inside strike-through', '<p><del>see https://x.example/a~b</del></p>', '<p><del>see <a href="https://x.example/a~b">https://x.example/a~b</a></del></p>'],
    ['a URL followed by _ and a full stop', '<p>see https://example.com/a_b_c_.</p>', '<p>see <a href="https://example.com/a_b_c">https://example.com/a_b_c</a>_.</p>'],
    ['a URL followed by < and *', '<p>at https://x.example/a&lt;b*c</p>', '<p>at <a href="https://x.example/a">https://x.example/a</a>&lt;b*c</p>'],
    ['a URL in parentheses with parentheses', '<p>(https://x.example/a_(b)_c)</p>', '<p>(<a href="https://x.example/a_(b)_c">https://x.example/a_(b)_c</a>)</p>'],
    ['a www. address', '<p>and www.ex_ample.com/a_b then</p>', '<p>and <a href="http://www.ex_ample.com/a_b">www.ex_ample.com/a_b</a> then</p>'],
    ['a www. address with * in emphasis', '<p><em>at www.x.example/a*b</em></p>', '<p><em>at <a href="http://www.x.example/a*b">www.x.example/a*b</a></em></p>'],
    ['a URL in a link’s text stays the text', '<p><a href="https://y.example/">https://x.example/a_b</a></p>', '<p><a href="https://y.example/">https://x.example/a_b</a></p>'],
    ['literal character references', '<p>I wrote &amp;copy; and &amp;lt;b&amp;gt; and &amp;#169; and &amp;#x3c;</p>', '<p>I wrote &amp;copy; and &amp;lt;b&amp;gt; and &amp;#169; and &amp;#x3c;</p>'],
    ['an ampersand', '<p>Tom &amp; Jerry</p>', '<p>Tom &amp; Jerry</p>'],
    ['text that looks like Markdown', '<p>2 * 3 = 6, [not](a link) and &lt;b&gt;</p><p>- not a list</p>', '<p>2 * 3 = 6, [not](a link) and &lt;b&gt;</p>\n<p>- not a list</p>'],
    [
      'emphasis, links and lists',
      '<p>Hello <em>world</em> and <strong>all</strong></p><p>A <a href="https://example.org/x">link</a> <a href="javascript:alert(1)" onclick="x()">there</a><script>alert(1)</script></p><ul><li>one</li><li>two</li></ul>',
      '<p>Hello <em>world</em> and <strong>all</strong></p>\n<p>A <a href="https://example.org/x">link</a> there</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>',
    ],
    ['strike-through', '<p>Now <del>gone</del></p>', '<p>Now <del>gone</del></p>'],
  ])('%s', (_name, html, shown) => {
    expect(roundTrip(html)).toBe(shown);
  });

  it('a bare URL is stored as the author would write it in Compose', () => {
    expect(htmlToMarkdown('<p>see https://example.com/a_b_c and www.example.com/a_b</p>')).toBe('see https://example.com/a_b_c and www.example.com/a_b');
  });
});
