import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChangeFeed } from './changes';
import { CHANGE_KINDS, parseChangeKinds } from './ipc/changes-contract';

afterEach(() => {
  vi.useRealTimers();
});

describe('the change feed', () => {
  it('tells a burst of changes as one hint, its kinds once each and in a fixed order', () => {
    vi.useFakeTimers();
    const feed = createChangeFeed({ coalesceMs: 250 });
    const hints: string[][] = [];
    feed.subscribe((kinds) => hints.push(kinds));
    for (let i = 0; i < 1_000; i++) feed.tell('notifications', 'timeline');
    feed.tell('sign-ins');
    expect(hints).toEqual([]);
    vi.advanceTimersByTime(249);
    expect(hints).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(hints).toEqual([['timeline', 'notifications', 'sign-ins']]);
    // A later change is a hint of its own.
    feed.tell('deliveries');
    vi.advanceTimersByTime(250);
    expect(hints).toEqual([['timeline', 'notifications', 'sign-ins'], ['deliveries']]);
  });

  it('keeps nothing and sets no timer while nobody listens (an idle laptop is not woken)', () => {
    vi.useFakeTimers();
    const feed = createChangeFeed();
    feed.tell('timeline');
    expect(vi.getTimerCount()).toBe(0);
    const hints: string[][] = [];
    const unsubscribe = feed.subscribe((kinds) => hints.push(kinds));
    vi.advanceTimersByTime(1_000);
    // What changed before anyone listened is not told afterwards.
    expect(hints).toEqual([]);
    unsubscribe();
    feed.tell('previews');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells every listener even when one throws, and says so', () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    const feed = createChangeFeed({ onListenerError: (error) => errors.push(error) });
    const told: string[] = [];
    feed.subscribe(() => {
      throw new Error('broken page');
    });
    feed.subscribe((kinds) => told.push(...kinds));
    feed.tell('status');
    vi.advanceTimersByTime(250);
    expect(told).toEqual(['status']);
    expect(errors).toHaveLength(1);
  });

  it('drops what waits and every listener when closed', () => {
    vi.useFakeTimers();
    const feed = createChangeFeed();
    const hints: string[][] = [];
    feed.subscribe((kinds) => hints.push(kinds));
    feed.tell('timeline');
    feed.close();
    vi.advanceTimersByTime(1_000);
    feed.tell('timeline');
    vi.advanceTimersByTime(1_000);
    expect(hints).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a hint read off the wire', () => {
  it('keeps known kinds only, each once, and refuses what is not a short list', () => {
    expect(parseChangeKinds(['previews', 'timeline', 'previews', 'rm -rf', 3, null])).toEqual(['timeline', 'previews']);
    expect(parseChangeKinds('timeline')).toEqual([]);
    expect(parseChangeKinds({ 0: 'timeline', length: 1 })).toEqual([]);
    expect(parseChangeKinds(Array<string>(100).fill('timeline'))).toEqual([]);
    expect(parseChangeKinds([...CHANGE_KINDS].reverse())).toEqual([...CHANGE_KINDS]);
  });
});
