// Which post a post quotes, as each family of servers writes it (shapes from the real-payload
// corpus, test/fixtures/real: Mastodon 4.5 / Hollo `quote`, Misskey `quoteUrl` and
// `_misskey_quote`, Fedibird `quoteUri`, Iceshrimp's FEP-e232 Link tag; BookWyrm's `quote`,
// which is a Quotation's text, not a post).
import { describe, expect, it } from 'vitest';
import { quotedIdOf } from './quotes';

const Q = 'https://mastodon.example/users/heron/statuses/1';

describe('quotedIdOf', () => {
  it('reads every family’s field, in order, as an IRI or an object', () => {
    expect(quotedIdOf({ quote: Q })).toBe(Q);
    expect(quotedIdOf({ quote: { id: Q, type: 'Note' } })).toBe(Q);
    expect(quotedIdOf({ quoteUrl: Q })).toBe(Q);
    expect(quotedIdOf({ quoteUri: Q })).toBe(Q);
    expect(quotedIdOf({ _misskey_quote: Q })).toBe(Q);
    expect(quotedIdOf({ quote: Q, quoteUrl: 'https://other.example/2' })).toBe(Q);
  });

  it('reads a FEP-e232 Link tag whose rel names a quote', () => {
    const tag = [
      { type: 'Mention', href: 'https://misskey.example/users/a' },
      { type: 'Link', mediaType: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"', rel: 'https://misskey-hub.net/ns#_misskey_quote', href: Q, name: `RE: ${Q}` },
    ];
    expect(quotedIdOf({ tag })).toBe(Q);
    expect(quotedIdOf({ tag: { type: 'Link', rel: ['https://misskey-hub.net/ns#_misskey_quote'], href: Q } })).toBe(Q);
    expect(quotedIdOf({ tag: [{ type: 'Link', rel: 'alternate', href: Q }] })).toBeNull();
  });

  it('takes only http(s) ids: BookWyrm’s quoted text, javascript: and garbage are no quote', () => {
    expect(quotedIdOf({ quote: 'quote body' })).toBeNull();
    expect(quotedIdOf({ quoteUrl: 'javascript:alert(1)' })).toBeNull();
    expect(quotedIdOf({ quoteUri: 42, _misskey_quote: ['x'] })).toBeNull();
    expect(quotedIdOf({})).toBeNull();
  });
});
