// The paged list's answers arriving out of turn: change hints reload a list while the author is
// loading more, marking read or reading a count. These tests run the hook in a small stand-in
// for React's hooks (one component, hooks by call order, effects run after each render), so
// that the answers can be delivered in the orders a busy machine delivers them. The same lists,
// drawn by React in Chromium, are in e2e/.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const slots: unknown[] = [];
let cursor = 0;
let effects: (() => void)[] = [];

vi.mock('react', () => {
  const same = (a: unknown[] | undefined, b: unknown[]) => a !== undefined && a.length === b.length && a.every((d, j) => d === b[j]);
  return {
    useRef: (init: unknown) => {
      const k = cursor++;
      if (!(k in slots)) slots[k] = { current: init };
      return slots[k];
    },
    useReducer: (reduce: (n: number) => number, init: number) => {
      const k = cursor++;
      if (!(k in slots)) slots[k] = init;
      return [slots[k], () => void (slots[k] = reduce(slots[k] as number))];
    },
    useCallback: (fn: unknown, deps: unknown[]) => {
      const k = cursor++;
      const before = slots[k] as [unknown, unknown[]] | undefined;
      if (before && same(before[1], deps)) return before[0];
      slots[k] = [fn, deps];
      return fn;
    },
    useEffect: (fn: () => void, deps: unknown[]) => {
      const k = cursor++;
      if (same(slots[k] as unknown[] | undefined, deps)) return;
      slots[k] = deps;
      effects.push(fn);
    },
  };
});

const { usePagedList } = await import('./usePagedList');

interface Item {
  id: number;
  isNew?: boolean;
}
type PageOf = { items: Item[]; next: number | null };

/** A list whose every page request waits until the test answers it. */
function rig(key: string, maxItems?: number) {
  const asked: { cursor: number | null; answer: (page: PageOf) => void; fail: (err: Error) => void }[] = [];
  const fetchPage = (c: number | null) => new Promise<PageOf>((resolve, reject) => asked.push({ cursor: c, answer: resolve, fail: reject }));
  const render = () => {
    cursor = 0;
    const list = usePagedList<Item, number>(key, 'notifications.list', fetchPage, (item) => String(item.id), maxItems);
    const run = effects;
    effects = [];
    run.forEach((effect) => effect());
    return list;
  };
  return { asked, render };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  slots.length = 0;
  effects = [];
});

describe('a paged list whose answers come out of turn', () => {
  it('a reload during "Load more" frees the button once both have answered', async () => {
    const { asked, render } = rig('load-more');
    render();
    asked.shift()!.answer({ items: [{ id: 3 }, { id: 2 }], next: 2 });
    await settled();
    render().loadMore();
    expect(render().loadingMore).toBe(true);
    render().reload(); // a hint
    asked.shift()!.answer({ items: [{ id: 1 }], next: null }); // "Load more"'s, now stale
    asked.shift()!.answer({ items: [{ id: 4 }, { id: 3 }, { id: 2 }], next: 2 });
    await settled();
    const list = render();
    expect(list.loadingMore).toBe(false);
    expect(list.items.map((i) => i.id)).toEqual([4, 3, 2]);
  });

  it('a count asked before a reload counts nothing once the reload shows the items', async () => {
    const { asked, render } = rig('freshen');
    render();
    asked.shift()!.answer({ items: [{ id: 2 }], next: null });
    await settled();
    const counted = render().freshen(); // a hint: "how many new?"
    render().reload(); // the author shows them
    asked.shift()!.answer({ items: [{ id: 3 }, { id: 2 }], next: null });
    expect(await counted).toBe(0);
    asked.shift()!.answer({ items: [{ id: 3 }, { id: 2 }], next: null });
    await settled();
    expect(render().items.map((i) => i.id)).toEqual([3, 2]);
  });

  it('freshen shows new copies of the items in their places and adds none', async () => {
    const { asked, render } = rig('in-place');
    render();
    asked.shift()!.answer({ items: [{ id: 2, isNew: true }, { id: 1, isNew: true }], next: null });
    await settled();
    const before = render().items;
    const counted = render().freshen();
    asked.shift()!.answer({ items: [{ id: 3, isNew: true }, { id: 2, isNew: false }, { id: 1, isNew: true }], next: null });
    expect(await counted).toBe(1);
    const after = render().items;
    expect(after).toEqual([{ id: 2, isNew: false }, { id: 1, isNew: true }]);
    // Unchanged items are the same objects: nothing is drawn again for them.
    expect(after[1]).toBe(before[1]);
  });

  it('after the author marks read (settle), a reload read before is dropped, not put back over it', async () => {
    const { asked, render } = rig('settle');
    render();
    asked.shift()!.answer({ items: [{ id: 1, isNew: true }], next: null });
    await settled();
    render().reload(); // a hint's reload, under way
    expect(render().loading).toBe(true);
    render().settle();
    render().update((items) => items.map((i) => ({ ...i, isNew: false })));
    asked.shift()!.answer({ items: [{ id: 1, isNew: true }], next: null }); // read before the mark
    await settled();
    const list = render();
    expect(list.items).toEqual([{ id: 1, isNew: false }]);
    expect(list.loading).toBe(false);
  });

  it('settle says when it dropped a reload, so what that reload was to show is asked for again', async () => {
    const { asked, render } = rig('settle-says');
    render();
    asked.shift()!.answer({ items: [{ id: 1, isNew: true }], next: null });
    await settled();
    expect(render().settle()).toBe(false); // nothing under way
    render().reload();
    expect(render().settle()).toBe(true);
  });

  it('an old "Load more" answering after a newer one started leaves the button busy until the newer answers', async () => {
    const { asked, render } = rig('more-twice');
    render();
    asked.shift()!.answer({ items: [{ id: 9 }], next: 8 });
    await settled();
    render().loadMore(); // #1
    render().settle(); // the author marked something read: #1's answer will be dropped
    render().loadMore(); // #2, for the same page
    expect(asked.map((a) => a.cursor)).toEqual([8, 8]);
    asked.shift()!.answer({ items: [{ id: 8 }], next: null }); // #1, stale
    await settled();
    expect(render().loadingMore).toBe(true);
    asked.shift()!.answer({ items: [{ id: 8 }], next: null }); // #2
    await settled();
    const list = render();
    expect(list.loadingMore).toBe(false);
    expect(list.items.map((i) => i.id)).toEqual([9, 8]);
  });

  it('settle before the first page changes nothing: that page still shows', async () => {
    const { asked, render } = rig('settle-first');
    render();
    render().settle();
    asked.shift()!.answer({ items: [{ id: 1 }], next: null });
    await settled();
    expect(render().items).toEqual([{ id: 1 }]);
  });
});

describe('a long paged list holds a window of its pages', () => {
  const PAGE = 10;
  const pageAt = (cursor: number | null): PageOf => {
    const from = cursor ?? 0;
    return { items: Array.from({ length: PAGE }, (_, i) => ({ id: from + i })), next: from + PAGE };
  };
  /** Every held page 1,000 px tall; the viewport `scrolled` px below the first held one. */
  const view = (held: number[], scrolled: number, direction: 1 | -1) => ({
    height: 800,
    start: -scrolled,
    end: held.length * 1_000 - scrolled,
    extents: new Map(held.map((page, i) => [page, { top: i * 1_000 - scrolled, bottom: (i + 1) * 1_000 - scrolled }])),
    held: new Set<number>(),
    direction,
  });

  /** A list with a window of 30 items, read `pages` pages deep. */
  async function readDeep(key: string, pages: number) {
    const { asked, render } = rig(key, 30);
    render();
    asked.shift()!.answer(pageAt(null));
    await settled();
    for (let i = 1; i < pages; i++) {
      render().loadMore();
      const ask = asked.shift()!;
      ask.answer(pageAt(ask.cursor));
      await settled();
    }
    return { asked, render };
  }

  it('lets go of pages far above once more than its limit are held, and offers no "Load more" for pages let go below', async () => {
    const { render } = await readDeep('window-drop', 8);
    expect(render().items).toHaveLength(80);
    render().adjust(view([0, 1, 2, 3, 4, 5, 6, 7], 7_200, 1));
    render().adjust(view([1, 2, 3, 4, 5, 6, 7], 6_200, 1));
    const list = render();
    expect(list.items[0]).toEqual({ id: 20 });
    expect(list.spaceAbove).toBe(2_000);
    expect(list.hasMore).toBe(true);
    // Back up a little: the last page, far below, is let go; "Load more" waits until it is back.
    render().adjust(view([2, 3, 4, 5, 6, 7], 1_000, -1));
    expect(render().items.at(-1)).toEqual({ id: 69 });
    expect(render().spaceBelow).toBe(1_000);
    expect(render().hasMore).toBe(false);
  });

  it('asks again for a page let go with the cursor that first brought it, and shows it in its place', async () => {
    const { asked, render } = await readDeep('window-refetch', 5);
    render().adjust(view([0, 1, 2, 3, 4], 4_200, 1));
    render().adjust(view([1, 2, 3, 4], 3_200, 1));
    expect(render().items[0]).toEqual({ id: 20 });
    // The author scrolls back up to the held items' top.
    render().adjust(view([2, 3, 4], 200, -1));
    expect(asked.map((a) => a.cursor)).toEqual([10]);
    expect(render().paging).toBe(true);
    asked.shift()!.answer(pageAt(10));
    await settled();
    const list = render();
    expect(list.items.map((i) => i.id).slice(0, 12)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
    expect(list.spaceAbove).toBe(1_000);
    render().adjust(view([1, 2, 3, 4], 200, -1));
    expect(asked.map((a) => a.cursor)).toEqual([null]);
  });

  it('a look for new posts does not count the posts of a first page let go as new', async () => {
    const { asked, render } = await readDeep('window-freshen', 5);
    render().adjust(view([0, 1, 2, 3, 4], 4_200, 1));
    const counted = render().freshen();
    asked.shift()!.answer({ items: [{ id: -1 }, ...pageAt(null).items.slice(0, 9)], next: 9 });
    expect(await counted).toBe(1);
  });

  it('a reload while the first page is let go leaves the held pages as they are; the new items come with that page', async () => {
    const { asked, render } = await readDeep('window-reload', 5);
    render().adjust(view([0, 1, 2, 3, 4], 4_200, 1));
    const before = render().items;
    render().reload();
    asked.shift()!.answer({ items: [{ id: -1 }, ...pageAt(null).items.slice(0, 9)], next: 9 });
    await settled();
    expect(render().items).toEqual(before);
    expect(render().loading).toBe(false);
  });

  it('a page that could not be asked for again is asked again on "Try again", not the page after the last', async () => {
    const { asked, render } = await readDeep('window-retry', 5);
    render().adjust(view([0, 1, 2, 3, 4], 4_200, 1));
    render().adjust(view([1, 2, 3, 4], 200, -1));
    const failed = asked.shift()!;
    expect(failed.cursor).toBe(null);
    failed.fail(new Error('offline'));
    await settled();
    expect(render().moreError).not.toBeNull();
    render().adjust(view([1, 2, 3, 4], 200, -1));
    expect(asked).toHaveLength(0); // not while the error shows
    render().loadMore(); // "Try again"
    expect(render().moreError).toBeNull();
    render().adjust(view([1, 2, 3, 4], 200, -1));
    expect(asked.map((a) => a.cursor)).toEqual([null]);
  });

  it('new posts that came while the first page was let go show when the author goes back to the top, and what lay between is asked for', async () => {
    const { asked, render } = await readDeep('window-top', 5);
    render().adjust(view([0, 1, 2, 3, 4], 4_200, 1));
    render().adjust(view([1, 2, 3, 4], 3_200, 1));
    render().reload(); // "Show 2 new posts"
    asked.shift()!.answer({ items: [{ id: -2 }, { id: -1 }, ...pageAt(null).items.slice(0, 8)], next: 8 });
    await settled();
    // …and the Stream scrolls to its top, 2,000 px above the held pages: the page there is asked for.
    render().adjust(view([2, 3, 4], -2_000, -1));
    expect(asked.map((a) => a.cursor)).toEqual([null]);
    asked.shift()!.answer({ items: [{ id: -2 }, { id: -1 }, ...pageAt(null).items.slice(0, 8)], next: 8 });
    await settled();
    expect(render().items.map((i) => i.id)).toEqual([-2, -1, 0, 1, 2, 3, 4, 5, 6, 7]);
    // Items 8 and 9 were on the first page before: asked for after it, by the cursor Tern gives now.
    render().adjust(view([0], 0, -1));
    expect(asked.map((a) => a.cursor)).toEqual([8]);
  });
});
