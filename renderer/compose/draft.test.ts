// The kept draft: written as it is, read back whatever the storage holds.
import { describe, expect, it } from 'vitest';
import { memoryLocalStorage } from '../test-support';
import { EMPTY_DRAFT, readDraft, writeDraft, type Draft } from './draft';

const store = memoryLocalStorage();

describe('the kept draft', () => {
  it('reads back what was written, reply and content warning included', () => {
    const draft: Draft = { text: 'Hello **world**', contentWarning: 'cw', hasContentWarning: true, visibility: 'FOLLOWERS_ONLY', inReplyTo: 'https://x.example/1', quote: null };
    writeDraft(draft);
    expect(readDraft()).toEqual(draft);
  });

  it('keeps the post being quoted, even before a word is written', () => {
    writeDraft({ ...EMPTY_DRAFT, quote: 'https://x.example/2' });
    expect(readDraft()).toEqual({ ...EMPTY_DRAFT, quote: 'https://x.example/2' });
  });

  it('forgets an empty draft instead of keeping it', () => {
    writeDraft({ ...EMPTY_DRAFT, text: 'x' });
    writeDraft(EMPTY_DRAFT);
    expect(store.size).toBe(0);
  });

  it('reads a damaged or foreign value as an empty draft, keeping what is usable', () => {
    store.set('tern.compose.draft.v1', '{not json');
    expect(readDraft()).toEqual(EMPTY_DRAFT);
    store.set('tern.compose.draft.v1', JSON.stringify({ text: 'kept', visibility: 'EVERYONE', inReplyTo: 42 }));
    expect(readDraft()).toEqual({ ...EMPTY_DRAFT, text: 'kept' });
  });
});
