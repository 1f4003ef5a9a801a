// measureHtml counts elements and estimates nesting without a parser; sanitizeContentHtml keeps
// HTML over its bounds as plain text instead of handing it to sanitize-html on the main thread.
import { describe, expect, it } from 'vitest';
import { htmlOverLimits, htmlStartWithin, measureHtml } from './html-bounds';
import { HTML_LIMITS, htmlToExcerpt, sanitizeContentHtml, sanitizePlainText } from '../federation/sanitize';
import { CLIENT_HTML_LIMITS, SOURCE_HTML_LIMITS } from '../webmention/source-parse';

describe('measureHtml', () => {
  it('counts start tags and nesting; void elements and optional end tags do not nest', () => {
    expect(measureHtml('<div><span>a</span><br><img src=x></div>')).toEqual({ elements: 4, depth: 2 });
    expect(measureHtml('<p>one<p>two<p>three<li>x<li>y')).toEqual({ elements: 5, depth: 0 });
    expect(measureHtml('<div/><div/>')).toEqual({ elements: 2, depth: 0 });
    expect(measureHtml('a < b and c > d')).toEqual({ elements: 0, depth: 0 });
  });

  it('stops early once over the limits', () => {
    expect(measureHtml('<div>'.repeat(100_000), { elements: 1e9, depth: 10 }).depth).toBe(11);
    expect(htmlOverLimits('<i></i>'.repeat(50), { chars: 1e6, elements: 10, depth: 10 })).toBe('more than 10 HTML elements');
    expect(htmlOverLimits('x'.repeat(11), { chars: 10, elements: 10, depth: 10 })).toBe('more than 10 characters of HTML');
  });

  it('a tag runs to the first > after its <, whatever lies between; a < with no > after it starts none', () => {
    expect(measureHtml('<b title="<">x</b>')).toEqual({ elements: 1, depth: 1 });
    expect(measureHtml('<a<b>x')).toEqual({ elements: 1, depth: 1 });
    expect(measureHtml('<i>x</i><a<b')).toEqual({ elements: 1, depth: 1 });
    expect(measureHtml('<br/> <a ')).toEqual({ elements: 1, depth: 0 });
  });

  // Each `<a` with no `>` after it used to be scanned to the end of the input: 0.9 s for 64 KiB,
  // 66 s for 512 KiB, all on the main thread. Measured now at each caller's bound it takes about
  // a millisecond; the 1 s bound is that with a wide margin for a busy machine.
  it.each([
    ['64 KiB, a post’s HTML field', HTML_LIMITS],
    ['512 KiB, an IndieAuth client page', CLIENT_HTML_LIMITS],
    ['1 MiB, a webmention source page', SOURCE_HTML_LIMITS],
  ])('%s of `<a<a…` with no `>` is measured (no element) in linear time', (_, limits) => {
    const hostile = '<a'.repeat(limits.chars / 2);
    const started = performance.now();
    expect(htmlOverLimits(hostile, limits)).toBeNull();
    expect(htmlOverLimits(`${hostile.slice(1)}>`, limits)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('remote HTML over the bounds is kept as text, never parsed', () => {
  const deep = `${'<div>'.repeat(50_000)}<script>alert(1)</script><img src=x onerror=alert(1)>hi &amp; <b>bye</b>${'</div>'.repeat(50_000)}`;

  it('content 50,000 levels deep becomes one escaped paragraph with no tag left', () => {
    const out = sanitizeContentHtml(deep);
    expect(out).toBe('<p>alert(1) hi &amp; bye</p>');
  });

  it('a huge flat content is cut to the bound', () => {
    const out = sanitizeContentHtml('<b>x</b> '.repeat(HTML_LIMITS.elements + 1));
    expect(out.startsWith('<p>x x')).toBe(true);
    expect(out).not.toMatch(/<b>/);
  });

  it('plain text and excerpts of such HTML carry no markup either', () => {
    expect(sanitizePlainText(deep)).not.toMatch(/<|onerror/);
    expect(htmlToExcerpt(deep, 40)).toBe('alert(1) hi & bye');
  });

  it('ordinary content is sanitized as before', () => {
    expect(sanitizeContentHtml('<p>Hi <script>x</script><a href="javascript:x" onclick="y">l</a></p>')).toBe('<p>Hi <a rel="nofollow noopener noreferrer">l</a></p>');
  });
});

describe('htmlStartWithin', () => {
  it('cuts before the tag that passes the tags or the nesting, closing tags counted, in linear time', () => {
    expect(htmlStartWithin('<p>a</p><p>b</p>', { tags: 10, depth: 10 })).toBe('<p>a</p><p>b</p>');
    expect(htmlStartWithin('<p>a</p><p>b</p>', { tags: 3, depth: 10 })).toBe('<p>a</p><p>b');
    expect(htmlStartWithin('<i><b><u>x</u></b></i>', { tags: 100, depth: 2 })).toBe('<i><b>');
    const t0 = performance.now();
    const hostile = '<div>'.repeat(100_000) + '</b>'.repeat(150_000);
    expect(htmlStartWithin(hostile, { tags: 20_000, depth: 400 })).toBe('<div>'.repeat(400));
    expect(htmlStartWithin('</b>'.repeat(250_000), { tags: 20_000, depth: 400 }).length).toBe(80_000);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
