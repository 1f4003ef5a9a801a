// The poll builder's draft: what it sends to posts.create, and reading back whatever storage holds.
import { describe, expect, it } from 'vitest';
import { memoryLocalStorage } from '../test-support';
import { EMPTY_POLL, pollInput, readPollDraft } from './pollDraft';

const store = memoryLocalStorage();

describe('poll draft', () => {
  it('no poll when it is off; blank options are left out; fewer than two, or repeated, is incomplete', () => {
    expect(pollInput(EMPTY_POLL)).toBeNull();
    const on = { ...EMPTY_POLL, on: true };
    expect(pollInput({ ...on, options: [' Tea ', '', 'Coffee'] })).toEqual({ options: ['Tea', 'Coffee'], multiple: false, durationSeconds: 86_400, hideTotals: false });
    expect(pollInput({ ...on, options: ['Tea', ' '] })).toBe('incomplete');
    expect(pollInput({ ...on, options: ['Tea', 'Tea '] })).toBe('incomplete');
  });

  it('reads back a kept draft, and anything unreadable as the empty one', () => {
    store.set('tern.compose.poll.v1', JSON.stringify({ on: true, options: ['a', 'b', 'c', 4], multiple: true, durationSeconds: 300, hideTotals: true }));
    expect(readPollDraft()).toEqual({ on: true, options: ['a', 'b', 'c'], multiple: true, durationSeconds: 300, hideTotals: true });
    store.set('tern.compose.poll.v1', '{not json');
    expect(readPollDraft()).toEqual(EMPTY_POLL);
    store.set('tern.compose.poll.v1', JSON.stringify({ on: true, options: ['only'] }));
    expect(readPollDraft().options).toEqual(['only', '']);
  });
});
