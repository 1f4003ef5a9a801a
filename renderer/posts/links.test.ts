import { describe, expect, it } from 'vitest';
import { externalHref, previewSource } from './links';

describe('externalHref (link cards and links to originals)', () => {
  it('keeps http(s) URLs', () => {
    expect(externalHref('https://video.example/w/1')).toBe('https://video.example/w/1');
    expect(externalHref('http://blog.example/post')).toBe('http://blog.example/post');
  });
  it('gives no href for any other scheme, a relative or an empty URL', () => {
    for (const url of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'app://tern/index.html', 'tag:x.example,2024:1', '/local', '']) {
      expect(externalHref(url)).toBeUndefined();
    }
  });
});

describe('previewSource (where a link preview says it leads)', () => {
  it('always names the host the link leads to, whatever the page calls itself', () => {
    expect(previewSource('https://evil.example/phish', 'accounts.google.com')).toEqual({ site: null, host: 'evil.example' });
    expect(previewSource('https://evil.example/phish', 'WWW.Accounts.Google.com.')).toEqual({ site: null, host: 'evil.example' });
    expect(previewSource('https://news.example/a', null)).toEqual({ site: null, host: 'news.example' });
  });
  it('shows a site name that says something more beside the host; one that is the host, once', () => {
    expect(previewSource('https://www.birds.example/w/1', 'Birds Weekly')).toEqual({ site: 'Birds Weekly', host: 'birds.example' });
    expect(previewSource('https://www.birds.example/w/1', 'birds.example')).toEqual({ site: null, host: 'birds.example' });
    expect(previewSource('http://127.0.0.1:8080/x', '  ')).toEqual({ site: null, host: '127.0.0.1:8080' });
  });
});
