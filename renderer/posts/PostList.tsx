// A paged list of posts as a feed (role="feed": screen readers announce each article and
// know more can load), with the list's loading, error and empty states and "Load more". The
// posts stand in blocks that Chromium draws only near the screen (lists/blocks.ts says why).
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, type ReactNode, type RefObject } from 'react';
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
  const perPost = averagePostHeight(blocks, memory);
  return (
    <ListFrame list={list} failed={failed} empty={empty}>
      <div ref={feed} className="feed" role="feed" aria-label={label} aria-busy={list.loading || list.loadingMore}>
        {blocks.map((block) => (
          <FeedBlock
            key={block.id}
            id={block.id}
            posts={block.items}
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
  /** Its height when last drawn, else a guess from its posts: what it stands in at until it is
   * drawn (again). */
  height: number;
  observe: (element: HTMLDivElement | null) => (() => void) | undefined;
}

const FeedBlock = memo(
  function FeedBlock({ id, posts, height, observe, onDelete, onEdit }: BlockProps) {
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
    before.observe === after.observe &&
    before.onDelete === after.onDelete &&
    before.onEdit === after.onEdit &&
    before.posts.length === after.posts.length &&
    before.posts.every((post, i) => post === after.posts[i]),
);

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
