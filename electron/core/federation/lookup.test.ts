// The ActivityPub alternate of a fetched web page: found in its <link>s by a regex, in time
// linear in the page, which is remote input read on the main thread (up to the client's 2 MiB).
import { describe, expect, it } from 'vitest';
import { alternateLink } from './lookup';

const AP_LINK = '<link rel="alternate" type="application/activity+json" href="https://a.example/users/a?x=1&amp;y=2">';

describe('alternateLink', () => {
  it('finds the first <link rel=alternate> to an ActivityPub type, with &amp; decoded', () => {
    const page = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed">${AP_LINK}</head><p>hi</p></html>`;
    expect(alternateLink(page)).toBe('https://a.example/users/a?x=1&y=2');
    expect(alternateLink('<link rel=alternate type=application/ld+json href="/ld" title="a<b">')).toBe('/ld');
    expect(alternateLink('<p>no links</p>')).toBeNull();
    expect(alternateLink(AP_LINK.slice(0, -1))).toBeNull();
  });

  // Each `<link` with no `>` after it used to be scanned to the end of the page: 0.8 s for
  // 64 KiB, 4 s for 128 KiB. Now 128 KiB takes well under a millisecond and 2 MiB a few; the
  // 1 s bound leaves a wide margin for a busy machine.
  it.each([
    ['128 KiB', 128 * 1024],
    ['2 MiB (the client’s body cap)', 2 * 1024 * 1024],
  ])('%s of `<link<link…` with no `>` has no alternate, found in linear time', (_, size) => {
    const hostile = '<link'.repeat(size / 5);
    const started = performance.now();
    expect(alternateLink(hostile)).toBeNull();
    expect(alternateLink(`${AP_LINK}${hostile}`)).toBe('https://a.example/users/a?x=1&y=2');
    // A tag runs to the first `>` after its `<`: here the first `<link` holds the whole link.
    expect(alternateLink(`${hostile}${AP_LINK}`)).toBe('https://a.example/users/a?x=1&y=2');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
