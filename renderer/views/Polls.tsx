// Polls: the author's polls with how they stand — open ones first (ending soonest on top), each
// with its results and the time left, then the closed ones. Opening one shows its thread.
import { call } from '../api';
import { PenIcon } from '../components/icons';
import { RefreshButton } from '../components/RefreshButton';
import { EmptyState } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
import { PollIcon } from '../components/icons';
import { listKeyOf, type ShownPost } from '../posts/model';
import { PostList } from '../posts/PostList';
import { hrefOf } from '../places';
import { strings } from '../strings';

const t = strings.polls;

export function Polls() {
  const list = usePagedList<ShownPost, string>(
    'polls',
    'polls.list',
    async () => {
      const page = await call('polls.list', {});
      return { items: page.items, next: null };
    },
    listKeyOf,
  );
  return (
    <article className="view" aria-labelledby="polls-title">
      <header className="view__header">
        <div>
          <h1 id="polls-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {list.loaded && <RefreshButton busy={list.loading} onClick={list.reload} />}
      </header>
      <section className="section" aria-label={t.listLabel}>
        <PostList
          list={list}
          label={t.listLabel}
          failed={t.loadFailed}
          empty={
            <EmptyState icon={<PollIcon />} title={t.emptyTitle}>
              <p>{t.emptyText}</p>
              <p className="empty-state__actions">
                <a className="button button--primary" href={hrefOf('compose')}>
                  <PenIcon />
                  {t.writeFirst}
                </a>
              </p>
            </EmptyState>
          }
        />
      </section>
    </article>
  );
}
