// A paged list of posts as a feed (role="feed": screen readers announce each article and
// know more can load), with the list's loading, error and empty states and "Load more". The
// posts stand in blocks that Chromium draws only near the screen (lists/blocks.ts says why).
import { memo, useCallback, useEffect, useMemo, type ReactNode } from 'react';
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
  return (
    <ListFrame list={list} failed={failed} empty={empty}>
      <div className="feed" role="feed" aria-label={label} aria-busy={list.loading || list.loadingMore}>
        {blocks.map((block) => (
          <FeedBlock
            key={block.id}
            id={block.id}
            posts={block.items}
            height={memory.heights.get(block.id)}
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
  /** Its height when last drawn, if it was: what it stands in at until it is drawn again. */
  height: number | undefined;
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
        style={height === undefined ? undefined : { containIntrinsicBlockSize: `auto ${height}px` }}
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
