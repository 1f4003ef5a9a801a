// Snippets render as text with <mark> around matches: markup inside a post is never markup here.
import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MARK, renderSnippet, snippetParts } from './snippet';

describe('snippets', () => {
  it('use the markers the core writes (search-contract.ts SNIPPET_MARK; electron/core/search tests pin the same characters)', () => {
    expect(MARK).toEqual({ start: '\u0002', end: '\u0003' });
  });

  it('split into text and marked parts', () => {
    expect(snippetParts('Watching \u0002kingfishers\u0003 by the \u0002canal\u0003')).toEqual([
      { text: 'Watching ', marked: false },
      { text: 'kingfishers', marked: true },
      { text: ' by the ', marked: false },
      { text: 'canal', marked: true },
    ]);
    expect(snippetParts('')).toEqual([]);
  });

  it('a post containing <script> yields no markup but <mark>', () => {
    const html = renderToStaticMarkup(createElement('p', null, renderSnippet('<script>alert(1)</script> <b onclick="x">\u0002curlew\u0003</b> &amp;')));
    expect(html).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;b onclick=&quot;x&quot;&gt;<mark>curlew</mark>&lt;/b&gt; &amp;amp;</p>');
    expect(html.match(/<[a-z]+/g)).toEqual(['<p', '<mark']);
  });
});
