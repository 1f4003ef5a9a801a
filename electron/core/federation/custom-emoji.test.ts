import { describe, expect, it } from 'vitest';
import { customEmojisOf } from './custom-emoji';
import { verifyProxyPath } from '../media/paths';

/** The remote URL behind a proxy path (the path must be one Tern signed). */
const behind = (src: string) => {
  const [, , , sig, payload] = src.split('/');
  return verifyProxyPath(sig!, payload!);
};

describe('custom emoji of a tag list', () => {
  it("reads Mastodon's Emoji (an Image icon), Misskey's (with id and updated) and Iceshrimp.NET's (named without colons)", () => {
    // Shapes: Mastodon's app/serializers/activitypub/emoji_serializer.rb, Misskey's
    // ApRendererService.renderEmoji, Iceshrimp.NET's ASEmoji (name without the colons).
    const emojis = customEmojisOf([
      { id: 'https://m.example/emojis/3', type: 'Emoji', name: ':kelp:', updated: '2024-01-01T00:00:00Z', icon: { type: 'Image', mediaType: 'image/png', url: 'https://m.example/e/kelp.png' } },
      { type: 'Emoji', name: ':tide_pool:', id: 'https://k.example/emojis/tide_pool', icon: { type: 'Image', mediaType: 'image/webp', url: 'https://k.example/files/tide.webp' } },
      { type: 'Emoji', name: 'shell-2', icon: { type: 'Image', url: 'https://i.example/e/shell.gif' } },
      { type: 'Mention', name: '@a@m.example', href: 'https://m.example/users/a' },
    ]);
    expect(emojis.map((e) => [e.shortcode, e.url])).toEqual([
      ['kelp', 'https://m.example/e/kelp.png'],
      ['tide_pool', 'https://k.example/files/tide.webp'],
      ['shell-2', 'https://i.example/e/shell.gif'],
    ]);
    // What Tern's pages load is its own proxy path, signed, for that same picture.
    for (const e of emojis) {
      expect(e.src).toMatch(/^\/media\/proxy\//);
      expect(behind(e.src)).toBe(e.url);
    }
  });

  it('takes a tag given as one object, and an icon given as a bare IRI or a list', () => {
    expect(customEmojisOf({ type: 'Emoji', name: ':a:', icon: 'https://x.example/a.png' }).map((e) => e.url)).toEqual(['https://x.example/a.png']);
    expect(customEmojisOf([{ type: ['Emoji'], name: ':b:', icon: [{ type: 'Image', url: 'https://x.example/b.png' }] }]).map((e) => e.url)).toEqual(['https://x.example/b.png']);
  });

  it('leaves out what cannot be shown safely: odd shortcodes, non-http pictures, no picture, repeats', () => {
    const emojis = customEmojisOf([
      { type: 'Emoji', name: ':has space:', icon: { url: 'https://x.example/1.png' } },
      { type: 'Emoji', name: ':<b>:', icon: { url: 'https://x.example/2.png' } },
      { type: 'Emoji', name: '::', icon: { url: 'https://x.example/3.png' } },
      { type: 'Emoji', name: `:${'a'.repeat(65)}:`, icon: { url: 'https://x.example/4.png' } },
      { type: 'Emoji', name: ':js:', icon: { url: 'javascript:alert(1)' } },
      { type: 'Emoji', name: ':data:', icon: { url: 'data:image/png;base64,AAAA' } },
      { type: 'Emoji', name: ':none:' },
      { type: 'Emoji', name: ':twice:', icon: { url: 'https://x.example/first.png' } },
      { type: 'Emoji', name: ':twice:', icon: { url: 'https://x.example/second.png' } },
      { type: 'Emoji', icon: { url: 'https://x.example/nameless.png' } },
    ]);
    expect(emojis.map((e) => [e.shortcode, e.url])).toEqual([['twice', 'https://x.example/first.png']]);
  });

  it('keeps at most 64', () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ type: 'Emoji', name: `:e${i}:`, icon: { url: `https://x.example/${i}.png` } }));
    expect(customEmojisOf(many)).toHaveLength(64);
  });
});
