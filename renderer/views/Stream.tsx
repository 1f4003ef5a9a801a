// Stream: the home timeline — posts of the people the author follows and what they boosted
// ("↻ Ana boosted"), with the author's own, newest first, a page at a time.
import { useCallback, useEffect, useState } from 'react';
import { call } from '../api';
import { useChanges } from '../changes';
import { PenIcon, StreamIcon } from '../components/icons';
import { RefreshButton } from '../components/RefreshButton';
import { EmptyState } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
import { listKeyOf, type ShownPost } from '../posts/model';
import { PostList } from '../posts/PostList';
import { hrefOf } from '../places';
import { strings } from '../strings';

const t = strings.stream;
export const STREAM_PAGE = 20;
/** How often the stream looks for new posts while it is open, besides when Tern says so. */
const CHECK_MS = 60_000;

export function Stream() {
  const list = usePagedList<ShownPost, string>(
    'stream',
    'timeline.stream',
    async (cursor) => {
      const page = await call('timeline.stream', { cursor, limit: STREAM_PAGE });
      return { items: page.items, next: page.nextCursor };
    },
    listKeyOf,
  );

  // New posts are announced, not pushed in: what the author is reading stays where it is. The
  // posts shown are brought up to date in place (a link preview that arrived, a count).
  const [fresh, setFresh] = useState(0);
  const { freshen, loaded } = list;
  const look = useCallback(() => {
    if (loaded) freshen().then(setFresh, () => undefined);
  }, [freshen, loaded]);
  useEffect(() => {
    const timer = setInterval(look, CHECK_MS);
    return () => clearInterval(timer);
  }, [look]);
  useChanges(['timeline', 'previews'], look, 1_000);

  function showFresh() {
    setFresh(0);
    list.reload();
    document.getElementById('main')?.scrollTo({ top: 0 });
  }

  return (
    <article className="view" aria-labelledby="stream-title">
      <header className="view__header">
        <div>
          <h1 id="stream-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {list.loaded && (
          <RefreshButton busy={list.loading} onClick={list.reload} />
        )}
      </header>
      {fresh > 0 && (
        <button type="button" className="button button--primary fresh-posts" onClick={showFresh}>
          {t.fresh(fresh)}
        </button>
      )}
      <PostList
        list={list}
        label={t.title}
        failed={t.loadFailed}
        empty={
          <EmptyState icon={<StreamIcon />} title={t.emptyTitle}>
            <p>{t.emptyText}</p>
            <p className="empty-state__actions">
              <a className="button" href={hrefOf('people', { focus: 'lookup' })}>
                {t.findPeople}
              </a>
              <a className="button" href={hrefOf('compose')}>
                <PenIcon />
                {t.writeFirst}
              </a>
            </p>
          </EmptyState>
        }
      />
    </article>
  );
}
