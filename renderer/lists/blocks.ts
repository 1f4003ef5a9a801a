// A long feed drawn in blocks of posts (UX.md: long lists stay smooth). Each block is a box
// with `content-visibility: auto`, so Chromium lays out and paints only the blocks near the
// screen; the others keep their posts in the page (found by find-in-page and screen readers,
// focusable by j/k, their state kept) and stand in at the height they last had. One block per
// 20 posts rather than one per post: Chromium checks each such box against the screen at every
// frame, and 2,000 of them cost more than they saved (measured).
//
// A block keeps its posts while the list changes: posts put in front (a refresh) start a block
// of their own, a page loaded at the end fills the last block and then starts new ones, a post
// removed leaves its block. Were blocks cut every 20 posts by position, three new posts at the
// top would move every post to another block and React would draw the whole list again.

export const BLOCK_SIZE = 20;

export interface Block<T> {
  id: number;
  items: T[];
}

/** What a list remembers of its blocks for the session (kept per list, like its items): the
 * block of each post, and each block's last height, the height it stands in at when drawn
 * again after the author comes back (so the scroll position kept for the list points at the
 * same post). */
export interface BlockMemory {
  blockOf: Map<string, number>;
  heights: Map<number, number>;
  nextId: number;
}

const memories = new Map<string, BlockMemory>();

export function blockMemory(listKey: string): BlockMemory {
  let memory = memories.get(listKey);
  if (!memory) {
    memory = { blockOf: new Map(), heights: new Map(), nextId: 1 };
    memories.set(listKey, memory);
  }
  return memory;
}

export function forgetBlocks(listKey: string): void {
  memories.delete(listKey);
}

/** The items in blocks, in their order. An item keeps the block it was in while that block is
 * still together; a new item (or one moved away from its block) joins the block before it while
 * that has room, else starts one. */
export function blocksOf<T>(items: readonly T[], keyOf: (item: T) => string, memory: BlockMemory, size = BLOCK_SIZE): Block<T>[] {
  const blocks: Block<T>[] = [];
  const started = new Set<number>();
  for (const item of items) {
    const key = keyOf(item);
    const last = blocks.at(-1);
    const id = memory.blockOf.get(key);
    if (id !== undefined && last?.id === id) {
      last.items.push(item);
    } else if (id !== undefined && !started.has(id)) {
      blocks.push({ id, items: [item] });
      started.add(id);
    } else if (last && last.items.length < size) {
      last.items.push(item);
      memory.blockOf.set(key, last.id);
    } else {
      const fresh = memory.nextId++;
      memory.blockOf.set(key, fresh);
      blocks.push({ id: fresh, items: [item] });
      started.add(fresh);
    }
  }
  return blocks;
}
