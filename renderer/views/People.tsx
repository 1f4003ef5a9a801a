// People: those who follow the author, those the author follows, follows still waiting for an
// answer, and requests waiting for the author's — plus a lookup box (handle or URL) to find
// someone and follow them. Followers can be removed, follows undone, right in the list.
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import type { PeopleView, PersonView } from '../../electron/core/ipc/author-contract';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { EmojiText } from '../content/emoji';
import { ErrorState } from '../components/ErrorState';
import { BackIcon, PeopleIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ListSkeleton } from '../lists/ListParts';
import { FollowRequests } from '../notifications/FollowRequests';
import { Lookup } from '../people/Lookup';
import { goBack, hrefOf, type Route } from '../places';
import { useSettingsStore } from '../store/settings';
import { formatNumber, strings } from '../strings';

const t = strings.people;
const TABS = ['followers', 'following', 'pending', 'requests'] as const;
type Tab = (typeof TABS)[number];

export function People({ route }: { route: Route }) {
  const tabParam = route.params.get('tab');
  const tab: Tab = TABS.includes(tabParam as Tab) ? (tabParam as Tab) : 'followers';
  const handle = useSettingsStore((s) => s.settings?.handle ?? '');
  const [people, setPeople] = useState<PeopleView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  // Bumped by a row's removal: a list read before it (a reload still in flight) would bring the
  // removed person back, so it is read again instead of shown.
  const removals = useRef(0);
  const load = useCallback(async () => {
    for (;;) {
      const seen = removals.current;
      try {
        const list = await call('people.list', {});
        if (seen !== removals.current) continue;
        setPeople(list);
        setError(null);
      } catch (err) {
        setError(toApiError(err, 'people.list'));
      }
      return;
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  // Followers and followed people come a page at a time; the next page is appended here.
  const [loadingMore, setLoadingMore] = useState(false);
  const loadMore = useCallback(async (list: 'followers' | 'following') => {
    const cursor = people?.nextCursor[list];
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await call('people.page', { list, cursor });
      setPeople((current) => current && { ...current, [list]: [...current[list], ...page.items], nextCursor: { ...current.nextCursor, [list]: page.nextCursor } });
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'people.page'));
    } finally {
      setLoadingMore(false);
    }
  }, [people]);

  // A row's own change (a follower removed, a follow undone or withdrawn) takes that person out
  // of the list in place: the pages loaded stay, and so does the author's place in them.
  const removed = useCallback((list: Exclude<Tab, 'requests'>, apId: string) => {
    removals.current++;
    setPeople((current) => {
      if (!current) return current;
      const key = list === 'pending' ? 'pendingFollows' : list;
      const kept = current[key].filter((person) => person.actor.apId !== apId);
      if (kept.length === current[key].length) return current;
      const counts = list === 'pending' ? current.counts : { ...current.counts, [list]: Math.max(0, current.counts[list] - 1) };
      return { ...current, [key]: kept, counts };
    });
  }, []);

  const counts: Record<Tab, number | null> = {
    followers: people?.counts.followers ?? null,
    following: people?.counts.following ?? null,
    pending: people?.pendingFollows.length ?? null,
    requests: people?.requestCount ?? null,
  };

  return (
    <article className="view" aria-labelledby="people-title">
      <header className="view__header">
        <div>
          <h1 id="people-title">{t.title}</h1>
          <p className="view__lede">{t.lede}</p>
        </div>
        {/* Opened on someone (from a post, a notification, a search): back to where that was. */}
        {route.params.get('q') && (
          <button type="button" className="button button--quiet" onClick={goBack}>
            <BackIcon />
            <span>{strings.back}</span>
          </button>
        )}
      </header>
      <Lookup autoFocus={route.params.get('focus') === 'lookup'} initialQuery={route.params.get('q')} onChanged={() => void load()} />

      <nav className="tabs" aria-label={t.listsLabel}>
        {TABS.map((id) => (
          <a key={id} className="tabs__tab" href={hrefOf('people', { tab: id })} aria-current={id === tab ? 'page' : undefined}>
            {t.tabs[id]}
            {counts[id] !== null && <span className="tabs__count">{formatNumber(counts[id])}</span>}
          </a>
        ))}
      </nav>

      {error && <ErrorState context={t.loadFailed} error={error} onRetry={() => void load()} compact={people !== null} />}
      {tab === 'requests' ? (
        <FollowRequests showEmpty onAnswered={() => void load()} />
      ) : people ? (
        <>
          <PersonList tab={tab} people={people} handle={handle} onRemoved={removed} />
          {tab !== 'pending' && people.nextCursor[tab] && (
            <div className="load-more">
              <button type="button" className="button" onClick={() => void loadMore(tab)} disabled={loadingMore}>
                {loadingMore ? strings.loadingMore : strings.loadMore}
              </button>
            </div>
          )}
        </>
      ) : (
        !error && <ListSkeleton rows={3} kind="row" />
      )}
    </article>
  );
}

function PersonList({ tab, people, handle, onRemoved }: { tab: Exclude<Tab, 'requests'>; people: PeopleView; handle: string; onRemoved: RemovedHandler }) {
  const list = tab === 'followers' ? people.followers : tab === 'following' ? people.following : people.pendingFollows;
  // Every row loaded removed while more remain: not "no one" (Load more stays below).
  if (list.length === 0 && (tab === 'pending' || people.nextCursor[tab] === null)) {
    return (
      <EmptyState icon={<PeopleIcon />} title={t.empty[tab].title}>
        <p>{t.empty[tab].text(handle)}</p>
      </EmptyState>
    );
  }
  return (
    <ul className="card card--flush people-list" aria-label={t.tabs[tab]}>
      {list.map((person) => (
        // Keyed by the tab too: someone both following and followed has a row (its state: asking
        // to confirm, busy) of their own in each list.
        <PersonRow key={`${tab} ${person.actor.apId}`} person={person} tab={tab} onRemoved={onRemoved} />
      ))}
    </ul>
  );
}

type RemovedHandler = (list: Exclude<Tab, 'requests'>, apId: string) => void;

/** One person. Memoized: "Load more" appends a page, and the rows already shown (same person
 * objects, same stable handler) are not rendered again (e2e/list-memo.spec.ts). */
const PersonRow = memo(function PersonRow({ person, tab, onRemoved }: { person: PersonView; tab: Exclude<Tab, 'requests'>; onRemoved: RemovedHandler }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [confirming, setConfirming] = useState(false);
  const { actor } = person;

  async function act() {
    setBusy(true);
    setError(null);
    try {
      if (tab === 'followers') await call('social.removeFollower', { actorApId: actor.apId });
      else await call('social.unfollow', { actorApId: actor.apId });
      onRemoved(tab, actor.apId);
    } catch (err) {
      setError(toApiError(err, tab === 'followers' ? 'social.removeFollower' : 'social.unfollow'));
      setBusy(false);
    }
  }

  const label = tab === 'followers' ? t.remove : tab === 'following' ? t.unfollow : t.cancelRequest;
  return (
    <li className="person" data-testid="person">
      <Avatar name={actor.name} id={actor.apId} src={actor.iconSrc} />
      <div className="person__who">
        <a className="person__name" href={actor.url} target="_blank" rel="noopener noreferrer">
          <EmojiText text={actor.name} emojis={actor.emojis} />
        </a>
        <span className="person__handle">{actor.handle ?? actor.apId}</span>
        {actor.movedTo && <span className="person__meta">{t.movedTo(actor.movedTo)}</span>}
        <span className="person__meta">
          {t.since[tab]} <RelativeTime iso={person.since} />
        </span>
        {error && <span className="field__error">{error.message}</span>}
      </div>
      <div className="person__actions">
        {confirming ? (
          <>
            <button type="button" className="button button--danger button--small" onClick={() => void act()} disabled={busy}>
              {t.confirm[tab]}
            </button>
            <button type="button" className="button button--small" onClick={() => setConfirming(false)} autoFocus>
              {strings.cancel}
            </button>
          </>
        ) : (
          <button type="button" className="button button--small" onClick={() => setConfirming(true)} aria-label={`${label} ${actor.name}`}>
            {label}
          </button>
        )}
      </div>
    </li>
  );
});
