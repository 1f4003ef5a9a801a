// Measures a paged list on screen for its window (lists/pageWindow.ts): where each held page is
// against the viewport, which page holds the focus, which way the author scrolls; told after
// each scroll (once a frame) and each change, the list lets go of pages far away and asks again
// for those near. A page let go leaves a spacer of its height, so nothing on screen moves; when
// a page comes back taller or shorter than its spacer, the first item in view is kept where it
// was (as the browser's own scroll anchoring would, which may not act in the same frame).
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import type { ScreenView } from './pageWindow';
import type { PagedList } from './usePagedList';

interface Anchor {
  element: Element;
  top: number;
}

function scrollerOf(element: Element): HTMLElement {
  for (let node = element.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (overflowY === 'auto' || overflowY === 'scroll') return node;
  }
  return document.scrollingElement as HTMLElement;
}

function viewportOf(scroller: HTMLElement): { top: number; height: number } {
  if (scroller === document.scrollingElement) return { top: 0, height: window.innerHeight };
  const rect = scroller.getBoundingClientRect();
  return { top: rect.top, height: scroller.clientHeight };
}

/** The list's own items (not a post quoted inside one), in document order. */
function itemsIn(wrapper: HTMLElement, keyAttr: string): HTMLElement[] {
  return [...wrapper.querySelectorAll<HTMLElement>(`[${keyAttr}]`)].filter((el) => {
    const outer = el.parentElement?.closest(`[${keyAttr}]`);
    return !outer || !wrapper.contains(outer);
  });
}

/** The first item whose bottom is below the viewport's top. */
function anchorIn(wrapper: HTMLElement, keyAttr: string, viewportTop: number): Anchor | null {
  const items = itemsIn(wrapper, keyAttr);
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.getBoundingClientRect().bottom <= viewportTop) lo = mid + 1;
    else hi = mid;
  }
  const element = items[lo];
  return element ? { element, top: element.getBoundingClientRect().top } : null;
}

export function useListWindow<T>(
  list: PagedList<T>,
  keyAttr: string,
): { wrapper: RefObject<HTMLDivElement | null>; above: RefObject<HTMLDivElement | null>; below: RefObject<HTMLDivElement | null> } {
  const wrapper = useRef<HTMLDivElement | null>(null);
  const above = useRef<HTMLDivElement | null>(null);
  const below = useRef<HTMLDivElement | null>(null);
  const listRef = useRef(list);
  listRef.current = list;
  const direction = useRef<1 | -1 | 0>(0);
  const frame = useRef(0);
  // The wrapper is drawn (ListFrame): loaded, and something held or let go.
  const shown = list.loaded && (list.items.length > 0 || list.spaceAbove > 0 || list.spaceBelow > 0 || list.paging);

  const measure = useRef(() => {
    frame.current = 0;
    const root = wrapper.current;
    const top = above.current;
    const bottom = below.current;
    if (!root || !top || !bottom) return;
    const viewport = viewportOf(scrollerOf(root));
    const current = listRef.current;
    const firstTop = new Map<number, number>();
    for (const element of itemsIn(root, keyAttr)) {
      const page = current.pageOf(element.getAttribute(keyAttr) ?? '');
      if (page === undefined || firstTop.has(page)) continue;
      firstTop.set(page, element.getBoundingClientRect().top - viewport.top);
    }
    const start = top.getBoundingClientRect().bottom - viewport.top;
    const end = bottom.getBoundingClientRect().top - viewport.top;
    // Each held page reaches down to where the next one starts (gaps between items included).
    const pages = [...firstTop.keys()].sort((a, b) => a - b);
    const extents = new Map(pages.map((page, i) => [page, { top: firstTop.get(page)!, bottom: firstTop.get(pages[i + 1]!) ?? end }]));
    const held = new Set<number>();
    const focused = document.activeElement?.closest(`[${keyAttr}]`);
    if (focused && root.contains(focused)) {
      const page = current.pageOf(focused.getAttribute(keyAttr) ?? '');
      if (page !== undefined) held.add(page);
    }
    const view: ScreenView = { height: viewport.height, start, end, extents, held, direction: direction.current };
    current.adjust(view);
  });

  const schedule = useRef(() => {
    if (frame.current === 0) frame.current = requestAnimationFrame(() => measure.current());
  });

  // The first item in view before a change of the window (a page let go or back), to keep it put.
  const windowSig = `${list.spaceAbove}:${list.spaceBelow}`;
  const committedSig = useRef(windowSig);
  const anchor = useRef<Anchor | null>(null);
  if (windowSig !== committedSig.current && wrapper.current && anchor.current === null) {
    const scroller = scrollerOf(wrapper.current);
    // At the very top the browser does not anchor either: what is new at the top shows.
    if (scroller.scrollTop > 0) anchor.current = anchorIn(wrapper.current, keyAttr, viewportOf(scroller).top);
  }

  useLayoutEffect(() => {
    committedSig.current = windowSig;
    const kept = anchor.current;
    anchor.current = null;
    if (kept && kept.element.isConnected && wrapper.current) {
      const shift = kept.element.getBoundingClientRect().top - kept.top;
      if (Math.abs(shift) >= 0.5) scrollerOf(wrapper.current).scrollTop += shift;
    }
    schedule.current();
  });

  useEffect(() => {
    const root = wrapper.current;
    if (!root) return;
    const scroller = scrollerOf(root);
    const target: HTMLElement | Window = scroller === document.scrollingElement ? window : scroller;
    let last = scroller.scrollTop;
    const onScroll = () => {
      const now = scroller.scrollTop;
      if (now !== last) direction.current = now > last ? 1 : -1;
      last = now;
      schedule.current();
    };
    target.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', schedule.current);
    return () => {
      target.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', schedule.current);
      if (frame.current !== 0) cancelAnimationFrame(frame.current);
      frame.current = 0;
    };
  }, [shown]);

  return { wrapper, above, below };
}
