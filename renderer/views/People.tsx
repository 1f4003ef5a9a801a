// People: those who follow the author, those the author follows, follows still waiting for an
// answer, and requests waiting for the author's — plus a lookup box (handle or URL) to find
// someone and follow them. Followers can be removed, follows undone, right in the list.
// Followers and followed people are paged lists (lists/usePagedList.ts): an author followed by
// thousands keeps a window of them, not all.
import { useCallback, useEffect, useState } from 'react';
import type { PeopleView, PersonView } from '../../electron/core/ipc/author-contract';
import { call, toApiError, type ApiError } from '../api';
import { Avatar } from '../components/Avatar';
import { EmojiText } from '../content/emoji';
import { ErrorState } from '../components/ErrorState';
import { BackIcon, PeopleIcon } from '../components/icons';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ListFrame, ListSkeleton } from '../lists/ListParts';
import { usePagedList } from '../lists/usePagedList';
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

  const load = useCallback(async () => {
    try {
      setPeople(await call('people.list', {}));
      setError(null);
    } catch (err) {
      setError(toApiError(err, 'people.list'));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  // Someone followed from the lookup box: the paged lists ask again.
  const [lookups, setLookups] = useState(0);

  const counts: Record<Tab, number | null> = {
    followers: people?.counts.followers ?? null,
    following: people?.counts.following ?? null,
    pending: people?.pendingFollows.length ?? null,
    requests: people?.requests.length ?? null,
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
      <Lookup
        autoFocus={route.params.get('focus') === 'lookup'}
        initialQuery={route.params.get('q')}
        onChanged={() => {
          void load();
          setLookups((n) => n + 1);
        }}
      />

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
      ) : tab !== 'pending' ? (
        <PagedPeople key={tab} tab={tab} handle={handle} lookups={lookups} onChanged={() => void load()} />
      ) : people ? (
        <PersonList tab={tab} list={people.pendingFollows} handle={handle} onChanged={() => void load()} />
      ) : (
        !error && <ListSkeleton rows={3} kind="row" />
      )}
    </article>
  );
}

const PEOPLE_PAGE = 50;

/** Followers or followed people, a page at a time; a row removed goes at once. */
function PagedPeople({ tab, handle, lookups, onChanged }: { tab: 'followers' | 'following'; handle: string; lookups: number; onChanged: () => void }) {
  const list = usePagedList<PersonView, string>(
    `people:${tab}`,
    'people.page',
    async (cursor) => {
      const page = await call('people.page', { list: tab, cursor, limit: PEOPLE_PAGE });
      return { items: page.items, next: page.nextCursor };
    },
    (person) => person.actor.apId,
  );
  const { reload, update } = list;
  const [seenLookups] = useState(lookups);
  useEffect(() => {
    if (lookups !== seenLookups) reload();
  }, [lookups, seenLookups, reload]);
  const removed = useCallback(
    (person: PersonView) => {
      update((items) => items.filter((p) => p.actor.apId !== person.actor.apId));
      onChanged();
    },
    [update, onChanged],
  );
  return (
    <ListFrame
      list={list}
      failed={t.loadFailed}
      skeleton={<ListSkeleton rows={3} kind="row" />}
      empty={
        <EmptyState icon={<PeopleIcon />} title={t.empty[tab].title}>
          <p>{t.empty[tab].text(handle)}</p>
        </EmptyState>
      }
    >
      <ul className="card card--flush people-list" aria-label={t.tabs[tab]}>
        {list.items.map((person) => (
          <PersonRow key={person.actor.apId} person={person} tab={tab} onChanged={() => removed(person)} />
        ))}
      </ul>
    </ListFrame>
  );
}

function PersonList({ tab, list, handle, onChanged }: { tab: Exclude<Tab, 'requests'>; list: PersonView[]; handle: string; onChanged: () => void }) {
  if (list.length === 0) {
    return (
      <EmptyState icon={<PeopleIcon />} title={t.empty[tab].title}>
        <p>{t.empty[tab].text(handle)}</p>
      </EmptyState>
    );
  }
  return (
    <ul className="card card--flush people-list" aria-label={t.tabs[tab]}>
      {list.map((person) => (
        <PersonRow key={person.actor.apId} person={person} tab={tab} onChanged={onChanged} />
      ))}
    </ul>
  );
}

function PersonRow({ person, tab, onChanged }: { person: PersonView; tab: Exclude<Tab, 'requests'>; onChanged: () => void }) {
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
      onChanged();
    } catch (err) {
      setError(toApiError(err, tab === 'followers' ? 'social.removeFollower' : 'social.unfollow'));
      setBusy(false);
    }
  }

  const label = tab === 'followers' ? t.remove : tab === 'following' ? t.unfollow : t.cancelRequest;
  return (
    <li className="person" data-testid="person" data-list-key={person.actor.apId}>
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
}
