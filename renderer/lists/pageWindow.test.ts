// The window of a long paged list: which pages are held, which are let go, and which cursor
// asks again for what was let go (lists/pageWindow.ts). The screen is described in numbers
// (px from the viewport's top), as lists/useListWindow.ts measures it.
import { describe, expect, it } from 'vitest';
import {
  appendPage,
  dropSlot,
  editSlots,
  fillSlot,
  firstPage,
  heldRange,
  itemsOf,
  mergeFirstPage,
  nextStep,
  spacesOf,
  type ScreenView,
  type Slot,
} from './pageWindow';

interface Item {
  id: number;
  liked?: boolean;
}
const idOf = (item: Item) => String(item.id);
const PAGE = 10;
const range = (from: number, to: number): Item[] => Array.from({ length: to - from }, (_, i) => ({ id: from + i }));
/** Tern's answer for the page after `cursor` (an index, as a string), of a list of `total` items. */
const answer = (cursor: string | null, total = 1_000) => {
  const from = cursor === null ? 0 : Number(cursor);
  const to = Math.min(total, from + PAGE);
  return { items: range(from, to), next: to < total ? String(to) : null };
};

/** A list read `pages` pages deep, every page held. */
function read(pages: number): Slot<Item, string>[] {
  const first = answer(null);
  let slots = firstPage<Item, string>(first.items, first.next);
  for (let i = 1; i < pages; i++) {
    const cursor = slots.at(-1)!.next!;
    slots = appendPage(slots, cursor, answer(cursor), idOf);
  }
  return slots;
}

/** The screen with every held page PAGE_PX tall, the viewport `scrolled` px below the first held. */
const PAGE_PX = 1_000;
function screen(slots: Slot<Item, string>[], scrolled: number, extra: Partial<ScreenView> = {}): ScreenView {
  const { lo, hi } = heldRange(slots) ?? { lo: 0, hi: -1 };
  const extents = new Map<number, { top: number; bottom: number }>();
  for (let i = lo; i <= hi; i++) extents.set(i, { top: (i - lo) * PAGE_PX - scrolled, bottom: (i - lo + 1) * PAGE_PX - scrolled });
  return { height: 800, start: -scrolled, end: (hi - lo + 1) * PAGE_PX - scrolled, extents, held: new Set(), direction: 1, ...extra };
}

describe('which pages a long list holds', () => {
  it('holds every page while they are no more than the limit', () => {
    const slots = read(5);
    expect(nextStep(slots, screen(slots, 4_200), 50)).toBeNull();
  });

  it('lets go of the first page, two screens above the viewport, once more than the limit are held; its height becomes the upper spacer', () => {
    const slots = read(8);
    const step = nextStep(slots, screen(slots, 7_200), 50);
    expect(step).toEqual({ drop: 0, height: PAGE_PX });
    const after = dropSlot(slots, 0, PAGE_PX, idOf);
    expect(heldRange(after)).toEqual({ lo: 1, hi: 7 });
    expect(spacesOf(after)).toEqual({ above: PAGE_PX, below: 0 });
    expect(itemsOf(after)[0]).toEqual({ id: 10 });
  });

  it('keeps a page within two screens of the viewport, even beyond the limit', () => {
    const slots = read(3);
    // The first page ends 1,000 px above the viewport: near enough to scroll back to.
    expect(nextStep(slots, screen(slots, 2_000), 20)).toBeNull();
  });

  it('lets go on the side the author scrolls away from: the last page when scrolling up', () => {
    const slots = read(8);
    expect(nextStep(slots, screen(slots, 500, { direction: -1 }), 50)).toEqual({ drop: 7, height: PAGE_PX });
    // Scrolling down, the pages below are kept: the author is going there.
    expect(nextStep(slots, screen(slots, 500, { direction: 1 }), 50)).toBeNull();
  });

  it('never lets go of a page holding the focus or an edit', () => {
    const slots = read(8);
    expect(nextStep(slots, screen(slots, 7_200, { held: new Set([0]) }), 50)).toBeNull();
  });

  it('asks again for the page let go above when the author scrolls back near it, by the cursor that first brought it', () => {
    let slots = read(8);
    slots = dropSlot(dropSlot(slots, 0, PAGE_PX, idOf), 1, PAGE_PX, idOf);
    // The held pages start 300 px above the viewport's top.
    const step = nextStep(slots, screen(slots, 300, { direction: -1 }), 50);
    expect(step).toEqual({ fetch: 1 });
    expect(slots[1]!.cursor).toBe('10');
    const filled = fillSlot(slots, slots[1]!.id, answer('10'), idOf)!;
    expect(heldRange(filled)).toEqual({ lo: 1, hi: 7 });
    expect(itemsOf(filled).map((i) => i.id)).toEqual(range(10, 80).map((i) => i.id));
    expect(spacesOf(filled)).toEqual({ above: PAGE_PX, below: 0 });
    // And then the first page, by the first page's cursor: none.
    expect(nextStep(filled, screen(filled, 300, { direction: -1 }), 100)).toEqual({ fetch: 0 });
    expect(filled[0]!.cursor).toBeNull();
  });

  it('asks again for a page let go below, after the held ones, when scrolling back down', () => {
    let slots = read(8);
    slots = dropSlot(slots, 7, PAGE_PX, idOf);
    expect(spacesOf(slots)).toEqual({ above: 0, below: PAGE_PX });
    // Held pages 0–6 end 500 px below the viewport's bottom: within a screen.
    expect(nextStep(slots, screen(slots, 7_000 - 1_300, { direction: 1 }), 100)).toEqual({ fetch: 7 });
    expect(slots[7]!.cursor).toBe('70');
  });

  it('asks for the page under the viewport when the author jumps far past what is held', () => {
    let slots = read(10);
    for (let i = 0; i < 6; i++) slots = dropSlot(slots, i, PAGE_PX, idOf);
    // Held: pages 6–9; the viewport is back at the top, 6,000 px above them.
    const view = screen(slots, -6_000, { direction: -1 });
    expect(nextStep(slots, view, 100)).toEqual({ jump: 0 });
    // In the middle of the spacer: the page there.
    expect(nextStep(slots, screen(slots, -3_100, { direction: -1 }), 100)).toEqual({ jump: 3 });
    // Not while a held page holds the focus: the pages between come back one by one.
    expect(nextStep(slots, { ...view, held: new Set([7]) }, 100)).toEqual({ fetch: 5 });
  });

  it('does not jump past the ends of the list: far below its last page, or far above its first, nothing is asked for', () => {
    const slots = read(3);
    expect(nextStep(slots, screen(slots, 9_000), 100)).toBeNull();
    expect(nextStep(slots, screen(slots, -5_000), 100)).toBeNull();
  });

  it('fills only a page beside the held ones, so they stay one run', () => {
    let slots = read(6);
    for (let i = 0; i < 4; i++) slots = dropSlot(slots, i, PAGE_PX, idOf);
    expect(fillSlot(slots, slots[1]!.id, answer('10'), idOf)).toBeNull();
    expect(fillSlot(slots, slots[3]!.id, answer('30'), idOf)).not.toBeNull();
  });
});

describe('a page asked for again', () => {
  it('comes back less the items already shown', () => {
    let slots = read(3);
    slots = dropSlot(slots, 0, PAGE_PX, idOf);
    // Item 10 was moved up meanwhile (an edit bumped it): it is shown once, where it is held.
    const filled = fillSlot(slots, slots[0]!.id, { items: [...range(0, 10), { id: 10 }], next: '10' }, idOf)!;
    expect(itemsOf(filled).map((i) => i.id)).toEqual(range(0, 30).map((i) => i.id));
  });

  it('when new posts came into the first page meanwhile, what lay between is asked for too, by the cursor Tern gives now', () => {
    let slots = read(3);
    slots = dropSlot(slots, 0, PAGE_PX, idOf);
    // Five new posts (ids 1000–1004) on top: the first page now ends at item 4.
    const now = { items: [...range(1_000, 1_005), ...range(0, 5)], next: '5' };
    const filled = fillSlot(slots, slots[0]!.id, now, idOf)!;
    expect(filled).toHaveLength(4);
    expect(filled[1]).toMatchObject({ cursor: '5', next: '10', items: null });
    expect(nextStep(filled, screen(filled, 300, { direction: -1 }), 100)).toEqual({ fetch: 1 });
    const whole = fillSlot(filled, filled[1]!.id, answer('5'), idOf)!;
    expect(itemsOf(whole).map((i) => i.id)).toEqual([...range(1_000, 1_005), ...range(0, 30)].map((i) => i.id));
  });

  it('a first page let go keeps its ids, so a look for new posts does not count its posts as new', () => {
    const slots = dropSlot(read(2), 0, PAGE_PX, idOf);
    expect(slots[0]!.ids).toEqual(range(0, 10).map(idOf));
    expect(dropSlot(read(2), 1, PAGE_PX, idOf)[1]!.ids).toBeUndefined();
  });
});

describe('the held pages, edited and reloaded', () => {
  it('an edit keeps each item in its page, and an added item goes into the page of the one before it', () => {
    const slots = dropSlot(read(3), 0, PAGE_PX, idOf);
    const edited = editSlots(slots, (items) => items.filter((i) => i.id !== 12).flatMap((i) => (i.id === 25 ? [{ ...i, liked: true }, { id: 2_000 }] : [i])), idOf);
    expect(edited[0]!.items).toBeNull();
    expect(edited[1]!.items!.map((i) => i.id)).toEqual([10, 11, 13, 14, 15, 16, 17, 18, 19]);
    expect(edited[2]!.items!.slice(5, 8)).toEqual([{ id: 25, liked: true }, { id: 2_000 }, { id: 26 }]);
  });

  it('a reload puts new items in front of the first page and takes them out of the later pages', () => {
    const merged = mergeFirstPage(read(2), { items: [{ id: 999 }, ...range(0, 9), { id: 15 }], next: '9' }, idOf);
    expect(merged[0]!.items!.map((i) => i.id)).toEqual([999, ...range(0, 9).map((i) => i.id), 15, 9]);
    expect(merged[1]!.items!.map((i) => i.id)).toEqual([10, 11, 12, 13, 14, 16, 17, 18, 19]);
    // The first page's cursor for what follows is the one it had: the second page is there.
    expect(merged[0]!.next).toBe('10');
  });
});
