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

  it('pinning a post out of a full block and unpinning it moves no other post', () => {
    const memory = fresh();
    const ids = (items: number[]) => new Map(blocksOf(items, key, memory, 20).flatMap((b) => b.items.map((n) => [n, b.id] as const)));
    const start = ids(range(1, 25));
    const pinned = ids([22, ...range(1, 21), ...range(23, 25)]);
    const unpinned = ids(range(1, 25));
    for (const n of range(1, 25)) {
      if (n === 22) continue;
      expect(pinned.get(n), `post ${n} pinned`).toBe(start.get(n));
      expect(unpinned.get(n), `post ${n} unpinned`).toBe(start.get(n));
    }
  });

  it('keeps every item once, in order, in blocks of at most the size, whatever the changes', () => {
    // Random prepends, appends, removals, moves and items coming back, against one memory.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (const size of [1, 2, 3, 5, 20]) {
      const memory = fresh();
      let items = range(1, 30);
      let next = 31;
      const gone: number[] = [];
      for (let step = 0; step < 300; step++) {
        const op = random(5);
        if (op === 0) items = [next++, ...items];
        else if (op === 1) items = [...items, next++];
        else if (op === 2 && items.length > 1) gone.push(...items.splice(random(items.length), 1));
        else if (op === 3 && items.length > 1) {
          const [moved] = items.splice(random(items.length), 1);
          items.splice(random(items.length + 1), 0, moved!);
        } else if (gone.length > 0) items.splice(random(items.length + 1), 0, gone.pop()!);
        const blocks = blocksOf(items, key, memory, size);
        expect(blocks.flatMap((b) => b.items)).toEqual(items);
        expect(new Set(blocks.map((b) => b.id)).size).toBe(blocks.length);
        expect(blocks.every((b) => b.items.length >= 1 && b.items.length <= size)).toBe(true);
        expect(memory.blockOf.size).toBe(items.length);
      }
    }
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
