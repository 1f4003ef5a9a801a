// A paged list of posts as a feed (role="feed": screen readers announce each article and
// know more can load), with the list's loading, error and empty states and "Load more".
import type { ReactNode } from 'react';
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
  return (
    <ListFrame list={list} failed={failed} empty={empty}>
      <div className="feed" role="feed" aria-label={label} aria-busy={list.loading || list.loadingMore}>
        {list.items.map((post) => (
          <Post key={listKeyOf(post)} post={post} {...(onDelete ? { onDelete } : {})} {...(onEdit ? { onEdit } : {})} />
        ))}
      </div>
    </ListFrame>
  );
}
