// linkValues finds what matchAll finds, without trying each `<` that has no `>` after it.
import { describe, expect, it } from 'vitest';
import { linkValues } from './link-header';

const VALUE = /<([^>]*)>((?:\s*;\s*[^;,=]+(?:=(?:"[^"]*"|[^;,]*))?)*)/;
const all = (header: string) => [...linkValues(header, VALUE)].map((m) => [m.index, ...m]);
const byMatchAll = (header: string) => [...header.matchAll(new RegExp(VALUE, 'g'))].map((m) => [m.index, ...m]);

describe('linkValues', () => {
  it.each([
    '</a>; rel="alternate"; type="application/activity+json", <https://b.example/c>; rel=next',
    '<a<b>; rel=x, <c>',
    'junk <a>;x="<b>; rel=y", <c>;rel=z',
    '<a>; rel=x <b',
    '>>> <a',
    '',
  ])('finds the values matchAll finds in %j', (header) => {
    expect(all(header)).toEqual(byMatchAll(header));
  });

  it('is tried at a `<` only where it matches: a regex that needs more moves on to the next `<`', () => {
    const found = [...linkValues('<a> x, <b>; rel=y', /<([^>]*)>\s*;(.*)$/)].map((m) => m[1]);
    expect(found).toEqual(['b']);
  });
});
