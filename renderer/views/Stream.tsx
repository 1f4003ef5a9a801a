// Stream: the home timeline — posts of the people the author follows and what they boosted
// ("↻ Ana boosted"), with the author's own, newest first, a page at a time.
import { useEffect, useState } from 'react';
import { call } from '../api';
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
/** How often the stream looks for new posts while it is open. */
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

  // New posts are announced, not pushed in: what the author is reading stays where it is.
  const [fresh, setFresh] = useState(0);
  const { countNew, loaded } = list;
  useEffect(() => {
    if (!loaded) return;
    const timer = setInterval(() => {
      countNew().then(setFresh, () => undefined);
    }, CHECK_MS);
    return () => clearInterval(timer);
  }, [countNew, loaded]);

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
