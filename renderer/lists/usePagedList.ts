// A list that is read a page at a time (the stream, notifications, the profile, deliveries):
// first page, "Load more", refresh and optimistic edits. Lists are kept per key for the whole
// session, so going back to one shows it at once, where the author left it; it then refreshes
// quietly and new items are put in front without moving what is already on screen.
// A long list holds a window of pages, not all it has read (lists/pageWindow.ts): pages far from
// the viewport are let go, and asked for again, by the cursor that first brought them, when the
// author scrolls back near them (lists/useListWindow.ts measures the screen and calls adjust).
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { toApiError, type ApiError } from '../api';
import type { Channel } from '../../electron/core/ipc/contract';
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
  sameCursor,
  spacesOf,
  type ScreenView,
  type Slot,
} from './pageWindow';

export interface Page<T, C> {
  items: T[];
  /** Where the next page starts, or null after the last. */
  next: C | null;
}

interface ListState<T, C> {
  /** The pages read, held or let go (lists/pageWindow.ts). */
  slots: Slot<T, C>[];
  /** The held pages' items, in order. */
  items: T[];
  /** The first page has arrived at least once. */
  loaded: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: ApiError | null;
  moreError: ApiError | null;
  /** A page let go is being asked for again. */
  paging: boolean;
  /** moreError is about such a page: "Try again" asks for it, not for the page after the last. */
  pagingFailed: boolean;
}

export interface PagedList<T> extends Omit<ListState<T, unknown>, 'slots' | 'pagingFailed'> {
  hasMore: boolean;
  /** The heights of the pages let go before the held items, and after them (px). */
  spaceAbove: number;
  spaceBelow: number;
  /** Which page an item shown is in (by its id), for the frame's measures. */
  pageOf: (id: string) => number | undefined;
  /** Told what the screen shows: lets go of pages far away, asks again for those near. */
  adjust: (view: ScreenView) => void;
  reload: () => void;
  /** Asks Tern for the first page again and shows the new copies of the items already shown
   * there (a link preview arrived, a count changed), in their places; adds none. Resolves to
   * how many items of that page are not shown yet. */
  freshen: () => Promise<number>;
  loadMore: () => void;
  /** Changes items in place (an optimistic like, a post removed). */
  update: (change: (items: T[]) => T[]) => void;
  /** Drops the answers of pages still being asked for: they were read before an edit the author
   * just made (marked read), and would put the old copies back over it. True when a reload was
   * dropped: what it was to show (a new notification) is to be asked for again after the edit. */
  settle: () => boolean;
}

const kept = new Map<string, ListState<unknown, unknown>>();

/** Held items beyond which pages far from the viewport are let go: a few screens of posts. */
export const MAX_HELD_ITEMS = 200;

const EMPTY: ListState<never, never> = {
  slots: [],
  items: [],
  loaded: false,
  loading: true,
  loadingMore: false,
  error: null,
  moreError: null,
  paging: false,
  pagingFailed: false,
};

function withSlots<T, C>(s: ListState<T, C>, slots: Slot<T, C>[]): ListState<T, C> {
  return { ...s, slots, items: itemsOf(slots) };
}

export function usePagedList<T, C>(
  key: string,
  channel: Channel,
  fetchPage: (cursor: C | null) => Promise<Page<T, C>>,
  idOf: (item: T) => string,
  maxItems = MAX_HELD_ITEMS,
): PagedList<T> {
  // The state lives in a ref, changed synchronously, so loadMore reads the cursor it sends.
  const stateRef = useRef<ListState<T, C> | null>(null);
  if (stateRef.current === null) {
    const previous = kept.get(key) as ListState<T, C> | undefined;
    stateRef.current = previous ? { ...previous, loading: true, loadingMore: false, paging: false } : EMPTY;
  }
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const idRef = useRef(idOf);
  idRef.current = idOf;
  const generation = useRef(0);
  const moreGeneration = useRef(0);

  const change = useCallback(
    (update: (previous: ListState<T, C>) => ListState<T, C>) => {
      const next = update(stateRef.current ?? EMPTY);
      stateRef.current = next;
      kept.set(key, next as ListState<unknown, unknown>);
      rerender();
    },
    [key],
  );

  const reload = useCallback(() => {
    const mine = ++generation.current;
    change((s) => ({ ...s, loading: true }));
    fetchRef.current(null).then(
      (page) => {
        if (mine !== generation.current) return;
        change((s) => {
          const done = { ...s, loaded: true, loading: false, error: null };
          if (!s.loaded || s.slots.length === 0) return withSlots(done, firstPage(page.items, page.next));
          // The first page let go: what is new in it shows when the author scrolls back up to it.
          if (s.slots[0]!.items === null) return done;
          return withSlots(done, mergeFirstPage(s.slots, page, idRef.current));
        });
      },
      (err: unknown) => {
        if (mine === generation.current) change((s) => ({ ...s, loading: false, error: toApiError(err, channel) }));
      },
    );
  }, [change, channel]);

  const loadMore = useCallback(() => {
    const mine = generation.current;
    const { slots, loadingMore, pagingFailed } = stateRef.current ?? EMPTY;
    // "Try again" after a page let go could not be asked for again: the frame asks once more.
    if (pagingFailed) return change((s) => ({ ...s, moreError: null, pagingFailed: false }));
    const last = slots.at(-1);
    // After the last page read, and only when it is held: pages let go below come back by scrolling.
    const cursor = last?.items ? last.next : null;
    if (cursor === null || loadingMore) return;
    const mineMore = ++moreGeneration.current;
    // A reload since (a hint, the author) answered for the list: the button is free again,
    // unless a newer "Load more" is out by then.
    const stale = () => change((s) => (mineMore === moreGeneration.current ? { ...s, loadingMore: false } : s));
    change((s) => ({ ...s, loadingMore: true, moreError: null, pagingFailed: false }));
    fetchRef.current(cursor).then(
      (page) => {
        if (mine !== generation.current) return stale();
        change((s) => {
          const after = s.slots.at(-1);
          // A reload made the list one page again meanwhile: this page may not follow what is shown.
          const follows = after?.items != null && after.next !== null && sameCursor(after.next, cursor);
          const slots = follows ? appendPage(s.slots, cursor, page, idRef.current) : s.slots;
          return { ...withSlots(s, slots), loadingMore: false };
        });
      },
      (err: unknown) => {
        if (mine !== generation.current) return stale();
        change((s) => ({ ...s, loadingMore: false, moreError: toApiError(err, channel) }));
      },
    );
  }, [change, channel]);

  const freshen = useCallback(async () => {
    const mine = generation.current;
    const page = await fetchRef.current(null);
    const byId = new Map(page.items.map((item) => [idRef.current(item), item]));
    const { items: shown, slots } = stateRef.current ?? EMPTY;
    // A first page let go still knows its ids: its posts are not new.
    const seen = new Set([...shown.map(idRef.current), ...(slots[0]?.ids ?? [])]);
    const unseen = page.items.filter((item) => !seen.has(idRef.current(item))).length;
    // A reload since the question was asked answered for itself: its items are shown, none is new.
    if (mine !== generation.current) return 0;
    let changed = false;
    const items = shown.map((item) => {
      const fresh = byId.get(idRef.current(item));
      // The same object when nothing in it changed: nothing on screen is drawn again.
      if (fresh === undefined || JSON.stringify(fresh) === JSON.stringify(item)) return item;
      changed = true;
      return fresh;
    });
    if (changed) change((s) => (s.items === shown ? withSlots(s, editSlots(s.slots, () => items, idRef.current)) : s));
    return unseen;
  }, [change]);

  const update = useCallback((edit: (items: T[]) => T[]) => change((s) => withSlots(s, editSlots(s.slots, edit, idRef.current))), [change]);

  const settle = useCallback(() => {
    const { loaded, loading, loadingMore, paging } = stateRef.current ?? EMPTY;
    // Before the first page nothing shown can be edited, and that page must not be lost.
    if (!loaded) return false;
    generation.current++;
    if (loading || loadingMore || paging) change((s) => ({ ...s, loading: false, loadingMore: false, paging: false }));
    return loading;
  }, [change]);

  /** Asks again for a page let go; it is put back only if it still borders the held pages. */
  const page = useCallback(
    (index: number) => {
      const mine = generation.current;
      const target = (stateRef.current ?? EMPTY).slots[index];
      if (!target) return;
      change((s) => ({ ...s, paging: true }));
      fetchRef.current(target.cursor).then(
        (answer) => {
          // Read before an edit or a reload: dropped, and the page is asked for again (the
          // frame measures once more after this render).
          if (mine !== generation.current) return change((s) => ({ ...s, paging: false }));
          change((s) => {
            const slots = fillSlot(s.slots, target.id, answer, idRef.current);
            return { ...(slots ? withSlots(s, slots) : s), paging: false };
          });
        },
        (err: unknown) => {
          if (mine === generation.current) change((s) => ({ ...s, paging: false, moreError: toApiError(err, channel), pagingFailed: true }));
        },
      );
    },
    [change, channel],
  );

  const adjust = useCallback(
    (view: ScreenView) => {
      const s = stateRef.current ?? EMPTY;
      // One step at a time: the frame measures again after each; none while an answer is out.
      if (!s.loaded || s.loading || s.paging || s.moreError) return;
      const step = nextStep(s.slots, view, maxItems);
      if (step === null) return;
      if ('drop' in step) {
        change((st) => withSlots(st, dropSlot(st.slots, step.drop, step.height, idRef.current)));
      } else if ('fetch' in step) {
        page(step.fetch);
      } else {
        // Far from what is held: all of it is let go, and the page under the viewport asked for.
        const range = heldRange(s.slots);
        change((st) => {
          let slots = st.slots;
          for (let i = range?.lo ?? 0; range && i <= range.hi; i++) {
            const extent = view.extents.get(i);
            slots = dropSlot(slots, i, extent ? extent.bottom - extent.top : 0, idRef.current);
          }
          return withSlots(st, slots);
        });
        page(step.jump);
      }
    },
    [change, page, maxItems],
  );

  const pages = useRef<{ slots: Slot<T, C>[]; byId: Map<string, number> } | null>(null);
  const pageOf = useCallback((id: string) => {
    const { slots } = stateRef.current ?? EMPTY;
    if (pages.current?.slots !== slots) {
      const byId = new Map<string, number>();
      slots.forEach((s, i) => s.items?.forEach((item) => byId.set(idRef.current(item), i)));
      pages.current = { slots, byId };
    }
    return pages.current.byId.get(id);
  }, []);

  useEffect(() => {
    reload();
  }, [reload]);

  const { slots, pagingFailed: _pagingFailed, ...rest } = stateRef.current;
  const last = slots.at(-1);
  const { above, below } = spacesOf(slots);
  return {
    ...rest,
    hasMore: last?.items != null && last.next !== null,
    spaceAbove: above,
    spaceBelow: below,
    pageOf,
    adjust,
    reload,
    freshen,
    loadMore,
    update,
    settle,
  };
}

/** Forgets a kept list, so its next showing starts from Tern's answer (after a post is deleted…). */
export function forgetList(key: string): void {
  kept.delete(key);
}
