import { describe, expect, it } from 'vitest';
import type { DeliveryRowView } from '../../electron/core/ipc/author-contract';
import { outcomeOf, waitBefore } from './delivered';

let nextId = 1;
function row(type: string, apId: string, state: DeliveryRowView['state'], extra: Partial<DeliveryRowView> = {}): DeliveryRowView {
  return {
    id: nextId++,
    createdAt: '2026-01-01T00:00:00Z',
    state,
    recipient: 'https://mastodon.example/inbox',
    host: 'mastodon.example',
    activity: { type, apId, label: type },
    tries: 0,
    nextTry: null,
    lastTry: null,
    lastStatus: null,
    lastResponse: null,
    error: null,
    ...extra,
  };
}

describe('outcomeOf', () => {
  it('is delivered when nothing was sent for the post, or every row of the newest Like was', () => {
    expect(outcomeOf([], 'Like')).toEqual({ kind: 'delivered' });
    expect(outcomeOf([row('Like', 'l2', 'sent'), row('Like', 'l1', 'failed')], 'Like')).toEqual({ kind: 'delivered' });
  });

  it('is pending while a row of the newest activity waits, with the soonest next try', () => {
    const rows = [row('Announce', 'a1', 'sent'), row('Announce', 'a1', 'retrying', { nextTry: '2026-01-01T00:05:00Z' }), row('Announce', 'a1', 'queued', { nextTry: '2026-01-01T00:01:00Z' })];
    expect(outcomeOf(rows, 'Announce')).toEqual({ kind: 'pending', nextTry: '2026-01-01T00:01:00Z' });
    // A Like pending says nothing about the boost.
    expect(outcomeOf([row('Like', 'l1', 'queued'), row('Announce', 'a1', 'sent')], 'Announce')).toEqual({ kind: 'delivered' });
  });

  it('is failed with the rows to retry and why when a server was given up on', () => {
    const failed = row('Like', 'l1', 'failed', { error: 'mastodon.example refused the delivery (HTTP 403 Forbidden); Tern stopped trying.' });
    expect(outcomeOf([failed], 'Like')).toEqual({ kind: 'failed', ids: [failed.id], servers: 1, why: failed.error });
  });
});

describe('waitBefore', () => {
  it('asks soon, then less often, and waits for a next try further off', () => {
    expect(waitBefore(0, null, 0)).toBe(1_000);
    expect(waitBefore(2, null, 0)).toBe(4_000);
    expect(waitBefore(10, null, 0)).toBe(30_000);
    expect(waitBefore(0, new Date(120_000).toISOString(), 0)).toBe(120_500);
  });
});
