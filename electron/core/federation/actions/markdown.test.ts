import { describe, expect, it } from 'vitest';
import { renderPost, scanPost } from './markdown';

const render = (source: string, mentions: Record<string, string> = {}) =>
  renderPost(source, {
    mentions: new Map(Object.entries(mentions).map(([handle, href]) => [handle, { href, name: handle }])),
    hashtagHref: (t) => `https://me.example/t/${t}`,
  });

describe('Markdown → safe HTML', () => {
  it('links resolved mentions, keeps unresolved ones as text, links hashtags and bare URLs', () => {
    const { html, handles, hashtags } = render('Hi @bob@Example.com and @eve@other.org. See #Tern and https://example.org/a?b=1', {
      '@bob@example.com': 'https://example.com/users/bob',
    });
    expect(handles).toEqual(['@bob@example.com', '@eve@other.org']);
    expect(hashtags).toEqual(['tern']);
    expect(html).toContain('<a href="https://example.com/users/bob" class="u-url mention" rel="nofollow noopener noreferrer">@<span>bob</span></a>');
    expect(html).toContain('@eve@other.org.');
    expect(html).not.toContain('other.org"');
    expect(html).toContain('<a href="https://me.example/t/tern" class="mention hashtag" rel="tag nofollow noopener noreferrer">#<span>Tern</span></a>');
    expect(html).toContain('<a href="https://example.org/a?b=1" rel="nofollow noopener noreferrer">https://example.org/a?b=1</a>');
  });

  it('a hashtag written several ways is one tag, lower-cased, named as first written', () => {
    const { hashtags, hashtagNames } = render('#TernApp then #ternapp and #TERNAPP, #tides', {});
    expect(hashtags).toEqual(['ternapp', 'tides']);
    expect(hashtagNames).toEqual(['TernApp', 'tides']);
  });

  it('finds no mentions or tags in code, e-mail addresses, URLs or all-digit tags', () => {
    expect(scanPost('`@a@b.com #x` mail a@b.com, https://x.org/#frag #2024 word#tag')).toEqual({ handles: [], hashtags: [] });
  });

  it('never lets raw HTML through', () => {
    const { html } = render('Hello <script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))');
    // Shown as text, escaped; the link loses its javascript: target.
    expect(html).toBe('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; <a rel="nofollow noopener noreferrer">x</a></p>');
  });

  it('keeps Markdown structure: emphasis, lists, quotes, code', () => {
    const { html } = render('**bold** _it_\n\n- a\n- b\n\n> quote\n\n```\n<b>code</b>\n```');
    expect(html).toContain('<strong>bold</strong> <em>it</em>');
    expect(html).toContain('<ul>\n<li>a</li>');
    expect(html).toContain('<blockquote>');
    expect(html).toContain('&lt;b&gt;code&lt;/b&gt;');
  });
});

// marked asks where a mention or hashtag may next start at every text token; the answer is
// remembered per run of inline text (markdown.ts nextCandidate) instead of searched for again
// to the end. The same tokens must come out wherever the candidates are: in nested runs (link
// text, emphasis), after many tokens, in several paragraphs ending alike, after false starts.
describe('mentions and hashtags wherever they are in the text', () => {
  it('finds each one, in order, across nested runs and paragraphs', () => {
    const source = [
      '*@a@one.example* [#inLink @b@two.example](https://x.example) `@no@code.example` <i>x</i> @c@three.example',
      '@ @x #! a@b.example ' + '<b>t</b> _u_ '.repeat(200) + '#late @d@four.example',
      'same ending #end',
      'other text, same ending #end',
      '**#bold** and ~~@e@five.example~~ then @f@six.example.',
    ].join('\n\n');
    expect(scanPost(source)).toEqual({
      handles: ['@a@one.example', '@b@two.example', '@c@three.example', '@d@four.example', '@e@five.example', '@f@six.example'],
      hashtags: ['inlink', 'late', 'end', 'bold'],
    });
  });

  it('renders a long text of inline tags with one mention at its end linked', () => {
    const { html, handles } = render(`${'<b>x</b> '.repeat(5_000)}@bob@example.com`, { '@bob@example.com': 'https://example.com/users/bob' });
    expect(handles).toEqual(['@bob@example.com']);
    expect(html.match(/class="u-url mention"/g)).toHaveLength(1);
    expect(html.match(/&lt;b&gt;x&lt;\/b&gt;/g)).toHaveLength(5_000);
  });
});
