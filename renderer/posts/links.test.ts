import { describe, expect, it } from 'vitest';
import { externalHref } from './links';

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
