// The window of a long paged list: which of its pages are held (in memory and drawn) and which
// were let go. A page let go keeps only the cursor that asked for it and the height it took on
// screen, so a spacer holds its place and the same paging call brings it back when the author
// scrolls near it again. Pages are cut by keyset cursors (max_id-like: "after this item"), so
// asking again with a page's cursor gives the same page, whatever arrived at the top since.
// Pure functions over the pages, so that what is kept and what is asked again can be tested
// without a DOM; lists/useListWindow.ts measures the screen and lists/usePagedList.ts applies.

export interface Slot<T, C> {
  /** Stays with the page while pages are inserted before it, so an answer finds its page. */
  id: number;
  /** Asks for this page again (null: the first page). */
  cursor: C | null;
  /** Where the page after this one starts, as Tern said when this one was read (null: the end). */
  next: C | null;
  /** The items, or null once the page was let go. */
  items: T[] | null;
  /** The height the page took on screen when it was let go (px): its spacer's share. */
  height: number;
  /** A first page let go keeps its ids (a page's worth): new posts are still told from seen ones. */
  ids?: string[];
}

export type Slots<T, C> = readonly Slot<T, C>[];

let lastSlotId = 0;
function slot<T, C>(cursor: C | null, next: C | null, items: T[] | null, height = 0): Slot<T, C> {
  return { id: ++lastSlotId, cursor, next, items, height };
}

/** The cursors are Tern's opaque strings; compared by value. */
export function sameCursor(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The indexes of the first and last held page (held pages are always one run), or null. */
export function heldRange<T, C>(slots: Slots<T, C>): { lo: number; hi: number } | null {
  const lo = slots.findIndex((s) => s.items !== null);
  if (lo < 0) return null;
  let hi = lo;
  while (hi + 1 < slots.length && slots[hi + 1]!.items !== null) hi++;
  return { lo, hi };
}

export function itemsOf<T, C>(slots: Slots<T, C>): T[] {
  return slots.flatMap((s) => s.items ?? []);
}

/** The spacers' heights: the pages let go before the held ones, and after them. */
export function spacesOf<T, C>(slots: Slots<T, C>): { above: number; below: number } {
  const range = heldRange(slots);
  let above = 0;
  let below = 0;
  slots.forEach((s, i) => {
    if (s.items !== null) return;
    if (range === null || i < range.lo) above += s.height;
    else below += s.height;
  });
  return { above, below };
}

export function firstPage<T, C>(items: T[], next: C | null): Slot<T, C>[] {
  return [slot<T, C>(null, next, items)];
}

/** "Load more": the page after the last one, its items not shown yet. */
export function appendPage<T, C>(slots: Slots<T, C>, cursor: C, page: { items: T[]; next: C | null }, idOf: (item: T) => string): Slot<T, C>[] {
  const shown = new Set(itemsOf(slots).map(idOf));
  return [...slots, slot<T, C>(cursor, page.next, page.items.filter((item) => !shown.has(idOf(item))))];
}

/** A reload while the first page is held: new items first, those shown keep their places after. */
export function mergeFirstPage<T, C>(slots: Slots<T, C>, page: { items: T[]; next: C | null }, idOf: (item: T) => string): Slot<T, C>[] {
  const fresh = new Set(page.items.map(idOf));
  return slots.map((s, i) => {
    const rest = s.items?.filter((item) => !fresh.has(idOf(item))) ?? null;
    if (i > 0) return rest === s.items || rest === null ? s : { ...s, items: rest };
    // One page only: "Load more" goes on from what Tern says now, unless more were shown than it sent.
    const next = slots.length === 1 && (s.items?.length ?? 0) <= page.items.length ? page.next : s.next;
    return { ...s, items: [...page.items, ...(rest ?? [])], next };
  });
}

/** Lets go of a page, remembering the height it took (and, for the first page, its ids). */
export function dropSlot<T, C>(slots: Slots<T, C>, index: number, height: number, idOf: (item: T) => string): Slot<T, C>[] {
  return slots.map((s, i) => {
    if (i !== index || s.items === null) return s;
    const dropped: Slot<T, C> = { ...s, items: null, height: Math.max(0, height) };
    if (s.cursor === null) dropped.ids = s.items.map(idOf);
    else delete dropped.ids;
    return dropped;
  });
}

/** A page let go, asked again: its items come back in its place, less those already shown. When
 * Tern's next cursor is not the one it gave before (posts arrived in the first page, or some
 * were deleted), what lay between is not known: a page is put after it, let go, with that
 * cursor, so it is asked for too. Null when the page is no longer one to fill. */
export function fillSlot<T, C>(slots: Slots<T, C>, id: number, page: { items: T[]; next: C | null }, idOf: (item: T) => string): Slot<T, C>[] | null {
  const index = slots.findIndex((s) => s.id === id);
  const target = slots[index];
  if (!target || target.items !== null) return null;
  const range = heldRange(slots);
  // Held pages stay one run: only a page beside them (or any, when none is held) is filled.
  if (range !== null && index !== range.lo - 1 && index !== range.hi + 1) return null;
  const shown = new Set(itemsOf(slots).map(idOf));
  const items = page.items.filter((item) => !shown.has(idOf(item)));
  const filled: Slot<T, C> = { id: target.id, cursor: target.cursor, next: page.next, items, height: 0 };
  const between = page.next !== null && !sameCursor(page.next, target.next) ? [slot<T, C>(page.next, target.next, null)] : [];
  return [...slots.slice(0, index), filled, ...between, ...slots.slice(index + 1)];
}

/** An edit of the shown items (an optimistic like, a post removed), each item kept in its page;
 * an item the edit added goes into the page of the item before it. */
export function editSlots<T, C>(slots: Slots<T, C>, edit: (items: T[]) => T[], idOf: (item: T) => string): Slot<T, C>[] {
  const range = heldRange(slots);
  if (range === null) return [...slots];
  const pageOf = new Map<string, number>();
  slots.forEach((s, i) => s.items?.forEach((item) => pageOf.set(idOf(item), i)));
  const pages = slots.map((s) => (s.items === null ? null : ([] as T[])));
  let current = range.lo;
  for (const item of edit(itemsOf(slots))) {
    current = pageOf.get(idOf(item)) ?? current;
    pages[current]!.push(item);
  }
  return slots.map((s, i) => (s.items === null ? s : { ...s, items: pages[i]! }));
}

/** What the frame measured, in px from the top of the viewport. */
export interface ScreenView {
  /** The viewport's height. */
  height: number;
  /** Where the held items start (the upper spacer's end) and end (the lower spacer's start). */
  start: number;
  end: number;
  /** Top and bottom of each held page on screen, by its index. */
  extents: ReadonlyMap<number, { top: number; bottom: number }>;
  /** Pages holding the focus or an edit: never let go. */
  held: ReadonlySet<number>;
  /** Which way the author last scrolled: 1 down, -1 up, 0 not yet. */
  direction: 1 | -1 | 0;
}

export type Step = { fetch: number } | { drop: number; height: number } | { jump: number } | null;

/** Asks again for pages within a screen of the viewport; lets go of those more than two screens
 * away, once more than `maxItems` are held, on the side the author scrolls away from. */
export function nextStep<T, C>(slots: Slots<T, C>, view: ScreenView, maxItems: number): Step {
  if (slots.length === 0) return null;
  const near = Math.max(view.height, 200);
  const far = 2 * near;
  const range = heldRange(slots);
  // Nothing held (the last jump's page is on its way, or was refused): one spacer ends at `end`.
  if (range === null) return { fetch: slotUnder(slots, 0, slots.length, view.end, view.height, true) };
  const { lo, hi } = range;
  const seen = view.end > -near && view.start < view.height + near;
  // Scrolled far past what is held (the scrollbar dragged, Home, End): the page under the
  // viewport is asked for, rather than each page in between.
  // (Only toward pages let go: past the list's own ends there is nothing to ask for.)
  const upward = view.start >= view.height;
  if (!seen && (upward ? lo > 0 : hi < slots.length - 1) && ![...view.held].some((i) => i >= lo && i <= hi)) {
    const under = upward ? slotUnder(slots, 0, lo, view.start, view.height, true) : slotUnder(slots, hi + 1, slots.length, view.end, view.height);
    return { jump: under };
  }
  const fetchAbove = lo > 0 && view.start > -near ? { fetch: lo - 1 } : null;
  const fetchBelow = hi < slots.length - 1 && view.end < view.height + near ? { fetch: hi + 1 } : null;
  const fetch = view.direction < 0 ? (fetchAbove ?? fetchBelow) : (fetchBelow ?? fetchAbove);
  if (fetch) return fetch;
  const count = slots.slice(lo, hi + 1).reduce((n, s) => n + (s.items?.length ?? 0), 0);
  if (count <= maxItems || lo === hi) return null;
  const sides = view.direction > 0 ? [lo] : view.direction < 0 ? [hi] : [lo, hi];
  for (const side of sides) {
    const extent = view.extents.get(side);
    if (!extent || view.held.has(side)) continue;
    const gone = side === lo ? extent.bottom < -far : extent.top > view.height + far;
    if (gone) return { drop: side, height: extent.bottom - extent.top };
  }
  return null;
}

/** The page let go, among slots [from, to), whose spacer share lies under the viewport's middle;
 * `edge` is where that run of spacers ends (upward: its bottom) or starts (downward: its top). */
function slotUnder<T, C>(slots: Slots<T, C>, from: number, to: number, edge: number, height: number, upward = false): number {
  const middle = height / 2;
  if (upward) {
    let bottom = edge;
    for (let i = to - 1; i >= from; i--) {
      const top = bottom - slots[i]!.height;
      if (top <= middle) return i;
      bottom = top;
    }
    return from;
  }
  let top = edge;
  for (let i = from; i < to; i++) {
    const bottom = top + slots[i]!.height;
    if (bottom > middle) return i;
    top = bottom;
  }
  return to - 1;
}
