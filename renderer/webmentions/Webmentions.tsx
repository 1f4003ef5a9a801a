// Webmentions: pages that mention the author's posts (received, grouped by post, each with its
// kind, author, excerpt and state) and the webmentions Tern sends for its public posts (with
// their delivery state). Authors are shown by name and initials: remote pictures are never
// loaded directly (they would tell every site when the author reads).
import { memo, useState } from 'react';
import type { ReceivedWebmentionView, SentWebmentionView, WebmentionGroupView } from '../../electron/core/ipc/webmention-contract';
import { call } from '../api';
import { Avatar } from '../components/Avatar';
import { RefreshButton } from '../components/RefreshButton';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ListFrame } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
import { hrefOf, type Route } from '../places';
import { strings } from '../strings';
import { WebmentionIcon } from '../components/icons';
import './webmentions.css';

const t = strings.webmentions;
const TABS = ['received', 'sent'] as const;
type Tab = (typeof TABS)[number];
const PAGE = 20;

export function Webmentions({ route }: { route: Route }) {
  const param = route.params.get('show');
  const tab: Tab = TABS.includes(param as Tab) ? (param as Tab) : 'received';
  return (
    <article className="view" aria-labelledby="webmentions-title">
      <header className="view__header">
        <div>
          <h1 id="webmentions-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
      </header>
      {tab === 'received' ? <Received /> : <Sent />}
    </article>
  );
}

/** The tabs, with the current list's Refresh beside them. */
function Bar({ tab, list }: { tab: Tab; list: { loaded: boolean; loading: boolean; reload: () => void } }) {
  return (
    <div className="deliveries-bar webmentions-bar">
      <nav className="tabs" aria-label={t.tabsLabel}>
        {TABS.map((id) => (
          <a key={id} className="tabs__tab" href={hrefOf('webmentions', { show: id })} aria-current={id === tab ? 'page' : undefined}>
            {t.tabs[id]}
          </a>
        ))}
      </nav>
      {list.loaded && <RefreshButton busy={list.loading} onClick={list.reload} />}
    </div>
  );
}

function Received() {
  const list = usePagedList<WebmentionGroupView, string>(
    'webmentions:received',
    'webmentions.received',
    async (cursor) => {
      const page = await call('webmentions.received', { cursor, limit: PAGE });
      return { items: page.items, next: page.nextCursor };
    },
    (group) => String(group.post.id),
  );
  return (
    <>
      <Bar tab="received" list={list} />
      <ListFrame
        list={list}
        failed={t.loadFailed}
        empty={
          <EmptyState icon={<WebmentionIcon />} title={t.emptyReceived}>
            <p>{t.emptyReceivedText}</p>
          </EmptyState>
        }
      >
        {list.items.map((group) => (
          <ReceivedGroup key={group.post.id} group={group} />
        ))}
      </ListFrame>
    </>
  );
}

/** One post's webmentions. Memoized, as its rows and the sent ones: "Load more" appends a page,
 * and a reload brings unchanged items as the same objects (usePagedList), so only new or
 * changed ones are rendered again (e2e/list-memo.spec.ts). */
const ReceivedGroup = memo(function ReceivedGroup({ group }: { group: WebmentionGroupView }) {
  return (
    <section className="card card--flush webmention-group" data-testid="webmention-group" aria-label={group.post.excerpt}>
      <p className="webmention-group__post">
        {group.post.isDeleted ? t.deletedPost : t.onPost}{' '}
        <a href={hrefOf('thread', { ap: group.post.apId })}>{group.post.excerpt || group.post.apId}</a> ·{' '}
        {t.count(group.post.webmentionsCount)}
      </p>
      <GroupMentions group={group} />
    </section>
  );
});

/** A post's newest webmentions, and the rest a page at a time on request (a post may have
 * thousands). */
function GroupMentions({ group }: { group: WebmentionGroupView }) {
  const [more, setMore] = useState<{ mentions: ReceivedWebmentionView[]; cursor: string | null; busy: boolean; failed: boolean }>({
    mentions: [],
    cursor: group.moreCursor,
    busy: false,
    failed: false,
  });
  const mentions = [...group.mentions, ...more.mentions];
  const loadMore = async () => {
    setMore((m) => ({ ...m, busy: true, failed: false }));
    try {
      const page = await call('webmentions.ofPost', { postId: group.post.id, cursor: more.cursor, limit: PAGE });
      setMore((m) => ({ mentions: [...m.mentions, ...page.items], cursor: page.nextCursor, busy: false, failed: false }));
    } catch {
      setMore((m) => ({ ...m, busy: false, failed: true }));
    }
  };
  return (
    <>
      <ul className="webmention-list">
        {mentions.map((mention) => (
          <ReceivedRow key={mention.id} mention={mention} />
        ))}
      </ul>
      {more.cursor !== null && (
        <p className="webmention-group__more">
          <button type="button" className="button button--small button--quiet" onClick={() => void loadMore()} disabled={more.busy}>
            {t.showMore(Math.max(0, group.mentionsTotal - mentions.length))}
          </button>
          {more.failed && <span className="webmention__error"> {t.moreFailed}</span>}
        </p>
      )}
    </>
  );
}

const ReceivedRow = memo(function ReceivedRow({ mention }: { mention: ReceivedWebmentionView }) {
  const name = mention.author.name ?? (mention.author.url ? new URL(mention.author.url).host : new URL(mention.source).host);
  return (
    <li className="webmention" data-testid="webmention" data-state={mention.state} data-kind={mention.kind}>
      <Avatar name={name || t.someone} id={mention.author.url ?? mention.source} />
      <div className="webmention__head">
        <span className="webmention__name">{name || t.someone}</span>
        <span className="chip chip--quiet">{t.kind[mention.kind]}</span>
        <span className={`chip chip--${mention.state}`}>{t.state[mention.state]}</span>
        <span className="webmention__time">
          <RelativeTime iso={mention.changedAt ?? mention.receivedAt} />
        </span>
      </div>
      {mention.excerpt && <p className="webmention__excerpt">{mention.excerpt}</p>}
      <p className="webmention__facts">
        <a href={mention.source} target="_blank" rel="noopener noreferrer nofollow" title={t.openSource}>
          {mention.source}
        </a>
      </p>
    </li>
  );
});

function Sent() {
  const list = usePagedList<SentWebmentionView, string>(
    'webmentions:sent',
    'webmentions.sent',
    async (cursor) => {
      const page = await call('webmentions.sent', { cursor, limit: PAGE });
      return { items: page.items, next: page.nextCursor };
    },
    (row) => String(row.id),
  );
  return (
    <>
      <Bar tab="sent" list={list} />
      <ListFrame
        list={list}
        failed={t.loadFailed}
        empty={
          <EmptyState icon={<WebmentionIcon />} title={t.emptySent}>
            <p>{t.emptySentText}</p>
          </EmptyState>
        }
      >
        <ul className="card card--flush webmention-list">
          {list.items.map((row) => (
            <SentRow key={row.id} row={row} />
          ))}
        </ul>
      </ListFrame>
    </>
  );
}

const SentRow = memo(function SentRow({ row }: { row: SentWebmentionView }) {
  return (
    <li className="webmention" data-testid="sent-webmention" data-state={row.state}>
      <WebmentionIcon />
      <div className="webmention__head">
        <span className="webmention__name">
          {t.to} {row.target}
        </span>
        <span className={`chip chip--${row.state}`}>{t.sentState[row.state]}</span>
        <span className="webmention__time">
          <RelativeTime iso={row.createdAt} />
        </span>
      </div>
      <p className="webmention__facts">
        {t.from} <a href={hrefOf('thread', { ap: row.source })}>{row.source}</a>
        {row.endpoint && ` · ${t.endpoint} ${row.endpoint}`}
        {row.tries > 0 && ` · ${t.tries(row.tries)}`}
        {row.lastStatus !== null && ` · ${t.lastStatus(row.lastStatus)}`}
      </p>
      {row.error && row.state !== 'sent' && <p className="webmention__error">{row.error}</p>}
    </li>
  );
});
