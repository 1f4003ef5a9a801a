// A paged list of posts as a feed (role="feed": screen readers announce each article and
// know more can load), with the list's loading, error and empty states and "Load more". The
// posts stand in blocks that Chromium draws only near the screen (lists/blocks.ts says why). A
// list longer than KEEP_ALL_POSTS also lets go of the posts of blocks far from the screen: each
// such block stands empty at the height it last had, and its posts are drawn again as it comes
// within NEAR_SCREENS of the screen. Without this a stream of 10,000 loaded posts kept all of
// them in the page: ≈ 590,000 DOM nodes and ≈ 450 MB of heap (npm run bench:renderer).
import { memo, startTransition, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { blockMemory, blocksOf, type BlockMemory } from '../lists/blocks';
import { ListFrame } from '../lists/ListParts';
import type { PagedList } from '../lists/usePagedList';
import { Post, type PostProps } from './Post';
import { listKeyOf, type ShownPost } from './model';

interface Props {
  list: PagedList<ShownPost>;
  label: string;
  failed: string;
  empty: ReactNode;
  onDelete?: PostProps['onDelete'];
  onEdit?: PostProps['onEdit'];
}

export function PostList({ list, label, failed, empty, onDelete, onEdit }: Props) {
  const memory = blockMemory(list.key);
  const blocks = useMemo(() => blocksOf(list.items, listKeyOf, memory), [list.items, memory]);
  const observe = useBlockHeights(memory);
  const feed = useRef<HTMLDivElement>(null);
  useFocusKept(feed);
  const away = useAwayBlocks(feed, blocks, list.items.length > KEEP_ALL_POSTS);
  const perPost = averagePostHeight(blocks, memory);
  return (
    <ListFrame list={list} failed={failed} empty={empty}>
      <div ref={feed} className="feed" role="feed" aria-label={label} aria-busy={list.loading || list.loadingMore} data-posts={list.items.length}>
        {blocks.map((block) => (
          <FeedBlock
            key={block.id}
            id={block.id}
            posts={block.items}
            away={away.has(block.id)}
            height={memory.heights.get(block.id) ?? Math.round(block.items.length * perPost)}
            observe={observe}
            {...(onDelete ? { onDelete } : {})}
            {...(onEdit ? { onEdit } : {})}
          />
        ))}
      </div>
    </ListFrame>
  );
}

interface BlockProps extends Pick<Props, 'onDelete' | 'onEdit'> {
  id: number;
  posts: ShownPost[];
  /** Far from the screen in a long list: standing empty at `height`, its posts let go. */
  away: boolean;
  /** Its height when last drawn, else a guess from its posts: what it stands in at until it is
   * drawn (again). */
  height: number;
  observe: (element: HTMLDivElement | null) => (() => void) | undefined;
}

const FeedBlock = memo(
  function FeedBlock({ id, posts, away, height, observe, onDelete, onEdit }: BlockProps) {
    if (away) {
      // The height its posts had (the list's memory keeps it as the block's content box).
      return <div className="feed__block" role="none" data-block={id} data-away="" ref={observe} style={{ blockSize: `${height}px`, boxSizing: 'content-box' }} />;
    }
    return (
      <div
        className="feed__block"
        role="none"
        data-block={id}
        ref={observe}
        style={{ containIntrinsicBlockSize: `auto ${height}px` }}
      >
        {posts.map((post) => (
          <Post key={listKeyOf(post)} post={post} {...(onDelete ? { onDelete } : {})} {...(onEdit ? { onEdit } : {})} />
        ))}
      </div>
    );
  },
  // A block whose posts are the same objects is not drawn again (Post is memoized too, but
  // asking each of 2,000 posts costs more than asking each of 100 blocks). Its height is only
  // read when it is first drawn.
  (before, after) =>
    before.id === after.id &&
    before.away === after.away &&
    before.observe === after.observe &&
    before.onDelete === after.onDelete &&
    before.onEdit === after.onEdit &&
    before.posts.length === after.posts.length &&
    before.posts.every((post, i) => post === after.posts[i]),
);

/** Lists of more posts than this let go of the posts far from the screen; shorter ones keep
 * every post in the page (found by find-in-page, their state as the author left it). */
export const KEEP_ALL_POSTS = 400;
/** How near the screen a block keeps its posts, in heights of the scrolling box, above it and
 * below it: far enough that a block is drawn before it is scrolled to, even by a flick. */
const NEAR_SCREENS = 3;
const NONE: ReadonlySet<number> = new Set();
/** How long after the last scroll the blocks gone far are let go (when the window is idle). */
const SETTLE_MS = 300;

/** The blocks of `feed` far from the screen (when `enabled`), looked at again as the list
 * changes, as its box scrolls or is resized, and as the focus moves in it. The block holding
 * the focus and the blocks beside it are never away, so j/k always find the next post and the
 * focus stays where it is. A list drawn anew (its place opened again) draws every block first:
 * the view's scroll position and focused post are put back (App.tsx) before the blocks away from
 * them are let go. */
function useAwayBlocks(feed: RefObject<HTMLDivElement | null>, blocks: readonly unknown[], enabled: boolean): ReadonlySet<number> {
  const [away, setAway] = useState<ReadonlySet<number>>(NONE);
  /** `nearOnly`: draws the blocks come near, lets go of none (while scrolling). */
  // The box that scrolls the feed, found once (not at every look: each would read the style of
  // every ancestor, in every frame of a scroll).
  const box = useRef<HTMLElement | null>(null);
  const look = useCallback(
    (nearOnly = false) => {
      const element = feed.current;
      if (element && !box.current?.contains(element)) box.current = scrollingBoxOf(element);
      const far = enabled && element && box.current ? awayOf(element, box.current) : NONE;
      setAway((shown) => {
        const next = nearOnly ? new Set([...shown].filter((id) => far.has(id))) : far;
        return sameSet(shown, next) ? shown : next;
      });
    },
    [feed, enabled],
  );
  // After the commit's layout effects (the view's own puts its scroll position back).
  useLayoutEffect(() => {
    let live = true;
    queueMicrotask(() => live && flushSync(() => look()));
    return () => {
      live = false;
    };
  }, [blocks, look]);
  useEffect(() => {
    const element = feed.current;
    if (!element || !enabled) return;
    const scroller = scrollingBoxOf(element);
    box.current = scroller;
    let frame = 0;
    let settle = 0;
    let idle = 0;
    // While scrolling, blocks coming near are drawn in a transition (React draws their posts a
    // few milliseconds at a time between frames: they are still screens away), and none is let
    // go until the scrolling has stopped and the window is idle. Drawing a block's 20 posts at
    // once, and taking another's away, in the frames of a brisk scroll held 42 of 1,243 frames
    // over 50 ms (bench:renderer, 2,000 posts, 300 px a frame, the machine loaded by other
    // work); in a transition 18. On a quieter machine, 0 and 3 over 50 ms, against 0 and 0 with
    // every post kept in the page.
    const soon = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        startTransition(() => look(true));
      });
      clearTimeout(settle);
      settle = window.setTimeout(() => {
        cancelIdleCallback(idle);
        idle = requestIdleCallback(() => startTransition(() => look()), { timeout: 2_000 });
      }, SETTLE_MS);
    };
    const now = () => look();
    scroller.addEventListener('scroll', soon, { passive: true });
    window.addEventListener('resize', soon);
    element.addEventListener('focusin', now);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(settle);
      cancelIdleCallback(idle);
      scroller.removeEventListener('scroll', soon);
      window.removeEventListener('resize', soon);
      element.removeEventListener('focusin', now);
    };
  }, [feed, enabled, look]);
  return away;
}

function scrollingBoxOf(element: HTMLElement): HTMLElement {
  for (let at = element.parentElement; at; at = at.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(at).overflowY)) return at;
  }
  return document.scrollingElement instanceof HTMLElement ? document.scrollingElement : document.documentElement;
}

function awayOf(feed: HTMLElement, box: HTMLElement): Set<number> {
  const seen = box === document.scrollingElement ? { top: 0, bottom: window.innerHeight } : box.getBoundingClientRect();
  const margin = (seen.bottom - seen.top) * NEAR_SCREENS;
  const blocks = [...feed.children] as HTMLElement[];
  const active = document.activeElement;
  const held = active instanceof Node ? blocks.findIndex((block) => block.contains(active)) : -1;
  const away = new Set<number>();
  blocks.forEach((block, i) => {
    if (held >= 0 && Math.abs(i - held) <= 1) return;
    const { top, bottom } = block.getBoundingClientRect();
    if (bottom < seen.top - margin || top > seen.bottom + margin) away.add(Number(block.dataset.block));
  });
  return away;
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  return a.size === b.size && [...a].every((id) => b.has(id));
}

/** A post's height on average in the blocks drawn so far (a guess before any). */
function averagePostHeight(blocks: { id: number; items: unknown[] }[], memory: BlockMemory): number {
  let height = 0;
  let posts = 0;
  for (const block of blocks) {
    const drawn = memory.heights.get(block.id);
    if (drawn === undefined) continue;
    height += drawn;
    posts += block.items.length;
  }
  return posts > 0 ? height / posts : GUESSED_POST_HEIGHT;
}

const GUESSED_POST_HEIGHT = 180;

/** The keyboard stays on the post it was on when the post moves to another block (pinned to the
 * top of the Profile: React draws it anew there, and the focus would fall to the page, so j/k
 * would start again from the top). Only a focus this very change took away is given back. */
function useFocusKept(feed: RefObject<HTMLDivElement | null>): void {
  const held = useRef<string | null>(null);
  // Read while drawing, before React changes the page.
  const active = typeof document === 'undefined' ? null : document.activeElement;
  held.current = active instanceof HTMLElement && feed.current?.contains(active) ? (active.closest<HTMLElement>('[data-post]')?.dataset.post ?? null) : null;
  useLayoutEffect(() => {
    const key = held.current;
    if (key === null || (document.activeElement !== document.body && document.activeElement !== null)) return;
    const post = [...(feed.current?.querySelectorAll<HTMLElement>('[data-post]') ?? [])].find((p) => p.dataset.post === key);
    post?.focus({ preventScroll: true });
  });
}

/** Keeps each drawn block's height in the list's memory, as it changes (a picture loads). */
function useBlockHeights(memory: BlockMemory): (element: HTMLDivElement | null) => (() => void) | undefined {
  const observer = useMemo(
    () =>
      new ResizeObserver((entries) => {
        for (const entry of entries) {
          const id = Number((entry.target as HTMLElement).dataset.block);
          if (entry.contentRect.height > 0) memory.heights.set(id, entry.contentRect.height);
        }
      }),
    [memory],
  );
  useEffect(() => () => observer.disconnect(), [observer]);
  return useCallback(
    (element: HTMLDivElement | null) => {
      if (!element) return undefined;
      observer.observe(element);
      return () => observer.unobserve(element);
    },
    [observer],
  );
}
