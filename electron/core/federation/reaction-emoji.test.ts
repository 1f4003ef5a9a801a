// Which activities are emoji reactions, and with which emoji.
import { describe, expect, it, vi } from 'vitest';
import type { Json } from './ap';
import { reactionEmojiOf } from './reaction-emoji';

const react = (content: unknown, tag?: unknown): Json => ({ type: 'EmojiReact', content, ...(tag === undefined ? {} : { tag }) }) as Json;
const blobcat = (name: string) => ({ type: 'Emoji', name, icon: { type: 'Image', url: 'https://pleroma.example/emoji/blobcat.png' } });

describe('reactionEmojiOf', () => {
  it('one Unicode emoji, with its skin tone, joiners, flag or keycap, is one; the emoji is given as sent', () => {
    for (const emoji of ['🔥', '❤️', '👍🏽', '👩‍👩‍👧', '🏳️‍🌈', '🇧🇷', '1️⃣']) expect(reactionEmojiOf(react(emoji))).toEqual({ emoji, custom: null });
    expect(reactionEmojiOf(react(' 🎉 '))).toEqual({ emoji: '🎉', custom: null });
  });

  it('a :shortcode: is one when its Emoji is tagged (with or without colons), with its picture through the media proxy', () => {
    expect(reactionEmojiOf(react(':blobcat:', [blobcat(':blobcat:')]))).toEqual({
      emoji: ':blobcat:',
      custom: { shortcode: 'blobcat', url: 'https://pleroma.example/emoji/blobcat.png', src: expect.stringMatching(/^\/media\/proxy\//) },
    });
    expect(reactionEmojiOf(react(':blobcat:', blobcat('blobcat')))?.custom?.shortcode).toBe('blobcat');
    // Tagged, but with no picture to show: the shortcode, as text.
    expect(reactionEmojiOf(react(':blobcat:', [{ type: 'Emoji', name: ':blobcat:' }]))).toEqual({ emoji: ':blobcat:', custom: null });
    expect(reactionEmojiOf(react(':blobcat:'))).toBeNull();
    expect(reactionEmojiOf(react(':blobcat:', [blobcat(':other:')]))).toBeNull();
  });

  it('anything else is no reaction: words, two emoji, punctuation, nothing', () => {
    for (const content of ['Claim your prize at scam.example', '🔥🔥', '~', '!!', '', '   ', null, 42, ['🔥']]) expect(reactionEmojiOf(react(content))).toBeNull();
  });

  it('a long content is no reaction, and is not read grapheme by grapheme (a 256 KiB Like in a page of notifications)', () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      expect(reactionEmojiOf({ type: 'Like', content: 'a'.repeat(250_000) } as Json)).toBeNull();
      expect(reactionEmojiOf({ type: 'Like', content: `🔥${' '.repeat(100_000)}` } as Json)).toBeNull();
      expect(segment).not.toHaveBeenCalled();
      // The bound leaves every real emoji a reaction.
      expect(reactionEmojiOf(react('👩🏽‍❤️‍💋‍👨🏻'))?.emoji).toBe('👩🏽‍❤️‍💋‍👨🏻');
    } finally {
      segment.mockRestore();
    }
  });

  it('bidi controls are no part of an emoji: taken out, so none reaches a sentence; alone they are nothing', () => {
    expect(reactionEmojiOf(react('\u202E🔥\u2066\u200F\u061C'))).toEqual({ emoji: '🔥', custom: null });
    expect(reactionEmojiOf(react('\u202E:blobcat:\u202C', [blobcat(':blobcat:')]))?.emoji).toBe(':blobcat:');
    expect(reactionEmojiOf(react('\u202E'.repeat(16)))).toBeNull();
    expect(reactionEmojiOf(react('\u202A\u202B\u202C\u202D\u2067\u2068\u2069\u200E'))).toBeNull();
  });
});
