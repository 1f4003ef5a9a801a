import { describe, expect, it } from 'vitest';
import { claimedHost, hostBehindLink } from './link-claims';

describe('link text that names another server than the link opens', () => {
  it('reads a host from text that is a web address, with or without scheme, trimmed or not', () => {
    expect(claimedHost('https://bank.example/login')).toBe('bank.example');
    expect(claimedHost('bank.example/login…')).toBe('bank.example');
    expect(claimedHost('www.Bank.example')).toBe('www.bank.example');
    expect(claimedHost('http://bänk.example/')).toBe('xn--bnk-qla.example');
    expect(claimedHost('https://me@bank.example:8443/a?b#c')).toBe('bank.example');
  });

  it('reads none from words, mentions, tags, sentences, and a bare name with a dot (a file, a version)', () => {
    for (const text of ['the notes', '@ana@mastodon.example', '#birds', 'see bank.example now', 'v1.2', 'report.pdf', 'main.rs#L42', 'README.md?plain=1', 'bank.example', '']) {
      expect(claimedHost(text)).toBeNull();
    }
  });

  it('names the real host only when it differs from the claimed one (www. and subdomains are the same site)', () => {
    expect(hostBehindLink('https://bank.example/login', 'https://evil.example/phish')).toBe('evil.example');
    expect(hostBehindLink('bank.example/login', 'https://bank.example.evil.example/')).toBe('bank.example.evil.example');
    expect(hostBehindLink('https://bank.example/login', 'https://bank.example/login')).toBeNull();
    expect(hostBehindLink('bank.example/login', 'https://www.bank.example/login')).toBeNull();
    expect(hostBehindLink('example.org/post', 'https://blog.example.org/post')).toBeNull();
    expect(hostBehindLink('the notes', 'https://evil.example/')).toBeNull();
    expect(hostBehindLink('https://bank.example/', 'mailto:ana@bank.example')).toBeNull();
  });

  it('sees the text as a reader does: invisible characters, lookalike forms and words around the address change nothing', () => {
    for (const text of [
      'https\u200b://bank.example/login', // a zero-width space
      'https://bank\u00ad.example/login', // a soft hyphen
      'https://bank\uff0eexample/login', // a fullwidth dot
      'bank.example\u2215login', // a division slash
      '(https://bank.example/login)',
      'Log in: https://bank.example/login.',
      'www.bank.example',
    ]) {
      expect(hostBehindLink(text, 'https://evil.example/phish')).toBe('evil.example');
    }
    expect(hostBehindLink('Read https://blog.example/a and more', 'https://blog.example/a')).toBeNull();
  });
});
