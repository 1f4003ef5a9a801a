// A long feed drawn in blocks of posts (UX.md: long lists stay smooth). Each block is a box
// with `content-visibility: auto`, so Chromium lays out and paints only the blocks near the
// screen; the others keep their posts in the page (found by find-in-page, focusable by j/k,
// their state kept) and stand in at the height they last had. Chromium leaves them out of its
// accessibility tree until they come near the screen (checked over CDP), as a windowed list
// would. One block per 20 posts rather than one per post: Chromium checks each such box against
// the screen at every frame, and 2,000 of them cost more than they saved (measured). A list of
// more than 400 posts also lets go of the posts of blocks far from the screen (posts/PostList.tsx
// KEEP_ALL_POSTS): such a block stands empty at its last height until it comes near again.
//
// A block keeps its posts while the list changes: posts put in front (a refresh) go in a block
// in front, a page loaded at the end fills the last block and then starts new ones, a post
// removed leaves its block, a post moved away (pinned) leaves the others where they were. Were
// blocks cut every 20 posts by position, three new posts at the top would move every post to
// another block and React would draw the whole list again, closing what the author had opened.

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

interface Run<T> {
  /** The block its items were in (undefined: new, in none). */
  id: number | undefined;
  items: T[];
}

/** Consecutive items remembered in one block. */
function runsOf<T>(items: readonly T[], blockOf: (item: T) => number | undefined): Run<T>[] {
  const runs: Run<T>[] = [];
  for (const item of items) {
    const id = blockOf(item);
    const last = runs.at(-1);
    if (last && last.id === id) last.items.push(item);
    else runs.push({ id, items: [item] });
  }
  return runs;
}

/** The runs, with neighbours of the same block made one. */
function joined<T>(runs: Run<T>[]): Run<T>[] {
  const out: Run<T>[] = [];
  for (const run of runs) {
    const last = out.at(-1);
    if (last && last.id === run.id) last.items.push(...run.items);
    else out.push({ id: run.id, items: [...run.items] });
  }
  return out;
}

/** A block split in two or more runs by a few items put between them (a post unpinned back
 * among its old neighbours, from a block of its own) takes those items in, when they are fewer
 * than its items outside its longest run (which would leave it otherwise) and the block stays
 * within `size`: the fewest posts change blocks. */
function closeSplits<T>(runs: Run<T>[], size: number): Run<T>[] {
  for (let pass = 0; pass < 8; pass++) {
    let changed = false;
    const ids = new Set(runs.flatMap((run) => (run.id === undefined ? [] : [run.id])));
    for (const id of ids) {
      const at = runs.flatMap((run, i) => (run.id === id ? [i] : []));
      if (at.length < 2) continue;
      const own = at.reduce((n, i) => n + runs[i]!.items.length, 0);
      const longest = Math.max(...at.map((i) => runs[i]!.items.length));
      const between = runs.slice(at[0]! + 1, at.at(-1)).filter((run) => run.id !== id);
      const interlopers = between.reduce((n, run) => n + run.items.length, 0);
      if (interlopers <= own - longest && own + interlopers <= size) {
        for (const run of between) run.id = id;
        changed = true;
      }
    }
    if (!changed) break;
    runs = joined(runs);
  }
  return runs;
}

/** The items in blocks, in their order. A block keeps its longest unbroken run of the items it
 * had, up to `size` (a post pinned out of it, or moved to the top, leaves it; the rest stay),
 * and takes back a few items put between its runs (closeSplits). The other items (new ones,
 * those moved away) are loose: they fill the block before them while it has room, then go in
 * front of the block after them if all fit there, else start blocks of their own. The memory
 * is left holding just these items and blocks. */
export function blocksOf<T>(items: readonly T[], keyOf: (item: T) => string, memory: BlockMemory, size = BLOCK_SIZE): Block<T>[] {
  const runs = closeSplits(
    runsOf(items, (item) => memory.blockOf.get(keyOf(item))),
    size,
  );
  const longest = new Map<number, Run<T>>();
  for (const run of runs) {
    if (run.id === undefined) continue;
    const best = longest.get(run.id);
    if (!best || run.items.length > best.items.length) longest.set(run.id, run);
  }
  // Kept runs (at most `size` of their items), with the loose items between them merged.
  const parts: { kept: boolean; id: number | undefined; items: T[] }[] = [];
  const loose = (items: T[]) => {
    const last = parts.at(-1);
    if (last && !last.kept) last.items.push(...items);
    else parts.push({ kept: false, id: undefined, items: [...items] });
  };
  for (const run of runs) {
    if (run.id !== undefined && longest.get(run.id) === run) {
      parts.push({ kept: true, id: run.id, items: run.items.slice(0, size) });
      if (run.items.length > size) loose(run.items.slice(size));
    } else {
      loose(run.items);
    }
  }
  const blocks: Block<T>[] = [];
  for (const [i, part] of parts.entries()) {
    if (part.kept) {
      blocks.push({ id: part.id!, items: part.items });
      continue;
    }
    let rest = part.items;
    const before = blocks.at(-1);
    if (before && before.items.length < size) {
      const room = size - before.items.length;
      before.items.push(...rest.slice(0, room));
      rest = rest.slice(room);
    }
    const after = parts[i + 1];
    if (rest.length > 0 && after && after.items.length + rest.length <= size) {
      after.items.unshift(...rest);
      rest = [];
    }
    for (let at = 0; at < rest.length; at += size) blocks.push({ id: memory.nextId++, items: rest.slice(at, at + size) });
  }
  memory.blockOf.clear();
  for (const block of blocks) for (const item of block.items) memory.blockOf.set(keyOf(item), block.id);
  const ids = new Set(blocks.map((block) => block.id));
  for (const id of memory.heights.keys()) if (!ids.has(id)) memory.heights.delete(id);
  return blocks;
}
