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

/** The items in blocks, in their order. A block keeps its longest unbroken run of the items it
 * had (a post pinned out of it, or moved to the top, leaves it; the rest stay). The other items
 * (new ones, those moved away) are loose: they fill the block before them while it has room,
 * then go in front of the block after them if all fit there, else start blocks of their own. */
export function blocksOf<T>(items: readonly T[], keyOf: (item: T) => string, memory: BlockMemory, size = BLOCK_SIZE): Block<T>[] {
  // Runs of items remembered in one block (id undefined: not in any).
  const runs: { id: number | undefined; items: T[] }[] = [];
  for (const item of items) {
    const id = memory.blockOf.get(keyOf(item));
    const last = runs.at(-1);
    if (last && last.id === id) last.items.push(item);
    else runs.push({ id, items: [item] });
  }
  const longest = new Map<number, { id: number | undefined; items: T[] }>();
  for (const run of runs) {
    if (run.id === undefined) continue;
    const best = longest.get(run.id);
    if (!best || run.items.length > best.items.length) longest.set(run.id, run);
  }
  // Kept runs, with the loose items between them merged.
  const parts: { kept: boolean; id: number | undefined; items: T[] }[] = [];
  for (const run of runs) {
    const kept = run.id !== undefined && longest.get(run.id) === run;
    const last = parts.at(-1);
    if (!kept && last && !last.kept) last.items.push(...run.items);
    else parts.push({ kept, id: run.id, items: [...run.items] });
  }
  const blocks: Block<T>[] = [];
  const join = (block: Block<T>, loose: T[], where: 'end' | 'front') => {
    for (const item of loose) memory.blockOf.set(keyOf(item), block.id);
    if (where === 'end') block.items.push(...loose);
    else block.items.unshift(...loose);
  };
  for (const [i, part] of parts.entries()) {
    if (part.kept) {
      blocks.push({ id: part.id!, items: part.items });
      continue;
    }
    let loose = part.items;
    const before = blocks.at(-1);
    if (before && before.items.length < size) {
      const room = size - before.items.length;
      join(before, loose.slice(0, room), 'end');
      loose = loose.slice(room);
    }
    const after = parts[i + 1];
    if (loose.length > 0 && after && after.items.length + loose.length <= size) {
      // Joined below, when the kept run after is made a block (its items are put after these).
      for (const item of loose) memory.blockOf.set(keyOf(item), after.id!);
      after.items.unshift(...loose);
      loose = [];
    }
    for (let at = 0; at < loose.length; at += size) {
      const block = { id: memory.nextId++, items: [] as T[] };
      join(block, loose.slice(at, at + size), 'end');
      blocks.push(block);
    }
  }
  return blocks;
}
