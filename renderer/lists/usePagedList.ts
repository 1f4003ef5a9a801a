// A list that is read a page at a time (the stream, notifications, the profile, deliveries):
// first page, "Load more", refresh and optimistic edits. Lists are kept per key for the whole
// session, so going back to one shows it at once, where the author left it; it then refreshes
// quietly and new items are put in front without moving what is already on screen.
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { toApiError, type ApiError } from '../api';
import { forgetBlocks } from './blocks';
import type { Channel } from '../../electron/core/ipc/contract';

export interface Page<T, C> {
  items: T[];
  /** Where the next page starts, or null after the last. */
  next: C | null;
}

interface ListState<T, C> {
  items: T[];
  next: C | null;
  /** The first page has arrived at least once. */
  loaded: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: ApiError | null;
  moreError: ApiError | null;
}

export interface PagedList<T> extends Omit<ListState<T, unknown>, 'next'> {
  /** The list's key, under which it is kept for the session. */
  key: string;
  hasMore: boolean;
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

const EMPTY: ListState<never, never> = {
  items: [],
  next: null,
  loaded: false,
  loading: true,
  loadingMore: false,
  error: null,
  moreError: null,
};

/** New items first; those already shown keep their place after them. A fresh copy of an item
 * shown with nothing changed in it is the shown object, so its memoized row is not drawn again
 * (as freshen does). */
function mergeFresh<T>(fresh: T[], shown: T[], idOf: (item: T) => string): T[] {
  const shownById = new Map(shown.map((item) => [idOf(item), item]));
  const top = fresh.map((item) => {
    const old = shownById.get(idOf(item));
    return old !== undefined && JSON.stringify(old) === JSON.stringify(item) ? old : item;
  });
  const ids = new Set(fresh.map(idOf));
  return [...top, ...shown.filter((item) => !ids.has(idOf(item)))];
}

export function usePagedList<T, C>(
  key: string,
  channel: Channel,
  fetchPage: (cursor: C | null) => Promise<Page<T, C>>,
  idOf: (item: T) => string,
): PagedList<T> {
  // The state lives in a ref, changed synchronously, so loadMore reads the cursor it sends.
  const stateRef = useRef<ListState<T, C> | null>(null);
  if (stateRef.current === null) {
    const previous = kept.get(key) as ListState<T, C> | undefined;
    stateRef.current = previous ? { ...previous, loading: true, loadingMore: false } : EMPTY;
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
          const keepMore = s.loaded && s.items.length > page.items.length;
          return {
            ...s,
            items: s.loaded ? mergeFresh(page.items, s.items, idRef.current) : page.items,
            next: keepMore ? s.next : page.next,
            loaded: true,
            loading: false,
            error: null,
          };
        });
      },
      (err: unknown) => {
        if (mine === generation.current) change((s) => ({ ...s, loading: false, error: toApiError(err, channel) }));
      },
    );
  }, [change, channel]);

  const loadMore = useCallback(() => {
    const mine = generation.current;
    const { next: cursor, loadingMore } = stateRef.current ?? EMPTY;
    if (cursor === null || loadingMore) return;
    const mineMore = ++moreGeneration.current;
    // A reload since (a hint, the author) answered for the list: the button is free again,
    // unless a newer "Load more" is out by then.
    const stale = () => change((s) => (mineMore === moreGeneration.current ? { ...s, loadingMore: false } : s));
    change((s) => ({ ...s, loadingMore: true, moreError: null }));
    fetchRef.current(cursor).then(
      (page) => {
        if (mine !== generation.current) return stale();
        change((s) => {
          const ids = new Set(s.items.map(idRef.current));
          const added = page.items.filter((item) => !ids.has(idRef.current(item)));
          return { ...s, items: [...s.items, ...added], next: page.next, loadingMore: false };
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
    const shown = (stateRef.current ?? EMPTY).items;
    const unseen = page.items.length - shown.filter((item) => byId.has(idRef.current(item))).length;
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
    if (changed) change((s) => (s.items === shown ? { ...s, items } : s));
    return unseen;
  }, [change]);

  const update = useCallback((edit: (items: T[]) => T[]) => change((s) => ({ ...s, items: edit(s.items) })), [change]);

  const settle = useCallback(() => {
    const { loaded, loading, loadingMore } = stateRef.current ?? EMPTY;
    // Before the first page nothing shown can be edited, and that page must not be lost.
    if (!loaded) return false;
    generation.current++;
    if (loading || loadingMore) change((s) => ({ ...s, loading: false, loadingMore: false }));
    return loading;
  }, [change]);

  useEffect(() => {
    reload();
  }, [reload]);

  const { next, ...rest } = stateRef.current;
  return { ...rest, key, hasMore: next !== null, reload, freshen, loadMore, update, settle };
}

/** Forgets a kept list, so its next showing starts from Tern's answer (after a post is deleted…). */
export function forgetList(key: string): void {
  kept.delete(key);
  forgetBlocks(key);
}
