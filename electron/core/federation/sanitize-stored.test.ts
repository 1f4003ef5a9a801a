// The view's pass over stored HTML (sanitize-stored.ts) against the stored pass (sanitize-html):
// on what the stored pass wrote it must return the same text (the views do not change), and on
// anything at all (a row from an import or a hand edit) what it returns must hold only the
// allowlist: checked by parsing its output again, tag by tag and attribute by attribute.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';
import { describe, expect, it } from 'vitest';
import { hrefAllowed, sanitizeStoredHtml } from './sanitize-stored';
import { CONTENT_ALLOWLIST, HTML_LIMITS, LINK_REL, htmlToExcerpt, sanitizeContentHtml } from './sanitize';
import { htmlOverLimits } from '../net/html-bounds';

const REAL = join(__dirname, '../../../test/fixtures/real');

/** Every string with markup in the real payloads (content, summary, maps, bios, names…). */
function realHtml(): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes('<')) out.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const file of readdirSync(REAL).filter((f) => f.endsWith('.json'))) walk(JSON.parse(readFileSync(join(REAL, file), 'utf8')));
  return out;
}

// Markup meant to get past a sanitizer: the classic vectors, mutation tricks, entity-encoded
// schemes, broken nesting, raw-text elements, and what Tern's allowlist is about (rel, classes).
const HOSTILE = [
  '<p>hi<script>alert(1)</script> there</p>',
  '<img src=x onerror=alert(1)><p>text</p>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href="  JaVaScRiPt:alert(1)">x</a>',
  '<a href="java\nscript:alert(1)">x</a>',
  '<a href="data:text/html,<script>alert(1)</script>">x</a>',
  '<a href="//evil.example/x">x</a>',
  '<a href="\\\\evil.example/x">x</a>',
  '<a href="/\\evil.example/x">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="mailto:a@b.example" rel="opener" target="_blank" onclick="x()">mail</a>',
  '<a href="https://ok.example/?a=1&amp;b=&quot;2&quot;" class="mention u-url evil hashtag">@x</a>',
  '<a href="/relative/path">rel</a><a href="?q=1">q</a><a href="#frag">f</a><a href="a:b">ab</a>',
  '<a href="">empty</a><a>none</a><span class="">s</span><span class="nope">t</span>',
  '<span class="h-card invisible ellipsis x-y">card</span>',
  '<svg><textarea><img src=x onerror=alert(1)></textarea></svg>',
  '<textarea></textarea><img src=x onerror=alert(1)>',
  '<xmp><img src=x onerror=alert(1)></xmp>',
  '<style>p{color:red}</style><p style="color:red">styled</p>',
  '<iframe src="https://x.example"></iframe><iframe><img src=x onerror=alert(1)></iframe>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<math><mi><mglyph><style><img src=x onerror=alert(1)></style></mglyph></mi></math>',
  '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
  '<p>unclosed <b>bold <i>both</p> after',
  '</p></p><p><p>stray</b></i>',
  '<ul><li>one<li>two</ul><ol><li>x</ol><blockquote><pre><code>a &lt; b &amp;&amp; c</code></pre></blockquote>',
  '<p>a < b > c & d &amp; e &lt;tag&gt; &#x3C;script&#x3E;</p>',
  '<p>line<br>break<br/>again<br />end</p>',
  '<!-- comment --><p>after<!-- <script>x</script> --></p>',
  '<![CDATA[<script>alert(1)</script>]]><p>x</p>',
  '<P CLASS="h-entry">Caps</P><A HREF="HTTPS://UP.EXAMPLE/">up</A>',
  '<a href="https://x.example" "onmouseover=alert(1)">q</a>',
  '<a href=https://x.example/ onmouseover=alert(1)>unquoted</a>',
  '<a\thref="https://x.example">tab</a><a\nhref="https://x.example">nl</a>',
  '<option><img src=x onerror=alert(1)></option><select><option>o</option></select>',
  '<del>gone</del><u>u</u><em>e</em><strong>s</strong><b>b</b><i>i</i>',
  '<p>\u0000nul and \u2028 separators\u2029</p>',
  '<div><p>in div</p></div><h1>head</h1><table><tr><td>cell</td></tr></table>',
  '<template><img src=x onerror=alert(1)></template><object data="x"></object><embed src="x">',
  '<base href="javascript:alert(1)//"><a href="x">base</a>',
  '<a href="https://x.example/" rel="noopener" rel="me">dup</a>',
];

/** What is wrong in `html` for the allowlist: a tag, attribute, class, href or rel it forbids. */
function violations(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (!(CONTENT_ALLOWLIST.tags as readonly string[]).includes(name)) found.push(`tag ${name}`);
        for (const [key, value] of Object.entries(attributes)) {
          const allowed = name === 'a' ? ['href', 'rel', 'class'] : name === 'span' || name === 'p' ? ['class'] : [];
          if (!allowed.includes(key)) found.push(`attribute ${key} on ${name}`);
          if (key === 'href' && !hrefAllowed(value)) found.push(`href ${value}`);
          if (key === 'rel' && value !== LINK_REL) found.push(`rel ${value}`);
          if (key === 'class') for (const c of value.split(/\s+/)) if (!CONTENT_ALLOWLIST.classAllowed(name, c)) found.push(`class ${c}`);
        }
        if (name === 'a' && attributes.rel !== LINK_REL) found.push('a without our rel');
      },
      oncomment() {
        found.push('comment');
      },
      oncdatastart() {
        found.push('cdata');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeCDATA: true },
  );
  parser.end(html);
  return found;
}

describe('the stored HTML pass of views', () => {
  it('returns what the stored pass wrote, unchanged, for every real payload and hostile vector', () => {
    const inputs = [...realHtml(), ...HOSTILE];
    expect(inputs.length).toBeGreaterThan(300);
    const changed = inputs
      .map((html) => sanitizeContentHtml(html))
      .filter((stored) => sanitizeStoredHtml(stored) !== stored)
      .map((stored) => ({ stored, view: sanitizeStoredHtml(stored) }));
    expect(changed).toEqual([]);
  });

  it('keeps a quote post’s fallback class (quote-inline) on p and span, and no other class on p, in both passes', () => {
    const html = '<p>Quoting</p><p class="quote-inline status-link">RE: <a href="https://a.example/1">link</a></p><p class="h-entry">x</p><span class="quote-inline">QT</span>';
    const stored = sanitizeContentHtml(html);
    expect(stored).toContain('<p class="quote-inline">RE:');
    expect(stored).toContain('<span class="quote-inline">QT</span>');
    expect(stored).toContain('<p>x</p>');
    expect(sanitizeStoredHtml(stored)).toBe(stored);
    expect(sanitizeStoredHtml(html)).toBe(stored);
  });

  it('gives only the allowlist for raw hostile input (a row the stored pass never saw)', () => {
    for (const html of [...HOSTILE, ...realHtml()]) expect({ html, found: violations(sanitizeStoredHtml(html)) }).toEqual({ html, found: [] });
  });

  it('agrees with the stored pass on raw input too, but for the text of an iframe', () => {
    // sanitize-html parses an iframe's text again as markup (it is a browser's fallback content);
    // this pass keeps it as escaped text. Both are safe (above); no stored row holds an iframe.
    const differ = HOSTILE.filter((html) => sanitizeStoredHtml(html) !== sanitizeContentHtml(html));
    expect(differ).toEqual(['<iframe src="https://x.example"></iframe><iframe><img src=x onerror=alert(1)></iframe>']);
  });

  it('random markup (5,000 pieces of tags, attributes, entities and quotes, seeded): only the allowlist, and a second pass changes nothing', () => {
    let seed = 20261125;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T,>(list: readonly T[]) => list[rand(list.length)]!;
    const TAG_NAMES = ['p', 'a', 'span', 'b', 'br', 'script', 'style', 'img', 'svg', 'math', 'iframe', 'textarea', 'xmp', 'noscript', 'template', 'option', 'li', 'ul', 'pre', 'code', 'A', 'SCRIPT', 'div', 'title', 'select', 'table'];
    const ATTRIBUTES = ['href', 'HREF', 'rel', 'class', 'onclick', 'onerror', 'src', 'style', 'srcdoc', 'xlink:href', 'formaction', 'data-x', 'id'];
    const VALUES = ['javascript:alert(1)', 'java&#x09;script:x', '&#106;avascript:x', 'https://ok.example/?a=1&b=2', '//evil.example', '/\\evil', 'mailto:a@b.example', 'data:text/html,<b>x</b>', 'mention h-card evil', '"><img src=x onerror=y>', "' onmouseover='x", '', 'u-url', 'a:b', '\u0000javascript:x'];
    const TEXTS = ['text', '&amp;', '&lt;b&gt;', '<', '>', '&', '"', "'", '&#60;script&#62;', '<!--', '-->', '<![CDATA[', ']]>', '</', '\n', ' ', '&nbsp;', '<?x ?>', '<!doctype html>'];
    const piece = (): string => {
      switch (rand(4)) {
        case 0: {
          const attrs = Array.from({ length: rand(3) }, () => {
            const q = pick(['"', "'", '']);
            return ` ${pick(ATTRIBUTES)}=${q}${pick(VALUES)}${q}`;
          }).join('');
          return `<${pick(TAG_NAMES)}${attrs}${pick(['>', '/>', ' >', ''])}`;
        }
        case 1:
          return `</${pick(TAG_NAMES)}>`;
        default:
          return pick(TEXTS);
      }
    };
    for (let i = 0; i < 5_000; i++) {
      const html = Array.from({ length: 1 + rand(12) }, piece).join('');
      const once = sanitizeStoredHtml(html);
      expect({ html, found: violations(once) }).toEqual({ html, found: [] });
      expect({ html, again: sanitizeStoredHtml(once) }).toEqual({ html, again: once });
    }
  });

  it('the check finds what it looks for (it can fail)', () => {
    expect(violations('<a href="javascript:x" onclick="y">a</a><img src=x><span class="evil">s</span>')).toEqual([
      'href javascript:x',
      'attribute onclick on a',
      'a without our rel',
      'tag img',
      'attribute src on img',
      'class evil',
    ]);
  });

  it('keeps links, classes and text as the allowlist says', () => {
    expect(sanitizeStoredHtml('<p>a &amp; b <a href="https://x.example/?a=1&amp;b=2" class="mention evil" onclick="x">@x</a></p>')).toBe(
      `<p>a &amp; b <a href="https://x.example/?a=1&amp;b=2" class="mention" rel="${LINK_REL}">@x</a></p>`,
    );
    expect(sanitizeStoredHtml('<a href="java&#x09;script:alert(1)">x</a><script>alert(1)</script>')).toBe(`<a rel="${LINK_REL}">x</a>`);
    expect(sanitizeStoredHtml('<p>one</p>')).toBe('<p>one</p>');
    // The parser's state does not leak from one call into the next.
    expect(sanitizeStoredHtml('<p>open <b>bold <script>x')).toBe('<p>open <b>bold </b></p>');
    expect(sanitizeStoredHtml('after')).toBe('after');
  });
});

describe('excerpts (htmlToExcerpt), on htmlparser2 alone', () => {
  // What htmlToExcerpt returned when it ran sanitize-html (no tags kept), as the oracle.
  const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'", '&nbsp;': ' ' };
  function before(html: string, max = 140): string {
    if (htmlOverLimits(html, HTML_LIMITS) !== null) return htmlToExcerpt(html, max);
    const spaced = html.replace(/<br\s*\/?>|<\/(p|li|blockquote|pre)>/gi, ' ');
    const text = sanitizeHtml(spaced, { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' })
      .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (entity) => ENTITIES[entity] ?? entity)
      .replace(/\s+/g, ' ')
      .trim();
    return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
  }

  it('gives the text sanitize-html gave, for every real payload and hostile vector (but iframe text)', () => {
    const inputs = [...realHtml(), ...HOSTILE, '<p>a &amp;amp; b &amp;nbsp; c&nbsp;d &quot;q&quot; &#39;s&#39;</p>', 'x<br>y<br/>z</li>w'];
    const differ = inputs.filter((html) => htmlToExcerpt(html, 10_000) !== before(html, 10_000) || htmlToExcerpt(html) !== before(html));
    expect(differ).toEqual(['<iframe src="https://x.example"></iframe><iframe><img src=x onerror=alert(1)></iframe>']);
  });

  it('one excerpt does not leak into the next', () => {
    expect(htmlToExcerpt('<p>open <script>never closed')).toBe('open');
    expect(htmlToExcerpt('<p>next</p>')).toBe('next');
  });
});

