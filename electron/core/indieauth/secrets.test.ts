// The pieces every credential check rests on: PKCE S256 (RFC 7636's own example), the hashes
// stored instead of secrets, scope parsing, which redirect URIs and client ids are acceptable,
// and HTTP Basic client credentials (RFC 6749 §2.3.1).
import { describe, expect, it } from 'vitest';
import { basicCredentials } from '../listener/indieauth-routes';
import { isAcceptableRedirectUri, isIndieAuthClientId, redirectUriAllowed, type ClientInfo } from './clients';
import { knownScopes } from './scopes';
import { constantTimeEqual, hashSecret, matchesHash, randomSecret, verifyPkce } from './secrets';

describe('PKCE', () => {
  it('accepts RFC 7636 Appendix B’s verifier for its challenge', () => {
    expect(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });
  it('refuses another verifier, a verifier used as its own challenge (plain), and a too-short verifier', () => {
    expect(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
    const verifier = 'a'.repeat(43);
    expect(verifyPkce(verifier, verifier)).toBe(false);
    expect(verifyPkce('short', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
  });
});

describe('secrets', () => {
  it('are 256-bit base64url strings, each new; only their hash is compared', () => {
    const [a, b] = [randomSecret(), randomSecret()];
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(matchesHash(a, hashSecret(a))).toBe(true);
    expect(matchesHash(b, hashSecret(a))).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('scopes', () => {
  it('keeps the known scopes once each, in Tern’s order, and drops the rest', () => {
    expect(knownScopes('delete create create bogus "quoted" profile')).toEqual(['profile', 'create', 'delete']);
    expect(knownScopes('read:statuses write:media follow read admin:read')).toEqual(['read', 'write', 'follow']);
    expect(knownScopes(null)).toEqual([]);
  });
});

describe('client identifiers and redirect URIs', () => {
  it.each([
    ['https://app.example/cb', true],
    ['http://127.0.0.1:8080/cb', true],
    ['http://localhost/cb', true],
    ['http://app.example/cb', false],
    ['https://app.example/cb#frag', false],
    ['https://user:pw@app.example/cb', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('redirect URI %s acceptable: %s', (uri, ok) => {
    expect(isAcceptableRedirectUri(uri)).toBe(ok);
  });

  it.each([
    ['https://app.example/', true],
    ['http://app.example/', true],
    // IndieAuth §3.2: no dot segments, read from the string as sent (the URL parser resolves them).
    ['https://app.example/a/../b', false],
    ['https://app.example/a/%2E%2e/b', false],
    ['https://app.example/./b', false],
    ['https://app.example/a..b/', true],
    // The parser drops tabs and newlines: `/.\t./` and `/..\n/` read as `/../`.
    ['https://app.example/a/.\t./b', false],
    ['https://app.example/a/..\n/b', false],
    [' https://app.example/', false],
    ['ftp://app.example/', false],
    ['https://app.example/#x', false],
    ['tern-client-abc', false],
  ])('client_id %s is an IndieAuth URL: %s', (id, ok) => {
    expect(isIndieAuthClientId(id)).toBe(ok);
  });

  const urlClient: ClientInfo = { clientId: 'https://app.example/', name: 'App', url: null, logoUrl: null, registered: false, redirectUris: ['https://other.example/cb'] };
  const registered: ClientInfo = { ...urlClient, clientId: 'tern-client-x', registered: true, redirectUris: ['https://app.example/cb'] };
  it('a URL client may use its own origin or a published URI; a registered one only what it registered, exactly', () => {
    expect(redirectUriAllowed(urlClient, 'https://app.example/anything')).toBe(true);
    expect(redirectUriAllowed(urlClient, 'https://other.example/cb')).toBe(true);
    expect(redirectUriAllowed(urlClient, 'https://other.example/cb2')).toBe(false);
    expect(redirectUriAllowed(urlClient, 'https://app.example.evil/cb')).toBe(false);
    expect(redirectUriAllowed(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriAllowed(registered, 'https://app.example/cb?x=1')).toBe(false);
  });
});

describe('HTTP Basic client credentials', () => {
  it('decodes form-encoded id and secret, and refuses what is not Basic', () => {
    const header = `Basic ${Buffer.from('my+id%3A1:s%C3%A9cret').toString('base64')}`;
    expect(basicCredentials(header)).toEqual({ clientId: 'my id:1', clientSecret: 'sécret' });
    expect(basicCredentials('Bearer abc')).toBeNull();
    expect(basicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeNull();
    expect(basicCredentials(undefined)).toBeNull();
  });
});
