// The parts every list shares (UX.md "Details that matter"): an empty state that says what to
// do, a loading placeholder that does not flash, the error in place of the list or above it,
// and "Load more" at the end.
import type { ReactNode } from 'react';
import { Delayed } from '../components/Delayed';
import { ErrorState } from '../components/ErrorState';
import { strings } from '../strings';
import type { PagedList } from './usePagedList';

export function EmptyState({ icon, title, children }: { icon?: ReactNode; title: string; children?: ReactNode }) {
  return (
    <div className="empty-state" data-testid="empty-state">
      {icon && <div className="empty-state__icon">{icon}</div>}
      <p className="empty-state__title">{title}</p>
      {children && <div className="empty-state__text">{children}</div>}
    </div>
  );
}

export function ListSkeleton({ rows = 3, kind = 'post' }: { rows?: number; kind?: 'post' | 'row' }) {
  return (
    <Delayed>
      <div className="skeleton" role="status">
        <span className="visually-hidden">{strings.loading}</span>
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className={kind === 'post' ? 'skeleton__block skeleton__block--post' : 'skeleton__block skeleton__block--row'} />
        ))}
      </div>
    </Delayed>
  );
}

interface ListFrameProps<T> {
  list: PagedList<T>;
  /** What could not be loaded ("The stream could not be loaded."). */
  failed: string;
  empty: ReactNode;
  skeleton?: ReactNode;
  children: ReactNode;
}

/** Shows the list's state around its items: placeholder, error, empty state, Load more. */
export function ListFrame<T>({ list, failed, empty, skeleton, children }: ListFrameProps<T>) {
  const retry = () => list.reload();
  if (!list.loaded) {
    if (list.error) return <ErrorState context={failed} error={list.error} onRetry={retry} retrying={list.loading} />;
    return <>{skeleton ?? <ListSkeleton />}</>;
  }
  return (
    <>
      {list.error && (
        <ErrorState context={strings.lists.refreshFailed} error={list.error} onRetry={retry} retrying={list.loading} compact />
      )}
      {list.items.length === 0 ? empty : children}
      {list.moreError && (
        <ErrorState context={strings.lists.moreFailed} error={list.moreError} onRetry={list.loadMore} retrying={list.loadingMore} compact />
      )}
      {list.hasMore && !list.moreError && (
        <div className="load-more">
          <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
            {list.loadingMore ? strings.loadingMore : strings.loadMore}
          </button>
        </div>
      )}
    </>
  );
}
