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
function rig(key: string) {
  const asked: { cursor: number | null; answer: (page: PageOf) => void }[] = [];
  const fetchPage = (c: number | null) => new Promise<PageOf>((resolve) => asked.push({ cursor: c, answer: resolve }));
  const render = () => {
    cursor = 0;
    const list = usePagedList<Item, number>(key, 'notifications.list', fetchPage, (item) => String(item.id));
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

  it('a reload keeps the objects of the items it brings again unchanged (their rows are not drawn again), and takes the changed ones', async () => {
    const { asked, render } = rig('reload-same');
    render();
    asked.shift()!.answer({ items: [{ id: 3, isNew: true }, { id: 2, isNew: true }, { id: 1 }], next: null });
    await settled();
    const before = render().items;
    render().reload(); // a hint: a new notification
    asked.shift()!.answer({ items: [{ id: 4, isNew: true }, { id: 3, isNew: true }, { id: 2, isNew: false }], next: null });
    await settled();
    const after = render().items;
    expect(after).toEqual([{ id: 4, isNew: true }, { id: 3, isNew: true }, { id: 2, isNew: false }, { id: 1 }]);
    expect(after[1]).toBe(before[0]);
    expect(after[2]).not.toBe(before[1]);
    expect(after[3]).toBe(before[2]);
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
