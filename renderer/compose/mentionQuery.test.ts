import { describe, expect, it } from 'vitest';
import { handleFits, insertMention, mentionAt, searchTextOf } from './mentionQuery';

describe('mentionAt', () => {
  it('finds the @name just before the caret, at the start or after a space', () => {
    expect(mentionAt('@be', 3)).toEqual({ start: 0, typed: 'be' });
    expect(mentionAt('Hello @ben@gts.ex', 17)).toEqual({ start: 6, typed: 'ben@gts.ex' });
    expect(mentionAt('(@ben', 5)).toEqual({ start: 1, typed: 'ben' });
  });

  it('ignores an e-mail address, a lone letter, and a mention the caret has left', () => {
    expect(mentionAt('mail ana@example.org', 20)).toBeNull();
    expect(mentionAt('Hello @b', 8)).toBeNull();
    expect(mentionAt('Hello @ben and', 14)).toBeNull();
    expect(mentionAt('Hello @ben and', 10)).toEqual({ start: 6, typed: 'ben' });
  });
});

describe('searchTextOf and handleFits', () => {
  it('searches the parts as words and keeps the handles that start as typed', () => {
    expect(searchTextOf('ben@gts.ex')).toBe('ben gts ex');
    expect(searchTextOf('a_b')).toBe('a b');
    expect(handleFits('@ben@gts.example', 'be')).toBe(true);
    expect(handleFits('@ben@gts.example', 'ben@gts')).toBe(true);
    expect(handleFits('@ben@gts.example', 'ben@mast')).toBe(false);
    expect(handleFits('@rueben@gts.example', 'be')).toBe(false);
  });
});

describe('insertMention', () => {
  it('replaces what was typed with the handle and a space, and puts the caret after it', () => {
    const text = 'Hello @be';
    expect(insertMention(text, mentionAt(text, 9)!, 9, '@ben@gts.example')).toEqual({ text: 'Hello @ben@gts.example ', caret: 23 });
    const middle = 'Hi @be there';
    expect(insertMention(middle, mentionAt(middle, 6)!, 6, '@ben@gts.example')).toEqual({ text: 'Hi @ben@gts.example there', caret: 20 });
  });
});
