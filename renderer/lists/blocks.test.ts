// Blocks keep their posts while the list changes (lists/blocks.ts): a refresh, a page loaded at
// the end, a post removed or moved. In Chromium: e2e/feed-blocks.spec.ts.
import { describe, expect, it } from 'vitest';
import { blockMemory, blocksOf, forgetBlocks, type BlockMemory } from './blocks';

const key = (n: number) => String(n);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const fresh = (): BlockMemory => ({ blockOf: new Map(), heights: new Map(), nextId: 1 });
const shape = (items: number[], memory: BlockMemory, size = 4) => blocksOf(items, key, memory, size).map((b) => [b.id, b.items]);

describe('blocksOf', () => {
  it('cuts a first list into blocks of the size, in order', () => {
    expect(shape(range(1, 10), fresh())).toEqual([
      [1, [1, 2, 3, 4]],
      [2, [5, 6, 7, 8]],
      [3, [9, 10]],
    ]);
  });

  it('puts items in front in a block of their own and leaves the others where they were', () => {
    const memory = fresh();
    shape(range(1, 8), memory);
    expect(shape([-2, -1, ...range(1, 8)], memory)).toEqual([
      [3, [-2, -1]],
      [1, [1, 2, 3, 4]],
      [2, [5, 6, 7, 8]],
    ]);
    // A second refresh puts its post in front of the first one's, which has room.
    expect(shape([-3, -2, -1, ...range(1, 8)], memory)).toEqual([
      [3, [-3, -2, -1]],
      [1, [1, 2, 3, 4]],
      [2, [5, 6, 7, 8]],
    ]);
  });

  it('fills the last block with a page loaded at the end, then starts new ones', () => {
    const memory = fresh();
    shape(range(1, 6), memory);
    expect(shape(range(1, 13), memory)).toEqual([
      [1, [1, 2, 3, 4]],
      [2, [5, 6, 7, 8]],
      [3, [9, 10, 11, 12]],
      [4, [13]],
    ]);
  });

  it('keeps a block when one of its items is removed, and drops a block left empty', () => {
    const memory = fresh();
    shape(range(1, 8), memory);
    expect(shape([1, 3, 4, 5, 6, 7, 8], memory)).toEqual([
      [1, [1, 3, 4]],
      [2, [5, 6, 7, 8]],
    ]);
    expect(shape([5, 6, 7, 8], memory)).toEqual([[2, [5, 6, 7, 8]]]);
  });

  it('a post pinned to the top leaves its block; the rest of the block stays together', () => {
    const memory = fresh();
    shape(range(1, 8), memory);
    expect(shape([5, 1, 2, 3, 4, 6, 7, 8], memory)).toEqual([
      [3, [5]],
      [1, [1, 2, 3, 4]],
      [2, [6, 7, 8]],
    ]);
    // Unpinned, it goes back among them in the block it has: nothing is drawn again.
    expect(shape(range(1, 8), memory)).toEqual([
      [1, [1, 2, 3, 4]],
      [3, [5]],
      [2, [6, 7, 8]],
    ]);
  });

  it('a block keeps its longest run; a moved item joins the block before it, and no block is split in two', () => {
    const memory = fresh();
    shape(range(1, 8), memory);
    // 2 moved after 6: block 1 keeps 3 and 4, 1 goes in front of them, 2 joins block 2.
    const blocks = blocksOf([1, 3, 4, 5, 6, 2, 7, 8], key, memory, 4);
    expect(blocks.map((b) => [b.id, b.items])).toEqual([
      [1, [1, 3, 4]],
      [2, [5, 6, 2, 7]],
      [3, [8]],
    ]);
    expect(new Set(blocks.map((b) => b.id)).size).toBe(blocks.length);
  });

  it('a moved item starts a new block when the one before it is full', () => {
    const memory = fresh();
    shape(range(1, 8), memory);
    expect(shape([2, 3, 4, 5, 6, 7, 8, 1], memory)).toEqual([
      [1, [2, 3, 4]],
      [2, [5, 6, 7, 8]],
      [3, [1]],
    ]);
  });

  it('is kept per list for the session, and forgotten on request', () => {
    const stream = blockMemory('test-stream');
    expect(blockMemory('test-stream')).toBe(stream);
    expect(blockMemory('test-profile')).not.toBe(stream);
    blocksOf(range(1, 3), key, stream);
    forgetBlocks('test-stream');
    expect(blockMemory('test-stream').blockOf.size).toBe(0);
  });
});
